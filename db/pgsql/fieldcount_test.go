package pgsql

import (
	"context"
	"net"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgproto3"

	"sbgo/db"
)

// A DataRow message with fewer values than its result has fields is
// something no real server sends, so these tests talk to a scripted
// backend over a pipe: every odd result it sends has a row one value
// short. Queries and executes fail on that row with libpq's error, and
// the session goes on.
func TestShortDataRow(t *testing.T) {
	c := &conn{d: &Driver{}, target: fakeBackendConfig(t)}
	ctx := testContext(t)
	if err := c.open(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	_, err := c.Query(ctx, "SELECT a, b")
	checkFieldCountError(t, "query", err)
	if got := rowsText(text(t, mustQuery(t, c, "SELECT a, b"))); got != "x|y" {
		t.Errorf("next query: %q, want x|y", got)
	}
	st, err := c.Prepare(ctx, "SELECT a, b", nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = st.Execute(ctx, nil)
	checkFieldCountError(t, "execute", err)
	res, err := st.Execute(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := rowsText(text(t, res)); got != "x|y" {
		t.Errorf("next execute: %q, want x|y", got)
	}
}

func checkFieldCountError(t *testing.T, what string, err error) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s of a short row: no error", what)
	}
	e := asDBError(t, err)
	if e.Msg != `unexpected field count in "D" message` || e.State != stateClient || e.Kind != db.Fatal {
		t.Errorf("%s of a short row: %+v", what, e)
	}
}

// fakeBackendConfig is a session's settings whose connections reach
// fakeBackend through a pipe.
func fakeBackendConfig(t *testing.T) *pgx.ConnConfig {
	cfg, err := pgx.ParseConfig("host=fake port=5432 user=u dbname=d sslmode=disable")
	if err != nil {
		t.Fatal(err)
	}
	cfg.LookupFunc = func(context.Context, string) ([]string, error) { return []string{"192.0.2.1"}, nil }
	cfg.DialFunc = func(context.Context, string, string) (net.Conn, error) {
		client, server := net.Pipe()
		go fakeBackend(server)
		return client, nil
	}
	return cfg
}

// fakeBackend answers a session's startup, simple queries and extended
// protocol messages. Every result set has the fields a and b and one row
// (x, y); the row of every odd one lacks its second value.
func fakeBackend(nc net.Conn) {
	defer nc.Close()
	b := pgproto3.NewBackend(nc, nc)
	if _, err := b.ReceiveStartupMessage(); err != nil {
		return
	}
	b.Send(&pgproto3.AuthenticationOk{})
	b.Send(&pgproto3.BackendKeyData{ProcessID: 1, SecretKey: []byte{0, 0, 0, 1}})
	b.Send(&pgproto3.ReadyForQuery{TxStatus: 'I'})
	desc := &pgproto3.RowDescription{Fields: []pgproto3.FieldDescription{
		{Name: []byte("a"), DataTypeOID: 25, DataTypeSize: -1, TypeModifier: -1},
		{Name: []byte("b"), DataTypeOID: 25, DataTypeSize: -1, TypeModifier: -1},
	}}
	results := 0
	row := func() {
		results++
		values := [][]byte{[]byte("x"), []byte("y")}
		if results%2 == 1 {
			values = values[:1]
		}
		b.Send(&pgproto3.DataRow{Values: values})
		b.Send(&pgproto3.CommandComplete{CommandTag: []byte("SELECT 1")})
	}
	for {
		if err := b.Flush(); err != nil {
			return
		}
		msg, err := b.Receive()
		if err != nil {
			return
		}
		switch m := msg.(type) {
		case *pgproto3.Query:
			b.Send(desc)
			row()
			b.Send(&pgproto3.ReadyForQuery{TxStatus: 'I'})
		case *pgproto3.Parse:
			b.Send(&pgproto3.ParseComplete{})
		case *pgproto3.Describe:
			if m.ObjectType == 'S' {
				b.Send(&pgproto3.ParameterDescription{})
			}
			b.Send(desc)
		case *pgproto3.Bind:
			b.Send(&pgproto3.BindComplete{})
		case *pgproto3.Execute:
			row()
		case *pgproto3.Sync:
			b.Send(&pgproto3.ReadyForQuery{TxStatus: 'I'})
		case *pgproto3.Terminate:
			return
		}
	}
}
