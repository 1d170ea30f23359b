// Package luabind runs sysbench Lua scripts on gopher-lua: it compiles a
// script once and instantiates it per worker, provides the sysbench.* API,
// the legacy 0.5 globals and stand-ins for the LuaJIT features real scripts
// use (ffi, bit, LuaJIT's string.format and number formatting).
package luabind
