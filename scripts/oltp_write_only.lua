-- oltp_write_only: the write half of oltp_read_write. Each event is one
-- transaction of UPDATEs of an indexed and of a non-indexed column and
-- DELETE+INSERT pairs: 4 writes and 2 other queries with the defaults.

require("oltp_common")

-- What event() calls, as upvalues rather than global lookups per event.
local sb, begin, commit, check_reconnect = sysbench, begin, commit, check_reconnect
local execute_index_updates = execute_index_updates
local execute_non_index_updates = execute_non_index_updates
local execute_delete_inserts = execute_delete_inserts

function prepare_statements()
  if not sysbench.opt.skip_trx then
    prepare_begin(true)
    prepare_commit()
  end
  prepare_index_updates()
  prepare_non_index_updates()
  prepare_delete_inserts()
end

function event()
  local opt = sb.opt
  local in_trx = not opt.skip_trx
  if in_trx then
    begin()
  end
  execute_index_updates()
  execute_non_index_updates()
  execute_delete_inserts()
  if in_trx then
    commit()
  end
  -- check_reconnect() does nothing without --reconnect: skip the call.
  if opt.reconnect > 0 then
    check_reconnect()
  end
end
