-- Prints facts about the Lua API as a script sees them; the output is
-- compared with sysbench 1.0.20's, exactly.
-- The types of the listed keys of t (sbgo has a few keys more than 1.0.20:
-- master's rand.zipfian and rand.varstring).
local function keys(t, list)
  local out = {}
  for k in string.gmatch(list, "[^,]+") do out[#out + 1] = k .. "=" .. type(t[k]) end
  return table.concat(out, ",")
end

print("top level: opt=" .. type(sysbench.opt) .. " tid=" .. sysbench.tid ..
      " version=" .. sysbench.version .. " command=" .. tostring(sysbench.cmdline.command) ..
      " script_path=" .. tostring(sysbench.cmdline.script_path))
print("sysbench keys: " .. keys(sysbench, "cmdline,error,histogram,hooks,rand,report_csv,report_default,report_json,sql,tid,version,version_string"))
print("rand keys: " .. keys(sysbench.rand, "default,gaussian,pareto,special,string,uniform,uniform_double,uniform_uint64,unique"))
print("cmdline ARG_*: " .. sysbench.cmdline.ARG_NULL .. sysbench.cmdline.ARG_BOOL ..
      sysbench.cmdline.ARG_INT .. sysbench.cmdline.ARG_SIZE .. sysbench.cmdline.ARG_DOUBLE ..
      sysbench.cmdline.ARG_STRING .. sysbench.cmdline.ARG_LIST .. sysbench.cmdline.ARG_FILE ..
      sysbench.cmdline.ARG_MAX .. " PARALLEL_COMMAND=" .. tostring(sysbench.cmdline.PARALLEL_COMMAND))
print("error: " .. sysbench.error.NONE .. sysbench.error.RESTART_EVENT ..
      " sql.error: " .. sysbench.sql.error.NONE .. sysbench.sql.error.IGNORABLE .. sysbench.sql.error.FATAL ..
      " sql.type.VARCHAR=" .. sysbench.sql.type.VARCHAR .. " DATE=" .. sysbench.sql.type.DATE)
print("legacy: thread_id=" .. tostring(thread_id) .. " test=" .. tostring(test) ..
      " engine=" .. tostring(mysql_table_engine) .. " max_rows=" .. tostring(myisam_max_rows) ..
      " sb_rand=" .. type(sb_rand) .. " sb_rnd=" .. type(sb_rnd) .. " sb_rand_uniq=" .. type(sb_rand_uniq))
print("globals: ffi=" .. type(ffi) .. " bit=" .. type(bit) .. " jit=" .. type(jit) ..
      " thread_run=" .. type(thread_run) .. " unpack=" .. type(unpack) ..
      " table.unpack=" .. type(table.unpack) .. " loadstring=" .. type(loadstring) ..
      " newproxy=" .. type(newproxy) .. " arg=" .. type(arg))

sysbench.cmdline.options = {
  an_int = {"An integer", 5, sysbench.cmdline.ARG_INT},
  a_double = {"A number", 1.5},
  a_bool = {"A boolean", true},
  a_nil_bool = {"A boolean without default", nil, sysbench.cmdline.ARG_BOOL},
  a_string = {"A string", "hello"},
  a_nil_string = {"A string without default"},
  a_list = {"A list", {"x", "y", "z"}},
  a_size = {"A size", "1K", sysbench.cmdline.ARG_SIZE},
  ["dash-name"] = {"A dashed name", 2},
  big = {"A big number", 1e15},
}

local function show_opts()
  local o = sysbench.opt
  local names = {"an_int", "a_double", "a_bool", "a_nil_bool", "a_string", "a_nil_string",
                 "a_size", "dash_name", "big", "threads", "time", "events", "rand_type",
                 "percentile", "verbosity", "report_checkpoints", "forced_shutdown", "debug",
                 "histogram", "rand_seed", "rand_pareto_h", "thread_stack_size"}
  for _, n in ipairs(names) do
    local v = o[n]
    if type(v) == "table" then v = "{" .. table.concat(v, ",") .. "}" end
    print(string.format("  opt.%s = %s (%s)", n, tostring(v), type(o[n])))
  end
  print("  opt.a_list = {" .. table.concat(o.a_list, ",") .. "}")
end

function probe()
  print("probe: tid=" .. sysbench.tid .. " command=" .. sysbench.cmdline.command)
  show_opts()
  print("argv: " .. table.concat(sysbench.cmdline.argv, " ", 1))
  print("command_defined(probe)=" .. tostring(sysbench.cmdline.command_defined("probe")) ..
        " command_parallel(probe)=" .. tostring(sysbench.cmdline.command_parallel("probe")) ..
        " command_defined(nope)=" .. tostring(sysbench.cmdline.command_defined("nope")))
  print("print_test_options:")
  sysbench.cmdline.print_test_options()
  -- The main state's random numbers are the same on every invocation.
  print("main rand: " .. sysbench.rand.uniform(1, 1000000) .. " " .. sysbench.rand.default(1, 100) ..
        " unique " .. sysbench.rand.unique() .. " " .. sysbench.rand.unique() ..
        " string " .. sysbench.rand.string("##-@@") .. " sb_rand_str " .. sb_rand_str("#@"))
  -- A LuaJIT uint64_t cdata in sysbench, a userdata in sbgo: same text.
  print("uint64: " .. tostring(sysbench.rand.uniform_uint64()))
  local h = sysbench.histogram.new(1000, 1, 10)
  for _, v in ipairs({1, 2, 0, 10, 100, 5.001}) do h:update(v) end
  h:print()
end

sysbench.cmdline.commands = {probe = {probe}}

function event() end
