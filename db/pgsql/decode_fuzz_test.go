package pgsql

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"sbgo/db"
)

// The fuzz targets of the driver's decoding: result rows, error
// classification and the statement text it rewrites, all without a
// server.

// FuzzRows stores rows of arbitrary values in the result buffer, as
// conn.read does with what pgconn decoded from DataRow messages, and
// reads them back. pgconn passes on a DataRow's values as the message
// has them, so a row may have more or fewer values than the result has
// fields. Whatever the rows, nothing panics, the rows that do not fit
// are refused, and the others read back exactly (nil is NULL, an empty
// value is empty but not nil).
//
// data is the rows: each a count of values, then each value as a length
// byte (0xff: NULL) and its bytes.
func FuzzRows(f *testing.F) {
	f.Add(uint8(2), uint8(2), []byte{2, 1, 'a', 0xff, 2, 0, 3, 'x', 'y', 'z'})
	f.Add(uint8(1), uint8(3), []byte{1, 0, 1, 5, 'h', 'e', 'l', 'l', 'o'})
	f.Add(uint8(0), uint8(0), []byte{0, 0})
	f.Add(uint8(3), uint8(1), []byte{3, 1, '1', 1, '2', 1, '3'})
	f.Fuzz(func(t *testing.T, nfields, rowLen uint8, data []byte) {
		var r rows
		for range 2 { // the second result reuses the first one's buffers
			r.Close()
			r.reset(int(nfields))
			var added [][][]byte
			for _, values := range fuzzRowValues(data) {
				fits := len(values) == int(nfields)
				if r.add(values) != fits {
					t.Fatalf("add of %d values to %d fields: %v", len(values), nfields, !fits)
				}
				if fits {
					added = append(added, values)
				}
			}
			r.open = true
			if r.NumRows() != len(added) || r.NumFields() != int(nfields) {
				t.Fatalf("%d rows of %d fields, want %d of %d", r.NumRows(), r.NumFields(), len(added), nfields)
			}
			readRows(t, &r, added, int(rowLen))
		}
	})
}

// fuzzRowValues reads FuzzRows' data into rows of values; where the data
// ends, the values left are empty.
func fuzzRowValues(data []byte) [][][]byte {
	var out [][][]byte
	for len(data) > 0 {
		n := int(data[0])
		data = data[1:]
		values := make([][]byte, n)
		for i := range values {
			switch {
			case len(data) == 0:
				values[i] = []byte{}
			case data[0] == 0xff:
				data = data[1:]
			default:
				l := min(int(data[0]), len(data)-1)
				values[i], data = data[1:1+l:1+l], data[1+l:]
			}
		}
		out = append(out, values)
	}
	return out
}

// readRows reads r into a row of rowLen values, as a script's fetch_row
// does, and compares the rows with what was added.
func readRows(t *testing.T, r *rows, added [][][]byte, rowLen int) {
	row := make([][]byte, rowLen)
	for i := 0; ; i++ {
		more, err := r.Next(row)
		if err != nil || !more {
			if err != nil || i != len(added) {
				t.Fatalf("Next stopped after %d rows of %d: %v", i, len(added), err)
			}
			return
		}
		for j := range min(rowLen, r.nfields) {
			want := added[i][j]
			if (row[j] == nil) != (want == nil) || !bytes.Equal(row[j], want) {
				t.Fatalf("row %d value %d: %q (nil %v), want %q (nil %v)", i, j, row[j], row[j] == nil, want, want == nil)
			}
		}
	}
}

// FuzzQueryError classifies arbitrary failures: server errors with any
// SQLSTATE and severity, lost sessions, cancelled contexts and client
// errors, against any --pgsql-ignore-errors list. The kind always agrees
// with the list, and a lost session is always reported with class 08 or
// 57P01 and never as merely ignorable. The connect-error wording is fed
// the same errors, with the message as the host and the code's length as
// the port.
func FuzzQueryError(f *testing.F) {
	f.Add(uint8(0), "40001", "ERROR", "", "could not serialize access", false, "40P01,40001")
	f.Add(uint8(0), "57P01", "FATAL", "FATAL", "terminating connection", false, "08006,57P01")
	f.Add(uint8(1), "08006", "", "PANIC", "x", true, "all")
	f.Add(uint8(2), "", "", "", "", true, "none")
	f.Add(uint8(3), "", "", "", "", false, "57014")
	f.Add(uint8(4), "", "", "", "boom", true, "bad item")
	f.Add(uint8(5), "", "", "", "connection refused", false, "")
	f.Add(uint8(6), "28P01", "FATAL", "", "password authentication failed", false, "")
	cfg, err := pgx.ParseConfig("")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, kind uint8, code, severity, unlocalized, message string, closed bool, ignore string) {
		err := fuzzFailure(kind, &pgconn.PgError{Code: code, Severity: severity, SeverityUnlocalized: unlocalized, Message: message})
		list, lerr := parseIgnoreList(strings.Split(ignore, ","))
		if lerr == nil {
			checkIgnoreList(t, ignore, list)
		}
		d := &Driver{ignore: list}
		e := d.queryError(err, closed)
		checkClassified(t, d, e, err, closed)
		cfg.Host, cfg.Port = message, uint16(len(code))
		if ce := connectError(cfg, message, err); ce.Kind != db.Fatal {
			t.Fatalf("connectError(%v) = %+v", err, ce)
		}
		d.QueryErrorText(e, message, closed)
		d.PrepareErrorText(e)
		d.ConnectErrorText(err)
	})
}

