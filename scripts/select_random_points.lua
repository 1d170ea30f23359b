-- select_random_points: each event reads the rows whose secondary-index
-- column k matches any of --random_points random values, with one
-- SELECT ... WHERE k IN (...). Each thread draws its values from its own
-- band of k: with T threads, thread i uses [i*S/T, (i+1)*S/T] for a table
-- of S rows. The workload uses sbtest1 only.

require("oltp_common")

sysbench.cmdline.options.random_points =
  {"Number of random points in the IN() clause in generated SELECTs", 10}

function prepare_statements()
  local count = sysbench.opt.random_points
  local marks = {}
  for i = 1, count do
    marks[i] = "?"
  end
  local s = con:prepare("SELECT id, k, c, pad\n" ..
    "          FROM sbtest1\n" ..
    "          WHERE k IN (" .. table.concat(marks, ", ") .. ")")
  local points = {}
  for i = 1, count do
    points[i] = s:bind_create(sysbench.sql.type.INT)
  end
  s:bind_param(unpack(points))
  stmt[1].random_points = s
  param[1].random_points = points
end

function event()
  local opt = sysbench.opt
  local band = opt.table_size / opt.threads
  local low = band * (sysbench.tid % opt.threads)
  local high = low + band
  local points = param[1].random_points
  for i = 1, opt.random_points do
    points[i]:set(sysbench.rand.default(low, high))
  end
  stmt[1].random_points:execute()
  check_reconnect()
end

-- The prepare command comes from oltp_common and creates every table
-- asked for; dropping them is refused unless there is exactly one, as in
-- sysbench.
local drop_tables = cleanup

function cleanup()
  if sysbench.opt.tables ~= 1 then
    error("this benchmark does not support --tables > 1")
  end
  drop_tables()
end
