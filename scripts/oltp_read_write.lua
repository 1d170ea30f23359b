-- oltp_read_write: the classic OLTP mix. Each event is one transaction of
-- point SELECTs, four kinds of range SELECTs, UPDATEs of an indexed and of
-- a non-indexed column, and DELETE+INSERT pairs. With the defaults that is
-- 14 reads, 4 writes and 2 other queries (BEGIN and COMMIT) per event.

require("oltp_common")

function prepare_statements()
  if not sysbench.opt.skip_trx then
    prepare_begin()
    prepare_commit()
  end
  prepare_point_selects()
  if sysbench.opt.range_selects then
    prepare_simple_ranges()
    prepare_sum_ranges()
    prepare_order_ranges()
    prepare_distinct_ranges()
  end
  prepare_index_updates()
  prepare_non_index_updates()
  prepare_delete_inserts()
end

function event()
  local in_trx = not sysbench.opt.skip_trx
  if in_trx then
    begin()
  end
  execute_point_selects()
  if sysbench.opt.range_selects then
    execute_simple_ranges()
    execute_sum_ranges()
    execute_order_ranges()
    execute_distinct_ranges()
  end
  execute_index_updates()
  execute_non_index_updates()
  execute_delete_inserts()
  if in_trx then
    commit()
  end
  check_reconnect()
end
