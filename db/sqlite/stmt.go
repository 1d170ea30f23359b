package sqlite

import (
	"context"
	"strconv"

	lib "modernc.org/sqlite/lib"

	"sbgo/db"
)

// stmt is a prepared statement of one conn: an sqlite3_stmt reused by
// every Execute, and the C buffer its string parameters are bound from.
type stmt struct {
	c       *conn
	st      uintptr // 0 once closed, or once its connection closed
	nparams int
	strs    cbuf
}

// NumParams is the number of parameters, as SQLite counts them.
func (s *stmt) NumParams() int { return s.nparams }

// Execute binds args and runs the statement to its end.
func (s *stmt) Execute(ctx context.Context, args []db.Value) (db.Result, error) {
	c := s.c
	c.rows.Close()
	if s.st == 0 {
		return db.Result{}, c.d.codeError(lib.SQLITE_MISUSE, "statement of a closed connection")
	}
	if len(args) != s.nparams {
		return db.Result{}, wrongParamCount(len(args), s.nparams)
	}
	if err := c.enter(ctx); err != nil {
		return db.Result{}, err
	}
	res, err := s.bind(args)
	if err == nil {
		res, err = c.run(s.st)
	}
	lib.Xsqlite3_reset(c.tls, s.st)
	return res, c.leave(err)
}

// bind binds args. Strings are copied into s.strs, one after the other,
// and bound without a copy (SQLITE_STATIC): the buffer stays as it is
// until the next Execute.
func (s *stmt) bind(args []db.Value) (db.Result, error) {
	c := s.c
	total := 0
	for _, a := range args {
		if a.Type == db.ParamString && !a.Null {
			total += len(a.S)
		}
	}
	if !s.strs.fit(c.tls, max(total, 1)) {
		return db.Result{}, c.d.codeError(lib.SQLITE_NOMEM, "out of memory")
	}
	off := 0
	for i, a := range args {
		n := int32(i + 1)
		var rc int32
		switch {
		case a.Null:
			rc = lib.Xsqlite3_bind_null(c.tls, s.st, n)
		case a.Type == db.ParamInt:
			rc = lib.Xsqlite3_bind_int64(c.tls, s.st, n, a.I)
		case a.Type == db.ParamDouble:
			rc = lib.Xsqlite3_bind_double(c.tls, s.st, n, a.F)
		default:
			p := s.strs.p + uintptr(off)
			copy(cBytes(p, len(a.S)), a.S)
			off += len(a.S)
			rc = lib.Xsqlite3_bind_text(c.tls, s.st, n, p, int32(len(a.S)), 0)
		}
		if rc != lib.SQLITE_OK {
			return db.Result{}, c.error(rc)
		}
	}
	return db.Result{}, nil
}

// Close finalizes the statement.
func (s *stmt) Close() error {
	if s.st == 0 {
		return nil
	}
	lib.Xsqlite3_finalize(s.c.tls, s.st)
	s.st = 0
	s.free()
	s.c.forget(s)
	return nil
}

func (s *stmt) free() { s.strs.free(s.c.tls) }

// wrongParamCount is the error for an Execute with as many values as the
// statement has parameters.
func wrongParamCount(got, want int) *db.Error {
	return &db.Error{Errno: lib.SQLITE_RANGE, State: codeName(lib.SQLITE_RANGE), Kind: db.Fatal,
		Msg: "wrong number of parameters: " + strconv.Itoa(got) + " for " + strconv.Itoa(want) + " placeholders"}
}
