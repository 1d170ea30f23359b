-- oltp_read_write: the classic OLTP mix. Each event is one transaction of
-- point SELECTs, four kinds of range SELECTs, UPDATEs of an indexed and of
-- a non-indexed column, and DELETE+INSERT pairs. With the defaults that is
-- 14 reads, 4 writes and 2 other queries (BEGIN and COMMIT) per event.

require("oltp_common")

-- What event() calls, as upvalues rather than global lookups per event.
local sb, begin, commit, check_reconnect = sysbench, begin, commit, check_reconnect
local execute_point_selects = execute_point_selects
local execute_simple_ranges = execute_simple_ranges
local execute_sum_ranges = execute_sum_ranges
local execute_order_ranges = execute_order_ranges
local execute_distinct_ranges = execute_distinct_ranges
local execute_index_updates = execute_index_updates
local execute_non_index_updates = execute_non_index_updates
local execute_delete_inserts = execute_delete_inserts

function prepare_statements()
  if not sysbench.opt.skip_trx then
    prepare_begin(true)
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

-- The options event() follows, read at its first call, after thread_init,
-- as oltp_common's runners read theirs: four lookups per event in the
-- worker's own tables, which miss the cache with many workers.
local in_trx, range_selects, reconnect

function event()
  if in_trx == nil then
    local opt = sb.opt
    in_trx, range_selects, reconnect = not opt.skip_trx, opt.range_selects, opt.reconnect > 0
  end
  if in_trx then
    begin()
  end
  execute_point_selects()
  if range_selects then
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
  -- check_reconnect() does nothing without --reconnect: skip the call.
  if reconnect then
    check_reconnect()
  end
end
