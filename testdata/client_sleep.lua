-- Each event of client N (--client-id, or JOB_COMPLETION_INDEX) sleeps
-- --sleep_ms times 5^N milliseconds: the clients of a multi-client run
-- have latencies known in advance.
sysbench.cmdline.options = {
  sleep_ms = {"Milliseconds each event of client 0 sleeps", 2},
}

ffi.cdef("int usleep(unsigned int);")

local us

function thread_init()
  us = sysbench.opt.sleep_ms * 1000 * 5 ^ tonumber(sysbench.opt.client_id)
end

function event()
  ffi.C.usleep(us)
end
