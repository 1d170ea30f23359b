-- pgbench_tpcb: the load of PostgreSQL's pgbench, on PostgreSQL, on
-- MySQL/MariaDB and on SQLite, so that a study that pairs sysbench with
-- pgbench runs both with one tool and one set of reports.
--
--   prepare  pgbench -i: the four pgbench_* tables, their row counts per
--            --scale, column types, fillers and primary keys; parallel
--            over --threads
--   run      one event is one pgbench transaction of --pgbench_mode
--   check    the consistency pgbench's transaction keeps: the sums of
--            account, teller and branch balances and of history deltas
--            are equal
--   cleanup  drops the tables
--
-- The statements are pgbench's built-in scripts. With --db-ps-mode=auto
-- they are prepared as with pgbench -M prepared, with
-- --db-ps-mode=disable sent as text as with -M simple.

if sysbench.cmdline.command == nil then
  error("Command is required. Supported commands: prepare, run, check, cleanup, help")
end

sysbench.cmdline.options = {
  scale = {"Scale factor: 1 branch, 10 tellers and 100000 accounts per unit (pgbench -s)", 1},
  fillfactor = {"Fill factor of pgbench_branches, pgbench_tellers and pgbench_accounts, " ..
    "PostgreSQL only (pgbench -F)", 100},
  pgbench_mode = {"Transaction of an event: tpcb (pgbench's default), " ..
    "simple-update (pgbench -N) or select-only (pgbench -S)", "tpcb"},
}

local BRANCH_TELLERS, BRANCH_ACCOUNTS = 10, 100000

-- scale returns --scale, checked, and the number of branches, tellers
-- and accounts it makes.
local function scale()
  local s = sysbench.opt.scale
  if s < 1 or s % 1 ~= 0 then
    error(string.format("--scale must be a whole number of at least 1, not %s", tostring(s)))
  end
  return s, s * BRANCH_TELLERS, s * BRANCH_ACCOUNTS
end

local MODES = {tpcb = true, ["simple-update"] = true, ["select-only"] = true}

local function mode()
  local m = sysbench.opt.pgbench_mode
  if not MODES[m] then
    error(string.format("--pgbench_mode must be tpcb, simple-update or select-only, not '%s'", tostring(m)))
  end
  return m
end

---------------------------------------------------------------------------
-- Schema and commands
---------------------------------------------------------------------------

-- The tables in pgbench -i's order, with pgbench's columns. %s in
-- history is the timestamp type, in accounts the type of aid (bigint from
-- scale 20000 on, where int would overflow, as in pgbench). key is the
-- primary key, which history has none of.
local TABLES = {
  {name = "pgbench_history",
   columns = "tid int, bid int, aid %s, delta int, mtime %s, filler char(22)"},
  {name = "pgbench_tellers", key = "tid",
   columns = "tid int not null, bid int, tbalance int, filler char(84)"},
  {name = "pgbench_accounts", key = "aid",
   columns = "aid %s not null, bid int, abalance int, filler char(84)"},
  {name = "pgbench_branches", key = "bid",
   columns = "bid int not null, bbalance int, filler char(88)"},
}

