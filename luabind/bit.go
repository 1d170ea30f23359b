package luabind

import (
	"math"
	"math/bits"

	lua "github.com/yuin/gopher-lua"
)

// The bit module is LuaJIT's BitOp, which third-party sysbench scripts use
// (sysbench-tpcc's NURand: bit.bor, bit.band). Operations work on 32-bit
// integers and return them as signed numbers. Arguments are normalised as
// BitOp does: the number is added to 2^52+2^51 and the low 32 bits of the
// sum are taken, which wraps modulo 2^32 and rounds fractions to even.
//
// As in LuaJIT 2.1, a uint64_t value among the operands (the first one for
// shifts, rotations and tohex) switches to 64-bit operations whose result
// is a uint64_t value; numbers then convert as in uint64_t arithmetic.

// newBitModule builds the bit table.
func newBitModule(L *lua.LState) *lua.LTable {
	t := L.CreateTable(0, 4)
	for name, fn := range map[string]lua.LGFunction{
		"tobit":   bitToBit,
		"tohex":   bitToHex,
		"bnot":    bitNot,
		"band":    bitFold("band", func(a, b uint64) uint64 { return a & b }),
		"bor":     bitFold("bor", func(a, b uint64) uint64 { return a | b }),
		"bxor":    bitFold("bxor", func(a, b uint64) uint64 { return a ^ b }),
		"lshift":  bitShift("lshift", func(x uint64, n uint, w int) uint64 { return x << n }),
		"rshift":  bitShift("rshift", func(x uint64, n uint, w int) uint64 { return x >> n }),
		"arshift": bitShift("arshift", bitArithShift),
		"rol":     bitShift("rol", bitRotate),
		"ror":     bitShift("ror", func(x uint64, n uint, w int) uint64 { return bitRotate(x, uint(w)-n, w) }),
		"bswap":   bitSwap,
	} {
		t.RawSetString(name, L.NewFunction(leafFunction(fn)))
	}
	return t
}

// bitNormalize is BitOp's conversion of a number to 32 bits.
func bitNormalize(f float64) uint32 {
	if f != f {
		return 0 // any NaN; x86's default NaN has zero low bits
	}
	return uint32(math.Float64bits(f + 6755399441055744.0))
}

// bitArg reads argument n: its 32-bit value, or, for a uint64_t value,
// its 64 bits and wide = true.
func bitArg(L *lua.LState, n int, fname string) (x uint64, wide bool) {
	if u, ok := toUint64(L.Get(n)); ok {
		return u, true
	}
	return uint64(bitNormalize(ljCheckNumber(L, n, fname))), false
}

// bitArg64 reads argument n for a 64-bit operation.
func bitArg64(L *lua.LState, n int, fname string) uint64 {
	if u, ok := toUint64(L.Get(n)); ok {
		return u
	}
	return arithUint64(ljCheckNumber(L, n, fname))
}

// bitPush pushes a result: a signed 32-bit number, or a uint64_t value.
func bitPush(L *lua.LState, x uint64, wide bool) int {
	if wide {
		pushUint64(L, x)
	} else {
		L.Push(lua.LNumber(int32(uint32(x))))
	}
	return 1
}

// bitToBit is bit.tobit(x): always a number, the low 32 bits as signed.
func bitToBit(L *lua.LState) int {
	x, _ := bitArg(L, 1, "tobit")
	return bitPush(L, x, false)
}

// bitNot is bit.bnot(x).
func bitNot(L *lua.LState) int {
	x, wide := bitArg(L, 1, "bnot")
	return bitPush(L, ^x, wide)
}

// bitSwap is bit.bswap(x), reversing the byte order.
func bitSwap(L *lua.LState) int {
	x, wide := bitArg(L, 1, "bswap")
	if wide {
		return bitPush(L, bits.ReverseBytes64(x), true)
	}
	return bitPush(L, uint64(bits.ReverseBytes32(uint32(x))), false)
}

// bitFold makes band, bor and bxor: op applied across one or more
// arguments.
func bitFold(fname string, op func(a, b uint64) uint64) lua.LGFunction {
	return func(L *lua.LState) int {
		top := L.GetTop()
		wide := false
		for i := 1; i <= top; i++ {
			if _, ok := toUint64(L.Get(i)); ok {
				wide = true
				break
			}
		}
		if wide {
			acc := bitArg64(L, 1, fname)
			for i := 2; i <= top; i++ {
				acc = op(acc, bitArg64(L, i, fname))
			}
			return bitPush(L, acc, true)
		}
		acc, _ := bitArg(L, 1, fname)
		for i := 2; i <= top; i++ {
			x, _ := bitArg(L, i, fname)
			acc = op(acc, x)
		}
		return bitPush(L, acc, false)
	}
}

// bitShift makes the shifts and rotations. The count is taken modulo the
// width (32, or 64 for a uint64_t value); op gets the value in the low w
// bits.
func bitShift(fname string, op func(x uint64, n uint, w int) uint64) lua.LGFunction {
	return func(L *lua.LState) int {
		x, wide := bitArg(L, 1, fname)
		n, _ := bitArg(L, 2, fname)
		if wide {
			return bitPush(L, op(x, uint(n&63), 64), true)
		}
		return bitPush(L, op(x, uint(n&31), 32)&math.MaxUint32, false)
	}
}

// bitArithShift shifts right copying the sign bit of a w-bit value.
func bitArithShift(x uint64, n uint, w int) uint64 {
	if w == 32 {
		return uint64(uint32(int32(uint32(x)) >> n))
	}
	return uint64(int64(x) >> n)
}

// bitRotate rotates a w-bit value left by n.
func bitRotate(x uint64, n uint, w int) uint64 {
	if w == 32 {
		return uint64(bits.RotateLeft32(uint32(x), int(n%32)))
	}
	return bits.RotateLeft64(x, int(n%64))
}

// bitToHex is bit.tohex(x [, n]): n hex digits (default 8, 16 for a
// uint64_t value), upper case when n is negative. LuaJIT keeps only the
// low eight bits of n+1 as the precision, so n = 255 means "no precision"
// and n = 264 means 8; the tests pin these quirks.
func bitToHex(L *lua.LState) int {
	x, wide := bitArg(L, 1, "tohex")
	width := int32(8)
	if wide {
		width = 16
	}
	if L.Get(2) != lua.LNil {
		n, _ := bitArg(L, 2, "tohex")
		width = int32(uint32(n))
	}
	upper := width < 0
	if upper {
		width = -width // math.MinInt32 stays negative, as in LuaJIT
	}
	maxDigits := int32(8)
	if wide {
		maxDigits = 16
	}
	if width < maxDigits {
		if width <= 0 {
			x = 0
		} else {
			x &= 1<<(uint(width)*4) - 1
		}
	}
	digits := "0123456789abcdef"
	if upper {
		digits = "0123456789ABCDEF"
	}
	var buf [300]byte
	b := buf[:0]
	var tmp [16]byte
	nd := 0
	for v := x; v != 0; v >>= 4 {
		tmp[nd] = digits[v&15]
		nd++
	}
	prec := int((width + 1) & 255)
	if prec == 0 {
		if nd == 0 {
			b = append(b, '0') // no precision: at least one digit
		}
	} else {
		for i := nd; i < prec-1; i++ {
			b = append(b, '0')
		}
	}
	for i := nd - 1; i >= 0; i-- {
		b = append(b, tmp[i])
	}
	L.Push(lua.LString(b))
	return 1
}
