-- The bundled oltp_read_write with sysbench.rand.default replaced by a Lua
-- function that calls the built-in one. oltp_common then runs its Lua
-- statement loops instead of stmt:_execute_random, drawing the same ids,
-- so that with one --rand-seed both issue the same statements.
require("oltp_read_write")

local builtin_default = sysbench.rand.default
sysbench.rand.default = function(a, b)
  return builtin_default(a, b)
end
