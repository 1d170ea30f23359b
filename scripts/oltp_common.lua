-- oltp_common: the library every OLTP workload is built on.
--
-- A workload script starts with require("oltp_common"), then defines
-- prepare_statements() (called once per worker connection) and event()
-- (one transaction). This module supplies the rest:
--
--   * the options shared by all workloads (--tables, --table-size, ...);
--   * the commands: prepare (parallel over --threads), prewarm, cleanup;
--   * the per-worker connection and prepared statements, in globals that
--     custom scripts may use as well: drv, con, stmt[t][kind],
--     param[t][kind][i], stmt.begin and stmt.commit;
--   * prepare_<kind>() and execute_<kind>() for each statement kind.
--
-- Option names, descriptions and defaults, progress lines, and the SQL
-- text of every statement are those of sysbench 1.0.20's workloads, so
-- that results, habits and output parsers carry over. Two options come
-- from sysbench's later releases: --create_table_options and --reconnect.

if sysbench.cmdline.command == nil then
  error("Command is required. Supported commands: prepare, prewarm, run, cleanup, help")
end

-- The event path reaches sysbench.rand and sysbench.opt through upvalues
-- and looks up each method once per call rather than once per statement:
-- every global or field access is a hash lookup in the interpreter, and
-- an OLTP transaction would otherwise make a hundred of them. The
-- execute_* functions read the options and sysbench.rand's functions at
-- their first call (see by_id_runner), and so do the events of
-- oltp_read_only and oltp_read_write, so a script that changes an option
-- or replaces sysbench.rand.default in its body, thread_init or
-- prepare_statements keeps working; the rest read them on each call.
local sb = sysbench
local rand = sysbench.rand

-- The built-in sysbench.rand functions. While they are in place, the
-- statement loops of prepare and of the execute_* functions run in one
-- call of sbgo's own (con:_bulk_insert_random_rows,
-- stmt:_execute_random), which draw, build and execute exactly as the Lua
-- loops next to them do.
local builtin_default, builtin_string = rand.default, rand.string

-- Numeric defaults make the options DOUBLE (shown as =N in help), as in
-- sysbench; scripts format them with %d.
sysbench.cmdline.options = {
  table_size = {"Number of rows per table", 10000},
  range_size = {"Range size for range SELECT queries", 100},
  tables = {"Number of tables", 1},
  point_selects = {"Number of point SELECT queries per transaction", 10},
  simple_ranges = {"Number of simple range SELECT queries per transaction", 1},
  sum_ranges = {"Number of SELECT SUM() queries per transaction", 1},
  order_ranges = {"Number of SELECT ORDER BY queries per transaction", 1},
  distinct_ranges = {"Number of SELECT DISTINCT queries per transaction", 1},
  index_updates = {"Number of UPDATE index queries per transaction", 1},
  non_index_updates = {"Number of UPDATE non-index queries per transaction", 1},
  delete_inserts = {"Number of DELETE/INSERT combinations per transaction", 1},
  range_selects = {"Enable/disable all range SELECT queries", true},
  auto_inc = {"Use AUTO_INCREMENT column as Primary Key (for MySQL), " ..
    "or its alternatives in other DBMS. When disabled, use " ..
    "client-generated IDs", true},
  create_table_options = {"Extra CREATE TABLE options", ""},
  skip_trx = {"Don't start explicit transactions and execute all queries " ..
    "in the AUTOCOMMIT mode", false},
  secondary = {"Use a secondary index in place of the PRIMARY KEY", false},
  create_secondary = {"Create a secondary index in addition to the PRIMARY KEY", true},
  reconnect = {"Reconnect after every N events. The default (0) is to not reconnect", 0},
  mysql_storage_engine = {"Storage engine, if MySQL is used", "innodb"},
  -- Accepted for compatibility only: like sysbench, the workloads do not
  -- act on it, whatever its description says.
  pgsql_variant = {"Use this PostgreSQL variant when running with the " ..
    "PostgreSQL driver. The only currently supported variant is " ..
    "'redshift'. When enabled, create_secondary is automatically " ..
    "disabled, and delete_inserts is set to 0"},
}

