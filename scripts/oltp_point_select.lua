-- oltp_point_select: each event is a single primary-key SELECT, outside
-- any explicit transaction.

require("oltp_common")

-- What event() and thread_init call, as upvalues rather than global
-- lookups per call.
local sb, execute_point_selects, check_reconnect = sysbench, execute_point_selects, check_reconnect
local common_thread_init = thread_init

function prepare_statements()
  -- One SELECT per event, whatever --point_selects says.
  sysbench.opt.point_selects = 1
  prepare_point_selects()
end

function event()
  execute_point_selects()
  check_reconnect()
end

-- Without --reconnect an event is nothing but execute_point_selects(), so
-- the worker runs that as its event (the engine looks event up before
-- every call), and, that function being in Go (see oltp_common), an event
-- runs no Lua at all. One interpreter call less per event alone gave 3-5 %
-- more point selects per second at 2 threads on 2 CPUs, where the
-- client's own work is a large part of a round trip.
function thread_init()
  common_thread_init()
  if sb.opt.reconnect == 0 then
    event = execute_point_selects
  end
end
