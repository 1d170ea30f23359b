-- Lua-only work per event: random numbers, random strings, formatting.
local template = "###########-###########-@@@@@@@@@@@"

function event()
  local n = 0
  for i = 1, 5 do
    local id = sysbench.rand.default(1, 100000)
    local u = sysbench.rand.uniform(1, 10)
    local q = string.format("SELECT c FROM sbtest%u WHERE id=%d AND k=%i", u, id, i)
    n = n + #q
  end
  local s = sysbench.rand.string(template)
  n = n + #s + #tostring(sysbench.rand.uniform_double())
  return n < 0 -- never true: keeps running
end
