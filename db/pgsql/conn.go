package pgsql

import (
	"cmp"
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"sbgo/db"
)

// conn is one server session, used by one goroutine. All its work goes
// through pgx's protocol layer (pgconn): the simple query protocol for
// text queries, Parse/Bind/Execute for prepared statements, text values
// both ways.
type conn struct {
	d      *Driver
	target *pgx.ConnConfig
	pg     *pgx.Conn // nil once closed, or after a failed Reconnect
	// gen counts the sessions this conn has had: a statement prepared in
	// an earlier one is gone.
	gen uint64
	// stmtSeq numbers the statements prepared on this conn, for their
	// server-side names.
	stmtSeq uint64

	rows  rows  // the current result set, reused by every statement
	watch watch // the context of the calls (see watch.go)
	// wasOpen says the session was open when the current call began, so
	// that a call that loses it may have reached the server (see fail).
	wasOpen bool
}

// session is the open session, or a lost-connection error.
func (c *conn) session() (*pgconn.PgConn, error) {
	if c.pg == nil {
		return nil, c.d.queryError(pgconn.ErrConnClosed, true)
	}
	return c.pg.PgConn(), nil
}

// fail classifies err of a call made with ctx: a session lost because
// ctx ended is abandoned (see watch.go). After an ignorable error on a
// session that is still open the transaction is rolled back, as
// sysbench's driver does, so that the session is usable for the
// restarted event.
//
// A call that lost a session open when it began is in doubt
// (db.Error.InDoubt): its request was sent, or being sent. pgx's own
// error cannot tell: a read that fails closes the session, and the
// error then returned is the one of a call on a closed session.
func (c *conn) fail(ctx context.Context, pc *pgconn.PgConn, err error) error {
	closed := pc.IsClosed()
	var e *db.Error
	if closed && ctx.Err() != nil {
		e = db.AsError(c.abandoned(ctx))
	} else {
		e = c.d.queryError(err, closed)
	}
	e.InDoubt = c.wasOpen && isSessionLost(e.State)
	if e.Kind == db.Ignorable && !closed && pc.TxStatus() != 'I' {
		pc.Exec(context.Background(), "ROLLBACK").Close()
	}
	return e
}

// Query runs a text query with the simple query protocol, so several
// statements separated by ';' are allowed. It returns the last
// statement's result, or the first error (the server skips the
// statements after a failed one). A statement with a row description is
// a result set, even without rows; any other reports its command tag's
// row count.
func (c *conn) Query(ctx context.Context, query string) (db.Result, error) {
	c.rows.Close()
	pc, err := c.begin(ctx)
	if err != nil {
		return db.Result{}, err
	}
	defer c.idle()
	mrr := pc.Exec(context.Background(), query)
	var res db.Result
	var readErr error
	for mrr.NextResult() {
		rr := mrr.ResultReader()
		var err error
		res, err = c.read(rr, rr.FieldDescriptions() != nil)
		readErr = cmp.Or(readErr, err)
	}
	if err := cmp.Or(mrr.Close(), readErr); err != nil {
		return db.Result{}, c.fail(ctx, pc, err)
	}
	if res.Rows != nil {
		c.rows.open = true
	}
	return res, nil
}

// read reads one statement's result: its rows into c.rows when it is a
// result set, its command tag's row count otherwise. The error is
// errFieldCount for a row that does not fit the result; the reader's
// own errors are left for the caller to collect from it.
func (c *conn) read(rr *pgconn.ResultReader, isSet bool) (db.Result, error) {
	if !isSet {
		tag, _ := rr.Close()
		return db.Result{Affected: tag.RowsAffected()}, nil
	}
	c.rows.reset(len(rr.FieldDescriptions()))
	var err error
	for rr.NextRow() {
		if !c.rows.add(rr.Values()) {
			err = errFieldCount
		}
	}
	rr.Close()
	return db.Result{Rows: &c.rows}, err
}

// errFieldCount is libpq's error for a DataRow message with more or
// fewer values than the result has fields, which a damaged or faulty
// server or proxy may send: pgconn passes such a row on as it came.
var errFieldCount = errors.New(`unexpected field count in "D" message`)

// Prepare prepares query: on the server (--db-ps-mode=auto), or on the
// client (--db-ps-mode=disable). See stmt for when the server prepares
// it. params, when given, fixes the parameter types at once.
func (c *conn) Prepare(ctx context.Context, query string, params []db.ParamType) (db.Stmt, error) {
	c.rows.Close()
	if c.d.emulate {
		return db.NewEmulated(c, query, quoteLiteral), nil
	}
	sql, n := rewritePlaceholders(query)
	s := &stmt{c: c, gen: c.gen, sql: sql, nparams: n, values: make([][]byte, n), ends: make([]int, n)}
	if params != nil && len(params) != n {
		return nil, wrongParamCount(len(params), n)
	}
	if n == 0 || params != nil {
		oids := make([]uint32, len(params))
		for i, t := range params {
			oids[i] = paramOID(t)
		}
		if err := s.prepare(ctx, oids); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// nextStmtName is a server-side statement name unique on this conn.
func (c *conn) nextStmtName() string {
	c.stmtSeq++
	return "sbstmt" + strconv.FormatUint(c.stmtSeq, 10)
}

// Reconnect closes the session and opens a new one to the same host and
// port. Statements of the old session fail from now on.
func (c *conn) Reconnect(ctx context.Context) error {
	c.closeSession()
	return c.open(ctx)
}

// closeTimeout bounds the goodbye to the server when a session closes.
const closeTimeout = 5 * time.Second

func (c *conn) closeSession() {
	c.endWatch()
	c.rows.Close()
	if c.pg == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), closeTimeout)
	c.pg.Close(ctx)
	cancel()
	c.pg = nil
	c.gen++
}

// Close ends the session. Later calls fail with a lost-connection error.
func (c *conn) Close() error {
	c.closeSession()
	return nil
}

// rows is a result set, read completely and kept in buffers that the
// next result reuses: one byte slice for all the values, and where each
// value is in it.
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

// add copies a row of values out of pgconn's read buffer. A row with
// more or fewer values than the result has fields is refused (false), so
// that every row keeps one cell per field, where Next looks for them.
func (r *rows) add(values [][]byte) bool {
	if len(values) != r.nfields {
		return false
	}
	r.nrows++
	for _, v := range values {
		if v == nil {
			r.cells = append(r.cells, cell{n: -1})
			continue
		}
		r.cells = append(r.cells, cell{off: len(r.data), n: len(v)})
		r.data = append(r.data, v...)
	}
	return true
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