-- Random text for the c and pad columns: groups of 11 digits joined by
-- dashes, 119 and 59 characters long.
local function digit_groups(count)
  local groups = {}
  for i = 1, count do
    groups[i] = "###########"
  end
  return table.concat(groups, "-")
end

local C_TEMPLATE = digit_groups(10)
local PAD_TEMPLATE = digit_groups(5)

function get_c_value()
  return rand.string(C_TEMPLATE)
end

function get_pad_value()
  return rand.string(PAD_TEMPLATE)
end

local builtin_c_value, builtin_pad_value = get_c_value, get_pad_value

---------------------------------------------------------------------------
-- Schema and commands
---------------------------------------------------------------------------

-- create_table creates sbtest<table_num>, fills it with --table_size rows
-- and adds the secondary index on k.
function create_table(drv, con, table_num)
  local opt = sysbench.opt
  local driver = drv:name()
  local id_def, engine_def
  if driver == "mysql" then
    id_def = opt.auto_inc and "INTEGER NOT NULL AUTO_INCREMENT" or "INTEGER NOT NULL"
    engine_def = "/*! ENGINE = " .. opt.mysql_storage_engine .. " */"
  elseif driver == "pgsql" then
    id_def = opt.auto_inc and "SERIAL" or "INTEGER NOT NULL"
    engine_def = ""
  elseif driver == "sqlite" then
    -- An INTEGER PRIMARY KEY is the table's rowid, which SQLite numbers
    -- itself when an INSERT leaves the id out. Only the rowid can be
    -- numbered so: a table with --secondary has none.
    if opt.secondary and opt.auto_inc then
      error("--secondary needs --auto_inc=off on SQLite")
    end
    id_def = "INTEGER NOT NULL"
    engine_def = ""
  else
    error("Unsupported database driver:" .. driver)
  end
  -- --secondary uses MySQL's syntax; PostgreSQL rejects it, as it does
  -- under sysbench. SQLite has no index clause in CREATE TABLE: its id
  -- index is created after the rows, as the k index is.
  local id_index = opt.secondary and "KEY xid" or "PRIMARY KEY"
  local id_key = string.format(",\n  %s (id)", id_index)
  if driver == "sqlite" and opt.secondary then
    id_key = ""
  end

  print(string.format("Creating table 'sbtest%d'...", table_num))
  con:query(string.format("CREATE TABLE sbtest%d(\n" ..
    "  id %s,\n" ..
    "  k INTEGER DEFAULT '0' NOT NULL,\n" ..
    "  c CHAR(120) DEFAULT '' NOT NULL,\n" ..
    "  pad CHAR(60) DEFAULT '' NOT NULL%s\n" ..
    ") %s %s",
    table_num, id_def, id_key, engine_def, opt.create_table_options))

  local rows = opt.table_size
  if rows > 0 then
    print(string.format("Inserting %d records into 'sbtest%d'", rows, table_num))
    -- One multi-row INSERT, split by the driver at 512 KiB. The random
    -- draws per row come in the order c, pad, k, so that a serial prepare
    -- writes the same rows as sysbench does. The functions are looked up
    -- once per table, not once per row (a script may still replace
    -- get_c_value and the others before it calls create_table).
    local c_value, pad_value, default = get_c_value, get_pad_value, rand.default
    local format, bulk_next = string.format, con.bulk_insert_next
    if opt.auto_inc then
      con:bulk_insert_init(string.format("INSERT INTO sbtest%d(k, c, pad) VALUES", table_num))
    else
      con:bulk_insert_init(string.format("INSERT INTO sbtest%d(id, k, c, pad) VALUES", table_num))
    end
    if c_value == builtin_c_value and pad_value == builtin_pad_value and
        default == builtin_default and rand.string == builtin_string then
      -- One of the loops below, in one call.
      con:_bulk_insert_random_rows(rows, rows, C_TEMPLATE, PAD_TEMPLATE,
        not opt.auto_inc and 1 or nil)
    elseif opt.auto_inc then
      for _ = 1, rows do
        local c, pad = c_value(), pad_value()
        local k = default(1, rows)
        bulk_next(con, format("(%d, '%s', '%s')", k, c, pad))
      end
    else
      for id = 1, rows do
        local c, pad = c_value(), pad_value()
        local k = default(1, rows)
        bulk_next(con, format("(%d, %d, '%s', '%s')", id, k, c, pad))
      end
    end
    con:bulk_insert_done()
  end

  if driver == "sqlite" and opt.secondary then
    con:query(string.format("CREATE INDEX xid_%d ON sbtest%d(id)", table_num, table_num))
  end

  if opt.create_secondary then
    print(string.format("Creating a secondary index on 'sbtest%d'...", table_num))
    con:query(string.format("CREATE INDEX k_%d ON sbtest%d(k)", table_num, table_num))
  end
