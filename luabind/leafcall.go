package luabind

import (
	"reflect"
	"unsafe"

	lua "github.com/yuin/gopher-lua"
)

// gopher-lua calls a Go function from Lua through a call frame of its own:
// it builds one, pushes it on the frame stack, moves the register top, and
// on return copies the results down and pops the frame. For the functions
// an event calls dozens of times (string.format, sysbench.rand.*) that
// frame is most of the call's cost and does nothing a script can see:
// these "leaf" functions only read their arguments and push results; they
// raise errors by message alone (never from their frame's name), do not
// yield, have no upvalues, and call Lua only through L.Call (string.format
// for a %s with __tostring), whose frame sits above the caller's. So the
// OP_CALL handler (callerror.go) runs a leaf in its caller's frame
// instead: the frame's local base moves to the arguments for the call and
// back, the results are copied as gopher-lua copies them.
//
// If a leaf raises an error the base is not moved back; it need not be:
// the frame is above whatever catches the error (pcall, a coroutine's
// resume, the engine's protected call), and every frame above the catcher
// is dropped. The error message's position is the caller's line, as it is
// when the leaf has a frame of its own (gopher-lua skips Go frames there).
// Calls from Go (pcall(string.format, ...), metamethods) keep the frame.

// leafCode is the code pointer every leaf wrapper shares; 0 until the
// OP_CALL handler is installed and the pointer was checked.
var leafCode uintptr

// leafFunction wraps f as a leaf. Every wrapper is the same closure code,
// which is how the OP_CALL handler tells leaves from other Go functions
// without a lookup; kept out of line so that the closure is compiled once.
//
//go:noinline
func leafFunction(f lua.LGFunction) lua.LGFunction {
	return func(L *lua.LState) int { return f(L) }
}

// funcCode is the code pointer of a Go function value: the first word of
// the closure it points to.
func funcCode(f lua.LGFunction) uintptr {
	return **(**uintptr)(unsafe.Pointer(&f))
}

// installLeafCalls sets leafCode when funcCode reads the same code pointer
// as reflect does for a leaf wrapper, and reports whether it did.
func installLeafCalls() bool {
	probe := leafFunction(func(*lua.LState) int { return 0 })
	code := reflect.ValueOf(probe).Pointer()
	if code == 0 || funcCode(probe) != code {
		return false
	}
	leafCode = code
	return true
}

// isLeaf reports whether fn, a Go function, was made by leafFunction
// (never while leafCode is 0: no code pointer is).
func isLeaf(fn *lua.LFunction) bool {
	return funcCode(fn.GFunction) == leafCode
}

// callLeaf runs OP_CALL inst of frame cf for the leaf fn in register ra.
func callLeaf(L *lua.LState, reg *vmRegistry, cf *vmFrame, fn *lua.LFunction, ra int, inst uint32) {
	nargs := instB(inst) - 1
	if nargs < 0 {
		nargs = reg.top - (ra + 1)
	}
	base := cf.LocalBase
	cf.LocalBase = ra + 1
	setTop(reg, ra+1+nargs)
	n := fn.GFunction(L)
	cf.LocalBase = base
	want := instC(inst) - 1
	if want < 0 {
		want = n
	}
	start, end := reg.top-n, reg.top
	for i := 0; i < want; i++ {
		if src := start + i; src < end {
			reg.array[ra+i] = reg.array[src]
		} else {
			reg.array[ra+i] = lua.LNil
		}
	}
	if top := ra + want; top < end {
		clear(reg.array[top:end])
	}
	reg.top = ra + want
}

// setTop moves the register top to top as gopher-lua's registry does:
// registers it uncovers become nil values, registers it leaves are
// cleared so that the values they held can be collected. top stays within
// the registers the running Lua function already has.
func setTop(reg *vmRegistry, top int) {
	old := reg.top
	reg.top = top
	for i := old; i < top; i++ {
		reg.array[i] = lua.LNil
	}
	if top < old {
		clear(reg.array[top:old])
	}
}
