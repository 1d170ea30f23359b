-- oltp_common's begin(), commit() and execute_point_selects() on statements
-- this script prepares itself, without oltp_common's prepare_* functions.
-- With --lua_loops, sysbench.rand.default is replaced, so that oltp_common
-- runs its Lua statement loops.
require("oltp_common")

sysbench.cmdline.options.lua_loops = {"Replace sysbench.rand.default", false}

function prepare_statements()
  if sysbench.opt.lua_loops then
    local builtin_default = sysbench.rand.default
    sysbench.rand.default = function(a, b) return builtin_default(a, b) end
  end
  stmt.begin = con:prepare("BEGIN")
  stmt.commit = con:prepare("COMMIT")
  for t = 1, sysbench.opt.tables do
    local s = con:prepare(string.format("SELECT c FROM sbtest%d WHERE id=?", t))
    local id = s:bind_create(sysbench.sql.type.INT)
    s:bind_param(id)
    stmt[t].point_selects = s
    param[t].point_selects = {id}
  end
end

function event()
  begin()
  execute_point_selects()
  commit()
end
