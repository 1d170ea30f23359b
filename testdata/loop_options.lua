-- oltp_write_only whose thread_init, before the bundled one runs, sets
-- --non_index_updates to 3 and --delete_inserts to 2 and replaces
-- sysbench.rand.default by a Lua function that counts its calls and calls
-- the built-in one. oltp_common's execute_non_index_updates and
-- execute_delete_inserts read them at their first call, after
-- thread_init. Each worker prints how often the replaced function ran.
require("oltp_write_only")

local write_only_thread_init, common_thread_done = thread_init, thread_done
local calls = 0

function thread_init()
  sysbench.opt.non_index_updates = 3
  sysbench.opt.delete_inserts = 2
  local builtin = sysbench.rand.default
  sysbench.rand.default = function(a, b)
    calls = calls + 1
    return builtin(a, b)
  end
  write_only_thread_init()
end

function thread_done()
  print(string.format("loop_options: %d calls", calls))
  common_thread_done()
end
