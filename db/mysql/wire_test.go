package mysql

// Tests of sbgo's own prepared-statement protocol (wire.go), against the
// server on 127.0.0.1:3306 like server_test.go.

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"sbgo/db"
)

func mustPrepare(t testing.TB, c db.Conn, q string) db.Stmt {
	t.Helper()
	st, err := c.Prepare(context.Background(), q, nil)
	if err != nil {
		t.Fatalf("Prepare %s: %v", q, err)
	}
	return st
}

func mustExecute(t testing.TB, st db.Stmt, args ...db.Value) db.Result {
	t.Helper()
	res, err := st.Execute(context.Background(), args)
	if err != nil {
		t.Fatalf("Execute: %v", err)
	}
	return res
}

func intArg(v int64) db.Value { return db.Value{Type: db.ParamInt, I: v} }

// forWireModes runs a test of the wire once for each I/O mode that uses
// it, with the mode's option for connect.
func forWireModes(t *testing.T, f func(t *testing.T, mode []string)) {
	for _, m := range []string{"blocking", "poller"} {
		t.Run(m, func(t *testing.T) { f(t, []string{"mysql-io-mode", m}) })
	}
}

// Sessions without TLS or compression prepare through the wire, over a
// blocking socket or Go's own connection; the others, and
// --mysql-io-mode=go-sql-driver, keep go-sql-driver's statements.
func TestWhoCarriesStatements(t *testing.T) {
	name := scratchDB(t)
	tests := []struct {
		name   string
		kv     []string
		wire   bool
		socket string // the wire's connection type
	}{
		{"blocking", nil, true, "*sockconn.Conn"},
		{"socket", []string{"mysql-host", "localhost"}, true, "*sockconn.Conn"},
		{"poller", []string{"mysql-io-mode", "poller"}, true, "*sockconn.PollerConn"},
		{"poller, socket", []string{"mysql-io-mode", "poller", "mysql-host", "localhost"}, true, "*sockconn.PollerConn"},
		{"go-sql-driver", []string{"mysql-io-mode", "go-sql-driver"}, false, ""},
		{"compression", []string{"mysql-compression", "on"}, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, _ := connect(t, name, tt.kv...)
			st := mustPrepare(t, c, "SELECT ? + 1")
			if _, isWire := st.(*wireStmt); isWire != tt.wire {
				t.Errorf("statement %T, want the wire's: %v", st, tt.wire)
			}
			wc, isWire := c.(*wireConn)
			if isWire != tt.wire {
				t.Errorf("connection %T, want the wire's: %v", c, tt.wire)
			}
			if isWire && fmt.Sprintf("%T", wc.w.nc) != tt.socket {
				t.Errorf("the wire reads a %T, want %s", wc.w.nc, tt.socket)
			}
			if got := fetchAll(t, mustExecute(t, st, intArg(41)).Rows); fmt.Sprint(got) != "[[42]]" {
				t.Errorf("SELECT 41 + 1 = %q", got)
			}
		})
	}
}

// Results larger than the read buffer, fetched or skipped, leave the
// session in step; values are those the text protocol shows.
func TestWireLargeResults(t *testing.T) { forWireModes(t, testWireLargeResults) }