-- create_tables drops and creates the four tables. On PostgreSQL the
-- primary keys come after the load, as in pgbench, and --fillfactor is
-- a storage parameter. On MySQL the key is declared with the table:
-- InnoDB stores rows in primary-key order, so a key added later would
-- rebuild the table; InnoDB has no per-table fill factor. SQLite, which
-- cannot add a primary key to a table, declares it as MySQL does.
local function create_tables(con, pg)
  local fillfactor = sysbench.opt.fillfactor
  if fillfactor < 10 or fillfactor > 100 then
    error(string.format("--fillfactor must be between 10 and 100, not %s", tostring(fillfactor)))
  end
  local _, _, accounts = scale()
  local aid_type = accounts >= 2 ^ 31 and "bigint" or "int"
  for _, t in ipairs(TABLES) do
    con:query("DROP TABLE IF EXISTS " .. t.name)
  end
  for _, t in ipairs(TABLES) do
    print(string.format("Creating table '%s'...", t.name))
    local columns
    if t.name == "pgbench_history" then
      columns = string.format(t.columns, aid_type, pg and "timestamp" or "datetime")
    else
      columns = string.format(t.columns, aid_type)
    end
    local ddl = "CREATE TABLE " .. t.name .. " (" .. columns
    if not pg and t.key ~= nil then
      ddl = ddl .. ", PRIMARY KEY (" .. t.key .. ")"
    end
    ddl = ddl .. ")"
    if pg and t.key ~= nil then
      ddl = ddl .. string.format(" WITH (fillfactor = %d)", fillfactor)
    end
    con:query(ddl)
  end
end

-- insert_rows adds rows first..last through one multi-row INSERT, each
-- row written by row(i).
local function insert_rows(con, prefix, first, last, row)
  if first > last then
    return
  end
  local next_row = con.bulk_insert_next
  con:bulk_insert_init(prefix)
  for i = first, last do
    next_row(con, row(i))
  end
  con:bulk_insert_done()
end

-- insert_small fills branches and tellers, with balances 0 and NULL
-- fillers as pgbench writes them.
local function insert_small(con)
  local branches, tellers = scale()
  local format, floor = string.format, math.floor
  print(string.format("Inserting %d records into 'pgbench_branches'", branches))
  insert_rows(con, "INSERT INTO pgbench_branches (bid, bbalance) VALUES", 1, branches,
    function(bid) return format("(%d,0)", bid) end)
  print(string.format("Inserting %d records into 'pgbench_tellers'", tellers))
  insert_rows(con, "INSERT INTO pgbench_tellers (tid, bid, tbalance) VALUES", 1, tellers,
    function(tid) return format("(%d,%d,0)", tid, floor((tid - 1) / BRANCH_TELLERS) + 1) end)
end

-- insert_accounts fills this thread's share of pgbench_accounts: of
-- --threads equal runs of aids, the one of its tid. The filler is empty,
-- as pgbench's (blank-padded by char(84)). PostgreSQL generates the rows
-- itself, as pgbench -I G has it do: its parser takes several times
-- longer over a row of a multi-row INSERT than the server takes to make
-- one. MySQL gets multi-row INSERTs.
local function insert_accounts(con, pg, tid, threads)
  local _, _, accounts = scale()
  local first = math.floor(accounts * tid / threads) + 1
  local last = math.floor(accounts * (tid + 1) / threads)
  if tid == 0 then
    print(string.format("Inserting %d records into 'pgbench_accounts'", accounts))
  end
  if pg then
    con:query(string.format("INSERT INTO pgbench_accounts (aid, bid, abalance, filler) " ..
      "SELECT aid, (aid - 1) / %d + 1, 0, '' FROM generate_series(%d, %d) AS aid",
      BRANCH_ACCOUNTS, first, last))
    return
  end
  local format, floor = string.format, math.floor
  insert_rows(con, "INSERT INTO pgbench_accounts (aid, bid, abalance, filler) VALUES", first, last,
    function(aid) return format("(%d,%d,0,'')", aid, floor((aid - 1) / BRANCH_ACCOUNTS) + 1) end)
end

-- finish_tables does what pgbench -i does after the load, table by table,
-- each table in one thread: vacuum and analyze (ANALYZE TABLE on MySQL,
-- ANALYZE on SQLite), then the primary key on PostgreSQL.
local function finish_tables(con, pg, tid, threads)
  for i, t in ipairs(TABLES) do
    if (i - 1) % threads == tid then
      if pg then
        con:query("VACUUM ANALYZE " .. t.name)
        if t.key ~= nil then
          print(string.format("Creating a primary key on '%s'...", t.name))
          con:query(string.format("ALTER TABLE %s ADD PRIMARY KEY (%s)", t.name, t.key))
        end
      elseif sysbench.sql.driver():name() == "sqlite" then
        con:query("ANALYZE " .. t.name)
      else
        con:query("ANALYZE TABLE " .. t.name)
      end
    end
  end
