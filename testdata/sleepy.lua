-- Each event sleeps for --sleep_ms milliseconds.
sysbench.cmdline.options = {
  sleep_ms = {"Milliseconds each event sleeps", 1},
}

ffi.cdef("int usleep(unsigned int);")

function event()
  ffi.C.usleep(sysbench.opt.sleep_ms * 1000)
end
