package mysql

import (
	"bytes"
	"context"
	"database/sql/driver"
	"encoding/binary"
	"math"

	"sbgo/db"
)

// wireStmt is a statement prepared through the session's wire (see
// wire.go): its execute is the per-event path of the bundled workloads.
type wireStmt struct {
	c       *wireConn
	id      uint32
	gen     int // the connection's session it belongs to
	nparams int
	closed  bool
	// cols are the result's columns: from the prepare, replaced by the
	// definitions an execute sends (MariaDB may send none when they did
	// not change).
	cols []column
	// sentTypes are the parameter types the server holds for the
	// statement: those of its last execute that sent types and got an
	// answer; nil when the next execute must send them.
	sentTypes []byte
}

var (
	_ db.Stmt         = (*wireStmt)(nil)
	_ db.ParamCounter = (*wireStmt)(nil)
)

// NumParams is the number of '?' the server counted.
func (s *wireStmt) NumParams() int { return s.nparams }

// Execute sends COM_STMT_EXECUTE with args (see appendExecute) and reads
// the answer: an OK packet (the affected rows) or a result set, whose
// rows are read lazily. Any error makes the next execute send the
// parameter types again.
func (s *wireStmt) Execute(ctx context.Context, args []db.Value) (db.Result, error) {
	c := s.c
	c.release()
	if c.debug() {
		c.logf("mysql_stmt_execute(%p)", s)
	}
	if s.closed || s.gen != c.gen {
		return db.Result{}, c.classify(clientError(crStmtClosed, msgStmtClosed), true)
	}
	if c.w == nil { // lost, perhaps while the last result's rows were skipped
		return db.Result{}, c.fail(driver.ErrBadConn, true)
	}
	if len(args) != s.nparams {
		return db.Result{}, c.classify(clientError(crParamsNotBound, "No data supplied for parameters in prepared statement"), true)
	}
	w := c.w
	out := s.appendExecute(w.begin(comStmtExecute), args)
	stop := c.watch(ctx)
	if err := w.send(out); err != nil {
		s.sentTypes = nil
		return db.Result{}, c.lost(ctx, stop, err, true)
	}
	res, err := c.readResult(&s.cols, false)
	if err != nil {
		s.sentTypes = nil
		return db.Result{}, c.lost(ctx, stop, err, true)
	}
	c.commandDone()
	return res, nil
}

// appendExecute appends the body of COM_STMT_EXECUTE to out: the
// statement, no cursor, one iteration, then the NULL bitmap, the types
// and the values of args (integers as BIGINT, doubles as DOUBLE, strings
// as binary strings). The types go with the first execute and whenever
// they change (a parameter becomes NULL or stops being one); otherwise
// the server reuses the last ones, as with libmariadb's executes, which
// saves the server setting up its parameter conversions for every
// statement.
func (s *wireStmt) appendExecute(out []byte, args []db.Value) []byte {
	out = binary.LittleEndian.AppendUint32(out, s.id)
	out = append(out, 0, 1, 0, 0, 0) // no cursor; one iteration
	if len(args) == 0 {
		return out
	}
	nulls := len(out)
	for range (len(args) + 7) / 8 {
		out = append(out, 0)
	}
	bound := len(out)
	out = append(out, 1) // types follow
	out = appendParamTypes(out, nulls, args)
	if types := out[bound+1:]; s.sentTypes != nil && bytes.Equal(types, s.sentTypes) {
		out[bound], out = 0, out[:bound+1] // the server has them
	} else {
		s.sentTypes = append(s.sentTypes[:0], types...)
	}
	return appendParamValues(out, args)
}

// appendParamTypes appends the type of each of args, and sets the bits
// of the NULL ones in the bitmap at out[nulls:] (an index, not a slice:
// appending may move out).
func appendParamTypes(out []byte, nulls int, args []db.Value) []byte {
	for i := range args {
		a := &args[i]
		switch {
		case a.Null:
			out[nulls+i/8] |= 1 << (i % 8)
			out = append(out, typeNull, 0)
		case a.Type == db.ParamInt:
			out = append(out, typeLongLong, 0)
		case a.Type == db.ParamDouble:
			out = append(out, typeDouble, 0)
		default:
			out = append(out, typeString, 0)
		}
	}
	return out
}

// appendParamValues appends the values of the args that are not NULL.
func appendParamValues(out []byte, args []db.Value) []byte {
	for i := range args {
		a := &args[i]
		switch {
		case a.Null:
		case a.Type == db.ParamInt:
			out = binary.LittleEndian.AppendUint64(out, uint64(a.I))
		case a.Type == db.ParamDouble:
			out = binary.LittleEndian.AppendUint64(out, math.Float64bits(a.F))
		default:
			out = appendLenenc(out, uint64(len(a.S)))
			out = append(out, a.S...)
		}
	}
	return out
}

func appendLenenc(b []byte, n uint64) []byte {
	switch {
	case n < 0xfb:
		return append(b, byte(n))
	case n < 1<<16:
		return append(b, 0xfc, byte(n), byte(n>>8))
	case n < 1<<24:
		return append(b, 0xfd, byte(n), byte(n>>8), byte(n>>16))
	}
	return binary.LittleEndian.AppendUint64(append(b, 0xfe), n)
}

// Close deallocates the statement on the server (COM_STMT_CLOSE has no
// answer). A statement of an earlier session is gone already.
func (s *wireStmt) Close() error {
	if s.closed {
		return nil
	}
	s.closed = true
	c := s.c
	c.release()
	if s.gen != c.gen || c.w == nil {
		return nil
	}
	if c.debug() {
		c.logf("mysql_stmt_close(%p)", s)
	}
	out := binary.LittleEndian.AppendUint32(c.w.begin(comStmtClose), s.id)
	if err := c.w.send(out); err != nil {
		return c.lostNow(err, false)
	}
	return nil
}
