package sqlite

import (
	"unsafe"

	"modernc.org/libc"
	lib "modernc.org/sqlite/lib"
)

// The translated C code addresses its memory with uintptr values: memory
// that SQLite's allocator (sqlite3_malloc64) takes outside the Go heap,
// which the garbage collector neither moves nor frees. Go values are
// never handed to it; text goes through cbuf.

// ptrSize is the size of a C pointer.
const ptrSize = unsafe.Sizeof(uintptr(0))

// cPtr views the C address p as a pointer, for reading or writing C
// memory from Go.
func cPtr(p uintptr) unsafe.Pointer { return *(*unsafe.Pointer)(unsafe.Pointer(&p)) }

// cBytes is the n bytes of C memory at p, without copying them.
func cBytes(p uintptr, n int) []byte {
	if p == 0 || n <= 0 {
		return nil
	}
	return unsafe.Slice((*byte)(cPtr(p)), n)
}

// cLoad reads the pointer stored at the C address p.
func cLoad(p uintptr) uintptr { return *(*uintptr)(cPtr(p)) }

// cbuf is a C buffer that grows on demand and is reused: the text of a
// query, or the string parameters of a statement.
type cbuf struct {
	p uintptr
	n int
}

// fit makes the buffer at least n bytes long, keeping nothing of its
// content. It returns false when SQLite's allocator is out of memory.
func (b *cbuf) fit(tls *libc.TLS, n int) bool {
	if n <= b.n {
		return true
	}
	size := max(n, 2*b.n, 256)
	p := lib.Xsqlite3_realloc64(tls, b.p, uint64(size))
	if p == 0 {
		return false
	}
	b.p, b.n = p, size
	return true
}

// text copies s into the buffer with a final NUL and returns its address,
// or 0 when memory ran out.
func (b *cbuf) text(tls *libc.TLS, s string) uintptr {
	if !b.fit(tls, len(s)+1) {
		return 0
	}
	dst := cBytes(b.p, len(s)+1)
	copy(dst, s)
	dst[len(s)] = 0
	return b.p
}

func (b *cbuf) free(tls *libc.TLS) {
	if b.p != 0 {
		lib.Xsqlite3_free(tls, b.p)
		b.p, b.n = 0, 0
	}
}

// goString copies the NUL-terminated C string at p.
func goString(p uintptr) string { return libc.GoString(p) }
