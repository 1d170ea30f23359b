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

-- reconnects says whether --reconnect is on, read from sysbench.opt at
-- the first event: check_reconnect() does nothing without it, so the
-- call and its lookups are skipped.
local reconnects

function event()
  execute_point_selects()
  if reconnects == nil then
    reconnects = sb.opt.reconnect > 0
  end
  if reconnects then
    check_reconnect()
  end
end