end

-- each_own_table calls fn(t) for the tables this command thread owns:
-- with --threads=T, thread i takes tables i+1, i+1+T, i+1+2T, ...
local function each_own_table(fn)
  local threads = sysbench.opt.threads
  for t = sysbench.tid % threads + 1, sysbench.opt.tables, threads do
    fn(t)
  end
end

function cmd_prepare()
  local drv = sysbench.sql.driver()
  local con = drv:connect()
  each_own_table(function(t) create_table(drv, con, t) end)
  con:disconnect()
end

-- cmd_prewarm reads every table through its primary key and its k column
-- so that both are in the buffer pool before a run.
function cmd_prewarm()
  local drv = sysbench.sql.driver()
  if drv:name() ~= "mysql" then
    error("prewarm is currently MySQL only")
  end
  local con = drv:connect()
  local rows = sysbench.opt.table_size
  con:query("SET tmp_table_size=2*1024*1024*1024")
  con:query("SET max_heap_table_size=2*1024*1024*1024")
  each_own_table(function(t)
    print(string.format("Prewarming table sbtest%d", t))
    con:query(string.format("ANALYZE TABLE sbtest%d", t))
    con:query(string.format(
      "SELECT AVG(id) FROM (SELECT * FROM sbtest%d FORCE KEY (PRIMARY) LIMIT %d) t",
      t, rows))
    con:query(string.format(
      "SELECT COUNT(*) FROM (SELECT * FROM sbtest%d WHERE k LIKE '%%0%%' LIMIT %d) t",
      t, rows))
  end)
  con:disconnect()
end

-- warmup is the later releases' name for prewarm.
sysbench.cmdline.commands = {
  prepare = {cmd_prepare, sysbench.cmdline.PARALLEL_COMMAND},
  prewarm = {cmd_prewarm, sysbench.cmdline.PARALLEL_COMMAND},
  warmup = {cmd_prewarm, sysbench.cmdline.PARALLEL_COMMAND},
}

-- cleanup is a plain function, so it runs serially in the main thread.
function cleanup()
  local drv = sysbench.sql.driver()
  local con = drv:connect()
  for t = 1, sysbench.opt.tables do
    print(string.format("Dropping table 'sbtest%d'...", t))
    con:query(string.format("DROP TABLE IF EXISTS sbtest%d", t))
  end
  con:disconnect()
end

function init()
  if event == nil then
    error("this script is meant to be included by other OLTP scripts and should not be called directly.")
  end
end

---------------------------------------------------------------------------
-- Prepared statements, one set per worker connection
---------------------------------------------------------------------------

