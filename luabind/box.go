package luabind

import (
	"unsafe"

	lua "github.com/yuin/gopher-lua"
)

// A Lua value is a Go interface (lua.LValue), so handing a new number or
// string to Lua costs a heap allocation for the boxed value on top of the
// string's bytes: an 8-byte float per number, a 16-byte string header per
// string. Functions called in every event (string.format, sysbench.rand.*)
// return through the helpers below, which avoid those allocations the way
// gopher-lua's VM does for its own arithmetic: numbers go into slots of a
// per-state chunk of floats, and a string's header is stored in the same
// allocation as its bytes. The interface's data word then points into
// memory the GC already tracks (a chunk stays alive while any of its
// numbers does), so nothing here outlives what it points to.

// eface is the layout of a Go interface value: type (or itab) and data.
type eface struct {
	typ  unsafe.Pointer
	data unsafe.Pointer
}

var (
	numberItab = func() unsafe.Pointer { var v lua.LValue = lua.LNumber(0); return (*eface)(unsafe.Pointer(&v)).typ }()
	stringItab = func() unsafe.Pointer { var v lua.LValue = lua.LString(""); return (*eface)(unsafe.Pointer(&v)).typ }()
)

// numberChunk is how many numbers a state boxes per allocation.
const numberChunk = 128

// numberBoxes hands out boxed numbers from a chunk of floats.
type numberBoxes struct {
	chunk []float64
}

// box returns v as an LValue without allocating, except one chunk per
// numberChunk numbers.
func (nb *numberBoxes) box(v float64) lua.LValue {
	if len(nb.chunk) == cap(nb.chunk) {
		nb.chunk = make([]float64, 0, numberChunk)
	}
	nb.chunk = append(nb.chunk, v)
	var lv lua.LValue
	e := (*eface)(unsafe.Pointer(&lv))
	e.typ = numberItab
	e.data = unsafe.Pointer(&nb.chunk[len(nb.chunk)-1])
	return lv
}

// newLString returns b's text as an LValue in one allocation: the string
// header first, then the bytes it points to.
func newLString(b []byte) lua.LValue {
	s := newStringSpace(len(b))
	return s.value(append(s.text(), b...))
}

// stringArena hands out the short strings a state makes in every event
// (string.format's, sysbench.rand.string's), laid out as newLString's,
// from chunks it allocates: one allocation per chunk rather than per
// string. A chunk lives while any of its strings does, so a script that
// keeps one string of a chunk and drops the others keeps the whole chunk
// (arenaChunk bytes); strings longer than arenaMaxSize take an allocation
// of their own. An arena belongs to one state, as the state's goroutine
// does.
type stringArena struct {
	free []byte // what is left of the current chunk
}

const (
	arenaChunk   = 2048 // bytes per chunk
	arenaMaxSize = 256  // the largest string, header included, cut from a chunk
)

// newLString returns b's text as an LValue, cut from the arena's chunk
// when it is short.
func (a *stringArena) newLString(b []byte) lua.LValue {
	size := (stringHeader + len(b) + 7) &^ 7 // keeps every header 8-byte aligned
	if len(b) == 0 || size > arenaMaxSize {
		return newLString(b)
	}
	if len(a.free) < size {
		a.free = make([]byte, arenaChunk)
	}
	s := stringSpace(a.free[:size:size])
	a.free = a.free[size:]
	return s.value(append(s.text(), b...))
}

// stringSpace is one allocation for a string of at most a known length,
// laid out as newLString's, to build the string in place: append to
// text(), then value() makes the Lua string of what was appended.
type stringSpace []byte

// newStringSpace allocates room for a string of up to max bytes (nothing
// for an empty one).
func newStringSpace(max int) stringSpace {
	if max == 0 {
		return noSpace[:]
	}
	return make(stringSpace, stringHeader+max)
}

// noSpace is the space of every empty string.
var noSpace [stringHeader]byte

// stringHeader is the size of a string header.
const stringHeader = int(unsafe.Sizeof(lua.LString("")))

// text is the empty slice to append the string to, within the space.
func (s stringSpace) text() []byte { return s[stringHeader:stringHeader] }

// value returns text, which must have been appended to text() without
// outgrowing the space, as a Lua string.
func (s stringSpace) value(text []byte) lua.LValue {
	if len(text) == 0 {
		return lua.LString("")
	}
	if len(text) > len(s)-stringHeader || &text[0] != &s[stringHeader] {
		panic("luabind: a string outgrew its stringSpace")
	}
	header := (*lua.LString)(unsafe.Pointer(&s[0]))
	*header = lua.LString(unsafe.String(&s[stringHeader], len(text)))
	return stringValue(header)
}

// rowStrings sets dst[i] to raw[i]'s text as a Lua string, or to nil for
// a NULL, with one allocation for the whole row: the string headers first,
// then the bytes they point to, as newLString lays out one string.
func rowStrings(raw [][]byte, dst []lua.LValue) {
	const hdr = stringHeader
	n, size := 0, 0
	for _, v := range raw {
		if len(v) > 0 {
			n++
			size += len(v)
		}
	}
	var mem []byte
	if n > 0 {
		mem = make([]byte, n*hdr+size)
	}
	at, text := 0, n*hdr
	for i, v := range raw {
		switch {
		case v == nil:
			dst[i] = lua.LNil
		case len(v) == 0:
			dst[i] = lua.LString("")
		default:
			copy(mem[text:], v)
			header := (*lua.LString)(unsafe.Pointer(&mem[at]))
			*header = lua.LString(unsafe.String(&mem[text], len(v)))
			dst[i] = stringValue(header)
			at += hdr
			text += len(v)
		}
	}
}

// stringValue is the LValue whose data word is header.
func stringValue(header *lua.LString) lua.LValue {
	var lv lua.LValue
	e := (*eface)(unsafe.Pointer(&lv))
	e.typ = stringItab
	e.data = unsafe.Pointer(header)
	return lv
}
