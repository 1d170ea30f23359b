package mysql

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"math"
	"strconv"

	gomysql "github.com/go-sql-driver/mysql"

	"sbgo/db"
	"sbgo/engine"
)

// wireStmt is a statement prepared through the session's wire (see
// wire.go): its execute is the per-event path of the bundled workloads.
type wireStmt struct {
	c       *conn
	id      uint32
	gen     int // the conn's session it belongs to
	nparams int
	closed  bool
	// cols are the result's columns: from the prepare, replaced by the
	// definitions an execute sends (MariaDB may send none when they did
	// not change).
	cols []column
	// sentTypes are the parameter types the server holds for the
	// statement: those of its last execute that sent types and got an
	// answer; nil when the next execute must send them.
	sentTypes []byte
}

var (
	_ db.Stmt         = (*wireStmt)(nil)
	_ db.ParamCounter = (*wireStmt)(nil)
)

// NumParams is the number of '?' the server counted.
func (s *wireStmt) NumParams() int { return s.nparams }

// prepareWire prepares query with COM_STMT_PREPARE. The answer is the
// statement's id and counts, then the parameters' definitions (skipped)
// and the result columns' (kept for decoding rows).
func (c *conn) prepareWire(ctx context.Context, query string) (db.Stmt, error) {
	w := c.w
	stop := c.watch(ctx)
	out := append(w.begin(comStmtPrepare), query...)
	if err := w.send(out); err != nil {
		return nil, c.lost(ctx, stop, err, false)
	}
	p, err := w.readPacket()
	if err != nil {
		return nil, c.lost(ctx, stop, err, false)
	}
	if len(p) > 0 && p[0] == 0xff {
		stop()
		err := serverError(p)
		var me *gomysql.MySQLError
		if errors.As(err, &me) && me.Number == erUnsupportedPS {
			c.d.log.Logf(engine.LevelInfo, "Failed to prepare query \"%s\" (%d: %s), using emulation", query, me.Number, me.Message)
			return db.NewEmulated(c, query, appendQuoted), nil
		}
		return nil, c.fail(err, false)
	}
	if len(p) < 12 || p[0] != 0x00 {
		return nil, c.lost(ctx, stop, errMalformed, false)
	}
	s := &wireStmt{
		c:       c,
		id:      binary.LittleEndian.Uint32(p[1:]),
		gen:     c.gen,
		nparams: int(binary.LittleEndian.Uint16(p[7:])),
	}
	ncols := int(binary.LittleEndian.Uint16(p[5:]))
	if _, err := w.readColumns(s.nparams, nil, false); err != nil {
		return nil, c.lost(ctx, stop, err, false)
	}
	if s.cols, err = w.readColumns(ncols, make([]column, 0, ncols), true); err != nil {
		return nil, c.lost(ctx, stop, err, false)
	}
	stop()
	return s, nil
}

