package luabind

import "testing"

// TestCallErrors compares the error of calling what is not a function
// with LuaJIT's (see the top of luajit_test.go for how the wants were
// produced).
func TestCallErrors(t *testing.T) {
	compatCheckRows(t, []compatRow{
		{`undefined_fn()`, "error: attempt to call global 'undefined_fn' (a nil value)"},                                                                                        // a global
		{`undefined_fn(1, 2)`, "error: attempt to call global 'undefined_fn' (a nil value)"},                                                                                    // arguments loaded after the function
		{`string.nope("x")`, "error: attempt to call field 'nope' (a nil value)"},                                                                                               // a field with a constant key
		{`("a"):bad()`, "error: attempt to call method 'bad' (a nil value)"},                                                                                                    // a method
		{`(function() local s = "x"; return pass(s:nope()) end)()`, "error: attempt to call method 'nope' (a nil value)"},                                                       // a method of a local
		{`(function() local t = {}; return pass(t:m(1)) end)()`, "error: attempt to call method 'm' (a nil value)"},                                                             // a method with arguments
		{`(function() local g; return pass(g()) end)()`, "error: attempt to call local 'g' (a nil value)"},                                                                      // a local
		{`(function() local g = 5; return pass(g(1)) end)()`, "error: attempt to call local 'g' (a number value)"},                                                              // a local number
		{`(function() local f = true; return pass(f()) end)()`, "error: attempt to call local 'f' (a boolean value)"},                                                           // a local boolean
		{`(function(f) return pass(f()) end)()`, "error: attempt to call local 'f' (a nil value)"},                                                                              // a parameter
		{`(function(c) local f; if c then f = print end; return pass(f()) end)(false)`, "error: attempt to call local 'f' (a nil value)"},                                       // a local set in a branch
		{`(function() local f = function() end; local g = nil; return pass(f(), g()) end)()`, "error: attempt to call local 'g' (a nil value)"},                                 // the second of two calls
		{`(function() local u; return (function() return pass(u()) end)() end)()`, "error: attempt to call upvalue 'u' (a nil value)"},                                          // an upvalue
		{`(function() local t = {x = {}}; return pass(t.x.y()) end)()`, "error: attempt to call field 'y' (a nil value)"},                                                       // a nested field
		{`(function() local t = {x = 3}; return pass(t.x()) end)()`, "error: attempt to call field 'x' (a number value)"},                                                       // a field holding a number
		{`(function() local x = {}; return pass(x["a b"]()) end)()`, "error: attempt to call field 'a b' (a nil value)"},                                                        // a constant key that is not a name
		{`(function() return pass(math.huge()) end)()`, "error: attempt to call field 'huge' (a number value)"},                                                                 // a library field
		{`(function() local t = {}; return pass(t[1]()) end)()`, "error: attempt to call a nil value"},                                                                          // a number key: no name
		{`(function() local t, k = {}, "z"; return pass(t[k]()) end)()`, "error: attempt to call a nil value"},                                                                  // a computed key: no name
		{`(function() return pass((nil)()) end)()`, "error: attempt to call a nil value"},                                                                                       // a literal
		{`(function(a) return pass((a or nil)()) end)()`, "error: attempt to call a nil value"},                                                                                 // an expression's result
		{`(function(...) return pass((...)()) end)()`, "error: attempt to call a nil value"},                                                                                    // a vararg
		{`(function() local u = 1; local function inner() local x = u; return nil end; return pass(inner()()) end)()`, "error: attempt to call a nil value"},                    // a call's result
		{`(function() return pass(("x")()) end)()`, "error: attempt to call a string value"},                                                                                    // a string
		{`(function() return pass(setmetatable({}, {})()) end)()`, "error: attempt to call a table value"},                                                                      // a table without __call
		{`setmetatable({}, {__call = function(self, a) return a end})(7)`, "number:7"},                                                                                          // __call still works
		{`(function() local t = {}; return t.f() end)()`, "error: attempt to call field 'f' (a nil value)"},                                                                     // a tail call
		{`(function() return undefined_tail() end)()`, "error: attempt to call global 'undefined_tail' (a nil value)"},                                                          // a tail call of a global
		{`(function() local function r(n) if n == 0 then return nope() end return r(n - 1) end return pass(r(3)) end)()`, "error: attempt to call global 'nope' (a nil value)"}, // after a jump
	})
}
