-- oltp_point_select: each event is a single primary-key SELECT, outside
-- any explicit transaction.

require("oltp_common")

-- What event() calls, as upvalues rather than global lookups per event.
local execute_point_selects, check_reconnect = execute_point_selects, check_reconnect

function prepare_statements()
  -- One SELECT per event, whatever --point_selects says.
  sysbench.opt.point_selects = 1
  prepare_point_selects()
end

function event()
  execute_point_selects()
  check_reconnect()
end