func testWireLargeResults(t *testing.T, mode []string) {
	name := scratchDB(t)
	c, _ := connect(t, name, mode...)
	mustQuery(t, c, "CREATE TABLE big (id INT PRIMARY KEY, c VARCHAR(200), b MEDIUMBLOB)")
	ins := mustPrepare(t, c, "INSERT INTO big VALUES (?, ?, ?)")
	blob := bytes.Repeat([]byte("0123456789abcdef"), 10000) // 160 KB, ten times the buffer
	for i := 1; i <= 300; i++ {
		b := []byte(nil)
		if i == 150 {
			b = blob
		}
		args := []db.Value{intArg(int64(i)), {Type: db.ParamString, S: []byte(strings.Repeat("c", i%200))}, {Type: db.ParamString, S: b, Null: b == nil}}
		if res := mustExecute(t, ins, args...); res.Affected != 1 {
			t.Fatalf("insert %d: %d affected", i, res.Affected)
		}
	}
	sel := mustPrepare(t, c, "SELECT id, c, b FROM big WHERE id BETWEEN ? AND ? ORDER BY id")
	count := mustPrepare(t, c, "SELECT COUNT(*) FROM big WHERE id > ?")
	for round := range 3 {
		// Skipped: the next statement's answer must be its own.
		mustExecute(t, sel, intArg(1), intArg(300))
		if got := fetchAll(t, mustExecute(t, count, intArg(100)).Rows); fmt.Sprint(got) != "[[200]]" {
			t.Fatalf("round %d: count after a skipped result: %q", round, got)
		}
		rows := fetchAll(t, mustExecute(t, sel, intArg(1), intArg(300)).Rows)
		if len(rows) != 300 {
			t.Fatalf("round %d: %d rows, want 300", round, len(rows))
		}
		for i, r := range rows {
			id := i + 1
			wantB := "NULL"
			if id == 150 {
				wantB = string(blob)
			}
			if r[0] != strconv.Itoa(id) || r[1] != strings.Repeat("c", id%200) || r[2] != wantB {
				t.Fatalf("round %d: row %d = %.40q", round, id, r)
			}
		}
	}
}

// A CALL's results: NextResult steps through the result sets; left
// unread, they are skipped before the next command.
func TestWireCallResults(t *testing.T) { forWireModes(t, testWireCallResults) }

func testWireCallResults(t *testing.T, mode []string) {
	name := scratchDB(t)
	c, _ := connect(t, name, mode...)
	mustQuery(t, c, "CREATE PROCEDURE two(n INT) BEGIN SELECT n; SELECT n + 1, 'x'; END")
	call := mustPrepare(t, c, "CALL two(?)")
	res := mustExecute(t, call, intArg(7))
	if res.Rows == nil {
		t.Fatal("CALL: no result set")
	}
	row := make([][]byte, 1)
	if ok, err := res.Rows.Next(row); !ok || err != nil || string(row[0]) != "7" {
		t.Errorf("first result: %q, %v, %v", row, ok, err)
	}
	mr := c.(db.MoreResults)
	next, ok, err := mr.NextResult(context.Background())
	if !ok || err != nil || next.Rows == nil {
		t.Fatalf("NextResult: ok %v, err %v", ok, err)
	}
	if got := fetchAll(t, next.Rows); fmt.Sprint(got) != "[[8 x]]" {
		t.Errorf("second result %q", got)
	}
	if _, ok, err := mr.NextResult(context.Background()); ok || err != nil {
		t.Errorf("third NextResult: ok %v, err %v; want none", ok, err)
	}
	// Closing a result ends the command's results.
	res = mustExecute(t, call, intArg(7))
	if err := res.Rows.Close(); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := mr.NextResult(context.Background()); ok || err != nil {
		t.Errorf("NextResult after Close: ok %v, err %v; want none", ok, err)
	}
	one := mustPrepare(t, c, "SELECT 'after'")
	for range 2 {
		mustExecute(t, call, intArg(1)) // nothing read
		if got := fetchAll(t, mustExecute(t, one).Rows); fmt.Sprint(got) != "[[after]]" {
			t.Fatalf("after an unread CALL: %q", got)
		}
		if got := queryRows(t, c, "SELECT 'text'"); fmt.Sprint(got) != "[[text]]" {
			t.Fatalf("text query after an unread CALL: %q", got)
		}
	}
}

// Changed columns reach the decoder: MariaDB sends the definitions again
// only when they changed.
func TestWireColumnsChange(t *testing.T) { forWireModes(t, testWireColumnsChange) }

func testWireColumnsChange(t *testing.T, mode []string) {
	name := scratchDB(t)
	c, _ := connect(t, name, mode...)
	mustQuery(t, c, "CREATE TABLE t (a INT)")
	mustQuery(t, c, "INSERT INTO t VALUES (1)")
	sel := mustPrepare(t, c, "SELECT * FROM t")
	for range 2 {
		if got := fetchAll(t, mustExecute(t, sel).Rows); fmt.Sprint(got) != "[[1]]" {
			t.Fatalf("before ALTER: %q", got)
		}
	}
	mustQuery(t, c, "ALTER TABLE t ADD COLUMN d DATETIME(3) DEFAULT '2024-01-02 03:04:05.678', MODIFY a DOUBLE")
	if got := fetchAll(t, mustExecute(t, sel).Rows); fmt.Sprint(got) != "[[1 2024-01-02 03:04:05.678]]" {
		t.Errorf("after ALTER: %q", got)
	}
}

