package mysql

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"testing"

	"sbgo/db"
	"sbgo/engine"
)

// FuzzWireAnswers feeds arbitrary server answers to a session carried by
// the wire (wire.go), with no server: a text query or a prepare and an
// execute, every row and every further result read, a second command,
// then the close. Whatever the server sends, nothing panics and every
// error reaches the caller as a *db.Error (a malformed packet loses the
// session, 2027). The packet decoders are also called on the raw bytes
// directly, so that they see inputs that are not framed.
//
// The input is a flags byte (see fuzzWireSession), the size of each read
// from the socket (0: as much as fits), then the answers: each a 2-byte
// little-endian length and that many bytes, the last one possibly
// short. A command's write makes the next answer readable, so the
// session never reads ahead into an answer to a command it has not sent.
func FuzzWireAnswers(f *testing.F) {
	for _, seed := range wireSeeds() {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzDecoders(data)
		if len(data) < 2 {
			return
		}
		sock := &answerSocket{answers: splitAnswers(data[2:]), chunk: int(data[1])}
		fuzzWireSession(t, data[0], sock)
	})
}

// answerSocket is the wire's socket in FuzzWireAnswers: each write makes
// the next answer readable, reads return at most chunk bytes, and the
// end of what is readable is the server closing the connection.
type answerSocket struct {
	answers [][]byte
	pending []byte
	chunk   int
	closed  bool
}

func (s *answerSocket) Write(b []byte) (int, error) {
	if s.closed {
		return 0, net.ErrClosed
	}
	if len(s.answers) > 0 {
		s.pending = append(s.pending, s.answers[0]...)
		s.answers = s.answers[1:]
	}
	return len(b), nil
}

func (s *answerSocket) ReadUnbuffered(b []byte) (int, error) {
	switch {
	case s.closed:
		return 0, net.ErrClosed
	case len(s.pending) == 0:
		return 0, io.EOF
	}
	n := len(b)
	if s.chunk > 0 {
		n = min(n, s.chunk)
	}
	n = copy(b[:n], s.pending)
	s.pending = s.pending[n:]
	return n, nil
}

func (s *answerSocket) Close() error {
	s.closed = true
	return nil
}

func splitAnswers(b []byte) [][]byte {
	var answers [][]byte
	for len(b) >= 2 {
		n := min(int(binary.LittleEndian.Uint16(b)), len(b)-2)
		answers = append(answers, b[2:2+n])
		b = b[2+n:]
	}
	return answers
}

// Flags of FuzzWireAnswers' first byte.
const (
	fuzzDeprecateEOF  = 1 << 0 // the session negotiated CLIENT_DEPRECATE_EOF
	fuzzCacheMetadata = 1 << 1 // and MariaDB's cached metadata
	fuzzPrepare       = 1 << 2 // the first command is a prepare and an execute, not a query
	fuzzSecond        = 1 << 3 // a second command (a query) follows
)

// fuzzWireSession runs one session's commands on sock as flags say.
func fuzzWireSession(t *testing.T, flags byte, sock *answerSocket) {
	c := &wireConn{
		session: session{d: &Driver{log: engine.NewLogger(io.Discard, 3)}},
		w: &wire{
			nc:            sock,
			deprecateEOF:  flags&fuzzDeprecateEOF != 0,
			cacheMetadata: flags&fuzzCacheMetadata != 0,
		},
	}
	ctx := context.Background()
	if flags&fuzzPrepare != 0 {
		fuzzPrepareExecute(t, c)
	} else {
		res, err := c.Query(ctx, "SELECT 1")
		readAll(t, c, res, err)
	}
	if flags&fuzzSecond != 0 {
		res, err := c.Query(ctx, "SELECT 2")
		readAll(t, c, res, err)
	}
	requireDBError(t, "Close", c.Close())
}

// fuzzPrepareExecute prepares a statement, executes it with a value of
// each kind for its parameters, reads what it returns and closes it.
func fuzzPrepareExecute(t *testing.T, c *wireConn) {
	ctx := context.Background()
	st, err := c.Prepare(ctx, "SELECT ?", nil)
	if err != nil {
		requireDBError(t, "Prepare", err)
		return
	}
	args := make([]db.Value, st.(db.ParamCounter).NumParams())
	for i := range args {
		switch i % 4 {
		case 0:
			args[i] = db.Value{Type: db.ParamInt, I: int64(i)}
		case 1:
			args[i] = db.Value{Type: db.ParamString, S: []byte("s")}
		case 2:
			args[i] = db.Value{Type: db.ParamDouble, F: 0.5}
		default:
			args[i] = db.Value{Null: true}
		}
	}
	res, err := st.Execute(ctx, args)
	readAll(t, c, res, err)
	requireDBError(t, "Close", st.Close())
}

// readAll reads every row of res and of the results that follow it.
func readAll(t *testing.T, c *wireConn, res db.Result, err error) {
	for {
		if err != nil {
			requireDBError(t, "result", err)
			return
		}
		if res.Rows != nil {
			row := make([][]byte, res.Rows.NumFields())
			for {
				more, err := res.Rows.Next(row)
				requireDBError(t, "Next", err)
				if !more {
					break
				}
			}
			requireDBError(t, "rows Close", res.Rows.Close())
		}
		var ok bool
		if res, ok, err = c.NextResult(context.Background()); !ok && err == nil {
			return
		}
	}
}

