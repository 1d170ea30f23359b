-- A prepare that bulk-inserts rows of ~900 bytes: several 512 KiB
-- INSERTs, each but the last sent while the next one is built. With
-- --dup_at=N, row N repeats the id of row N-1, so that the INSERT holding
-- it fails. Each row's pad starts with its row number, so that a buffer
-- reused while its INSERT is still in flight shows as mismatched rows.
sysbench.cmdline.options = {
  rows = {"Rows to insert", 3000},
  dup_at = {"Row whose id repeats the previous row's (0: none)", 0},
}

function prepare()
  local con = sysbench.sql.driver():connect()
  con:query("DROP TABLE IF EXISTS sbgo_bulk")
  con:query("CREATE TABLE sbgo_bulk (id INT PRIMARY KEY, pad VARCHAR(1000))")
  local pad = string.rep("x", 895)
  con:bulk_insert_init("INSERT INTO sbgo_bulk (id, pad) VALUES")
  for i = 1, sysbench.opt.rows do
    local id = i
    if i == sysbench.opt.dup_at then
      id = i - 1
    end
    con:bulk_insert_next(string.format("(%d, '%05d%s')", id, i, pad))
    if i == 1200 then
      -- Two INSERTs have been sent by now; the query waits for them.
      print("rows at 1200: " .. con:query_row("SELECT COUNT(*) FROM sbgo_bulk"))
    end
  end
  con:bulk_insert_done()
  print("rows: " .. con:query_row("SELECT COUNT(*) FROM sbgo_bulk"))
  print("mismatched: " .. con:query_row(
    "SELECT COUNT(*) FROM sbgo_bulk WHERE pad <> CONCAT(LPAD(id, 5, '0'), REPEAT('x', 895))"))
  con:query("DROP TABLE sbgo_bulk")
end
