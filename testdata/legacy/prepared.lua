-- sysbench 0.5 prepared statements: db_prepare, a parameter table bound
-- once by reference with db_bind_param, changed before each db_execute.
pathtest = string.match(test, "(.*/)")
dofile(pathtest .. "common.lua")

function thread_init(thread_id)
  set_vars()
  db_connect()
  select_stmt = db_prepare("SELECT c FROM sbtest1 WHERE id = ?")
  select_params = {1}
  db_bind_param(select_stmt, select_params)
  update_stmt = db_prepare("UPDATE sbtest1 SET c = ? WHERE id = ?")
  update_params = {"", 1}
  db_bind_param(update_stmt, update_params)
end

function event(thread_id)
  select_params[1] = random_id()
  local rs = db_execute(select_stmt)
  db_store_results(rs)
  db_free_results(rs)
  update_params[1] = sb_rand_str("@@@@@-#####")
  update_params[2] = random_id()
  db_execute(update_stmt)
end

function thread_done(thread_id)
  db_close(select_stmt)
  db_close(update_stmt)
  db_disconnect()
end