// Server errors leave the session usable; the statement's other
// executes go on.
func TestWireServerErrors(t *testing.T) { forWireModes(t, testWireServerErrors) }

func testWireServerErrors(t *testing.T, mode []string) {
	name := scratchDB(t)
	c, _ := connect(t, name, mode...)
	mustQuery(t, c, "CREATE TABLE u (id INT PRIMARY KEY)")
	ins := mustPrepare(t, c, "INSERT INTO u VALUES (?)")
	mustExecute(t, ins, intArg(1))
	_, err := ins.Execute(context.Background(), []db.Value{intArg(1)})
	if e := asDBError(t, err); e.Errno != 1062 || e.State != "23000" || !strings.Contains(e.Msg, "Duplicate entry '1'") || e.Kind != db.Fatal {
		t.Fatalf("duplicate key: %+v", e)
	}
	if res := mustExecute(t, ins, intArg(2)); res.Affected != 1 {
		t.Errorf("insert after an error: %+v", res)
	}
	// An error raised while rows are sent ends the rows with it.
	// (a.id = 2 gives one row, a.id = 1 then fails)
	sel := mustPrepare(t, c, "SELECT a.id, (SELECT b.id FROM u b WHERE b.id >= a.id) FROM u a ORDER BY a.id DESC")
	res := mustExecute(t, sel)
	if res.Rows == nil {
		t.Fatalf("no result set")
	}
	row := make([][]byte, 2)
	var rowErr error
	var seen []string
	for {
		ok, err := res.Rows.Next(row)
		if !ok {
			rowErr = err
			break
		}
		seen = append(seen, string(row[0]))
	}
	if fmt.Sprint(seen) != "[2]" {
		t.Errorf("rows before the error: %q, want [2]", seen)
	}
	if e := asDBError(t, rowErr); e.Errno != 1242 {
		t.Errorf("subquery error while fetching: %v, want 1242", rowErr)
	}
	if got := queryRows(t, c, "SELECT COUNT(*) FROM u"); fmt.Sprint(got) != "[[2]]" {
		t.Errorf("session after an error in the rows: %q", got)
	}
}

// An execute sends the parameter types only when the server does not
// hold them already, as libmariadb does: the first time, when a parameter
// becomes NULL or stops being one, and after an error. Each execute's
// values must arrive as the types the server last received say.
func TestWireParamTypesOnChange(t *testing.T) { forWireModes(t, testWireParamTypesOnChange) }

func testWireParamTypesOnChange(t *testing.T, mode []string) {
	name := scratchDB(t)
	c, _ := connect(t, name, mode...)
	mustQuery(t, c, "CREATE TABLE u (id INT PRIMARY KEY, s VARCHAR(10))")
	ins := mustPrepare(t, c, "INSERT INTO u VALUES (?, ?)")
	w := c.(*wireConn).w
	str := func(v string) db.Value { return db.Value{Type: db.ParamString, S: []byte(v)} }
	null := db.Value{Type: db.ParamString, Null: true}
	steps := []struct {
		args      []db.Value
		err       int  // the server's error, 0 for none
		sendTypes bool // whether the types go with it
	}{
		{[]db.Value{intArg(1), str("a")}, 0, true},     // first execute
		{[]db.Value{intArg(2), str("b")}, 0, false},    // same types
		{[]db.Value{intArg(3), null}, 0, true},         // a NULL
		{[]db.Value{intArg(4), null}, 0, false},        // still NULL
		{[]db.Value{intArg(5), str("e")}, 0, true},     // no longer NULL
		{[]db.Value{intArg(5), str("x")}, 1062, false}, // duplicate key
		{[]db.Value{intArg(6), str("f")}, 0, true},     // after an error
		{[]db.Value{intArg(7), str("g")}, 0, false},
	}
	for i, step := range steps {
		_, err := ins.Execute(context.Background(), step.args)
		if step.err != 0 {
			if e := asDBError(t, err); e.Errno != step.err {
				t.Fatalf("step %d: %v, want error %d", i, err, step.err)
			}
		} else if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		// w.out is the packet sent: header, command, statement id, flags,
		// iteration count, NULL bitmap, then the new-params-bound flag.
		if flag := w.out[4+1+4+1+4+1]; (flag == 1) != step.sendTypes {
			t.Errorf("step %d: new-params-bound flag %d, want types sent: %v", i, flag, step.sendTypes)
		}
	}
	got := queryRows(t, c, "SELECT id, s FROM u ORDER BY id")
	if want := "[[1 a] [2 b] [3 NULL] [4 NULL] [5 e] [6 f] [7 g]]"; fmt.Sprint(got) != want {
		t.Errorf("rows %v, want %s", got, want)
	}
}