end

-- cmd_prepare runs in every --threads thread, in three phases separated
-- by barriers: thread 0 creates the tables and fills the small ones, all
-- threads load accounts, then the tables are finished in parallel.
function cmd_prepare()
  local drv = sysbench.sql.driver()
  local pg = drv:name() == "pgsql"
  local tid, threads = sysbench.tid, sysbench.opt.threads
  local barrier = sysbench.cmdline.barrier
  local con = drv:connect()
  if tid == 0 then
    create_tables(con, pg)
    insert_small(con)
  end
  if not barrier() then
    error("another prepare thread failed")
  end
  insert_accounts(con, pg, tid, threads)
  if not barrier() then
    error("another prepare thread failed")
  end
  finish_tables(con, pg, tid, threads)
  con:disconnect()
end

-- The sums check compares, by mode: simple-update leaves tellers and
-- branches alone.
local SUMS = {
  {"account balances", "SELECT COALESCE(SUM(abalance), 0) FROM pgbench_accounts"},
  {"history deltas", "SELECT COALESCE(SUM(delta), 0) FROM pgbench_history"},
  {"teller balances", "SELECT COALESCE(SUM(tbalance), 0) FROM pgbench_tellers"},
  {"branch balances", "SELECT COALESCE(SUM(bbalance), 0) FROM pgbench_branches"},
}

-- cmd_check verifies that every transaction applied all its changes or
-- none: pgbench's transaction adds one delta to an account, a teller and
-- a branch and records it in history, so the four sums stay equal. On a
-- mismatch it prints one line with the sums and exits 1.
function cmd_check()
  local count = mode() == "simple-update" and 2 or 4
  local con = sysbench.sql.driver():connect()
  local sums, parts, same = {}, {}, true
  for i = 1, count do
    sums[i] = tonumber((con:query_row(SUMS[i][2])))
    parts[i] = string.format("%s %.0f", SUMS[i][1], sums[i])
    same = same and sums[i] == sums[1]
  end
  con:disconnect()
  if not same then
    print("check failed: the sums differ: " .. table.concat(parts, ", "))
    return false
  end
  print(string.format("check passed: the sums of %s are all %.0f",
    table.concat({SUMS[1][1], SUMS[2][1], SUMS[3][1], SUMS[4][1]}, ", ", 1, count), sums[1]))
end

sysbench.cmdline.commands = {
  prepare = {cmd_prepare, sysbench.cmdline.PARALLEL_COMMAND},
  check = {cmd_check},
}

function cleanup()
  local con = sysbench.sql.driver():connect()
  for _, t in ipairs(TABLES) do
    print(string.format("Dropping table '%s'...", t.name))
    con:query("DROP TABLE IF EXISTS " .. t.name)
  end
  con:disconnect()
end

---------------------------------------------------------------------------
-- Transactions
---------------------------------------------------------------------------

-- The statements of pgbench's built-in scripts, with the values each
-- binds, in order.
local STATEMENTS = {
  begin = {sql = "BEGIN", params = {}},
  update_account = {sql = "UPDATE pgbench_accounts SET abalance = abalance + ? WHERE aid = ?",
    params = {"delta", "aid"}},
  select_account = {sql = "SELECT abalance FROM pgbench_accounts WHERE aid = ?", params = {"aid"}},
  update_teller = {sql = "UPDATE pgbench_tellers SET tbalance = tbalance + ? WHERE tid = ?",
    params = {"delta", "tid"}},
  update_branch = {sql = "UPDATE pgbench_branches SET bbalance = bbalance + ? WHERE bid = ?",
    params = {"delta", "bid"}},
  insert_history = {sql = "INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) " ..
    "VALUES (?, ?, ?, ?, CURRENT_TIMESTAMP)", params = {"tid", "bid", "aid", "delta"}},
  commit = {sql = "COMMIT", params = {}},
}

