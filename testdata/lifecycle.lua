-- Prints from every callback, to compare the order of calls.
print("top level, tid " .. sysbench.tid)

sysbench.cmdline.options = {
  flag = {"A flag", false},
}

sysbench.cmdline.commands = {
  custom = {function() print("custom command, tid " .. sysbench.tid) end},
}

function init() print("init, tid " .. sysbench.tid .. ", arg " .. tostring(thread_id == nil)) end
function done() print("done, tid " .. sysbench.tid) end
function prepare() print("prepare, tid " .. sysbench.tid) end
function cleanup() print("cleanup, tid " .. sysbench.tid) end
function help() print("help, tid " .. sysbench.tid) end
function thread_init(tid) print("thread_init, tid " .. tid) end
function thread_done(tid) print("thread_done, tid " .. tid) end
function event(tid)
  print("event, tid " .. tid)
  return true -- stops this thread after one call, uncounted
end