// A killed session fails the execute with a lost-connection error and
// is closed; a cancelled execute closes it too.
func TestWireLostSession(t *testing.T) { forWireModes(t, testWireLostSession) }

func testWireLostSession(t *testing.T, mode []string) {
	name := scratchDB(t)
	admin, _ := connect(t, name)
	c, _ := connect(t, name, append(mode, "mysql-ignore-errors", "2013,2006")...)
	st := mustPrepare(t, c, "SELECT ?")
	id := queryRows(t, c, "SELECT CONNECTION_ID()")[0][0]
	mustQuery(t, admin, "KILL CONNECTION "+id)
	_, err := st.Execute(context.Background(), []db.Value{intArg(1)})
	if e := asDBError(t, err); (e.Errno != 2013 && e.Errno != 2006) || e.Kind != db.Reconnect {
		t.Fatalf("execute on a killed session: %+v; want 2013 or 2006, reconnect", e)
	}
	if _, err := st.Execute(context.Background(), []db.Value{intArg(1)}); asDBError(t, err).Errno != 2056 && asDBError(t, err).Errno != 2006 {
		t.Errorf("second execute: %v", err)
	}
	if err := c.Reconnect(context.Background()); err != nil {
		t.Fatalf("Reconnect: %v", err)
	}
	sleep := mustPrepare(t, c, "SELECT SLEEP(?)")
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err = sleep.Execute(ctx, []db.Value{intArg(5)})
	if e := asDBError(t, err); e.Errno != 2013 {
		t.Errorf("cancelled execute: %v, want 2013", err)
	}
	if d := time.Since(start); d > 4*time.Second {
		t.Errorf("cancelled execute returned after %v", d)
	}
	if _, err := c.Query(context.Background(), "SELECT 1"); asDBError(t, err).Errno != 2006 {
		t.Errorf("query after a cancelled execute: %v, want 2006", err)
	}
}

// Parameters and results longer than one packet (16 MB) are split and
// put together.
func TestWireLongPackets(t *testing.T) { forWireModes(t, testWireLongPackets) }

func testWireLongPackets(t *testing.T, mode []string) {
	name := scratchDB(t)
	admin, _ := connect(t, name)
	old := queryRows(t, admin, "SELECT @@GLOBAL.max_allowed_packet")[0][0]
	mustQuery(t, admin, "SET GLOBAL max_allowed_packet = 64*1024*1024")
	t.Cleanup(func() { admin.Query(context.Background(), "SET GLOBAL max_allowed_packet = "+old) })
	c, _ := connect(t, name, mode...)
	const n = 1<<24 + 1000
	long := bytes.Repeat([]byte{'z'}, n)
	st := mustPrepare(t, c, "SELECT LENGTH(?), REPEAT('y', ?)")
	rows := fetchAll(t, mustExecute(t, st, db.Value{Type: db.ParamString, S: long}, intArg(n)).Rows)
	if len(rows) != 1 || rows[0][0] != strconv.Itoa(n) || rows[0][1] != strings.Repeat("y", n) {
		t.Fatalf("long parameter and result: %d rows, first column %.20q", len(rows), rows)
	}
	if got := fetchAll(t, mustExecute(t, mustPrepare(t, c, "SELECT 1")).Rows); fmt.Sprint(got) != "[[1]]" {
		t.Errorf("after long packets: %q", got)
	}
	// A text row whose first value is that long starts like the end of
	// the rows (0xfe).
	text := queryRows(t, c, fmt.Sprintf("SELECT REPEAT('x', %d), 'end' UNION ALL SELECT 'short', 'end'", n))
	if len(text) != 2 || text[0][0] != strings.Repeat("x", n) || text[1][0] != "short" || text[1][1] != "end" {
		t.Errorf("long text row: %d rows", len(text))
	}
	mustQuery(t, c, fmt.Sprintf("SELECT REPEAT('x', %d) UNION ALL SELECT 'short'", n)) // skipped
	if got := queryRows(t, c, "SELECT 2"); fmt.Sprint(got) != "[[2]]" {
		t.Errorf("after a skipped long text row: %q", got)
	}
}

