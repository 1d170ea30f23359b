package luabind

import (
	"unsafe"

	lua "github.com/yuin/gopher-lua"
)

// Calling nil is the commonest script bug (a misspelt function, a method
// of the wrong object), and gopher-lua reports it as "attempt to call a
// non-function object", where LuaJIT names what was called: "attempt to
// call global 'f' (a nil value)", also field, method, local and upvalue.
// vmpatch.go wraps the OP_CALL and OP_TAILCALL handlers, under its version
// and layout checks: a callable value goes straight to the stock handler
// (one type check more per call); otherwise the wrapper raises LuaJIT's
// message, finding the name as LuaJIT does, from the instruction that
// loaded the called register.
//
// What stays gopher-lua's: calls made from Go (a hook that is not a
// function) and the iterator call of a generic for.

// stockCall and stockTailCall are the handlers the wrappers call.
var stockCall, stockTailCall vmInstruction

// installCallErrors wraps OP_CALL and OP_TAILCALL when the table holds a
// handler of their own at each, and reports whether it did.
func installCallErrors() bool {
	if !distinctHandlers(lua.OP_MOVE, lua.OP_CALL, lua.OP_TAILCALL, lua.OP_RETURN) {
		return false
	}
	stockCall, stockTailCall = vmJumpTable[lua.OP_CALL], vmJumpTable[lua.OP_TAILCALL]
	vmJumpTable[lua.OP_CALL] = luajitCall
	vmJumpTable[lua.OP_TAILCALL] = luajitTailCall
	return true
}

// luajitCall is OP_CALL raising LuaJIT's error for a value it cannot call.
// A leaf Go function (leafcall.go) runs without a frame of its own.
func luajitCall(L *lua.LState, inst uint32, baseframe unsafe.Pointer) int {
	reg, cf := vmState(L)
	if ra := cf.LocalBase + instA(inst); ra < len(reg.array) {
		fn, ok := reg.array[ra].(*lua.LFunction)
		if !ok {
			checkCallable(L, cf, inst, reg.array[ra])
		} else if fn.IsG && isLeaf(fn) {
			callLeaf(L, reg, cf, fn, ra, inst)
			return 0
		}
	}
	return stockCall(L, inst, baseframe)
}

// luajitTailCall is OP_TAILCALL raising LuaJIT's error for a value it
// cannot call.
func luajitTailCall(L *lua.LState, inst uint32, baseframe unsafe.Pointer) int {
	reg, cf := vmState(L)
	if ra := cf.LocalBase + instA(inst); ra < len(reg.array) {
		if _, ok := reg.array[ra].(*lua.LFunction); !ok {
			checkCallable(L, cf, inst, reg.array[ra])
		}
	}
	return stockTailCall(L, inst, baseframe)
}

// checkCallable returns when v has a __call function, as the stock
// handler accepts it, and otherwise raises LuaJIT's error for the call
// instruction inst of the running frame cf.
func checkCallable(L *lua.LState, cf *vmFrame, inst uint32, v lua.LValue) {
	if _, ok := L.GetMetaField(v, "__call").(*lua.LFunction); ok {
		return
	}
	kind, name := calledName(cf.Fn, cf.Pc-1, instA(inst))
	if kind == "" {
		L.RaiseError("attempt to call a %s value", v.Type().String())
	}
	L.RaiseError("attempt to call %s '%s' (a %s value)", kind, name, v.Type().String())
}

// calledName says how register r, called by instruction pc of fn, got its
// value: ("global", name), ("field", key), ("method", key), ("local",
// name) or ("upvalue", name); ("", "") when LuaJIT would not name it
// either (a computed key, an expression's result) or when a jump could
// bring another value there.
func calledName(fn *lua.LFunction, pc, r int) (kind, name string) {
	if fn.IsG || fn.Proto == nil {
		return "", ""
	}
	if name, ok := fn.LocalName(r+1, pc); ok {
		return "local", name
	}
	p := fn.Proto
	starts := instructionStarts(p)
	d := definer(p.Code, starts, pc, r)
	if d < 0 || jumpsInto(p.Code, starts, d, pc) {
		return "", ""
	}
	inst := p.Code[d]
	switch instOp(inst) {
	case lua.OP_GETGLOBAL:
		return constantName(p, instBx(inst), "global")
	case lua.OP_GETTABLE, lua.OP_GETTABLEKS:
		if c := instC(inst); c&0x100 != 0 {
			return constantName(p, c&0xff, "field")
		}
	case lua.OP_SELF:
		if c := instC(inst); c&0x100 != 0 && instA(inst) == r {
			return constantName(p, c&0xff, "method")
		}
	case lua.OP_GETUPVAL:
		if b := instB(inst); b < len(p.DbgUpvalues) {
			return "upvalue", p.DbgUpvalues[b]
		}
	case lua.OP_MOVE:
		if b := instB(inst); b < r {
			if name, ok := fn.LocalName(b+1, d); ok {
				return "local", name
			}
		}
	}
	return "", ""
}

