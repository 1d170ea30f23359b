-- A module found through LUA_PATH.
local M = {}
function M.greet() return "hello from helper_mod" end
return M