-- The statements of each mode's transaction, in order.
local TRANSACTIONS = {
  tpcb = {"begin", "update_account", "select_account", "update_teller", "update_branch",
    "insert_history", "commit"},
  ["simple-update"] = {"begin", "update_account", "select_account", "insert_history", "commit"},
  ["select-only"] = {"select_account"},
}

-- This worker's connection, its statements and their parameters by
-- statement name, the event's values by name, and its transaction.
local con
local stmts, params = {}, {}
local values = {aid = 0, bid = 0, tid = 0, delta = 0}
local transaction

-- The methods every statement and every parameter share, taken from the
-- first ones prepared: a plain call saves a metatable lookup per call.
local stmt_execute, param_set

-- begin_sql is the BEGIN of the writing transactions. SQLite's is BEGIN
-- IMMEDIATE, which waits for the database's one write lock before the
-- transaction reads: after a plain BEGIN, a transaction whose snapshot
-- another writer made stale fails with SQLITE_BUSY_SNAPSHOT.
local function begin_sql()
  if sysbench.sql.driver():name() == "sqlite" then
    return "BEGIN IMMEDIATE"
  end
  return STATEMENTS.begin.sql
end

-- prepare_statement prepares a statement of STATEMENTS at its first
-- use, as pgbench -M prepared does: the statements after BEGIN are then
-- prepared inside the first transaction, and the server counts the same
-- transactions for both tools.
local function prepare_statement(name)
  local def = STATEMENTS[name]
  local s = con:prepare(name == "begin" and begin_sql() or def.sql)
  local bound = {}
  for i = 1, #def.params do
    bound[i] = s:bind_create(sysbench.sql.type.INT)
  end
  if #bound > 0 then
    s:bind_param(unpack(bound))
    param_set = bound[1].set
  end
  stmt_execute = s.execute
  stmts[name], params[name] = s, bound
  return s
end

local function close_statements()
  for name, s in pairs(stmts) do
    s:close()
    stmts[name], params[name] = nil, nil
  end
end

-- new_transaction returns the event of the mode: its statements with
-- values drawn as pgbench draws them, a uniform account, branch and
-- teller within the scale and a delta in -5000..5000.
local function new_transaction()
  local branches, tellers, accounts = scale()
  local names = TRANSACTIONS[mode()]
  local count, uniform = #names, sysbench.rand.uniform
  local keys = {}
  for i, name in ipairs(names) do
    keys[i] = STATEMENTS[name].params
  end
  return function()
    values.aid = uniform(1, accounts)
    values.bid = uniform(1, branches)
    values.tid = uniform(1, tellers)
    values.delta = uniform(0, 10000) - 5000
    for i = 1, count do
      local name = names[i]
      local s = stmts[name] or prepare_statement(name)
      local bound, names_of = params[name], keys[i]
      for j = 1, #names_of do
        param_set(bound[j], values[names_of[j]])
      end
      stmt_execute(s)
    end
  end
end

function thread_init()
  con = sysbench.sql.driver():connect()
  transaction = new_transaction()
end

function event()
  transaction()
end

function thread_done()
  close_statements()
  con:disconnect()
end

-- A lost session lost its statements too: they are prepared again at
-- their next use. (MySQL's client errors for a lost server, PostgreSQL's
-- connection states and terminated backends.)
function sysbench.hooks.before_restart_event(err)
  local errno, state = err.sql_errno, err.sql_state or ""
  if errno == 2006 or errno == 2011 or errno == 2013 or errno == 2055 or
      (errno == 0 and (state:sub(1, 2) == "08" or state:sub(1, 4) == "57P0")) then
    close_statements()
  end
end
