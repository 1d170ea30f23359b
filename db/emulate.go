package db

import (
	"context"
	"strconv"
	"strings"
)

// QuoteFunc appends s to dst as a quoted SQL string literal, escaped for
// one server's dialect.
type QuoteFunc func(dst, s []byte) []byte

// Emulated is a client-side prepared statement (--db-ps-mode=disable, or
// a server that cannot prepare a statement): at each Execute every '?' of
// the text is replaced by its parameter as a literal and the text runs as
// an ordinary query. Unlike sysbench's emulation, strings are quoted and
// escaped, so values containing quotes cannot break the statement.
type Emulated struct {
	conn  Conn
	parts []string // the text around each '?'
	quote QuoteFunc
	buf   []byte // reused between executes
}

var _ Stmt = (*Emulated)(nil)

// NewEmulated prepares query on the client side for conn.
func NewEmulated(conn Conn, query string, quote QuoteFunc) *Emulated {
	return &Emulated{conn: conn, parts: strings.Split(query, "?"), quote: quote}
}

// NumParams is the number of '?' placeholders.
func (e *Emulated) NumParams() int { return len(e.parts) - 1 }

// Execute substitutes args and runs the statement.
func (e *Emulated) Execute(ctx context.Context, args []Value) (Result, error) {
	if len(args) != e.NumParams() {
		return Result{}, &Error{State: "HY000", Kind: Fatal,
			Msg: "wrong number of parameters: " + strconv.Itoa(len(args)) + " for " + strconv.Itoa(e.NumParams()) + " placeholders"}
	}
	b := append(e.buf[:0], e.parts[0]...)
	for i, a := range args {
		b = AppendLiteral(b, a, e.quote)
		b = append(b, e.parts[i+1]...)
	}
	e.buf = b
	return e.conn.Query(ctx, string(b))
}

// Close releases nothing: the statement lives on the client only.
func (e *Emulated) Close() error { return nil }

// AppendLiteral appends v as an SQL literal: NULL, a number, or a string
// quoted by quote.
func AppendLiteral(dst []byte, v Value, quote QuoteFunc) []byte {
	if v.Null {
		return append(dst, "NULL"...)
	}
	switch v.Type {
	case ParamInt:
		return strconv.AppendInt(dst, v.I, 10)
	case ParamDouble:
		return strconv.AppendFloat(dst, v.F, 'f', -1, 64)
	default:
		return quote(dst, v.S)
	}
}
