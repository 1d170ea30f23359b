package luabind

import (
	"reflect"
	"runtime/debug"
	"unsafe"

	lua "github.com/yuin/gopher-lua"
)

// gopher-lua has no hook for arithmetic, concatenation or the error of a
// call to a non-function, and in those three places it differs from LuaJIT
// in ways scripts notice (modulo.go, concat.go, callerror.go). So init
// replaces entries of its VM's dispatch table (the unexported
// jumpTable, reached with go:linkname): OP_MOD, OP_CONCAT, OP_CALL and
// OP_TAILCALL; and, for speed alone, OP_SELF (method.go), OP_GETTABLEKS
// and OP_SETTABLEKS (field.go). The new handlers read and write the VM's
// registers through mirrors of gopher-lua's unexported registry and
// callFrame structs.
//
// Such a patch is only as safe as the mirrors, so it is installed only
// when (1) the linked gopher-lua is the release it was verified against,
// read from the build info, and (2) reflect finds every mirrored field
// with the same name, type and offset and the dispatch table shaped as
// expected. Otherwise the stock handlers stay, `sbgo --version` says so
// (VMPatchNote), and TestVMPatchesInstalled fails: upgrading gopher-lua
// means re-reading its vm.go and state.go and then raising
// verifiedGopherLua, a deliberate act.

// gopherLuaModule is the module path looked up in the build info.
const gopherLuaModule = "github.com/yuin/gopher-lua"

// verifiedGopherLua is the gopher-lua release whose handlers and structs
// the mirrors below were checked against.
const verifiedGopherLua = "v1.1.2"

// pinnedGopherLua is the version go.mod requires. It stands in for the
// build info in binaries built without module information (`go test`
// binaries list no dependencies); TestGopherLuaPinned keeps it equal to
// go.mod.
const pinnedGopherLua = "v1.1.2"

//go:linkname vmJumpTable github.com/yuin/gopher-lua.jumpTable
var vmJumpTable [lua.OP_NOP + 1]vmInstruction

// vmInstruction has the signature of gopher-lua's instFunc; the last
// argument is a *callFrame, which only the stock handlers use.
type vmInstruction func(L *lua.LState, inst uint32, baseframe unsafe.Pointer) int

// vmRegistry mirrors the start of gopher-lua's registry: the value stack.
type vmRegistry struct {
	array []lua.LValue
	top   int
}

// vmFrame mirrors the start of gopher-lua's callFrame, up to the first
// register of the running function.
type vmFrame struct {
	Idx       int
	Fn        *lua.LFunction
	_         unsafe.Pointer // Parent
	Pc        int
	Base      int
	LocalBase int
}

// vmStateReg and vmStateFrame are the offsets of LState's reg and
// currentFrame fields, set before any handler is installed.
var vmStateReg, vmStateFrame uintptr

// vmPatches records what init found and installed.
var vmPatches struct {
	version string // the linked gopher-lua's version
	modulo  bool   // OP_MOD is luajitModulo
	concat  bool   // OP_CONCAT is luajitConcat
	call    bool   // OP_CALL and OP_TAILCALL name what they fail to call
	leaves  bool   // OP_CALL runs leaf Go functions without a frame
	self    bool   // OP_SELF finds sysbench.sql's methods without a lookup
	fields  bool   // OP_GETTABLEKS and OP_SETTABLEKS reach tables directly
}

func init() {
	vmPatches.version = linkedGopherLua()
	if vmPatches.version != verifiedGopherLua || !mirrorsMatch() {
		return
	}
	vmPatches.modulo = installModulo()
	vmPatches.concat = installConcat()
	vmPatches.call = installCallErrors()
	vmPatches.leaves = vmPatches.call && installLeafCalls()
	vmPatches.self = installSelf()
	vmPatches.fields = installFields()
}

// linkedGopherLua returns the version of gopher-lua in the build info (a
// replacement's version if it is replaced, "" for a directory), or
// pinnedGopherLua when the binary carries no dependency list.
func linkedGopherLua() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == gopherLuaModule {
				if d.Replace != nil {
					return d.Replace.Version
				}
				return d.Version
			}
		}
	}
	return pinnedGopherLua
}

