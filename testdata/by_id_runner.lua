-- oltp_point_select with, per --replace, sysbench.rand.uniform or
-- sysbench.rand.default replaced by a Lua function that counts its calls
-- and calls the built-in one, and with --break, stmt[1].point_selects
-- replaced by a string after the statements are prepared. Each worker
-- prints how often the replaced function ran.
require("oltp_point_select")

sysbench.cmdline.options.replace = {"sysbench.rand function to replace: uniform, default or none", "none"}
sysbench.cmdline.options["break"] = {"Replace stmt[1].point_selects by a string", false}

local point_select_thread_init, common_thread_done = thread_init, thread_done
local calls = 0

function thread_init()
  local which = sysbench.opt.replace
  if which ~= "none" then
    local builtin = sysbench.rand[which]
    sysbench.rand[which] = function(a, b)
      calls = calls + 1
      return builtin(a, b)
    end
  end
  point_select_thread_init()
  if sysbench.opt["break"] then
    stmt[1].point_selects:close()
    stmt[1].point_selects = "not a statement"
  end
end

function thread_done()
  print(string.format("by_id_runner: %s replaced, %d calls", sysbench.opt.replace, calls))
  if not sysbench.opt["break"] then
    common_thread_done()
  end
end
