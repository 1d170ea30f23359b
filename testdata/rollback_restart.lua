-- Each event adds 1 to a counter inside a transaction; on every odd
-- attempt it also inserts a duplicate key (MySQL 1062, PostgreSQL 23505)
-- before its COMMIT. Run with that error in --mysql-ignore-errors or
-- --pgsql-ignore-errors, the failed attempt restarts the event. The
-- statement error leaves the transaction open with the UPDATE done, so
-- unless the driver rolls back before the restart, the retry's BEGIN
-- commits it (MySQL) and the counter ends at twice the event count.

local function connect()
  drv = sysbench.sql.driver()
  con = drv:connect()
end

function prepare()
  connect()
  con:query("DROP TABLE IF EXISTS sbgo_rollback")
  con:query("CREATE TABLE sbgo_rollback (id INT PRIMARY KEY, v INT NOT NULL)")
  con:query("INSERT INTO sbgo_rollback VALUES (1, 0)")
end

function cleanup()
  connect()
  con:query("DROP TABLE IF EXISTS sbgo_rollback")
end

function thread_init()
  connect()
end

local attempts = 0

function event()
  attempts = attempts + 1
  con:query("BEGIN")
  con:query("UPDATE sbgo_rollback SET v = v + 1 WHERE id = 1")
  if attempts % 2 == 1 then
    con:query("INSERT INTO sbgo_rollback VALUES (1, 0)")
  end
  con:query("COMMIT")
end

function done()
  connect()
  print("counter: " .. con:query_row("SELECT v FROM sbgo_rollback WHERE id = 1"))
end
