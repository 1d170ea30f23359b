-- oltp_delete: each event DELETEs one random row by primary key, in
-- autocommit mode. Rows are not put back, so as the table empties more
-- DELETEs find nothing and count as "other" instead of "write".

require("oltp_common")

function prepare_statements()
  prepare_for_each_table("deletes")
end

function event()
  local t = sysbench.rand.uniform(1, sysbench.opt.tables)
  param[t].deletes[1]:set(sysbench.rand.default(1, sysbench.opt.table_size))
  stmt[t].deletes:execute()
  check_reconnect()
end