-- The statement kinds: the SQL (%d is the table number) and what is bound
-- to each placeholder, in order: a sysbench.sql.type name and, for
-- strings, the buffer size. Types are looked up when a statement is
-- prepared, because the SQL API may not exist yet while this file loads.
local KINDS = {
  point_selects = {
    sql = "SELECT c FROM sbtest%d WHERE id=?",
    params = {{"INT"}},
  },
  simple_ranges = {
    sql = "SELECT c FROM sbtest%d WHERE id BETWEEN ? AND ?",
    params = {{"INT"}, {"INT"}},
  },
  sum_ranges = {
    sql = "SELECT SUM(k) FROM sbtest%d WHERE id BETWEEN ? AND ?",
    params = {{"INT"}, {"INT"}},
  },
  order_ranges = {
    sql = "SELECT c FROM sbtest%d WHERE id BETWEEN ? AND ? ORDER BY c",
    params = {{"INT"}, {"INT"}},
  },
  distinct_ranges = {
    sql = "SELECT DISTINCT c FROM sbtest%d WHERE id BETWEEN ? AND ? ORDER BY c",
    params = {{"INT"}, {"INT"}},
  },
  index_updates = {
    sql = "UPDATE sbtest%d SET k=k+1 WHERE id=?",
    params = {{"INT"}},
  },
  non_index_updates = {
    sql = "UPDATE sbtest%d SET c=? WHERE id=?",
    params = {{"CHAR", 120}, {"INT"}},
  },
  deletes = {
    sql = "DELETE FROM sbtest%d WHERE id=?",
    params = {{"INT"}},
  },
  inserts = {
    sql = "INSERT INTO sbtest%d (id, k, c, pad) VALUES (?, ?, ?, ?)",
    params = {{"INT"}, {"INT"}, {"CHAR", 120}, {"CHAR", 60}},
  },
}

-- The statement and parameter methods execute_* call, taken from the
-- statements and parameters prepared: every statement (and every
-- parameter) has the same ones, and a plain call saves the two table
-- lookups per call of a method call through the object's metatable.
local stmt_execute, execute_random, param_set, param_set_rand_str

local function remember_methods(s, p)
  stmt_execute, execute_random = s.execute, s._execute_random
  if p ~= nil then
    param_set, param_set_rand_str = p.set, p.set_rand_str
  end
end

-- Until then (a script may prepare its statements without the prepare_*
-- functions), the first call takes the methods from its own object.
stmt_execute = function(s, ...)
  remember_methods(s)
  return stmt_execute(s, ...)
end
execute_random = function(s, ...)
  remember_methods(s)
  return execute_random(s, ...)
end
param_set = function(p, ...)
  param_set, param_set_rand_str = p.set, p.set_rand_str
  return param_set(p, ...)
end
param_set_rand_str = function(p, ...)
  param_set, param_set_rand_str = p.set, p.set_rand_str
  return param_set_rand_str(p, ...)
end

-- prepare_for_each_table prepares statement kind `kind` on every table
-- and binds its parameter objects once; execute_* only set their values.
function prepare_for_each_table(kind)
  local def = KINDS[kind]
  local types = sysbench.sql.type
  for t = 1, sysbench.opt.tables do
    local s = con:prepare(string.format(def.sql, t))
    local bound = {}
    for i, p in ipairs(def.params) do
      if p[2] ~= nil then
        bound[i] = s:bind_create(types[p[1]], p[2])
      else
        bound[i] = s:bind_create(types[p[1]])
      end
    end
    s:bind_param(unpack(bound))
    remember_methods(s, bound[1])
    stmt[t][kind] = s
    param[t][kind] = bound
  end
end

-- prepare_begin(writes) prepares the statement that begins a transaction.
-- A workload whose transactions write passes true: on SQLite they then
-- begin with BEGIN IMMEDIATE, which waits for the database's one write
-- lock at the start. A plain BEGIN takes it at the first write, and fails
-- with SQLITE_BUSY (the event restarts) when another connection committed
-- since the transaction's first read.
function prepare_begin(writes)
  local sql = "BEGIN"
  if writes and drv:name() == "sqlite" then
    sql = "BEGIN IMMEDIATE"
  end
  stmt.begin = con:prepare(sql)
  remember_methods(stmt.begin)
end

function prepare_commit()
  stmt.commit = con:prepare("COMMIT")
  remember_methods(stmt.commit)
