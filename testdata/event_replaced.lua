-- oltp_point_select whose first event, a Lua function, calls the bundled
-- Go event (the by-id runner, which oltp_point_select's thread_init makes
-- the event and which runs no Lua code itself) and then replaces event by
-- another Lua function that calls the runner too. Each worker prints how
-- often each of the two ran.
require("oltp_point_select")

local point_select_thread_init = thread_init
local runner
local first_calls, then_calls = 0, 0

local function then_event()
  then_calls = then_calls + 1
  runner()
end

local function first_event()
  first_calls = first_calls + 1
  runner()
  event = then_event
end

function thread_init()
  point_select_thread_init()
  runner = event
  event = first_event
end

function thread_done()
  print(string.format("event_replaced: %d first, %d then", first_calls, then_calls))
end