// Execute sends COM_STMT_EXECUTE with args (integers as BIGINT, doubles
// as DOUBLE, strings as binary strings, NULL as NULL) and reads the
// answer: an OK packet (the affected rows) or a result set, whose rows are
// read lazily. The types go with the first execute and whenever they
// change (a parameter becomes NULL or stops being one); otherwise the
// server reuses the last ones, as with libmariadb's executes, which saves
// the server setting up its parameter conversions for every statement.
// Any error makes the next execute send them again.
func (s *wireStmt) Execute(ctx context.Context, args []db.Value) (db.Result, error) {
	c := s.c
	c.release()
	if c.debug() {
		c.logf("mysql_stmt_execute(%p)", s)
	}
	if s.closed || s.gen != c.gen || c.w == nil {
		return db.Result{}, c.classify(clientError(crStmtClosed, msgStmtClosed), true)
	}
	if len(args) != s.nparams {
		return db.Result{}, c.classify(clientError(crParamsNotBound, "No data supplied for parameters in prepared statement"), true)
	}
	w := c.w
	out := w.begin(comStmtExecute)
	out = binary.LittleEndian.AppendUint32(out, s.id)
	out = append(out, 0, 1, 0, 0, 0) // no cursor; one iteration
	if n := len(args); n > 0 {
		nulls := len(out)
		for range (n + 7) / 8 {
			out = append(out, 0)
		}
		bound := len(out)
		out = append(out, 1) // types follow
		for i := range args {
			a := &args[i]
			switch {
			case a.Null:
				out[nulls+i/8] |= 1 << (i % 8)
				out = append(out, typeNull, 0)
			case a.Type == db.ParamInt:
				out = append(out, typeLongLong, 0)
			case a.Type == db.ParamDouble:
				out = append(out, typeDouble, 0)
			default:
				out = append(out, typeString, 0)
			}
		}
		if types := out[bound+1:]; s.sentTypes != nil && bytes.Equal(types, s.sentTypes) {
			out[bound], out = 0, out[:bound+1] // the server has them
		} else {
			s.sentTypes = append(s.sentTypes[:0], types...)
		}
		for i := range args {
			a := &args[i]
			switch {
			case a.Null:
			case a.Type == db.ParamInt:
				out = binary.LittleEndian.AppendUint64(out, uint64(a.I))
			case a.Type == db.ParamDouble:
				out = binary.LittleEndian.AppendUint64(out, math.Float64bits(a.F))
			default:
				out = appendLenenc(out, uint64(len(a.S)))
				out = append(out, a.S...)
			}
		}
	}
	stop := c.watch(ctx)
	if err := w.send(out); err != nil {
		s.sentTypes = nil
		return db.Result{}, c.lost(ctx, stop, err, true)
	}
	res, err := c.readResult(&s.cols, false)
	if err != nil {
		s.sentTypes = nil
		return db.Result{}, c.lost(ctx, stop, err, true)
	}
	stop()
	return res, nil
}

func appendLenenc(b []byte, n uint64) []byte {
	switch {
	case n < 0xfb:
		return append(b, byte(n))
	case n < 1<<16:
		return append(b, 0xfc, byte(n), byte(n>>8))
	case n < 1<<24:
		return append(b, 0xfd, byte(n), byte(n>>8), byte(n>>16))
	}
	return binary.LittleEndian.AppendUint64(append(b, 0xfe), n)
}

// readResult reads the first packet of a statement's result: an OK
// packet, a server error (returned as a *db.Error, with the session
// intact) or a result set's column count and definitions, after which the
// result set is the conn's open one. Other errors mean the session is
// lost. cols holds the columns of the last result set of the statement,
// and is updated when the server sends them.
func (c *conn) readResult(cols *[]column, text bool) (db.Result, error) {
	w := c.w
	c.wtext = text
	p, err := w.readPacket()
	if err != nil {
		return db.Result{}, err
	}
	if len(p) == 0 {
		return db.Result{}, errMalformed
	}
	switch p[0] {
	case 0x00:
		affected, status, err := okStatus(p)
		if err != nil {
			return db.Result{}, err
		}
		c.wmore = status&statusMoreResults != 0
		n := int64(affected)
		if c.debug() {
			c.logf("mysql_affected_rows(%p) = %d", c, n)
		}
		return db.Result{Affected: n}, nil
	case 0xff:
		return db.Result{}, c.fail(serverError(p), true)
	case 0xfb:
		return db.Result{}, c.refuseLocalFile()
	}
	n, pos, _, ok := lenenc(p, 0)
	if !ok || n == 0 || n > math.MaxUint16 {
		return db.Result{}, errMalformed
	}
	follows := true
	if w.cacheMetadata && pos < len(p) {
		follows = p[pos] != 0
	}
	// The last result's rows are closed by now (only one is open per
	// session), so its struct is reused: no allocation per result set.
	r := c.wspare
	if r == nil || !r.closed {
		r = new(wireRows)
		c.wspare = r
	}
	*r = wireRows{c: c, n: int(n), text: text}
	switch {
	case text: // text values need no column types
		if _, err = w.readColumns(r.n, nil, false); err != nil {
			return db.Result{}, err
		}
	case follows:
		if *cols, err = w.readColumns(r.n, *cols, true); err != nil {
			return db.Result{}, err
		}
		fallthrough
	default:
		if len(*cols) != r.n {
			return db.Result{}, errMalformed // no definitions known for these columns
		}
		r.cols = *cols
	}
	if c.debug() {
		c.logf("mysql_num_fields(%p) = %d", c, n)
	}
	c.wcur = r
	return db.Result{Rows: r}, nil
}

