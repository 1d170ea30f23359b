-- Two threads update the same two rows in opposite orders inside a
-- transaction, pausing between the updates: they deadlock (1213) or time
-- out on a lock (1205), both in the default --mysql-ignore-errors list, so
-- events restart and the run goes on. Every committed transaction adds 1
-- to both rows, so afterwards both rows equal the number of transactions.
ffi.cdef("int usleep(unsigned int);")

local function connect()
  drv = sysbench.sql.driver()
  con = drv:connect()
end

function prepare()
  connect()
  con:query("DROP TABLE IF EXISTS sbgo_deadlock")
  con:query("CREATE TABLE sbgo_deadlock (id INT PRIMARY KEY, v INT NOT NULL) ENGINE=InnoDB")
  con:query("INSERT INTO sbgo_deadlock VALUES (1, 0), (2, 0)")
end

function cleanup()
  connect()
  con:query("DROP TABLE IF EXISTS sbgo_deadlock")
end

function thread_init()
  connect()
  con:query("SET SESSION innodb_lock_wait_timeout = 1")
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
