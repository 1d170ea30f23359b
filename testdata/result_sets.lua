-- Result sets as scripts read them, on both paths of a driver: a prepared
-- statement's rows and a text query's. Each statement closes the result
-- before it: a handle kept from then on reads nothing, and never the rows
-- of the statement that closed it.
local function show(label, rs)
  if rs == nil then
    print(label, "no result")
    return
  end
  local row = rs:fetch_row()
  while row ~= nil do
    print(label, unpack(row, 1, rs.nfields))
    row = rs:fetch_row()
  end
  print(label, "end")
end

function event()
  local con = sysbench.sql.driver():connect()
  local s = con:prepare("SELECT ? + 0 AS a, 'x' AS b UNION ALL SELECT ? + 1, NULL")
  local p1 = s:bind_create(sysbench.sql.type.INT)
  local p2 = s:bind_create(sysbench.sql.type.INT)
  s:bind_param(p1, p2)

  p1:set(10)
  p2:set(20)
  local first = s:execute()
  print("first", unpack(first:fetch_row(), 1, first.nfields))
  p1:set(30)
  p2:set(40)
  local second = s:execute()
  show("first again", first)
  show("second", second)
  show("second again", second)

  local q = con:query("SELECT 7, 'seven'")
  show("first after query", first)
  show("query", q)
  p1:set(50)
  p2:set(60)
  show("third", s:execute())
  show("query again", q)

  s:close()
  con:disconnect()
end
