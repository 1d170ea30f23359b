-- A script that replaces the event loop.
function thread_run(tid)
  print("custom thread_run in thread " .. tid)
end

function event()
end
