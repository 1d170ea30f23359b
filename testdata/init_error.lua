function init()
  error("init failed on purpose")
end
function event() end