// fuzzFailure is a failure of the kind FuzzQueryError's first argument
// names, around pe where it holds a server error.
func fuzzFailure(kind uint8, pe *pgconn.PgError) error {
	switch kind % 9 {
	case 0:
		return pe
	case 1:
		return fmt.Errorf("wrapped: %w", pe)
	case 2:
		return io.EOF
	case 3:
		return context.Canceled
	case 4:
		return errors.New(pe.Message)
	case 5:
		return &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
	case 6:
		return errors.Join(pe, io.ErrUnexpectedEOF)
	case 7:
		return pgconn.ErrConnClosed
	}
	return &net.DNSError{Name: pe.Message, Err: pe.Code, IsNotFound: pe.Severity == ""}
}

// checkIgnoreList checks that an accepted list ignores what it names.
func checkIgnoreList(t *testing.T, text string, l ignoreList) {
	for _, item := range strings.Split(text, ",") {
		item = strings.TrimSpace(item)
		if isSQLState(item) && !l.has(strings.ToUpper(item)) {
			t.Fatalf("--pgsql-ignore-errors=%q does not ignore %s", text, item)
		}
	}
}

// checkClassified checks e, what queryError made of err.
func checkClassified(t *testing.T, d *Driver, e *db.Error, err error, closed bool) {
	var pe *pgconn.PgError
	lost := closed || errors.As(err, &pe) && (endsSession(pe) || isSessionLost(pe.Code))
	switch {
	case e.Kind != db.Fatal && e.Kind != db.Ignorable && e.Kind != db.Reconnect:
		t.Fatalf("%v: kind %v", err, e.Kind)
	case (e.Kind == db.Fatal) != !d.ignore.has(e.State):
		t.Fatalf("%v: state %q is kind %v with --pgsql-ignore-errors %+v", err, e.State, e.Kind, d.ignore)
	case lost && (e.Kind == db.Ignorable || !strings.HasPrefix(e.State, "08") && e.State != stateAdminShutdown):
		t.Fatalf("%v: a lost session reads as %+v", err, e)
	case !lost && e.Kind == db.Reconnect:
		t.Fatalf("%v: a live session reads as %+v", err, e)
	}
}

// FuzzStatementText rewrites arbitrary statements' placeholders and
// quotes arbitrary bytes as literals, the two texts the driver builds
// from a script's. A rewritten statement is the statement with some of
// its '?' replaced by $1, $2, ... in order; a literal is one literal,
// ending where the statement scanner says it ends, that reads back as the
// bytes quoted.
func FuzzStatementText(f *testing.F) {
	f.Add("SELECT c FROM t WHERE id=? AND k BETWEEN ? AND ?", []byte("abc"))
	f.Add(`SELECT '?', E'a\'?', "?" /* ? /* ? */ */ -- ?`+"\n?", []byte(`it's \ a`))
	f.Add("SELECT $1?", []byte("a\x00b"))
	f.Add("?'", []byte("''"))
	f.Fuzz(func(t *testing.T, query string, literal []byte) {
		out, n := rewritePlaceholders(query)
		if !isRewrite(query, out, n) {
			t.Fatalf("rewritePlaceholders(%q) = %q, %d", query, out, n)
		}
		q := quoteLiteral(nil, literal)
		start := 0
		if q[0] == 'E' {
			start = 1
		}
		end := skipQuoted(string(q), start, '\'', isEscapeString(string(q), start))
		if end != len(q) || !bytes.Equal(unquoteLiteral(q), literal) {
			t.Fatalf("quoteLiteral(%q) = %q: ends at %d of %d, reads back %q", literal, q, end, len(q), unquoteLiteral(q))
		}
	})
}

// isRewrite reports whether out is query with n of its '?' replaced by
// $1 .. $n in order.
func isRewrite(query, out string, n int) bool {
	next := 1
	for i := 0; i < len(query); i++ {
		ph := "$" + strconv.Itoa(next)
		switch {
		case query[i] == '?' && strings.HasPrefix(out, ph):
			out = out[len(ph):]
			next++
		case out != "" && out[0] == query[i]:
			out = out[1:]
		default:
			return false
		}
	}
	return out == "" && next == n+1
}

// unquoteLiteral reads a literal quoteLiteral wrote: '...' with doubled
// quotes, or E'...' where a backslash escapes a backslash and \000 is NUL.
func unquoteLiteral(q []byte) []byte {
	escapes := q[0] == 'E'
	if escapes {
		q = q[1:]
	}
	q = q[1 : len(q)-1]
	var out []byte
	for i := 0; i < len(q); i++ {
		switch {
		case escapes && bytes.HasPrefix(q[i:], []byte(`\000`)):
			out = append(out, 0)
			i += 3
			continue
		case q[i] == '\'' || escapes && q[i] == '\\':
			i++ // the escaped character follows
		}
		if i < len(q) {
			out = append(out, q[i])
		}
	}
	return out
}
