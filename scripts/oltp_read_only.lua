-- oltp_read_only: the read half of oltp_read_write. Each event is one
-- transaction of point SELECTs and the four kinds of range SELECTs: 14
-- reads and 2 other queries (BEGIN and COMMIT) with the defaults.

require("oltp_common")

function prepare_statements()
  prepare_point_selects()
  if not sysbench.opt.skip_trx then
    prepare_begin()
    prepare_commit()
  end
  if sysbench.opt.range_selects then
    prepare_simple_ranges()
    prepare_sum_ranges()
    prepare_order_ranges()
    prepare_distinct_ranges()
  end
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
  if in_trx then
    commit()
  end
  check_reconnect()
end
