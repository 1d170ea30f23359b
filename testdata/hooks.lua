-- Report hooks replacing the built-in intermediate and final reports.
function event()
  local s = 0
  for i = 1, 100 do s = s + i end
end

sysbench.hooks.report_intermediate = function(stat)
  print(string.format("interval %.0f: threads=%u events>0=%s",
    stat.time_total, stat.threads_running, tostring(stat.events > 0)))
end

sysbench.hooks.report_cumulative = function(stat)
  print(string.format("final: threads=%u events>0=%s avg<=max=%s queries=%d",
    stat.threads_running, tostring(stat.events > 0),
    tostring(stat.latency_avg <= stat.latency_max),
    stat.reads + stat.writes + stat.other))
end
