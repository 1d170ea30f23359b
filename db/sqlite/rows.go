package sqlite

import (
	"strconv"

	"modernc.org/libc"
	lib "modernc.org/sqlite/lib"
)

// rows is a result set, read completely and kept in buffers that the
// next result reuses: one byte slice for all the values as text, and
// where each value is in it.
type rows struct {
	nfields int
	nrows   int
	data    []byte
	cells   []cell // nfields per row
	next    int    // the next row to return
	open    bool
}

// cell is one value in rows.data; n < 0 is SQL NULL.
type cell struct{ off, n int }

// maxKeptBuffer is the largest row buffer kept for the next result, so
// that one huge result does not pin its memory for the whole run.
const maxKeptBuffer = 4 << 20

// empty is the value of an empty, non-NULL text: a nil slice is NULL.
var empty = []byte{}

func (r *rows) reset(nfields int) {
	r.nfields = nfields
	if cap(r.data) > maxKeptBuffer {
		r.data, r.cells = nil, nil
	}
	r.data = r.data[:0]
	r.cells = r.cells[:0]
	r.nrows, r.next = 0, 0
}

// add copies the current row of st: integers formatted in Go, the rest
// as SQLite gives them as text (its own formatting of REAL values).
func (r *rows) add(tls *libc.TLS, st uintptr) {
	r.nrows++
	for i := int32(0); i < int32(r.nfields); i++ {
		start := len(r.data)
		switch lib.Xsqlite3_column_type(tls, st, i) {
		case lib.SQLITE_NULL:
			r.cells = append(r.cells, cell{n: -1})
			continue
		case lib.SQLITE_INTEGER:
			r.data = strconv.AppendInt(r.data, lib.Xsqlite3_column_int64(tls, st, i), 10)
		case lib.SQLITE_BLOB:
			p := lib.Xsqlite3_column_blob(tls, st, i)
			r.data = append(r.data, cBytes(p, int(lib.Xsqlite3_column_bytes(tls, st, i)))...)
		default:
			p := lib.Xsqlite3_column_text(tls, st, i)
			r.data = append(r.data, cBytes(p, int(lib.Xsqlite3_column_bytes(tls, st, i)))...)
		}
		r.cells = append(r.cells, cell{off: start, n: len(r.data) - start})
	}
}

func (r *rows) NumFields() int { return r.nfields }

// NumRows is the number of rows of the result, known because it was read
// completely: a binding can give rs.nrows without reading ahead.
func (r *rows) NumRows() int { return r.nrows }

// Next fills row with the next row's values, which stay valid until the
// next call on the conn. Reading after Close, or past the end, gives
// false.
func (r *rows) Next(row [][]byte) (bool, error) {
	if !r.open || r.next >= r.nrows {
		return false, nil
	}
	cells := r.cells[r.next*r.nfields : (r.next+1)*r.nfields]
	r.next++
	for i := range min(len(row), len(cells)) {
		switch cl := cells[i]; {
		case cl.n < 0:
			row[i] = nil
		case cl.n == 0:
			row[i] = empty
		default:
			row[i] = r.data[cl.off : cl.off+cl.n : cl.off+cl.n]
		}
	}
	return true, nil
}

// Close discards the rows not read.
func (r *rows) Close() error {
	r.open = false
	return nil
}
