-- Shared by the sysbench 0.5-style test scripts in this folder: options
-- arrive as string globals (the script declares none), tables are made
-- and filled with the db_* API.

-- set_vars turns the option globals into typed values with defaults.
function set_vars()
  oltp_table_size = tonumber(oltp_table_size) or 10000
  oltp_range_size = tonumber(oltp_range_size) or 100
  oltp_tables_count = tonumber(oltp_tables_count) or 1
  oltp_point_selects = tonumber(oltp_point_selects) or 10
  oltp_simple_ranges = tonumber(oltp_simple_ranges) or 1
  oltp_sum_ranges = tonumber(oltp_sum_ranges) or 1
  oltp_order_ranges = tonumber(oltp_order_ranges) or 1
  oltp_distinct_ranges = tonumber(oltp_distinct_ranges) or 1
  oltp_index_updates = tonumber(oltp_index_updates) or 1
  oltp_non_index_updates = tonumber(oltp_non_index_updates) or 1
  oltp_delete_inserts = tonumber(oltp_delete_inserts) or 1
  read_only = (oltp_read_only == "on")
  skip_trx = (oltp_skip_trx == "on")
  begin_query = oltp_begin_query or "BEGIN"
end

local c_pattern = "###########-###########-###########-###########-###########-" ..
                  "###########-###########-###########-###########-###########"
local pad_pattern = "###########-###########-###########-###########-###########"

-- create_table makes sbtest<i> and loads oltp_table_size rows into it,
-- in MySQL's or PostgreSQL's dialect (db_driver, set by db_connect).
function create_table(i)
  print("Creating table 'sbtest" .. i .. "'...")
  local id, k, engine = "INTEGER UNSIGNED NOT NULL AUTO_INCREMENT", "INTEGER UNSIGNED", ""
  if db_driver == "pgsql" then
    id, k = "SERIAL", "INTEGER"
  else
    engine = " /*! ENGINE = " .. mysql_table_engine .. " */"
  end
  db_query("CREATE TABLE sbtest" .. i .. " (" ..
           "id " .. id .. ", " ..
           "k " .. k .. " DEFAULT '0' NOT NULL, " ..
           "c CHAR(120) DEFAULT '' NOT NULL, " ..
           "pad CHAR(60) DEFAULT '' NOT NULL, " ..
           "PRIMARY KEY (id))" .. engine)
  db_bulk_insert_init("INSERT INTO sbtest" .. i .. "(k, c, pad) VALUES")
  for _ = 1, oltp_table_size do
    db_bulk_insert_next(string.format("(%d, '%s', '%s')",
      sb_rand(1, oltp_table_size), sb_rand_str(c_pattern), sb_rand_str(pad_pattern)))
  end
  db_bulk_insert_done()
  db_query("CREATE INDEX k_" .. i .. " ON sbtest" .. i .. "(k)")
end

function prepare()
  set_vars()
  db_connect()
  for i = 1, oltp_tables_count do
    create_table(i)
  end
  return 0
end

function cleanup()
  set_vars()
  for i = 1, oltp_tables_count do
    print("Dropping table 'sbtest" .. i .. "'...")
    db_query("DROP TABLE IF EXISTS sbtest" .. i)
  end
end

-- random_id is a row id of the configured distribution.
function random_id()
  return sb_rand(1, oltp_table_size)
end