// constantName returns (kind, constant k) when constant k is a string.
func constantName(p *lua.FunctionProto, k int, kind string) (string, string) {
	if k < len(p.Constants) {
		if s, ok := p.Constants[k].(lua.LString); ok {
			return kind, string(s)
		}
	}
	return "", ""
}

// instructionStarts lists the indexes of p's instructions, leaving out
// the words that belong to the instruction before them: the upvalue
// descriptions after CLOSURE and the count after SETLIST 0.
func instructionStarts(p *lua.FunctionProto) []int {
	starts := make([]int, 0, len(p.Code))
	for i := 0; i < len(p.Code); i++ {
		starts = append(starts, i)
		switch inst := p.Code[i]; instOp(inst) {
		case lua.OP_CLOSURE:
			if bx := instBx(inst); bx < len(p.FunctionPrototypes) {
				i += int(p.FunctionPrototypes[bx].NumUpvalues)
			}
		case lua.OP_SETLIST:
			if instC(inst) == 0 {
				i++
			}
		}
	}
	return starts
}

// definer returns the last instruction before pc that writes register r
// alone, or -1 when none does or the last write is one of several
// registers at once (LOADNIL, CALL results, VARARG, loops).
func definer(code []uint32, starts []int, pc, r int) int {
	for k := len(starts) - 1; k >= 0; k-- {
		i := starts[k]
		if i >= pc {
			continue
		}
		inst := code[i]
		a := instA(inst)
		switch op := instOp(inst); op {
		case lua.OP_MOVE, lua.OP_MOVEN, lua.OP_LOADK, lua.OP_LOADBOOL, lua.OP_GETUPVAL,
			lua.OP_GETGLOBAL, lua.OP_GETTABLE, lua.OP_GETTABLEKS, lua.OP_NEWTABLE,
			lua.OP_ADD, lua.OP_SUB, lua.OP_MUL, lua.OP_DIV, lua.OP_MOD, lua.OP_POW,
			lua.OP_UNM, lua.OP_NOT, lua.OP_LEN, lua.OP_CONCAT, lua.OP_CLOSURE, lua.OP_TESTSET:
			if a == r {
				return i
			}
		case lua.OP_SELF:
			if a == r {
				return i
			} else if a+1 == r {
				return -1
			}
		case lua.OP_LOADNIL, lua.OP_CALL, lua.OP_VARARG, lua.OP_FORLOOP, lua.OP_FORPREP, lua.OP_TFORLOOP:
			if r >= a {
				return -1 // conservative: treat any register from A up as written
			}
		}
	}
	return -1
}

// jumpsInto reports whether an instruction outside [d, pc) can jump to an
// instruction in (d, pc], so that register values set at d might not be
// the ones seen at pc.
func jumpsInto(code []uint32, starts []int, d, pc int) bool {
	for _, i := range starts {
		if i >= d && i < pc {
			continue
		}
		inst := code[i]
		target := -1
		switch instOp(inst) {
		case lua.OP_JMP, lua.OP_FORLOOP, lua.OP_FORPREP:
			target = i + 1 + instSbx(inst)
		case lua.OP_EQ, lua.OP_LT, lua.OP_LE, lua.OP_TEST, lua.OP_TESTSET, lua.OP_TFORLOOP:
			target = i + 2
		case lua.OP_LOADBOOL:
			if instC(inst) != 0 {
				target = i + 2
			}
		}
		if target > d && target <= pc {
			return true
		}
	}
	return false
}
