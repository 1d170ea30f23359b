package pgsql

import (
	"cmp"
	"context"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"

	"sbgo/db"
)

// Type OIDs of the parameters, as sysbench's driver maps its bind types.
const (
	oidInt8    = 20
	oidFloat8  = 701
	oidVarchar = 1043
)

func paramOID(t db.ParamType) uint32 {
	switch t {
	case db.ParamInt:
		return oidInt8
	case db.ParamDouble:
		return oidFloat8
	default:
		return oidVarchar
	}
}

// stmt is a statement prepared on the server under a name unique to its
// conn. A statement with parameters is prepared when the script binds
// them (BindTypes), with their types, because scripts declare the types
// after con:prepare; sysbench prepares it at bind_param for the same
// reason. A statement executed without binding is prepared at its first
// Execute with the types of that Execute's values.
type stmt struct {
	c       *conn
	gen     uint64 // the conn's session the statement belongs to
	sql     string // with $1, $2, ... for the placeholders
	nparams int
	desc    *pgconn.StatementDescription // nil until prepared
	closed  bool

	// Reused by every Execute: the parameter values as pgconn sends them
	// (nil is NULL), the text of the numbers, and where each ends in it.
	values [][]byte
	text   []byte
	ends   []int
}

// NumParams is the number of placeholders.
func (s *stmt) NumParams() int { return s.nparams }

// prepare creates the statement on the server with the given parameter
// types. A failed attempt leaves the statement unprepared, under a new
// name, so that the next Execute tries again.
func (s *stmt) prepare(ctx context.Context, oids []uint32) error {
	pc, err := s.c.begin(ctx)
	if err != nil {
		return err
	}
	defer s.c.idle()
	return s.prepareOn(ctx, pc, oids)
}

// prepareOn is prepare on pc, a session already begun with ctx.
func (s *stmt) prepareOn(ctx context.Context, pc *pgconn.PgConn, oids []uint32) error {
	desc, err := pc.Prepare(context.Background(), s.c.nextStmtName(), s.sql, oids)
	if err != nil {
		return s.c.fail(ctx, pc, err)
	}
	s.desc = desc
	return nil
}

// BindTypes prepares the statement on the server with the parameter types
// the script bound, as sysbench does in bind_param (db.TypeBinder). A
// statement already prepared is left as it is.
func (s *stmt) BindTypes(ctx context.Context, types []db.ParamType) error {
	if s.desc != nil || s.closed || s.gen != s.c.gen {
		return nil
	}
	if len(types) != s.nparams {
		return wrongParamCount(len(types), s.nparams)
	}
	oids := make([]uint32, len(types))
	for i, t := range types {
		oids[i] = paramOID(t)
	}
	return s.prepare(ctx, oids)
}

// Execute runs the statement with args, sent as text (integers in
// decimal, doubles in the shortest form that reads back the same), and
// reads its result as text.
func (s *stmt) Execute(ctx context.Context, args []db.Value) (db.Result, error) {
	c := s.c
	c.rows.Close()
	pc, err := c.begin(ctx)
	if err != nil {
		return db.Result{}, err
	}
	defer c.idle()
	if s.closed || s.gen != c.gen {
		return db.Result{}, &db.Error{State: stateNoSuchStatement, Kind: db.Fatal,
			Msg: "prepared statement is not valid: it was closed, or prepared in a session that has ended"}
	}
	if len(args) != s.nparams {
		return db.Result{}, wrongParamCount(len(args), s.nparams)
	}
	if s.desc == nil {
		oids := make([]uint32, len(args))
		for i, a := range args {
			oids[i] = paramOID(a.Type)
		}
		if err := s.prepareOn(ctx, pc, oids); err != nil {
			return db.Result{}, err
		}
	}
	s.encode(args)
	rr := pc.ExecStatement(context.Background(), s.desc, s.values, nil, nil)
	clear(s.values) // they may point into the caller's buffers
	res, readErr := c.read(rr, len(s.desc.Fields) > 0 || len(rr.FieldDescriptions()) > 0)
	if _, err := rr.Close(); err != nil || readErr != nil {
		return db.Result{}, c.fail(ctx, pc, cmp.Or(err, readErr))
	}
	if res.Rows != nil {
		c.rows.open = true
	}
	return res, nil
}

// encode fills s.values with args as text, without allocating once the
// buffers have grown: strings are sent from the caller's buffer, numbers
// from s.text.
func (s *stmt) encode(args []db.Value) {
	b := s.text[:0]
	for i, a := range args {
		switch {
		case a.Null:
		case a.Type == db.ParamInt:
			b = strconv.AppendInt(b, a.I, 10)
		case a.Type == db.ParamDouble:
			b = strconv.AppendFloat(b, a.F, 'f', -1, 64)
		}
		s.ends[i] = len(b)
	}
	s.text = b
	start := 0
	for i, a := range args {
		switch {
		case a.Null:
			s.values[i] = nil
		case a.Type == db.ParamInt || a.Type == db.ParamDouble:
			s.values[i] = b[start:s.ends[i]]
		case len(a.S) == 0:
			s.values[i] = empty
		default:
			s.values[i] = a.S
		}
		start = s.ends[i]
	}
}

