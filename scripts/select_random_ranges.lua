-- select_random_ranges: each event counts the rows whose secondary-index
-- column k falls in any of --number_of_ranges random ranges
-- [v, v + delta], with one SELECT count(k) ... WHERE k BETWEEN ... OR ...
-- Each thread draws v from its own band of k: with T threads, thread i
-- uses [i*S/T, (i+1)*S/T] for a table of S rows. The workload uses sbtest1
-- only.

require("oltp_common")

sysbench.cmdline.options.number_of_ranges =
  {"Number of random BETWEEN ranges per SELECT", 10}
sysbench.cmdline.options.delta = {"Size of BETWEEN ranges", 5}

function prepare_statements()
  local count = sysbench.opt.number_of_ranges
  local ranges = {}
  for i = 1, count do
    ranges[i] = "k BETWEEN ? AND ?"
  end
  local s = con:prepare("SELECT count(k)\n" ..
    "          FROM sbtest1\n" ..
    "          WHERE " .. table.concat(ranges, " OR "))
  local bounds = {}
  for i = 1, 2 * count do
    bounds[i] = s:bind_create(sysbench.sql.type.INT)
  end
  s:bind_param(unpack(bounds))
  stmt[1].random_ranges = s
  param[1].random_ranges = bounds
end

function event()
  local opt = sysbench.opt
  local band = opt.table_size / opt.threads
  local low = band * (sysbench.tid % opt.threads)
  local high = low + band
  local bounds = param[1].random_ranges
  for i = 1, opt.number_of_ranges do
    local v = sysbench.rand.default(low, high)
    bounds[2 * i - 1]:set(v)
    bounds[2 * i]:set(v + opt.delta)
  end
  stmt[1].random_ranges:execute()
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