// Text queries on the wire: the answer says whether there are rows, not
// the first keyword; skipped results leave the session in step.
func TestWireQueries(t *testing.T) { forWireModes(t, testWireQueries) }

func testWireQueries(t *testing.T, mode []string) {
	name := scratchDB(t)
	c, _ := connect(t, name, mode...)
	mustQuery(t, c, "CREATE TABLE q (id INT PRIMARY KEY, s VARCHAR(300))")
	for i := range 200 {
		mustQuery(t, c, fmt.Sprintf("INSERT INTO q VALUES (%d, REPEAT('s', %d))", i, i))
	}
	mustQuery(t, c, "CREATE PROCEDURE bump() UPDATE q SET s = 'b' WHERE id < 3")
	if res := mustQuery(t, c, "CALL bump()"); res.Rows != nil || res.Affected != 3 {
		t.Errorf("CALL that updates: %+v, want 3 affected rows", res)
	}
	for range 2 {
		mustQuery(t, c, "SELECT * FROM q") // not read
		got := queryRows(t, c, "SELECT id, s FROM q WHERE id IN (2, 150) ORDER BY id")
		if len(got) != 2 || got[0][1] != "b" || got[1][1] != strings.Repeat("s", 150) {
			t.Fatalf("after an unread result: %.60q", got)
		}
	}
	_, err := c.Query(context.Background(), "LOAD DATA LOCAL INFILE '/etc/hostname' INTO TABLE q")
	if e := asDBError(t, err); e.Errno != crLocalInfileRejected && e.Errno != 1148 && e.Errno != 4166 {
		t.Errorf("LOAD DATA LOCAL: %v, want the request refused", err)
	}
	if got := queryRows(t, c, "SELECT COUNT(*) FROM q"); fmt.Sprint(got) != "[[200]]" {
		t.Errorf("after LOAD DATA LOCAL: %q", got)
	}
}