// queryWire runs a text query with COM_QUERY. Its first result is the
// answer, as in libmysqlclient: a result set, read lazily, or the rows
// the statement changed; the results of further statements are stepped
// through with NextResult, or skipped by the next call.
func (c *conn) queryWire(ctx context.Context, query string) (db.Result, error) {
	w := c.w
	stop := c.watch(ctx)
	if err := w.send(append(w.begin(comQuery), query...)); err != nil {
		return db.Result{}, c.lost(ctx, stop, err, true)
	}
	res, err := c.readResult(nil, true)
	if err != nil {
		return db.Result{}, c.lost(ctx, stop, err, true)
	}
	stop()
	return res, nil
}

// refuseLocalFile answers a LOAD DATA LOCAL INFILE's request for a client
// file with no data (sbgo sends no files), reads how the server ends the
// statement, and reports the refusal.
func (c *conn) refuseLocalFile() error {
	w := c.w
	var empty [4]byte
	putHeader(empty[:], 0, w.seq)
	w.seq++
	if _, err := w.nc.Write(empty[:]); err != nil {
		return err
	}
	p, err := w.readPacket()
	switch {
	case err != nil:
		return err
	case len(p) > 0 && p[0] == 0xff:
		return c.fail(serverError(p), true)
	case len(p) > 0 && p[0] == 0x00:
		_, status, err := okStatus(p)
		if err != nil {
			return err
		}
		c.wmore = status&statusMoreResults != 0
		return c.classify(clientError(crLocalInfileRejected, msgLocalInfileRejected), true)
	}
	return errMalformed
}

// watch closes the session's socket if ctx is cancelled while a command
// waits for the server, as go-sql-driver does: the blocked read then
// fails and the session is lost. stop must be called when the command is
// over; a context that cannot be cancelled costs nothing.
func (c *conn) watch(ctx context.Context) (stop func() bool) {
	if ctx.Done() == nil {
		return noStop
	}
	nc := c.w.nc
	return context.AfterFunc(ctx, func() { nc.Close() })
}

func noStop() bool { return false }

// lost ends a command that failed on the socket or on the protocol: the
// session can no longer be used (libmysqlclient closes it too), so it is
// closed, and the next call reports 2006. A server's error (a *db.Error
// already) leaves the session as it is.
func (c *conn) lost(ctx context.Context, stop func() bool, err error, logIgnored bool) error {
	stop()
	var de *db.Error
	if errors.As(err, &de) {
		return err
	}
	if ctx.Err() != nil {
		err = ctx.Err()
	}
	c.closeSession()
	return c.fail(err, logIgnored)
}

// lostNow is lost for a failure outside a command's own call (reading
// rows, skipping results): no context, no watch.
func (c *conn) lostNow(err error, logIgnored bool) error {
	return c.lost(context.Background(), noStop, err, logIgnored)
}

// wireRows is an open result set of the session's wire: binary rows of
// a prepared statement, or text rows of a query.
type wireRows struct {
	c      *conn
	n      int      // columns
	cols   []column // their types, for binary rows
	text   bool
	done   bool // all rows read, or reading failed
	closed bool
}

func (r *wireRows) NumFields() int { return r.n }

