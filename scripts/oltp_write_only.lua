-- oltp_write_only: the write half of oltp_read_write. Each event is one
-- transaction of UPDATEs of an indexed and of a non-indexed column and
-- DELETE+INSERT pairs: 4 writes and 2 other queries with the defaults.

require("oltp_common")

function prepare_statements()
  if not sysbench.opt.skip_trx then
    prepare_begin()
    prepare_commit()
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
  execute_index_updates()
  execute_non_index_updates()
  execute_delete_inserts()
  if in_trx then
    commit()
  end
  check_reconnect()
end