// VMPatchNote is empty when sbgo's LuaJIT-compatible VM handlers are
// installed, and otherwise says which gopher-lua rules remain, for
// `sbgo --version`.
func VMPatchNote() string {
	if vmPatches.modulo && vmPatches.concat && vmPatches.call {
		return ""
	}
	v, why := vmPatches.version, "is not the verified "+verifiedGopherLua
	if v == "" {
		v = "(devel)"
	} else if v == verifiedGopherLua {
		why = "does not have the internals it was verified with"
	}
	return "note: gopher-lua " + v + " " + why + ": `%`, `..` and call errors keep gopher-lua's own rules"
}

// mirrorsMatch checks vmRegistry and vmFrame against the linked
// gopher-lua and records LState's field offsets.
func mirrorsMatch() bool {
	state := reflect.TypeOf(lua.LState{})
	reg, ok1 := state.FieldByName("reg")
	frame, ok2 := state.FieldByName("currentFrame")
	if !ok1 || !ok2 || reg.Type.String() != "*lua.registry" || frame.Type.String() != "*lua.callFrame" ||
		!sameLayout(reflect.TypeOf(vmRegistry{}), reg.Type.Elem()) ||
		!sameLayout(reflect.TypeOf(vmFrame{}), frame.Type.Elem()) {
		return false
	}
	vmStateReg, vmStateFrame = reg.Offset, frame.Offset
	return true
}

// sameLayout reports whether every named field of mirror is a field of
// real with the same name, type and offset; blank fields only pad.
func sameLayout(mirror, real reflect.Type) bool {
	if real.Kind() != reflect.Struct {
		return false
	}
	for i := 0; i < mirror.NumField(); i++ {
		m := mirror.Field(i)
		if m.Name == "_" {
			continue
		}
		r, ok := real.FieldByName(m.Name)
		if !ok || r.Offset != m.Offset || r.Type != m.Type {
			return false
		}
	}
	return true
}

// handlerCode is the code pointer of a handler, to tell handlers apart.
func handlerCode(f vmInstruction) uintptr { return *(*uintptr)(unsafe.Pointer(&f)) }

// distinctHandlers reports whether the table entries of ops are set and
// pairwise different: each stock handler gopher-lua v1.1.2 has for them.
func distinctHandlers(ops ...int) bool {
	seen := make(map[uintptr]bool, len(ops))
	for _, op := range ops {
		c := handlerCode(vmJumpTable[op])
		if c == 0 || seen[c] {
			return false
		}
		seen[c] = true
	}
	return true
}

// vmState returns the running state's registry and current frame.
func vmState(L *lua.LState) (*vmRegistry, *vmFrame) {
	return *(**vmRegistry)(unsafe.Add(unsafe.Pointer(L), vmStateReg)),
		*(**vmFrame)(unsafe.Add(unsafe.Pointer(L), vmStateFrame))
}

// vmOperand reads an RK operand: a constant of the running function when
// bit 8 is set, else a register.
func vmOperand(reg *vmRegistry, cf *vmFrame, rk int) lua.LValue {
	if rk&0x100 != 0 {
		return cf.Fn.Proto.Constants[rk&0xff]
	}
	return reg.array[cf.LocalBase+rk]
}

// setRegister writes v to absolute register ra, which the caller checked
// is below len(reg.array), and raises the top as gopher-lua's Set does.
func setRegister(reg *vmRegistry, ra int, v lua.LValue) {
	reg.array[ra] = v
	if ra >= reg.top {
		reg.top = ra + 1
	}
}

// Fields of an instruction (gopher-lua's opcode.go): 6 bits of opcode,
// then A (8 bits), C (9 bits) and B (9 bits), or A and Bx (18 bits).
func instOp(inst uint32) int { return int(inst >> 26) }
func instA(inst uint32) int  { return int(inst>>18) & 0xff }
func instB(inst uint32) int  { return int(inst & 0x1ff) }
func instC(inst uint32) int  { return int(inst>>9) & 0x1ff }
func instBx(inst uint32) int { return int(inst & 0x3ffff) }

// instSbx is the signed jump offset of JMP, FORLOOP and FORPREP.
func instSbx(inst uint32) int { return instBx(inst) - 0x3ffff>>1 }
