-- oltp_point_select: each event is a single primary-key SELECT, outside
-- any explicit transaction.

require("oltp_common")

-- What event() calls, as upvalues rather than global lookups per event.
local sb, execute_point_selects, check_reconnect = sysbench, execute_point_selects, check_reconnect

function prepare_statements()
  -- One SELECT per event, whatever --point_selects says.
  sysbench.opt.point_selects = 1
  prepare_point_selects()
end

function event()
  execute_point_selects()
  -- check_reconnect() does nothing without --reconnect: skip the call.
  if sb.opt.reconnect > 0 then
    check_reconnect()
  end
end
