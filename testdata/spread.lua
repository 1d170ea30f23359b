-- A known spread of event latencies, each also measured by the event.
--
-- Thread t's n-th event (n from 0) sleeps
--   spread_min_ms + (n * threads + t) % spread_ms
-- milliseconds, so the threads together go through every duration of the
-- spread. Each event reads the monotonic clock (the one the engine times
-- events with; the wall clock may be stepped) right before and after its
-- sleep.
-- When the thread ends it prints one line "lat_us <microseconds>" per
-- event: printing afterwards keeps output out of the timed events, so the
-- engine's latency of an event exceeds the script's own figure only by
-- the call into event() and back. A test compares the percentiles the
-- engine reports with the exact ones of the printed figures.
sysbench.cmdline.options = {
  spread_min_ms = {"Shortest sleep of an event, in milliseconds", 50},
  spread_ms = {"Number of distinct sleeps, one millisecond apart", 400},
}

ffi.cdef[[
typedef struct timespec { long tv_sec; long tv_nsec; } timespec;
int clock_gettime(int clk_id, struct timespec *tp);
int usleep(unsigned int usec);
]]

local CLOCK_MONOTONIC = 1
local before, after = ffi.new("struct timespec"), ffi.new("struct timespec")
local n, lat_us = 0, {}

local function us(ts)
  return tonumber(ts.tv_sec) * 1000000 + math.floor(tonumber(ts.tv_nsec) / 1000)
end

function event()
  ffi.C.clock_gettime(CLOCK_MONOTONIC, before)
  local o = sysbench.opt
  ffi.C.usleep((o.spread_min_ms + (n * o.threads + sysbench.tid) % o.spread_ms) * 1000)
  ffi.C.clock_gettime(CLOCK_MONOTONIC, after)
  n = n + 1
  lat_us[n] = us(after) - us(before)
end

function thread_done()
  for i = 1, n do
    io.write("lat_us ", lat_us[i], "\n")
  end
end