end

function prepare_point_selects() prepare_for_each_table("point_selects") end
function prepare_simple_ranges() prepare_for_each_table("simple_ranges") end
function prepare_sum_ranges() prepare_for_each_table("sum_ranges") end
function prepare_order_ranges() prepare_for_each_table("order_ranges") end
function prepare_distinct_ranges() prepare_for_each_table("distinct_ranges") end
function prepare_index_updates() prepare_for_each_table("index_updates") end
function prepare_non_index_updates() prepare_for_each_table("non_index_updates") end

function prepare_delete_inserts()
  prepare_for_each_table("deletes")
  prepare_for_each_table("inserts")
end

-- thread_init opens this worker's connection and lets the workload
-- prepare what its events use.
function thread_init()
  drv = sysbench.sql.driver()
  con = drv:connect()
  stmt, param = {}, {}
  for t = 1, sysbench.opt.tables do
    stmt[t], param[t] = {}, {}
  end
  prepare_statements()
end

-- close_statements closes every prepared statement and forgets it, so
-- that prepare_statements() can start afresh on the same connection.
function close_statements()
  for t = 1, sysbench.opt.tables do
    for _, s in pairs(stmt[t]) do
      s:close()
    end
    stmt[t], param[t] = {}, {}
  end
  if stmt.begin ~= nil then
    stmt.begin:close()
    stmt.begin = nil
  end
  if stmt.commit ~= nil then
    stmt.commit:close()
    stmt.commit = nil
  end
end

function thread_done()
  close_statements()
  con:disconnect()
end

-- Errors after which the driver has reconnected: MySQL's client errors
-- (server gone away, lost connection, ...), PostgreSQL's lost-session
-- states (class 08, and 57P0x for a terminated or shut-down backend) and
-- SQLite's interrupted call (SQLITE_INTERRUPT, when it is ignorable). The
-- statements prepared on the old session are gone, so prepare them again
-- before the event restarts. (The MySQL codes are compared one by one:
-- a table keyed by them would be an array of 2055 slots in every worker.)
local function lost_session(err)
  local errno = err.sql_errno
  if errno == 2006 or errno == 2011 or errno == 2013 or errno == 2055 then
    return true
  end
  local state = err.sql_state or ""
  if state == "SQLITE_INTERRUPT" then
    return true
  end
  return errno == 0 and (state:sub(1, 2) == "08" or state:sub(1, 4) == "57P0")
end

function sysbench.hooks.before_restart_event(err)
  if lost_session(err) then
    close_statements()
    prepare_statements()
  end
end

-- check_reconnect ends each event: with --reconnect=N it opens a new
-- session every N events of this thread and prepares the statements
-- again.
local events_on_connection = 0

function check_reconnect()
  local every = sb.opt.reconnect
  if every > 0 then
    events_on_connection = events_on_connection + 1
    if events_on_connection >= every then
      events_on_connection = 0
      close_statements()
      con:reconnect()
      prepare_statements()
    end
  end
end

---------------------------------------------------------------------------
-- What events execute
---------------------------------------------------------------------------

function begin()
  stmt_execute(stmt.begin)
end

function commit()
  stmt_execute(stmt.commit)
end

-- by_id_runner(kind) is a function that runs statement kind `kind`
-- --<kind> times, each with a fresh random id as its only parameter. (A
-- closure per kind rather than a shared function taking the kind: one Lua
-- call less per execute_*.)
--
-- The options it reads are taken from sysbench.opt at its first call,
-- after thread_init (where prepare_statements may change them, as
-- oltp_point_select does), and kept: a table lookup per option per call
-- was 13 % of the client's user time for point selects at 32 threads.
-- sysbench.rand's uniform and default are taken then too (a script that
-- replaces them does so in its body or in thread_init): the two lookups
-- were another 4 % at 64 threads. Statements are still looked up each
-- time, since a reconnect prepares them again.
local function by_id_runner(kind)
  local tables, size, count, uniform, default
  return function()
    if tables == nil then
      local opt = sb.opt
      tables, size, count = opt.tables, opt.table_size, opt[kind]
      uniform, default = rand.uniform, rand.default
    end
    local t = uniform(1, tables)
    local s = stmt[t][kind]
    if default == builtin_default then
      execute_random(s, count, size)
      return
    end
    local id = param[t][kind][1]
    for _ = 1, count do
      param_set(id, default(1, size))
      stmt_execute(s)
    end
  end