// Next reads the next row and writes its values as the text protocol
// would have them (see appendBinary); strings point into the session's
// read buffer, other values into conn.text. They stay valid until the
// next call on the rows or the conn.
func (r *wireRows) Next(row [][]byte) (bool, error) {
	if r.closed || r.done {
		return false, nil
	}
	c := r.c
	p, err := r.nextPacket()
	if p == nil {
		return false, err
	}
	if r.text {
		return r.textRow(p, row)
	}
	n := r.n
	nullBytes := (n + 7 + 2) / 8
	pos := 1 + nullBytes
	if pos > len(p) {
		r.done = true
		return false, c.lostNow(errMalformed, true)
	}
	nulls := p[1:pos]
	text, spans := c.text[:0], c.spans[:0]
	for i := 0; i < n && i < len(row); i++ {
		bit := i + 2
		if nulls[bit/8]&(1<<(bit%8)) != 0 {
			row[i] = nil
			continue
		}
		col := r.cols[i]
		switch col.typ {
		case typeNull:
			row[i] = nil
			continue
		case typeTiny, typeShort, typeYear, typeLong, typeInt24, typeLongLong, typeFloat, typeDouble,
			typeDate, typeNewDate, typeDatetime, typeTimestamp, typeTime:
			start := len(text)
			var ok bool
			if text, pos, ok = appendBinary(text, p, pos, col); !ok {
				r.done = true
				return false, c.lostNow(errMalformed, true)
			}
			spans = append(spans, span{col: i, start: start, end: len(text)})
		default: // strings, decimals, bits, blobs, JSON: their text as is
			l, next, _, ok := lenenc(p, pos)
			if !ok || next+int(l) > len(p) {
				r.done = true
				return false, c.lostNow(errMalformed, true)
			}
			pos = next + int(l)
			row[i] = p[next:pos:pos]
		}
	}
	for _, s := range spans {
		row[s.col] = text[s.start:s.end:s.end]
	}
	c.text, c.spans = text, spans
	return true, nil
}

// textRow reads a text row: each value a length-encoded string, or 0xfb
// for NULL. The values point into the session's read buffer.
func (r *wireRows) textRow(p []byte, row [][]byte) (bool, error) {
	pos := 0
	for i := 0; i < r.n && i < len(row); i++ {
		l, next, null, ok := lenenc(p, pos)
		if !ok || next+int(l) > len(p) {
			r.done = true
			return false, r.c.lostNow(errMalformed, true)
		}
		pos = next + int(l)
		if null {
			row[i] = nil
		} else {
			row[i] = p[next:pos:pos]
		}
	}
	return true, nil
}

// nextPacket reads the next row's packet, or nil at the end of the rows
// (with the error that ended them, if any).
func (r *wireRows) nextPacket() ([]byte, error) {
	c := r.c
	if c.w == nil { // the session was lost
		r.done = true
		return nil, nil
	}
	p, err := c.w.readPacket()
	if err != nil {
		r.done = true
		return nil, c.lostNow(err, true)
	}
	if len(p) > 0 && (p[0] == 0x00 || r.text && p[0] != 0xff && !c.w.isTextEnd(p)) {
		return p, nil
	}
	r.done = true
	end, status, err := c.w.isEnd(p)
	switch {
	case err != nil:
		return nil, c.lostNow(err, true)
	case end:
		c.wmore = status&statusMoreResults != 0
		return nil, nil
	case len(p) > 0 && p[0] == 0xff:
		return nil, c.fail(serverError(p), true)
	}
	return nil, c.lostNow(errMalformed, true)
}

// Close skips the rows not read, and the results of the command that
// follow (as go-sql-driver's rows do: a closed result has no next one).
// Closing twice, or closing a result the connection has moved past, does
// nothing.
func (r *wireRows) Close() error {
	if r.closed {
		return nil
	}
	err := r.skip()
	if r.c.wcur == nil && r.c.wmore {
		r.c.drainResults()
	}
	return err
}