// Binary dates and times read as the text protocol writes them.
func TestAppendBinaryTimes(t *testing.T) {
	tests := []struct {
		col  column
		v    []byte
		want string
	}{
		{column{typ: typeDate}, []byte{0}, "0000-00-00"},
		{column{typ: typeDate}, []byte{4, 0xe8, 0x07, 2, 29}, "2024-02-29"},
		{column{typ: typeDatetime}, []byte{0}, "0000-00-00 00:00:00"},
		{column{typ: typeDatetime}, []byte{4, 0xe8, 0x07, 2, 29}, "2024-02-29 00:00:00"},
		{column{typ: typeDatetime, decimals: 3}, []byte{7, 0xe8, 0x07, 2, 29, 13, 4, 5}, "2024-02-29 13:04:05.000"},
		{column{typ: typeTimestamp, decimals: 6}, []byte{11, 0xe8, 0x07, 2, 29, 13, 4, 5, 0x40, 0xe2, 0x01, 0}, "2024-02-29 13:04:05.123456"},
		{column{typ: typeDatetime, decimals: 2}, []byte{11, 0xe8, 0x07, 2, 29, 13, 4, 5, 0x40, 0xe2, 0x01, 0}, "2024-02-29 13:04:05.12"},
		{column{typ: typeDatetime, decimals: decimalsNotSet}, []byte{11, 0xe8, 0x07, 2, 29, 13, 4, 5, 0x40, 0xe2, 0x01, 0}, "2024-02-29 13:04:05.123456"},
		{column{typ: typeTime}, []byte{0}, "00:00:00"},
		{column{typ: typeTime}, []byte{8, 1, 0, 0, 0, 0, 1, 2, 3}, "-01:02:03"},
		{column{typ: typeTime}, []byte{8, 0, 34, 0, 0, 0, 22, 59, 59}, "838:59:59"},
		{column{typ: typeTime, decimals: 1}, []byte{12, 0, 0, 0, 0, 0, 1, 2, 3, 0xa0, 0x86, 0x01, 0}, "01:02:03.1"},
		{column{typ: typeYear}, []byte{0, 0}, "0000"},
		{column{typ: typeYear}, []byte{0xe8, 0x07}, "2024"},
		{column{typ: typeTiny, flags: flagUnsigned}, []byte{0xff}, "255"},
		{column{typ: typeTiny}, []byte{0xff}, "-1"},
		{column{typ: typeShort}, []byte{0x00, 0x80}, "-32768"},
		{column{typ: typeInt24, flags: flagUnsigned}, []byte{0xff, 0xff, 0xff, 0}, "16777215"},
		{column{typ: typeLongLong, flags: flagUnsigned}, []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, "18446744073709551615"},
		{column{typ: typeShort, flags: flagUnsigned}, []byte{0xff, 0xff}, "65535"},
		{column{typ: typeLong}, []byte{0xfe, 0xff, 0xff, 0xff}, "-2"},
		{column{typ: typeLongLong}, []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, "-1"},
		{column{typ: typeFloat}, []byte{0x00, 0x00, 0xc0, 0x3f}, "1.5"},
		{column{typ: typeDouble}, []byte{0x9a, 0x99, 0x99, 0x99, 0x99, 0x99, 0xb9, 0x3f}, "0.1"},
		{column{typ: typeDouble, flags: flagUnsigned}, []byte{0, 0, 0, 0, 0, 0, 0x04, 0x40}, "2.5"},
	}
	for _, tt := range tests {
		got, pos, ok := appendBinary(nil, tt.v, 0, tt.col)
		if !ok || string(got) != tt.want || pos != len(tt.v) {
			t.Errorf("%+v % x: %q at %d (ok %v), want %q at %d", tt.col, tt.v, got, pos, ok, tt.want, len(tt.v))
		}
		if _, _, ok := appendBinary(nil, tt.v[:len(tt.v)-1], 0, tt.col); ok && len(tt.v) > 1 {
			t.Errorf("%+v % x: a truncated value was read", tt.col, tt.v)
		}
	}
}

// The wire carries a session only when it implements every capability
// the session negotiated (an allow-list): anything else falls back to
// go-sql-driver's statements.
func TestWireCarries(t *testing.T) {
	// What go-sql-driver asks for with sbgo's configuration (multi-
	// statements, a database), as MySQL and MariaDB grant it.
	const mysql8 = capMySQL | capLongFlag | capConnectWithDB | capLocalFiles | capProtocol41 |
		capTransactions | capSecureConn | capMultiStatements | capMultiResults | capPluginAuth |
		capConnectAttrs | capPluginAuthLenenc | capDeprecateEOF
	const mariadb = mysql8 &^ capMySQL
	tests := []struct {
		name          string
		caps, extCaps uint32
		wire          bool
	}{
		{"MySQL 8", mysql8, 0, true},
		{"MariaDB", mariadb, 0, true},
		{"MariaDB, cached metadata", mariadb, extCapCacheMetadata, true},
		{"no database given", mysql8 &^ capConnectWithDB, 0, true},
		{"EOF packets (an older server)", mysql8 &^ capDeprecateEOF, 0, true},
		{"pre-4.1 packets", mysql8 &^ capProtocol41, 0, false},
		{"TLS", mysql8 | capSSL, 0, false},
		{"compression", mysql8 | capCompress, 0, false},
		{"session tracking: OK packets carry more", mysql8 | capSessionTrack, 0, false},
		{"multiple results of prepared statements", mysql8 | capPSMultiResults, 0, false},
		{"found rows instead of changed rows", mysql8 | capFoundRows, 0, false},
		{"a capability this code has never seen", mysql8 | 1<<30, 0, false},
		{"MariaDB, extended metadata", mariadb, extCapCacheMetadata | extCapExtendedMetadata, false},
		{"MariaDB, bulk operations", mariadb, extCapBulkOperations, false},
		{"MariaDB, an unknown extended capability", mariadb, 1 << 20, false},
	}
	for _, tt := range tests {
		if got := wireCarries(tt.caps, tt.extCaps); got != tt.wire {
			t.Errorf("%s (caps %#x, extended %#x): wire %v, want %v", tt.name, tt.caps, tt.extCaps, got, tt.wire)
		}
	}
}

