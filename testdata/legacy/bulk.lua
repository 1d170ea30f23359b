-- sysbench 0.5 bulk inserts: each thread fills its own table through
-- db_bulk_insert_next, one row per event.
function prepare()
  db_connect()
  for i = 1, tonumber(num_threads) do
    print("Creating table 'sbtest_bulk" .. i .. "'...")
    db_query("CREATE TABLE IF NOT EXISTS sbtest_bulk" .. i ..
             " (id INTEGER NOT NULL, k INTEGER DEFAULT '0' NOT NULL, PRIMARY KEY (id))")
  end
end

function cleanup()
  for i = 1, tonumber(num_threads) do
    print("Dropping table 'sbtest_bulk" .. i .. "'...")
    db_query("DROP TABLE IF EXISTS sbtest_bulk" .. i)
  end
end

function thread_init(thread_id)
  db_connect()
  next_id = 0
  db_bulk_insert_init("INSERT INTO sbtest_bulk" .. thread_id + 1 .. " VALUES")
end

function event(thread_id)
  next_id = next_id + 1
  db_bulk_insert_next("(" .. next_id .. "," .. next_id .. ")")
end

function thread_done(thread_id)
  db_bulk_insert_done()
  print(string.format("thread %d inserted %d rows", thread_id, next_id))
end