end

-- range_runner(kind) is a function that runs range kind `kind` --<kind>
-- times over [id, id + range_size - 1]. Options as in by_id_runner.
local function range_runner(kind)
  local tables, size, count, width, uniform, default
  return function()
    if tables == nil then
      local opt = sb.opt
      tables, size, count, width = opt.tables, opt.table_size, opt[kind], opt.range_size - 1
      uniform, default = rand.uniform, rand.default
    end
    local t = uniform(1, tables)
    local s = stmt[t][kind]
    if default == builtin_default then
      execute_random(s, count, size, width)
      return
    end
    local p = param[t][kind]
    local first_p, last_p = p[1], p[2]
    for _ = 1, count do
      local first = default(1, size)
      param_set(first_p, first)
      param_set(last_p, first + width)
      stmt_execute(s)
    end
  end
end

-- The runners are sysbench.sql._by_id_runner's functions in Go, which run
-- the Lua ones above when a script replaced sysbench.rand's uniform or
-- default (for oltp_point_select this is the whole event, and an
-- interpreter frame and two calls through it per event are most of the
-- client's work besides the round trip; and in Go each keeps the
-- statement it found in stmt until that is closed, where the Lua ones
-- look it up in the worker's own tables, which miss the cache with many
-- workers).
local function go_runner(kind, lua_runner, ranged)
  return sb.sql._by_id_runner(kind, lua_runner(kind), ranged)
end
execute_point_selects = go_runner("point_selects", by_id_runner)
execute_simple_ranges = go_runner("simple_ranges", range_runner, true)
execute_sum_ranges = go_runner("sum_ranges", range_runner, true)
execute_order_ranges = go_runner("order_ranges", range_runner, true)
execute_distinct_ranges = go_runner("distinct_ranges", range_runner, true)
execute_index_updates = go_runner("index_updates", by_id_runner)

-- The two loops left in Lua read their options and sysbench.rand's
-- functions at their first call, as the runners above do. Each execute_*
-- call picks one table for all its statements; ids follow --rand-type.
local tables, table_size, non_index_count, delete_insert_count, uniform, default

local function read_loop_options()
  local opt = sb.opt
  tables, table_size = opt.tables, opt.table_size
  non_index_count, delete_insert_count = opt.non_index_updates, opt.delete_inserts
  uniform, default = rand.uniform, rand.default
end

function execute_non_index_updates()
  if tables == nil then
    read_loop_options()
  end
  local t = uniform(1, tables)
  local s, p = stmt[t].non_index_updates, param[t].non_index_updates
  local c, id = p[1], p[2]
  for _ = 1, non_index_count do
    param_set_rand_str(c, C_TEMPLATE)
    param_set(id, default(1, table_size))
    stmt_execute(s)
  end
end

-- execute_delete_inserts deletes a random row and inserts it back with the
-- same id, so the table keeps its size.
function execute_delete_inserts()
  if tables == nil then
    read_loop_options()
  end
  local t = uniform(1, tables)
  local del, ins = stmt[t].deletes, stmt[t].inserts
  local del_id, row = param[t].deletes[1], param[t].inserts
  for _ = 1, delete_insert_count do
    local id, k = default(1, table_size), default(1, table_size)
    param_set(del_id, id)
    param_set(row[1], id)
    param_set(row[2], k)
    param_set_rand_str(row[3], C_TEMPLATE)
    param_set_rand_str(row[4], PAD_TEMPLATE)
    stmt_execute(del)
    stmt_execute(ins)
  end
end