func requireDBError(t *testing.T, what string, err error) {
	t.Helper()
	var de *db.Error
	if err != nil && !errors.As(err, &de) {
		t.Fatalf("%s: error %v (%T), want a *db.Error", what, err, err)
	}
}

// fuzzDecoders calls each packet decoder on p itself.
func fuzzDecoders(p []byte) {
	for pos := range min(len(p), 10) {
		lenenc(p, pos)
	}
	okStatus(p)
	serverError(p)
	parseColumn(p)
	for _, deprecateEOF := range []bool{false, true} {
		w := &wire{deprecateEOF: deprecateEOF}
		w.isEnd(p)
		w.isTextEnd(p)
	}
	if len(p) >= 4 {
		col := column{typ: p[0], flags: binary.LittleEndian.Uint16(p[1:]), decimals: p[3]}
		appendBinary(nil, p, 4, col)
	}
}

// wireSeeds are answers a server gives, framed for FuzzWireAnswers.
func wireSeeds() [][]byte {
	const (
		withEOF = 0
		noEOF   = fuzzDeprecateEOF
	)
	ok := okPacket(0)
	eof := []byte{0xfe, 0, 0, 2, 0}
	okEnd := []byte{0xfe, 0, 0, 2, 0, 0, 0}
	textRows := func(end []byte, eofAfterCols bool) [][]byte {
		p := [][]byte{{1}, columnDef("a", typeLong, 0, 0)}
		if eofAfterCols {
			p = append(p, eof)
		}
		return append(p, []byte{1, '7'}, []byte{0xfb}, end)
	}
	prepared := []byte{0, 1, 0, 0, 0, 4, 0, 1, 0, 0, 0, 0}
	binCols := [][]byte{
		columnDef("i", typeLongLong, flagUnsigned, 0),
		columnDef("s", typeString, 0, 0),
		columnDef("d", typeDouble, 0, decimalsNotSet),
		columnDef("t", typeDatetime, 0, 6),
	}
	binRow := []byte{0, 0b0000_0000, 42, 0, 0, 0, 0, 0, 0, 0, 2, 'h', 'i',
		0, 0, 0, 0, 0, 0, 0xf8, 0x3f, 7, 0xe8, 0x07, 2, 29, 13, 4, 5}
	nullRow := []byte{0, 0b0011_1100}
	param := columnDef("?", typeLongLong, 0, 0)
	prepareEOF := append([][]byte{prepared, param, eof}, binCols...)
	prepareNoEOF := append([][]byte{prepared, param}, binCols...)
	execute := append(append([][]byte{{4}}, binCols...), eof, binRow, nullRow, eof)
	more := okPacket(statusMoreResults)
	return [][]byte{
		frame(withEOF, packets(1, ok)),
		frame(withEOF, packets(1, textRows(eof, true)...)),
		frame(noEOF, packets(1, textRows(okEnd, false)...)),
		frame(withEOF|fuzzPrepare, packets(1, append(prepareEOF, eof)...), packets(1, execute...), nil),
		frame(noEOF|fuzzCacheMetadata|fuzzPrepare|fuzzSecond, packets(1, prepareNoEOF...),
			packets(1, []byte{4, 0}, binRow, okEnd), nil, packets(1, ok)),
		frame(withEOF|fuzzSecond, packets(1, more, []byte{1}, columnDef("a", typeLong, 0, 0), eof, []byte{1, '1'}, eof), packets(1, ok)),
		frame(withEOF, packets(1, []byte{0xff, 0x28, 0x04, '#', '4', '2', '0', '0', '0', 'b', 'a', 'd'})),
		// LOAD DATA LOCAL: the empty packet sbgo answers with is number 2
		frame(withEOF, packets(1, []byte{0xfb, 'f'}), packets(3, ok)),
		append([]byte{fuzzPrepare, 3}, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff),
	}
}

// frame puts the flags, a read size of 7 bytes and the answers together
// as FuzzWireAnswers reads them.
func frame(flags byte, answers ...[]byte) []byte {
	b := []byte{flags, 7}
	for _, a := range answers {
		b = binary.LittleEndian.AppendUint16(b, uint16(len(a)))
		b = append(b, a...)
	}
	return b
}

// packets frames payloads as the packets of one answer, numbered from
// seq.
func packets(seq int, payloads ...[]byte) []byte {
	var b []byte
	for i, p := range payloads {
		b = append(b, byte(len(p)), byte(len(p)>>8), byte(len(p)>>16), byte(seq+i))
		b = append(b, p...)
	}
	return b
}

func okPacket(status uint16) []byte {
	return binary.LittleEndian.AppendUint16([]byte{0, 1, 0}, status)
}

// columnDef is a column definition packet.
func columnDef(name string, typ byte, flags uint16, decimals byte) []byte {
	var b bytes.Buffer
	for _, s := range []string{"def", "sbtest", "t", "t", name, name} {
		b.WriteByte(byte(len(s)))
		b.WriteString(s)
	}
	b.Write([]byte{0x0c, 0x3f, 0, 11, 0, 0, 0, typ})
	b.Write(binary.LittleEndian.AppendUint16(nil, flags))
	b.Write([]byte{decimals, 0, 0})
	return b.Bytes()
}
