-- event() raises sysbench's restart error on every third attempt: the
-- event runs again under the same timer and counts once.
local attempts = 0
local restarts = 0

function event()
  attempts = attempts + 1
  if attempts % 3 == 0 then
    error({errcode = sysbench.error.RESTART_EVENT, sql_errno = 1213})
  end
end

sysbench.hooks.before_restart_event = function(err)
  restarts = restarts + 1
  assert(err.sql_errno == 1213)
end

function thread_done()
  print(string.format("attempts=%d restarts=%d", attempts, restarts))
end
