-- Each event sleeps a uniformly random number of milliseconds between
-- --jitter_min_ms and --jitter_max_ms: a wider latency spread than
-- sleepy.lua's, for the percentile charts.
sysbench.cmdline.options = {
  jitter_min_ms = {"Shortest sleep of an event, in milliseconds", 1},
  jitter_max_ms = {"Longest sleep of an event, in milliseconds", 5},
}

ffi.cdef("int usleep(unsigned int);")

function event()
  local ms = sysbench.rand.uniform(sysbench.opt.jitter_min_ms, sysbench.opt.jitter_max_ms)
  ffi.C.usleep(ms * 1000)
end
