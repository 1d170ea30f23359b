package pgsql

import (
	"strconv"
	"testing"
	"time"

	"sbgo/db"
	"sbgo/internal/faultproxy"
)

// TestCommitInDoubt: a COMMIT whose answer is lost after the server got
// it is a lost session in doubt (the transaction did commit); a call on
// the session found closed afterwards is not in doubt, nor is a lost
// session's statement that failed before the loss.
func TestCommitInDoubt(t *testing.T) {
	admin := connect(t, testDriver(t, nil))
	tbl := testTable(t, admin, 1)
	p, err := faultproxy.New("127.0.0.1:5432")
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	c := connect(t, testDriver(t, map[string]string{
		"pgsql-port": strconv.Itoa(p.Port()), "pgsql-ignore-errors": "08006"}))
	mustQuery(t, c, "BEGIN")
	mustQuery(t, c, "UPDATE "+tbl+" SET v = 42 WHERE id = 1")
	p.CutAfterSending([]byte("COMMIT"))
	_, err = c.Query(testContext(t), "COMMIT")
	if e := asDBError(t, err); e.State != "08006" || e.Kind != db.Reconnect || !e.InDoubt {
		t.Fatalf("COMMIT cut after sending: %+v; want 08006, Reconnect, in doubt", e)
	}
	// The server commits after the client has seen the loss: wait.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		got := rowsText(text(t, mustQuery(t, admin, "SELECT v FROM "+tbl)))
		if got == "42" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("v = %s after the COMMIT in doubt; want 42 (the server committed)", got)
		}
	}
	_, err = c.Query(testContext(t), "COMMIT")
	if e := asDBError(t, err); e.State != "08006" || e.InDoubt {
		t.Errorf("COMMIT on the closed session: %+v; want 08006, not in doubt", e)
	}
}
