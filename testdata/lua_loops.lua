-- The bundled oltp_read_write with sysbench.rand.default replaced by a Lua
-- function that calls the built-in one. oltp_common then runs its Lua
-- statement and prepare loops instead of stmt:_execute_random and
-- con:_bulk_insert_random_rows, drawing the same numbers, so that with
-- one --rand-seed both issue the same statements. The first call in each
-- Lua state prints a line, which tells the tests that the loops ran.
require("oltp_read_write")

local builtin_default = sysbench.rand.default
local announced = false
sysbench.rand.default = function(a, b)
  if not announced then
    announced = true
    print("lua_loops: the replaced sysbench.rand.default runs")
  end
  return builtin_default(a, b)
end
