package mysql

import (
	"context"
	"strconv"
	"testing"
	"time"

	"sbgo/db"
	"sbgo/internal/faultproxy"
)

// TestCommitInDoubt: a COMMIT whose answer is lost after the server got
// it is 2013 and in doubt (the transaction did commit), on sbgo's own
// protocol code and on go-sql-driver's; a call on the session found
// closed afterwards sends nothing and is not in doubt.
func TestCommitInDoubt(t *testing.T) {
	name := scratchDB(t)
	admin, _ := connect(t, name)
	mustQuery(t, admin, "CREATE TABLE t (id INT PRIMARY KEY, v INT) ENGINE=InnoDB")
	mustQuery(t, admin, "INSERT INTO t VALUES (1, 0)")
	for i, mode := range []string{"auto", "go-sql-driver"} {
		t.Run(mode, func(t *testing.T) {
			p, c := connectProxied(t, name, mode)
			want := strconv.Itoa(i + 1)
			mustQuery(t, c, "BEGIN")
			mustQuery(t, c, "UPDATE t SET v = "+want+" WHERE id = 1")
			p.CutAfterSending([]byte("COMMIT"))
			_, err := c.Query(context.Background(), "COMMIT")
			if e := asDBError(t, err); e.Errno != 2013 || e.Kind != db.Reconnect || !e.InDoubt {
				t.Fatalf("COMMIT cut after sending: %+v; want 2013, Reconnect, in doubt", e)
			}
			// The server commits after the client has seen the loss: wait.
			for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
				got := queryRows(t, admin, "SELECT v FROM t")[0][0]
				if got == want {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("v = %s after the COMMIT in doubt; want %s (the server committed)", got, want)
				}
			}
			_, err = c.Query(context.Background(), "COMMIT")
			if e := asDBError(t, err); e.Errno != 2006 || e.InDoubt {
				t.Errorf("COMMIT on the closed session: %+v; want 2006, not in doubt", e)
			}
		})
	}
}

// TestRowsCutShort: a result set whose rows are cut short loses the
// session while they are skipped, where no caller sees the error; the
// next execute then reports the lost session (2006, a reconnect), not a
// statement closed by the client (2056, fatal).
func TestRowsCutShort(t *testing.T) {
	name := scratchDB(t)
	for _, mode := range []string{"blocking", "poller", "go-sql-driver"} {
		t.Run(mode, func(t *testing.T) {
			p, c := connectProxied(t, name, mode)
			st := mustPrepare(t, c, "SELECT REPEAT('x', ?) FROM seq_1_to_100")
			arg := db.Value{Type: db.ParamInt, I: 1000} // 100 kB of rows
			p.TruncateNext()
			if res, err := st.Execute(context.Background(), []db.Value{arg}); err == nil {
				res.Rows.Close() // the rows are cut: the session is lost here
			}
			_, err := st.Execute(context.Background(), []db.Value{arg})
			if e := asDBError(t, err); (e.Errno != 2006 && e.Errno != 2013) || e.Kind != db.Reconnect {
				t.Fatalf("execute after rows cut short: %+v; want 2006 or 2013, a reconnect", e)
			}
		})
	}
}

// TestConnectEndingAtItsDeadline: a connect whose context ends as the
// handshake finishes either fails or gives a session that works;
// go-sql-driver watches the context until its connect returns, and may
// close the session it is about to return. The blackhole ends near the
// deadline, at a different offset each time.
func TestConnectEndingAtItsDeadline(t *testing.T) {
	name := scratchDB(t)
	for _, mode := range []string{"blocking", "go-sql-driver"} {
		t.Run(mode, func(t *testing.T) {
			p := newFaultProxy(t)
			d, _ := newDriver(t, rootArgs(name, "mysql-port", strconv.Itoa(p.Port()), "mysql-io-mode", mode)...)
			const limit = 40 * time.Millisecond
			for i := range 40 {
				p.Blackhole(true)
				ctx, cancel := context.WithTimeout(context.Background(), limit)
				lift := time.AfterFunc(limit-time.Duration(i)*250*time.Microsecond, func() { p.Blackhole(false) })
				c, err := d.Connect(ctx)
				cancel()
				lift.Stop()
				p.Blackhole(false)
				if err != nil {
					continue // timed out: fine
				}
				if _, err := c.Query(context.Background(), "SELECT 1"); err != nil {
					t.Fatalf("offset %d: the connect succeeded, then the session failed: %v", i, err)
				}
				c.Close()
			}
		})
	}
}

// newFaultProxy is a fault proxy to the local server, closed when the
// test ends.
func newFaultProxy(t *testing.T) *faultproxy.Proxy {
	t.Helper()
	p, err := faultproxy.New("127.0.0.1:3306")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// connectProxied opens a session as root to dbName through a new fault
// proxy, in io mode mode, with the lost-connection errors ignored.
func connectProxied(t *testing.T, dbName, mode string) (*faultproxy.Proxy, db.Conn) {
	t.Helper()
	p := newFaultProxy(t)
	c, _ := connect(t, dbName, "mysql-port", strconv.Itoa(p.Port()),
		"mysql-ignore-errors", "2013,2006", "mysql-io-mode", mode)
	return p, c
}
