-- Two threads update the same two rows in opposite orders inside a
-- transaction, pausing between the updates: they deadlock (MySQL 1213,
-- PostgreSQL 40P01) or time out on a lock (MySQL 1205), all in the
-- drivers' default ignore lists, so events restart and the run goes on. Every committed transaction adds 1
-- to both rows, so afterwards both rows equal the number of transactions.
ffi.cdef("int usleep(unsigned int);")

local function connect()
  drv = sysbench.sql.driver()
  con = drv:connect()
end

function prepare()
  connect()
  con:query("DROP TABLE IF EXISTS sbgo_deadlock")
  local engine = drv:name() == "mysql" and " ENGINE=InnoDB" or ""
  con:query("CREATE TABLE sbgo_deadlock (id INT PRIMARY KEY, v INT NOT NULL)" .. engine)
  con:query("INSERT INTO sbgo_deadlock VALUES (1, 0), (2, 0)")
end

function cleanup()
  connect()
  con:query("DROP TABLE IF EXISTS sbgo_deadlock")
end

function thread_init()
  connect()
  if drv:name() == "mysql" then
    con:query("SET SESSION innodb_lock_wait_timeout = 1")
  end
end

function event(tid)
  local first, second = 1, 2
  if tid % 2 == 1 then first, second = 2, 1 end
  con:query("BEGIN")
  con:query("UPDATE sbgo_deadlock SET v = v + 1 WHERE id = " .. first)
  ffi.C.usleep(50000)
  con:query("UPDATE sbgo_deadlock SET v = v + 1 WHERE id = " .. second)
  con:query("COMMIT")
end

function done()
  connect()
  local a = con:query_row("SELECT v FROM sbgo_deadlock WHERE id = 1")
  local b = con:query_row("SELECT v FROM sbgo_deadlock WHERE id = 2")
  print("rows: " .. a .. " " .. b)
end