// The capabilities are read from the handshake response go-sql-driver
// writes: MariaDB's extended ones only when capMySQL is clear, and an SSL
// request is never carried.
func TestHandshakeCaptureRead(t *testing.T) {
	packet := func(caps, ext uint32) []byte {
		p := make([]byte, 4+32)
		binary.LittleEndian.PutUint32(p[4:], caps)
		binary.LittleEndian.PutUint32(p[4+28:], ext)
		return p
	}
	const base = capProtocol41 | capLongFlag | capDeprecateEOF
	tests := []struct {
		name   string
		p      []byte
		usable bool
	}{
		{"MariaDB with cached metadata", packet(base, extCapCacheMetadata), true},
		{"MariaDB with extended metadata", packet(base, extCapExtendedMetadata), false},
		{"MySQL: the filler is not read", packet(base|capMySQL, extCapExtendedMetadata), true},
		{"SSL request", packet(base|capSSL, 0), false},
		{"too short to read", packet(base, 0)[:20], false},
	}
	for _, tt := range tests {
		var hc handshakeCapture
		hc.read(tt.p)
		if hc.usable != tt.usable {
			t.Errorf("%s: usable %v, want %v", tt.name, hc.usable, tt.usable)
		}
	}
}

// The wire's per-event path allocates nothing: an execute with a number
// and a string, its binary row read (an integer, a double, a string, a
// datetime), and a text query's row.
func TestWireExecuteAllocs(t *testing.T) { forWireModes(t, testWireExecuteAllocs) }

func testWireExecuteAllocs(t *testing.T, mode []string) {
	name := scratchDB(t)
	c, _ := connect(t, name, mode...)
	ctx := context.Background()
	mustQuery(t, c, "CREATE TABLE a (id INT PRIMARY KEY, f DOUBLE, c CHAR(20), d DATETIME(3))")
	mustQuery(t, c, "INSERT INTO a VALUES (1, 0.5, 'x', '2024-01-02 03:04:05.678')")
	sel := mustPrepare(t, c, "SELECT id, f, c, d FROM a WHERE id = ? AND c <> ?")
	args := []db.Value{intArg(1), {Type: db.ParamString, S: []byte("y")}}
	row := make([][]byte, 4)
	execute := func() {
		res, err := sel.Execute(ctx, args)
		if err != nil {
			t.Fatal(err)
		}
		if ok, err := res.Rows.Next(row); !ok || err != nil {
			t.Fatalf("Next: %v %v", ok, err)
		}
		res.Rows.Close()
	}
	query := func() {
		res, err := c.Query(ctx, "SELECT c FROM a WHERE id = 1")
		if err != nil {
			t.Fatal(err)
		}
		if ok, err := res.Rows.Next(row); !ok || err != nil {
			t.Fatalf("Next: %v %v", ok, err)
		}
		res.Rows.Close()
	}
	execute()
	if got := fmt.Sprintf("%s", row); got != "[1 0.5 x 2024-01-02 03:04:05.678]" {
		t.Fatalf("row %s", got)
	}
	if n := testing.AllocsPerRun(50, execute); n != 0 {
		t.Errorf("execute and fetch: %v allocations, want 0", n)
	}
	if n := testing.AllocsPerRun(50, query); n != 0 {
		t.Errorf("query and fetch: %v allocations, want 0", n)
	}
}
