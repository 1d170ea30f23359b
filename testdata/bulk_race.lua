-- The calls a prepare can make on a connection while the last bulk-insert
-- flush may still be in flight (see luabind's flushBulk): --case picks
-- one. Each starts a bulk insert of --rows rows of ~900 bytes, enough for
-- a pipelined flush, makes its call at once, finishes the insert and
-- checks that every row arrived. Errors are raised, so a wrong count
-- fails the command.
sysbench.cmdline.options = {
  case = {"Call to make while the flush is in flight", "stmt_close"},
  rows = {"Rows to insert", 700},
}

local pad = string.rep("x", 895)
local tbl = "sbgo_bulk_race"

local function create(con)
  con:query("DROP TABLE IF EXISTS " .. tbl)
  con:query("CREATE TABLE " .. tbl .. " (id INT PRIMARY KEY, pad VARCHAR(1000))")
end

local function count(con)
  return tonumber(con:query_row("SELECT COUNT(*) FROM " .. tbl))
end

local function rows(next_row, first, last)
  for i = first, last do
    next_row(string.format("(%d, '%s')", i, pad))
  end
end

-- bulk fills a connection's bulk insert, leaving its last flush in
-- flight.
local function bulk(con)
  con:bulk_insert_init("INSERT INTO " .. tbl .. " (id, pad) VALUES")
  rows(function(r) con:bulk_insert_next(r) end, 1, sysbench.opt.rows)
end

-- legacy_bulk is bulk on the 0.5 API's implicit connection.
local function legacy_bulk()
  db_bulk_insert_init("INSERT INTO " .. tbl .. " (id, pad) VALUES")
  rows(db_bulk_insert_next, 1, sysbench.opt.rows)
end

local function expect(got, want)
  if got ~= want then
    error(string.format("%s: %d rows, want %d", sysbench.opt.case, got, want))
  end
end

-- Each case makes its call on con (or the implicit connection) during
-- the flush and returns the connection to count the rows on.
local cases = {
  stmt_close = function(con)
    local s = con:prepare("SELECT id FROM " .. tbl .. " WHERE id = ?")
    bulk(con)
    s:close()
    return con
  end,
  stmt_execute = function(con)
    local s = con:prepare("SELECT COUNT(*) FROM " .. tbl)
    bulk(con)
    s:execute()
    return con
  end,
  stmt_bind_param = function(con)
    local s = con:prepare("SELECT id FROM " .. tbl .. " WHERE id = ?")
    local p = s:bind_create(sysbench.sql.type.INT)
    bulk(con)
    s:bind_param(p)
    return con
  end,
  query = function(con)
    bulk(con)
    con:query("SELECT 1")
    return con
  end,
  next_result = function(con)
    bulk(con)
    con:next_result()
    return con
  end,
  reconnect = function(con)
    bulk(con)
    con:reconnect()
    return con
  end,
  disconnect = function(con)
    bulk(con)
    con:disconnect()
    return sysbench.sql.driver():connect(), "disconnected"
  end,
  legacy_close = function(con)
    db_connect()
    local s = db_prepare("SELECT id FROM " .. tbl .. " WHERE id = ?")
    legacy_bulk()
    db_close(s)
    db_bulk_insert_done()
    return con
  end,
  legacy_query = function(con)
    db_connect()
    legacy_bulk()
    db_query("SELECT 1")
    db_bulk_insert_done()
    return con
  end,
  legacy_execute = function(con)
    db_connect()
    local s = db_prepare("SELECT id FROM " .. tbl .. " WHERE id = ?")
    db_bind_param(s, {1})
    legacy_bulk()
    db_free_results(db_execute(s))
    db_bulk_insert_done()
    return con
  end,
  legacy_disconnect = function(con)
    db_connect()
    legacy_bulk()
    db_disconnect()
    return con, "disconnected"
  end,
}

function prepare()
  local case = cases[sysbench.opt.case]
  if case == nil then
    error("unknown case " .. sysbench.opt.case)
  end
  local con = sysbench.sql.driver():connect()
  create(con)
  local after, disconnected = case(con)
  if disconnected then
    -- The rows not yet sent are dropped with the connection; what was
    -- flushed is there.
    local n = count(after)
    if n == 0 or n >= sysbench.opt.rows then
      error(string.format("%s: %d rows after the flush", sysbench.opt.case, n))
    end
  else
    if not sysbench.opt.case:match("^legacy") then
      con:bulk_insert_done()
    end
    expect(count(after), sysbench.opt.rows)
  end
  after:query("DROP TABLE " .. tbl)
end