// Close forgets the statement on the server, if its session is still
// the conn's. Errors are ignored: the session may be gone already.
func (s *stmt) Close() error {
	if s.closed {
		return nil
	}
	s.closed = true
	c := s.c
	if s.desc == nil || s.gen != c.gen || c.pg == nil {
		return nil
	}
	c.rows.Close()
	ctx, cancel := context.WithTimeout(context.Background(), closeTimeout)
	c.pg.PgConn().Deallocate(ctx, s.desc.Name)
	cancel()
	return nil
}

func wrongParamCount(got, want int) *db.Error {
	return &db.Error{State: stateClient, Kind: db.Fatal,
		Msg: "wrong number of parameters: " + strconv.Itoa(got) + " for " + strconv.Itoa(want) + " placeholders"}
}

// rewritePlaceholders replaces each '?' placeholder of query with $1,
// $2, ... and counts them. A '?' inside a string literal ('...', where a
// doubled quote is a quote, or E'...' with backslash escapes), a quoted identifier
// ("...") or a comment (-- to the end of the line, or /* ... */, which
// nest) is text, as it is for the MySQL server's own parser. sysbench
// rewrites every '?'. Dollar-quoted strings are not recognised.
func rewritePlaceholders(query string) (string, int) {
	if strings.IndexByte(query, '?') < 0 {
		return query, 0
	}
	b := make([]byte, 0, len(query)+16)
	n := 0
	for i := 0; i < len(query); {
		end := i + 1
		switch ch := query[i]; {
		case ch == '?':
			n++
			b = append(b, '$')
			b = strconv.AppendInt(b, int64(n), 10)
			i++
			continue
		case ch == '\'':
			end = skipQuoted(query, i, '\'', isEscapeString(query, i))
		case ch == '"':
			end = skipQuoted(query, i, '"', false)
		case ch == '-' && strings.HasPrefix(query[i:], "--"):
			end = strings.IndexByte(query[i:], '\n')
			if end < 0 {
				end = len(query)
			} else {
				end += i + 1
			}
		case ch == '/' && strings.HasPrefix(query[i:], "/*"):
			end = skipComment(query, i)
		}
		b = append(b, query[i:end]...)
		i = end
	}
	return string(b), n
}

// isEscapeString reports whether the quote at query[i] opens an E'...'
// string, in which a backslash escapes the next character.
func isEscapeString(query string, i int) bool {
	if i == 0 || query[i-1]|0x20 != 'e' {
		return false
	}
	return i == 1 || !isIdentChar(query[i-2])
}

func isIdentChar(c byte) bool {
	return c == '_' || c == '$' || c >= 0x80 || c >= '0' && c <= '9' || c|0x20 >= 'a' && c|0x20 <= 'z'
}

// skipQuoted returns the index after the quoted text starting at
// query[i]: a doubled quote is part of it, and so is a character after a
// backslash when backslash is set. Unterminated text runs to the end.
func skipQuoted(query string, i int, quote byte, backslash bool) int {
	for j := i + 1; j < len(query); j++ {
		switch query[j] {
		case '\\':
			if backslash {
				j++
			}
		case quote:
			if j+1 < len(query) && query[j+1] == quote {
				j++
				continue
			}
			return j + 1
		}
	}
	return len(query)
}

// skipComment returns the index after the /* ... */ comment starting at
// query[i]; comments nest in PostgreSQL.
func skipComment(query string, i int) int {
	depth := 0
	for j := i; j+1 < len(query); j++ {
		switch {
		case query[j] == '/' && query[j+1] == '*':
			depth++
			j++
		case query[j] == '*' && query[j+1] == '/':
			depth--
			j++
			if depth == 0 {
				return j + 1
			}
		}
	}
	return len(query)
}

// quoteLiteral appends s as a PostgreSQL string literal for client-side
// statements (--db-ps-mode=disable). Without backslashes it is '...'
// with quotes doubled, which reads the same whatever
// standard_conforming_strings is. With a backslash or a NUL it is an
// E'...' string, with backslashes doubled and NUL written \000, which the
// server rejects as it rejects NUL in a parameter: text cannot hold it.
func quoteLiteral(dst, s []byte) []byte {
	plain := true
	for _, ch := range s {
		if ch == '\\' || ch == 0 {
			plain = false
			break
		}
	}
	if plain {
		dst = append(dst, '\'')
	} else {
		dst = append(dst, "E'"...)
	}
	for _, ch := range s {
		switch ch {
		case '\'':
			dst = append(dst, "''"...)
		case '\\':
			dst = append(dst, `\\`...)
		case 0:
			dst = append(dst, `\000`...)
		default:
			dst = append(dst, ch)
		}
	}
	return append(dst, '\'')
}
