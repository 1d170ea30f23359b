-- A sysbench 0.5-style OLTP transaction mix: text queries through
-- db_query, options as globals, common.lua found next to the script
-- through the `test` global. --oltp-begin-query replaces BEGIN, e.g. with
-- "START TRANSACTION READ ONLY" to measure read-only transactions.
pathtest = string.match(test, "(.*/)")
if pathtest then
  dofile(pathtest .. "common.lua")
else
  require("common")
end

function thread_init(thread_id)
  set_vars()
end

function event(thread_id)
  local t = "sbtest" .. sb_rand_uniform(1, oltp_tables_count)
  if not skip_trx then
    db_query(begin_query)
  end
  for _ = 1, oltp_point_selects do
    db_query("SELECT c FROM " .. t .. " WHERE id=" .. random_id())
  end
  local function range(fmt, n)
    for _ = 1, n do
      local from = random_id()
      db_query(string.format(fmt, t, from, from + oltp_range_size - 1))
    end
  end
  range("SELECT c FROM %s WHERE id BETWEEN %d AND %d", oltp_simple_ranges)
  range("SELECT SUM(K) FROM %s WHERE id BETWEEN %d AND %d", oltp_sum_ranges)
  range("SELECT c FROM %s WHERE id BETWEEN %d AND %d ORDER BY c", oltp_order_ranges)
  range("SELECT DISTINCT c FROM %s WHERE id BETWEEN %d AND %d ORDER BY c", oltp_distinct_ranges)
  if not read_only then
    for _ = 1, oltp_index_updates do
      db_query("UPDATE " .. t .. " SET k=k+1 WHERE id=" .. random_id())
    end
    for _ = 1, oltp_non_index_updates do
      db_query("UPDATE " .. t .. " SET c='" .. sb_rand_str("###########-###########") ..
               "' WHERE id=" .. random_id())
    end
    for _ = 1, oltp_delete_inserts do
      local id = random_id()
      db_query("DELETE FROM " .. t .. " WHERE id=" .. id)
      db_query(string.format("INSERT INTO %s (id, k, c, pad) VALUES (%d, %d, '%s', '%s')",
        t, id, random_id(), sb_rand_str("###########"), sb_rand_str("###########")))
    end
  end
  if not skip_trx then
    db_query("COMMIT")
  end
end
