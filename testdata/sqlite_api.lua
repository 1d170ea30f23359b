-- The SQL API of docs/lua-api.md on the sqlite driver: a custom
-- transaction mix with text queries, prepared statements with bound
-- parameters, and result sets read row by row. prepare creates and fills
-- a table, run moves amounts between accounts, cleanup checks that the
-- total is unchanged and drops the table.

sysbench.cmdline.options = {
  accounts = {"Number of accounts", 20},
}

function prepare()
  local drv = sysbench.sql.driver()
  local con = drv:connect()
  print("driver: " .. drv:name())
  con:query("CREATE TABLE accounts (id INTEGER PRIMARY KEY, owner VARCHAR(20) NOT NULL, balance INTEGER NOT NULL)")
  local ins = con:prepare("INSERT INTO accounts (id, owner, balance) VALUES (?, ?, ?)")
  local id = ins:bind_create(sysbench.sql.type.INT)
  local owner = ins:bind_create(sysbench.sql.type.VARCHAR, 20)
  local balance = ins:bind_create(sysbench.sql.type.INT)
  ins:bind_param(id, owner, balance)
  for i = 1, sysbench.opt.accounts do
    id:set(i)
    owner:set(string.format("o'wner %d", i))
    balance:set(100)
    ins:execute()
  end
  ins:close()
  local rs = con:query("SELECT count(*), sum(balance), min(owner) FROM accounts")
  local row = rs:fetch_row()
  print(string.format("rows=%d nfields=%d count=%s sum=%s min=%s", rs.nrows, rs.nfields, row[1], row[2], row[3]))
  con:disconnect()
end

function thread_init()
  con = sysbench.sql.driver():connect()
  begin = con:prepare("BEGIN IMMEDIATE")
  move = con:prepare("UPDATE accounts SET balance = balance + ? WHERE id = ?")
  amount = move:bind_create(sysbench.sql.type.INT)
  target = move:bind_create(sysbench.sql.type.INT)
  move:bind_param(amount, target)
  read = con:prepare("SELECT id, balance FROM accounts WHERE id IN (?, ?) ORDER BY id")
  a = read:bind_create(sysbench.sql.type.INT)
  b = read:bind_create(sysbench.sql.type.INT)
  read:bind_param(a, b)
end

function event()
  local n = sysbench.opt.accounts
  local from = sysbench.rand.uniform(1, n)
  local to = from % n + 1
  begin:execute()
  a:set(from)
  b:set(to)
  local rs = read:execute()
  local rows = 0
  for _ = 1, rs.nrows do
    local row = rs:fetch_row()
    assert(tonumber(row[1]) ~= nil and tonumber(row[2]) ~= nil)
    rows = rows + 1
  end
  assert(rows == 2, "read " .. rows .. " rows")
  amount:set(-7)
  target:set(from)
  move:execute()
  amount:set(7)
  target:set(to)
  move:execute()
  con:query("COMMIT")
end

function thread_done()
  con:disconnect()
end

function cleanup()
  local con = sysbench.sql.driver():connect()
  local count, sum = con:query_row("SELECT count(*), sum(balance) FROM accounts")
  print(string.format("count=%s sum=%s", count, sum))
  local rs = con:query("SELECT owner FROM accounts WHERE id <= 2 ORDER BY id")
  local row = rs:fetch_row()
  while row ~= nil do
    print(row[1])
    row = rs:fetch_row()
  end
  con:query("DROP TABLE accounts")
  con:disconnect()
end
