-- Both API generations in one script: 0.5 globals (db_query, sb_rand,
-- option globals) beside sysbench 1.0's sysbench.sql and sysbench.rand.
pathtest = string.match(test, "(.*/)")
dofile(pathtest .. "common.lua")

function thread_init(thread_id)
  set_vars()
  con = sysbench.sql.driver():connect()
  stmt = con:prepare("SELECT k FROM sbtest1 WHERE id = ?")
  param = stmt:bind_create(sysbench.sql.type.INT)
  stmt:bind_param(param)
end

function event(thread_id)
  db_query("SELECT c FROM sbtest1 WHERE id=" .. sb_rand(1, oltp_table_size))
  param:set(sysbench.rand.uniform(1, oltp_table_size))
  stmt:execute()
  local n = con:query_row("SELECT COUNT(*) FROM sbtest1 WHERE id <= " .. random_id())
  assert(tonumber(n) >= 1)
end

function thread_done(thread_id)
  stmt:close()
  con:disconnect()
end
