-- oltp_update_index: each event UPDATEs the indexed column k of random
-- rows (--index_updates of them, 1 by default), in autocommit mode.

require("oltp_common")

function prepare_statements()
  prepare_index_updates()
end

function event()
  execute_index_updates()
  check_reconnect()
end
