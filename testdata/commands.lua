-- Custom commands, serial and parallel, beside the built-in ones.
sysbench.cmdline.options = {
  rows = {"Rows to pretend to load", 3},
}

local function load_rows()
  print(string.format("loading %d rows in thread %d", sysbench.opt.rows, sysbench.tid))
end

local function show()
  print("serial command in thread " .. sysbench.tid .. ", command=" .. sysbench.cmdline.command)
  return true
end

local function fail()
  print("failing command")
  return false
end

sysbench.cmdline.commands = {
  load = {load_rows, sysbench.cmdline.PARALLEL_COMMAND},
  show = {show},
  fail = {fail},
}

function prepare()
  print("prepare() in thread " .. sysbench.tid)
end

function cleanup()
  print("cleanup() in thread " .. sysbench.tid)
end

function event()
end
