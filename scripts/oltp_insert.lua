-- oltp_insert: each event INSERTs one row, as a plain text query (no
-- prepared statement), in autocommit mode.
--
-- With --auto_inc (the default) the database assigns the ids and prepare
-- fills the tables as usual. With --auto_inc=off the ids come from
-- sysbench.rand.unique(), which never repeats within a run, and prepare
-- creates the tables empty so that those ids cannot collide with
-- prepared rows. Every run starts the same sequence, so each run needs
-- a fresh prepare.

require("oltp_common")

sysbench.cmdline.commands.prepare = {
  function()
    if not sysbench.opt.auto_inc then
      sysbench.opt.table_size = 0
    end
    cmd_prepare()
  end,
  sysbench.cmdline.PARALLEL_COMMAND,
}

-- Nothing to prepare: events use text queries.
function prepare_statements()
end

function event()
  local opt = sysbench.opt
  local t = sysbench.rand.uniform(1, opt.tables)
  local k = sysbench.rand.default(1, opt.table_size)
  local c, pad = get_c_value(), get_pad_value()
  local driver = drv:name()
  if opt.auto_inc and (driver == "pgsql" or driver == "sqlite") then
    -- A SERIAL column only draws from its sequence, and SQLite only
    -- numbers the rowid, when the id is left out.
    con:query(string.format("INSERT INTO sbtest%d (k, c, pad) VALUES (%d, '%s', '%s')",
      t, k, c, pad))
  else
    -- MySQL assigns the next AUTO_INCREMENT value for an id of 0. The
    -- unique values are spread over the whole signed 32-bit range.
    local id = 0
    if not opt.auto_inc then
      id = sysbench.rand.unique() - 2147483648
    end
    con:query(string.format("INSERT INTO sbtest%d (id, k, c, pad) VALUES (%d, %d, '%s', '%s')",
      t, id, k, c, pad))
  end
  check_reconnect()
end
