-- stmt:_execute_random (sbgo's, used by the bundled workloads) against
-- the Lua loop it stands for: with the same --rand-seed, --mode=fast and
-- --mode=lua insert the same (first, last) pairs into sbgo_random_ids.
sysbench.cmdline.options = {
  mode = {"fast: stmt:_execute_random; lua: the Lua loop", "fast"},
  count = {"Statements per event", 2.5},
  width = {"last - first; negative: the second parameter is not set", 9},
}

function prepare()
  local con = sysbench.sql.driver():connect()
  con:query("DROP TABLE IF EXISTS sbgo_random_ids")
  con:query("CREATE TABLE sbgo_random_ids (seq INT AUTO_INCREMENT PRIMARY KEY, " ..
    "mode VARCHAR(8), first BIGINT, last BIGINT)")
end

function thread_init()
  con = sysbench.sql.driver():connect()
  s = con:prepare("INSERT INTO sbgo_random_ids (first, last, mode) VALUES (?, ?, ?)")
  first = s:bind_create(sysbench.sql.type.INT)
  last = s:bind_create(sysbench.sql.type.INT)
  local mode = s:bind_create(sysbench.sql.type.CHAR, 8)
  s:bind_param(first, last, mode)
  last:set(-1)
  mode:set(sysbench.opt.mode)
end

function event()
  local o = sysbench.opt
  local ranged = o.width >= 0
  if o.mode == "fast" then
    if ranged then
      s:_execute_random(o.count, 1000, o.width)
    else
      s:_execute_random(o.count, 1000)
    end
    return
  end
  for _ = 1, o.count do
    local id = sysbench.rand.default(1, 1000)
    first:set(id)
    if ranged then
      last:set(id + o.width)
    end
    s:execute()
  end
end
