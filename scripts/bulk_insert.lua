-- bulk_insert: measures multi-row INSERT throughput. Each thread appends
-- rows (n, n), n = 1, 2, 3, ..., to its own table sbtest<thread + 1>
-- through the driver's bulk insert, which sends one INSERT whenever the
-- statement reaches 512 KiB and the rest when the thread ends; only those
-- INSERTs count as queries.
--
-- The script declares no options, so it accepts any option, and prepare
-- and cleanup work on --threads tables.

local TABLE_DDL = "CREATE TABLE IF NOT EXISTS sbtest%d (\n" ..
  "          id INTEGER NOT NULL,\n" ..
  "          k INTEGER DEFAULT '0' NOT NULL,\n" ..
  "          PRIMARY KEY (id))"

function prepare()
  local con = sysbench.sql.driver():connect()
  for t = 1, sysbench.opt.threads do
    print(string.format("Creating table 'sbtest%d'...", t))
    con:query(string.format(TABLE_DDL, t))
  end
  con:disconnect()
end

local con
local rows_added = 0

function thread_init()
  con = sysbench.sql.driver():connect()
end

function event()
  if rows_added == 0 then
    con:bulk_insert_init(string.format("INSERT INTO sbtest%d VALUES", sysbench.tid + 1))
  end
  rows_added = rows_added + 1
  con:bulk_insert_next(string.format("(%d,%d)", rows_added, rows_added))
end

function thread_done()
  if rows_added > 0 then
    con:bulk_insert_done()
  end
  con:disconnect()
end

function cleanup()
  local con = sysbench.sql.driver():connect()
  for t = 1, sysbench.opt.threads do
    print(string.format("Dropping table 'sbtest%d'...", t))
    con:query(string.format("DROP TABLE IF EXISTS sbtest%d", t))
  end
  con:disconnect()
end
