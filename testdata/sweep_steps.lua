-- A script for thread sweeps: init() and thread_init() say how many
-- threads the step has, and the step with --fail_at threads fails in
-- thread_init. Its events do nothing.
sysbench.cmdline.options = {
  fail_at = {"thread count of the step that fails", 0},
}

function init()
  print("init: threads=" .. sysbench.opt.threads)
end

function thread_init()
  if sysbench.opt.threads == sysbench.opt.fail_at then
    error("the step of " .. sysbench.opt.threads .. " threads fails")
  end
end

function event()
end

function done()
  print("done: threads=" .. sysbench.opt.threads)
end
