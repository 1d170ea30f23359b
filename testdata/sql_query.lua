-- Each event runs one text query (--query) on the thread's connection.
sysbench.cmdline.options = {
  query = {"Query each event runs", "SELECT 1"},
}

function thread_init()
  drv = sysbench.sql.driver()
  con = drv:connect()
end

function event()
  con:query(sysbench.opt.query)
end

function thread_done()
  con:disconnect()
end