// skip reads the rest of the rows, so that the session can go on to the
// command's next result.
func (r *wireRows) skip() error {
	if r.closed {
		return nil
	}
	r.closed = true
	c := r.c
	if c.wcur == r {
		c.wcur = nil
	}
	for !r.done {
		if c.w != nil {
			if err := c.w.skipRows(r.text); err != nil {
				r.done = true
				return c.lostNow(err, false)
			}
		}
		if p, err := r.nextPacket(); p == nil {
			return err
		}
	}
	return nil
}

// drainResults reads and drops the results that follow the last one
// (a CALL's), so that the session is ready for its next command.
func (c *conn) drainResults() {
	for c.wmore && c.w != nil {
		c.wmore = false
		var cols []column
		res, err := c.readResult(&cols, c.wtext)
		if err != nil {
			var de *db.Error
			if !errors.As(err, &de) {
				c.lostNow(err, false)
			}
			return
		}
		if res.Rows != nil {
			res.Rows.Close()
		}
	}
}

// nextWireResult steps to the next result set of a CALL: the rows left
// of the open one are skipped, and so are the results without rows.
func (c *conn) nextWireResult() (db.Result, bool, error) {
	if c.wcur != nil {
		if err := c.wcur.skip(); err != nil {
			return db.Result{}, false, err
		}
	}
	for c.wmore && c.w != nil {
		c.wmore = false
		var cols []column
		res, err := c.readResult(&cols, c.wtext)
		if err != nil {
			return db.Result{}, false, c.lostNow(err, true)
		}
		if res.Rows != nil {
			return res, true, nil
		}
	}
	return db.Result{}, false, nil
}

// Close deallocates the statement on the server (COM_STMT_CLOSE has no
// answer). A statement of an earlier session is gone already.
func (s *wireStmt) Close() error {
	if s.closed {
		return nil
	}
	s.closed = true
	c := s.c
	c.release()
	if s.gen != c.gen || c.w == nil {
		return nil
	}
	if c.debug() {
		c.logf("mysql_stmt_close(%p)", s)
	}
	out := binary.LittleEndian.AppendUint32(c.w.begin(comStmtClose), s.id)
	if err := c.w.send(out); err != nil {
		return c.lostNow(err, false)
	}
	return nil
}

// appendBinary appends the text of a binary-protocol number, date or time
// at p[pos:] of column col, as the text protocol shows it; it returns the
// position after the value, and false when p ends too soon.
func appendBinary(dst, p []byte, pos int, col column) ([]byte, int, bool) {
	unsigned := col.flags&flagUnsigned != 0
	need := func(n int) bool { return pos+n <= len(p) }
	switch col.typ {
	case typeTiny:
		if !need(1) {
			return dst, pos, false
		}
		if unsigned {
			return strconv.AppendUint(dst, uint64(p[pos]), 10), pos + 1, true
		}
		return strconv.AppendInt(dst, int64(int8(p[pos])), 10), pos + 1, true
	case typeShort, typeYear:
		if !need(2) {
			return dst, pos, false
		}
		v := binary.LittleEndian.Uint16(p[pos:])
		switch {
		case col.typ == typeYear:
			dst = appendDigits(dst, int(v), 4)
		case unsigned:
			dst = strconv.AppendUint(dst, uint64(v), 10)
		default:
			dst = strconv.AppendInt(dst, int64(int16(v)), 10)
		}
		return dst, pos + 2, true
	case typeLong, typeInt24:
		if !need(4) {
			return dst, pos, false
		}
		v := binary.LittleEndian.Uint32(p[pos:])
		if unsigned {
			return strconv.AppendUint(dst, uint64(v), 10), pos + 4, true
		}
		return strconv.AppendInt(dst, int64(int32(v)), 10), pos + 4, true
	case typeLongLong:
		if !need(8) {
			return dst, pos, false
		}
		v := binary.LittleEndian.Uint64(p[pos:])
		if unsigned {
			return strconv.AppendUint(dst, v, 10), pos + 8, true
		}
		return strconv.AppendInt(dst, int64(v), 10), pos + 8, true
	case typeFloat:
		if !need(4) {
			return dst, pos, false
		}
		f := math.Float32frombits(binary.LittleEndian.Uint32(p[pos:]))
		return appendFloat(dst, float64(f), 32), pos + 4, true
	case typeDouble:
		if !need(8) {
			return dst, pos, false
		}
		f := math.Float64frombits(binary.LittleEndian.Uint64(p[pos:]))
		return appendFloat(dst, f, 64), pos + 8, true
	}
	// Dates and times: a length byte, then the fields present.
	if !need(1) {
		return dst, pos, false
	}
	l := int(p[pos])
	pos++
	if !need(l) {
		return dst, pos, false
	}
	v := p[pos : pos+l]
	pos += l
	switch col.typ {
	case typeTime:
		return appendBinaryTime(dst, v, col.decimals), pos, true
	case typeDate, typeNewDate:
		return appendDate(dst, v), pos, true
	}
	dst = appendDate(dst, v)
	dst = append(dst, ' ')
	var h, m, s int
	var micro uint32
	if len(v) >= 7 {
		h, m, s = int(v[4]), int(v[5]), int(v[6])
	}
	if len(v) >= 11 {
		micro = binary.LittleEndian.Uint32(v[7:])
	}
	dst = appendClock(dst, h, m, s)
	return appendFraction(dst, micro, col.decimals), pos, true
}

