package dbtest

import (
	"context"
	"io"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"sbgo/db"
	"sbgo/engine"
)

// connect opens a connection to srv through the registry, as the
// bindings do.
func connect(t *testing.T, srv *Server) db.Conn {
	t.Helper()
	f, ok := db.Lookup(Name)
	if !ok {
		t.Fatal("dbtest is not registered")
	}
	opts := engine.NewOptions()
	if err := opts.Register(f.Options()...); err != nil {
		t.Fatal(err)
	}
	if _, err := engine.ParseCommandLine([]string{srv.Option()}, opts); err != nil {
		t.Fatal(err)
	}
	d, err := f.New(opts, engine.NewLogger(io.Discard, 3))
	if err != nil {
		t.Fatal(err)
	}
	c, err := d.Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func newServer(t *testing.T) *Server {
	s := NewServer()
	t.Cleanup(s.Close)
	return s
}

// readAll reads a result set as text, "NULL" for NULL.
func readAll(t *testing.T, res db.Result) [][]string {
	t.Helper()
	if res.Rows == nil {
		return nil
	}
	defer res.Rows.Close()
	row := make([][]byte, res.Rows.NumFields())
	var out [][]string
	for {
		ok, err := res.Rows.Next(row)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			return out
		}
		var r []string
		for _, v := range row {
			if v == nil {
				r = append(r, "NULL")
			} else {
				r = append(r, string(v))
			}
		}
		out = append(out, r)
	}
}

// errno is err's error number, 0 for none.
func errno(err error) int {
	if err == nil {
		return 0
	}
	return db.AsError(err).Errno
}

// TestRules pins how a statement finds its reply: the first rule whose
// text matches and whose call filter accepts the call, else an empty
// success.
func TestRules(t *testing.T) {
	s := newServer(t)
	s.Add(&Rule{Match: Exact("SELECT 1"), Calls: Nth(2), Reply: Reply{Err: Err(db.Fatal, 1064, "second")}})
	s.On(Exact("SELECT 1"), Reply{Columns: []string{"1"}, Rows: [][]any{{1}}})
	s.Add(&Rule{Match: Prefix("UPDATE"), Calls: Odd, Reply: Reply{Err: Err(db.Ignorable, 1213, "deadlock")}})
	s.On(Prefix("UPDATE"), Reply{Affected: 3})
	s.On(Regexp(`^SELECT .* FROM t$`), Reply{Columns: []string{"a", "b"}, Rows: [][]any{{"x", nil}, {2.5, "y"}}})
	c := connect(t, s)
	for _, tc := range []struct {
		query    string
		rows     [][]string
		affected int64
		errno    int
	}{
		{"SELECT 1", [][]string{{"1"}}, 0, 0},                                 // first call: the Nth(2) rule passes
		{"SELECT 1", nil, 0, 1064},                                            // second call: the Nth(2) rule answers
		{"SELECT 1", [][]string{{"1"}}, 0, 0},                                 // third: the general rule again
		{"UPDATE t SET a=1", nil, 0, 1213},                                    // first UPDATE: odd
		{"UPDATE t SET a=2", nil, 3, 0},                                       // second: even, the next rule
		{"UPDATE t SET a=3", nil, 0, 1213},                                    // third: odd again
		{"SELECT a, b FROM t", [][]string{{"x", "NULL"}, {"2.5", "y"}}, 0, 0}, // regexp, NULL
		{"BEGIN", nil, 0, 0},                                                  // no rule: empty success
	} {
		res, err := c.Query(context.Background(), tc.query)
		if errno(err) != tc.errno {
			t.Errorf("%s: error %v, want errno %d", tc.query, err, tc.errno)
			continue
		}
		if got := readAll(t, res); !reflect.DeepEqual(got, tc.rows) || res.Affected != tc.affected {
			t.Errorf("%s: rows %v affected %d, want %v and %d", tc.query, got, res.Affected, tc.rows, tc.affected)
		}
	}
}

