-- mysqlslap: the load that MySQL's and MariaDB's mysqlslap (mariadb-slap)
-- generates with --auto-generate-sql, on MySQL/MariaDB, PostgreSQL and
-- SQLite, so that a study that pairs it with sysbench runs both with one
-- tool and one set of reports.
--
--   prepare  mysqlslap's create stage: table t1 with --number_int_cols INT
--            and --number_char_cols VARCHAR(128) columns, and a UUID or
--            auto-increment key if asked for, then --write_number - 1
--            rows, one INSERT each, as mysqlslap writes them
--   run      one event is one query of --load_type; every thread runs
--            the same cycle of statements, drawn once per run, and
--            stops after --execute_number of them
--   cleanup  drops t1
--
-- The statements are mysqlslap's text queries, value for value in shape.
-- With a key, the run reads the table's keys once (SELECT id from t1, as
-- mysqlslap does after its create stage) and each keyed query looks up
-- one of them at random.

if sysbench.cmdline.command == nil then
  error("Command is required. Supported commands: prepare, run, cleanup, help")
end

sysbench.cmdline.options = {
  number_int_cols = {"INT columns of t1 (mysqlslap --number-int-cols)", 1},
  number_char_cols = {"VARCHAR(128) columns of t1 (mysqlslap --number-char-cols)", 1},
  guid_primary = {"A UUID primary key, id (mysqlslap --auto-generate-sql-guid-primary)", false},
  add_autoincrement = {"An auto-increment key, id (mysqlslap --auto-generate-sql-add-autoincrement)", false},
  write_number = {"Rows of t1 after prepare, plus one (mysqlslap --auto-generate-sql-write-number)", 100},
  execute_number = {"Queries per thread, 0 for no limit but --time and --events " ..
    "(mysqlslap --auto-generate-sql-execute-number)", 0},
  load_type = {"Queries: mixed (inserts and selects in turn), write (inserts), read (full selects), " ..
    "key (primary-key selects) or update (mysqlslap --auto-generate-sql-load-type)", "mixed"},
  engine = {"Storage engine of t1, MySQL only; empty for the server's default (mysqlslap --engine)", ""},
}

-- mysqlslap's defaults of --auto-generate-sql-unique-query-number and
-- --auto-generate-sql-unique-write-number: the cycle of statements has
-- this many, plus one INSERT (mixed) or one more of its kind.
local UNIQUE = 10

-- The values of a VARCHAR column are this long, as mysqlslap's.
local CHAR_LENGTH = 126

local LOAD_TYPES = {mixed = true, write = true, read = true, key = true, update = true}

-- The SQL that differs by database. The auto-increment key is MySQL's
-- SERIAL (BIGINT UNSIGNED NOT NULL AUTO_INCREMENT UNIQUE) or the nearest
-- other type; a new row's key comes from NULL or DEFAULT. SQLite has no
-- UUID function: 36 random hexadecimal digits stand in.
local DIALECTS = {
  mysql = {table = "`t1`", int = "INT(32)", uuid = "uuid()", serial = "serial", serial_value = "NULL"},
  pgsql = {table = "t1", int = "INT", uuid = "gen_random_uuid()", serial = "bigserial unique",
    serial_value = "DEFAULT"},
  sqlite = {table = "t1", int = "INT(32)", uuid = "lower(hex(randomblob(18)))", serial = "INTEGER PRIMARY KEY",
    serial_value = "NULL"},
}

-- whole returns option name's value, checked to be a whole number of at
-- least min.
local function whole(name, min)
  local v = sysbench.opt[name]
  if v < min or v % 1 ~= 0 then
    error(string.format("--%s must be a whole number of at least %d, not %s", name, min, tostring(v)), 0)
  end
  return v
end

-- settings checks the options and returns them with the driver's dialect.
local function settings()
  local s = {ints = whole("number_int_cols", 0), chars = whole("number_char_cols", 0),
    write_number = whole("write_number", 1), execute_number = whole("execute_number", 0),
    load_type = sysbench.opt.load_type, engine = sysbench.opt.engine}
  if s.ints + s.chars == 0 then
    error("t1 needs a column: --number_int_cols and --number_char_cols are both 0", 0)
  end
  if not LOAD_TYPES[s.load_type] then
    error(string.format("--load_type must be mixed, write, read, key or update, not '%s'", s.load_type), 0)
  end
  if sysbench.opt.guid_primary and sysbench.opt.add_autoincrement then
    error("--guid_primary and --add_autoincrement each make the key id: choose one", 0)
  end
  s.key = (sysbench.opt.guid_primary and "guid") or (sysbench.opt.add_autoincrement and "serial") or nil
  if s.load_type == "key" and s.key == nil then
    error("--load_type=key looks rows up by their key: add --guid_primary=on or --add_autoincrement=on", 0)
  end
  s.driver = sysbench.sql.driver()
  s.dialect = DIALECTS[s.driver:name()]
  if s.dialect == nil then
    error(string.format("mysqlslap runs on mysql, pgsql and sqlite, not on %s", s.driver:name()), 0)
  end
  if s.engine ~= "" and s.driver:name() ~= "mysql" then
    error(string.format("--engine names a MySQL storage engine; %s has none", s.driver:name()), 0)
  end
  return s
end

---------------------------------------------------------------------------
-- Statements, in mysqlslap's text
---------------------------------------------------------------------------

