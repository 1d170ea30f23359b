package dbtest

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"sbgo/db"
	"sbgo/engine"
)

// Name is the driver's name, for --db-driver.
const Name = "dbtest"

func init() { db.Register(factory{}) }

type factory struct{}

var (
	_ db.Factory            = factory{}
	_ db.Driver             = (*driver)(nil)
	_ db.ErrorTexter        = (*driver)(nil)
	_ db.PrepareErrorTexter = (*driver)(nil)
	_ db.Conn               = (*conn)(nil)
	_ db.MoreResults        = (*conn)(nil)
	_ db.Stmt               = (*stmt)(nil)
	_ db.ParamCounter       = (*stmt)(nil)
	_ db.TypeBinder         = (*stmt)(nil)
	_ db.Rows               = (*rows)(nil)
)

func (factory) Name() string        { return Name }
func (factory) Description() string { return "in-memory test driver" }

func (factory) Options() []engine.Option {
	return []engine.Option{{Name: "dbtest-server", Desc: "the dbtest.Server to use (Server.Option)", Type: engine.ArgString}}
}

// New finds the server that --dbtest-server names.
func (factory) New(opts *engine.Options, _ *engine.Logger) (db.Driver, error) {
	var id string
	if v, ok := opts.Lookup("dbtest-server"); ok {
		id = v.String()
	}
	serversMu.Lock()
	defer serversMu.Unlock()
	s, ok := servers[id]
	if !ok {
		return nil, fmt.Errorf("dbtest: no server %q (pass Server.Option())", id)
	}
	return &driver{srv: s}, nil
}

type driver struct{ srv *Server }

func (d *driver) Name() string { return Name }

func (d *driver) Connect(ctx context.Context) (db.Conn, error) {
	if ctx.Err() != nil {
		return nil, cancelled(ctx)
	}
	id, err := d.srv.connect(0, OpConnect)
	if err != nil {
		return nil, err
	}
	return &conn{srv: d.srv, id: id}, nil
}

func (d *driver) QueryErrorText(e *db.Error, query string, prepared bool) string {
	return fmt.Sprintf("dbtest: error %d (%s) for query '%s'", e.Errno, e.Msg, query)
}

func (d *driver) ConnectErrorText(err error) []string {
	return []string{"dbtest: connection failed: " + db.AsError(err).Msg}
}

func (d *driver) PrepareErrorText(e *db.Error) []string {
	return []string{"dbtest: prepare failed", fmt.Sprintf("error %d: %s", e.Errno, e.Msg)}
}

// conn is one session. Like a real driver's, it is not safe for calls
// from two goroutines at once: enter and leave bracket every call so that
// such an overlap is recorded (Server.Overlaps).
type conn struct {
	srv     *Server
	id      int
	active  atomic.Int32 // calls running on this connection
	session int          // bumped by Reconnect: older statements are gone
	lost    *db.Error    // the session is gone until Reconnect
	closed  bool
	pending []Reply // results still to come, for NextResult
}

// enter marks a call as running on c, noting an overlap with another.
func (c *conn) enter(op Op, query string) {
	if c.active.Add(1) > 1 {
		c.srv.overlap(c.id, op, query)
	}
}

func (c *conn) leave() { c.active.Add(-1) }

// usable is the error a call fails with before it reaches the server.
func (c *conn) usable() *db.Error {
	if c.closed {
		return Err(db.Fatal, 2006, "dbtest: connection closed")
	}
	return c.lost
}

func (c *conn) Query(ctx context.Context, query string) (db.Result, error) {
	c.enter(OpQuery, query)
	defer c.leave()
	return c.run(ctx, Call{Conn: c.id, Op: OpQuery, Query: strings.Clone(query)})
}

// run answers a query or execute as the server's rules say.
func (c *conn) run(ctx context.Context, call Call) (db.Result, error) {
	if err := c.usable(); err != nil {
		call.Err = err
		c.srv.log(call)
		return db.Result{}, err
	}
	r := c.srv.reply(call, false)
	if !wait(ctx, r) {
		c.lost = cancelled(ctx)
		return db.Result{}, c.lost
	}
	c.pending = r.More
	return c.result(r)
}

func (c *conn) result(r Reply) (db.Result, error) {
	if r.Err != nil {
		if r.Err.Kind == db.Reconnect {
			c.lost = r.Err
		}
		return db.Result{}, r.Err
	}
	if r.Columns == nil {
		return db.Result{Affected: r.Affected}, nil
	}
	return db.Result{Rows: newRows(c, r)}, nil
}

