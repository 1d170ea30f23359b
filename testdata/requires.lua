-- Finds a module through LUA_PATH and a sibling file through dofile.
local helper = require("helper_mod")
function help()
  print(helper.greet())
end