local function create_table(s)
  local cols = {}
  if s.key == "guid" then
    cols[1] = "id varchar(36) primary key,"
  elseif s.key == "serial" then
    cols[1] = "id " .. s.dialect.serial .. ","
  end
  for i = 1, s.ints do
    cols[#cols + 1] = string.format("intcol%d %s ", i, s.dialect.int) .. (i < s.ints and "," or "")
  end
  for i = 1, s.chars do
    cols[#cols + 1] = (i == 1 and s.ints > 0 and "," or "") ..
      string.format("charcol%d VARCHAR(128)", i) .. (i < s.chars and "," or "")
  end
  local sql = string.format("CREATE TABLE %s (%s)", s.dialect.table, table.concat(cols))
  if s.engine ~= "" then
    sql = sql .. " Engine = " .. s.engine
  end
  return sql
end

local function random_int()
  return sysbench.rand.uniform(0, 2147483647)
end

local CHAR_TEMPLATE = string.rep("@", CHAR_LENGTH)

local function random_chars()
  return "'" .. sysbench.rand.string(CHAR_TEMPLATE) .. "'"
end

-- insert returns an INSERT of one row of random values.
local function insert(s)
  local values = {}
  if s.key == "guid" then
    values[1] = s.dialect.uuid
  elseif s.key == "serial" then
    values[1] = s.dialect.serial_value
  end
  for _ = 1, s.ints do
    values[#values + 1] = random_int()
  end
  for _ = 1, s.chars do
    values[#values + 1] = random_chars()
  end
  return "INSERT INTO t1 VALUES (" .. table.concat(values, ",") .. ")"
end

-- column_list is t1's columns but the key, comma-separated.
local function column_list(s)
  local names = {}
  for i = 1, s.ints do
    names[#names + 1] = "intcol" .. i
  end
  for i = 1, s.chars do
    names[#names + 1] = "charcol" .. i
  end
  return table.concat(names, ",")
end

-- The text before a key, which is quoted: "... WHERE id =  'KEY'".
local KEY_PREFIX = " WHERE id =  '"

-- select returns a full select, or for a lookup by key (where t1 has
-- one) the text of one up to the key, and whether it is.
local function select(s, by_key)
  local sql = "SELECT " .. column_list(s) .. " FROM t1"
  if not by_key or s.key == nil then
    return sql, false
  end
  return sql .. KEY_PREFIX, true
end

-- update returns an UPDATE of random values, by key when there is one.
local function update(s)
  local sets = {}
  for i = 1, s.ints do
    sets[#sets + 1] = string.format("intcol%d = %d", i, random_int())
  end
  for i = 1, s.chars do
    sets[#sets + 1] = string.format("charcol%d = %s", i, random_chars())
  end
  local sql = "UPDATE t1 SET " .. table.concat(sets, ",")
  if s.key == nil then
    return sql, false
  end
  return sql .. KEY_PREFIX, true
end

-- cycle returns the statements every thread runs in turn, and which of
-- them end in a key: mixed alternates UNIQUE inserts and selects (by key
-- where t1 has one) and adds an insert; write and update draw UNIQUE + 1
-- statements; read (a full select) and key have one.
local function cycle(s)
  local sql, keyed = {}, {}
  local function add(text, by_key)
    sql[#sql + 1], keyed[#keyed + 1] = text, by_key or false
  end
  local lt = s.load_type
  if lt == "read" or lt == "key" then
    add(select(s, lt == "key"))
  else
    for i = 1, UNIQUE + 1 do
      if lt == "update" then
        add(update(s))
      elseif lt == "write" or i % 2 == 1 then
        add(insert(s))
      else
        add(select(s, true))
      end
    end
  end
  return sql, keyed
end

---------------------------------------------------------------------------
-- Commands
---------------------------------------------------------------------------

function prepare()
  local s = settings()
  local con = s.driver:connect()
  con:query("DROP TABLE IF EXISTS t1")
  print("Creating table 't1'...")
  con:query(create_table(s))
  print(string.format("Inserting %d records into 't1'", s.write_number - 1))
  for _ = 2, s.write_number do
    con:query(insert(s))
  end
  con:disconnect()
end

function cleanup()
  local con = sysbench.sql.driver():connect()
  print("Dropping table 't1'...")
  con:query("DROP TABLE IF EXISTS t1")
  con:disconnect()
end

-- init runs once per run, in the main state: it draws the cycle of
-- statements and, with a key, reads the keys, and shares both with the
-- threads, which all run the same statements as mysqlslap's clients do.
function init()
  local s = settings()
  local sql, keyed = cycle(s)
  local keys = {}
  if s.key ~= nil then
    local con = s.driver:connect()
    local rs = con:query("SELECT id from t1")
    for i = 1, rs.nrows do
      keys[i] = rs:fetch_row()[1]
    end
    con:disconnect()
  end
  local uses_keys = false
  for _, k in ipairs(keyed) do
    uses_keys = uses_keys or k
  end
  if uses_keys and #keys == 0 then
    error("t1 has no rows to look up: prepare with --write_number of at least 2", 0)
  end
  sysbench.share("mysqlslap", {sql = sql, keyed = keyed, keys = keys, limit = s.execute_number})
end

-- This thread's connection, its copy of the cycle and keys, where it is
-- in the cycle and how many queries it may still run.
local con, query, uniform
local sql, keyed, keys, nkeys, count
local pos, left

function thread_init()
  local shared = sysbench.share("mysqlslap")
  sql, keyed, keys = shared.sql, shared.keyed, shared.keys
  nkeys, count = #keys, #shared.sql
  pos, left = 1, shared.limit > 0 and shared.limit or math.huge
  con = sysbench.sql.driver():connect()
  query, uniform = con.query, sysbench.rand.uniform
end

-- event runs the next statement of the cycle; after --execute_number
-- queries it ends the thread.
function event()
  if left == 0 then
    return true
  end
  left = left - 1
  local i = pos
  pos = i == count and 1 or i + 1
  if keyed[i] then
    query(con, sql[i] .. keys[uniform(1, nkeys)] .. "'")
  else
    query(con, sql[i])
  end
end

function thread_done()
  con:disconnect()
end