// wait holds a call for r's Delay and until r's Block is closed. It
// returns false when ctx is done first: the call stops waiting and, as
// with a real driver, the session is lost (see cancelled).
func wait(ctx context.Context, r Reply) bool {
	if r.Block != nil {
		select {
		case <-r.Block:
		case <-ctx.Done():
			return false
		}
	}
	if r.Delay <= 0 {
		return true
	}
	t := time.NewTimer(r.Delay)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// cancelled is the error of a call whose ctx ended: a lost connection
// (2013, as the MySQL driver reports it), which makes the session
// unusable until Reconnect.
func cancelled(ctx context.Context) *db.Error {
	return Err(db.Reconnect, 2013, "dbtest: lost connection ("+ctx.Err().Error()+")")
}

func (c *conn) NextResult(ctx context.Context) (db.Result, bool, error) {
	c.enter(OpNextResult, "")
	defer c.leave()
	c.srv.log(Call{Conn: c.id, Op: OpNextResult})
	if len(c.pending) == 0 {
		return db.Result{}, false, nil
	}
	r := c.pending[0]
	c.pending = c.pending[1:]
	res, err := c.result(r)
	return res, err == nil, err
}

func (c *conn) Prepare(ctx context.Context, query string, params []db.ParamType) (db.Stmt, error) {
	c.enter(OpPrepare, query)
	defer c.leave()
	call := Call{Conn: c.id, Op: OpPrepare, Query: strings.Clone(query)}
	if err := c.usable(); err != nil {
		call.Err = err
		c.srv.log(call)
		return nil, err
	}
	r := c.srv.reply(call, true)
	if !wait(ctx, r) {
		c.lost = cancelled(ctx)
		return nil, c.lost
	}
	if r.Err != nil {
		return nil, r.Err
	}
	return &stmt{conn: c, query: call.Query, session: c.session}, nil
}

func (c *conn) Reconnect(ctx context.Context) error {
	c.enter(OpReconnect, "")
	defer c.leave()
	if ctx.Err() != nil {
		return cancelled(ctx)
	}
	if _, err := c.srv.connect(c.id, OpReconnect); err != nil {
		return err
	}
	c.session++
	c.lost, c.pending = nil, nil
	return nil
}

func (c *conn) Close() error {
	c.enter(OpClose, "")
	defer c.leave()
	c.srv.log(Call{Conn: c.id, Op: OpClose})
	c.closed = true
	return nil
}

// stmt is a prepared statement of one session of a conn.
type stmt struct {
	conn    *conn
	query   string
	session int
}

// NumParams counts the '?' of the text.
func (s *stmt) NumParams() int { return strings.Count(s.query, "?") }

func (s *stmt) BindTypes(ctx context.Context, types []db.ParamType) error {
	c := s.conn
	c.enter(OpBind, s.query)
	defer c.leave()
	names := make([]string, len(types))
	for i, t := range types {
		names[i] = [...]string{"int", "double", "string"}[t]
	}
	c.srv.log(Call{Conn: c.id, Op: OpBind, Query: s.query, Args: names})
	return nil
}

func (s *stmt) Execute(ctx context.Context, args []db.Value) (db.Result, error) {
	c := s.conn
	c.enter(OpExecute, s.query)
	defer c.leave()
	call := Call{Conn: c.id, Op: OpExecute, Query: s.query, Args: literals(args)}
	if s.session != c.session && c.usable() == nil {
		err := Err(db.Fatal, 1243, "Unknown prepared statement handler given to mysqld_stmt_execute")
		call.Err = err
		c.srv.log(call)
		return db.Result{}, err
	}
	return c.run(ctx, call)
}

func (s *stmt) Close() error {
	c := s.conn
	c.enter(OpCloseStmt, s.query)
	defer c.leave()
	c.srv.log(Call{Conn: c.id, Op: OpCloseStmt, Query: s.query})
	return nil
}

// literals are the values as SQL literals, a non-nil slice.
func literals(args []db.Value) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = string(db.AppendLiteral(nil, a, quote))
	}
	return out
}

func quote(dst, s []byte) []byte {
	dst = append(dst, '\'')
	dst = append(dst, strings.ReplaceAll(string(s), "'", "''")...)
	return append(dst, '\'')
}

// rows is a result set read from a Reply.
type rows struct {
	conn   *conn
	fields int
	data   [][][]byte
	next   int
	closed bool
}

func newRows(c *conn, r Reply) *rows {
	rs := &rows{conn: c, fields: len(r.Columns), data: make([][][]byte, len(r.Rows))}
	for i, row := range r.Rows {
		rs.data[i] = make([][]byte, len(r.Columns))
		for j := range rs.data[i] {
			if j < len(row) && row[j] != nil {
				rs.data[i][j] = fmt.Appendf(nil, "%v", row[j])
			}
		}
	}
	return rs
}

func (r *rows) NumFields() int { return r.fields }

func (r *rows) Next(row [][]byte) (bool, error) {
	if r.closed || r.next >= len(r.data) {
		return false, nil
	}
	copy(row, r.data[r.next])
	r.next++
	return true, nil
}

func (r *rows) Close() error {
	r.closed = true
	return nil
}