// appendDate writes YYYY-MM-DD from a binary date's first 4 bytes (none:
// the zero date).
func appendDate(dst, v []byte) []byte {
	var y, mo, d int
	if len(v) >= 4 {
		y, mo, d = int(binary.LittleEndian.Uint16(v)), int(v[2]), int(v[3])
	}
	dst = appendDigits(dst, y, 4)
	dst = append(dst, '-')
	dst = appendDigits(dst, mo, 2)
	dst = append(dst, '-')
	return appendDigits(dst, d, 2)
}

// appendBinaryTime writes a TIME: [-]HH:MM:SS with the days folded into
// the hours, and its fraction.
func appendBinaryTime(dst, v []byte, decimals byte) []byte {
	var h, m, s int
	var micro uint32
	if len(v) >= 8 {
		if v[0] == 1 {
			dst = append(dst, '-')
		}
		h = int(binary.LittleEndian.Uint32(v[1:]))*24 + int(v[5])
		m, s = int(v[6]), int(v[7])
	}
	if len(v) >= 12 {
		micro = binary.LittleEndian.Uint32(v[8:])
	}
	dst = appendClock(dst, h, m, s)
	return appendFraction(dst, micro, decimals)
}

func appendClock(dst []byte, h, m, s int) []byte {
	dst = appendDigits(dst, h, 2)
	dst = append(dst, ':')
	dst = appendDigits(dst, m, 2)
	dst = append(dst, ':')
	return appendDigits(dst, s, 2)
}

// appendFraction writes the microseconds with the column's number of
// decimals; a column without a fixed number (an expression's) shows all
// six when there is a fraction.
func appendFraction(dst []byte, micro uint32, decimals byte) []byte {
	n := int(decimals)
	if decimals == decimalsNotSet || n > 6 {
		if micro == 0 {
			return dst
		}
		n = 6
	}
	if n == 0 {
		return dst
	}
	var digits [6]byte
	for i := 5; i >= 0; i-- {
		digits[i] = byte('0' + micro%10)
		micro /= 10
	}
	dst = append(dst, '.')
	return append(dst, digits[:n]...)
}

// appendDigits writes v in decimal with at least width digits.
func appendDigits(dst []byte, v, width int) []byte {
	var buf [20]byte
	i := len(buf)
	for v >= 10 || width > 1 {
		i--
		buf[i] = byte('0' + v%10)
		v /= 10
		width--
	}
	i--
	buf[i] = byte('0' + v)
	return append(dst, buf[i:]...)
}
