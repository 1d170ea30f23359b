-- event() fails on its third call in each thread.
local calls = 0
function event()
  calls = calls + 1
  if calls == 3 then
    error("boom in event")
  end
end