// TestPreparedLog pins the log of prepared statements: the statement's
// text, its bound types and values as literals, and its close.
func TestPreparedLog(t *testing.T) {
	s := newServer(t)
	s.On(Prefix("INSERT"), Reply{Affected: 1})
	c := connect(t, s)
	st, err := c.Prepare(context.Background(), "INSERT INTO t VALUES (?, ?, ?, ?)", nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := st.(db.ParamCounter).NumParams(); n != 4 {
		t.Errorf("NumParams = %d, want 4", n)
	}
	types := []db.ParamType{db.ParamInt, db.ParamDouble, db.ParamString, db.ParamString}
	if err := st.(db.TypeBinder).BindTypes(context.Background(), types); err != nil {
		t.Fatal(err)
	}
	args := []db.Value{{Type: db.ParamInt, I: 7}, {Type: db.ParamDouble, F: 0.5},
		{Type: db.ParamString, S: []byte("it's")}, {Type: db.ParamString, Null: true}}
	if res, err := st.Execute(context.Background(), args); err != nil || res.Affected != 1 {
		t.Errorf("Execute = %v, %v", res, err)
	}
	st.Close()
	c.Close()
	want := []string{
		"1 connect",
		"1 prepare INSERT INTO t VALUES (?, ?, ?, ?)",
		"1 bind INSERT INTO t VALUES (?, ?, ?, ?) [int double string string]",
		"1 execute INSERT INTO t VALUES (?, ?, ?, ?) [7 0.5 'it''s' NULL]",
		"1 close-stmt INSERT INTO t VALUES (?, ?, ?, ?)",
		"1 close",
	}
	if got := s.Log(); !reflect.DeepEqual(got, want) {
		t.Errorf("log:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestLostConnection pins connection loss: after a reconnect-class error
// every call fails the same way until Reconnect, which may itself fail
// (FailConnects); statements of the old session are gone after it.
func TestLostConnection(t *testing.T) {
	s := newServer(t)
	lost := Err(db.Reconnect, 2013, "Lost connection to MySQL server during query")
	s.Add(&Rule{Match: Exact("SELECT 1"), Calls: Nth(1), Reply: Reply{Err: lost}})
	c := connect(t, s)
	st, err := c.Prepare(context.Background(), "SELECT 2", nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []int{2013, 2013} {
		if _, err := c.Query(context.Background(), "SELECT 1"); errno(err) != want {
			t.Errorf("query %d: %v, want errno %d", i+1, err, want)
		}
	}
	if _, err := st.Execute(context.Background(), nil); errno(err) != 2013 {
		t.Errorf("execute on a lost session: %v", err)
	}
	s.FailReconnects(1, Err(db.Fatal, 2003, "Can't connect"))
	if err := c.Reconnect(context.Background()); errno(err) != 2003 {
		t.Errorf("first reconnect: %v, want 2003", err)
	}
	if err := c.Reconnect(context.Background()); err != nil {
		t.Errorf("second reconnect: %v", err)
	}
	if _, err := c.Query(context.Background(), "SELECT 1"); err != nil {
		t.Errorf("query after reconnect: %v", err)
	}
	if _, err := st.Execute(context.Background(), nil); errno(err) != 1243 {
		t.Errorf("execute of an old session's statement: %v, want 1243", err)
	}
}

// TestMoreResults pins the further results of a multi-result reply.
func TestMoreResults(t *testing.T) {
	s := newServer(t)
	s.On(Exact("CALL p()"), Reply{Columns: []string{"a"}, Rows: [][]any{{1}},
		More: []Reply{{Affected: 2}, {Err: Err(db.Fatal, 1305, "gone")}}})
	c := connect(t, s)
	mr := c.(db.MoreResults)
	if res, err := c.Query(context.Background(), "CALL p()"); err != nil || res.Rows == nil {
		t.Fatalf("first result: %v, %v", res, err)
	}
	if res, ok, err := mr.NextResult(context.Background()); !ok || err != nil || res.Affected != 2 {
		t.Errorf("second result: %v %v %v", res, ok, err)
	}
	if _, ok, err := mr.NextResult(context.Background()); ok || errno(err) != 1305 {
		t.Errorf("third result: %v %v", ok, err)
	}
	if _, ok, err := mr.NextResult(context.Background()); ok || err != nil {
		t.Errorf("after the last: %v %v", ok, err)
	}
}

// TestOverlapIsRecorded pins the check of the one-goroutine rule: a call
// that starts while another on the same connection runs is recorded;
// calls on different connections are not.
func TestOverlapIsRecorded(t *testing.T) {
	s := newServer(t)
	s.On(Exact("SLOW"), Reply{Delay: 50 * time.Millisecond})
	c1, c2 := connect(t, s), connect(t, s)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		c1.Query(context.Background(), "SLOW")
	}()
	// Wait until the slow query is logged, so it is running.
	for len(s.Log(OpQuery)) == 0 {
		time.Sleep(time.Millisecond)
	}
	c2.Query(context.Background(), "FAST")
	if got := s.Overlaps(); len(got) != 0 {
		t.Errorf("another connection overlapped: %v", got)
	}
	wg.Wait()
	wg.Add(1)
	go func() {
		defer wg.Done()
		c1.Query(context.Background(), "SLOW")
	}()
	for len(s.Log(OpQuery)) < 3 {
		time.Sleep(time.Millisecond)
	}
	c1.Close() // the same connection, while SLOW runs
	wg.Wait()
	if got := s.Overlaps(); len(got) != 1 || !strings.Contains(got[0], "conn 1: close") {
		t.Errorf("overlaps = %v, want conn 1's close", got)
	}
}

// TestFailConnects pins a refused connection: the next Connect fails,
// the one after it succeeds.
func TestFailConnects(t *testing.T) {
	s := newServer(t)
	connect(t, s)
	s.FailConnects(1, Err(db.Fatal, 2003, "Can't connect"))
	f, _ := db.Lookup(Name)
	opts := engine.NewOptions()
	opts.Register(f.Options()...)
	opts.Set("dbtest-server", &s.id)
	d, err := f.New(opts, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Connect(context.Background()); errno(err) != 2003 {
		t.Errorf("refused connect: %v", err)
	}
	if _, err := d.Connect(context.Background()); err != nil {
		t.Errorf("next connect: %v", err)
	}
	want := []string{"1 connect", "2 connect -> error 2003", "3 connect"}
	if got := s.Log(); !reflect.DeepEqual(got, want) {
		t.Errorf("log %q, want %q", got, want)
	}
}

// TestUnknownServer pins the error of a driver created without a server.
func TestUnknownServer(t *testing.T) {
	f, _ := db.Lookup(Name)
	opts := engine.NewOptions()
	opts.Register(f.Options()...)
	if _, err := f.New(opts, nil); err == nil || !strings.Contains(err.Error(), "no server") {
		t.Errorf("New without a server: %v", err)
	}
}
