-- oltp_update_non_index: each event UPDATEs the non-indexed column c of
-- random rows (--non_index_updates of them, 1 by default), in autocommit
-- mode.

require("oltp_common")

function prepare_statements()
  prepare_non_index_updates()
end

function event()
  execute_non_index_updates()
  check_reconnect()
end
