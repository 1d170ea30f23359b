package mysql

import (
	"encoding/binary"
	"math"
	"strconv"
)

// wireRows is an open result set of the session's wire: binary rows of
// a prepared statement, or text rows of a query.
type wireRows struct {
	c      *wireConn
	n      int      // columns
	cols   []column // their types, for binary rows
	text   bool
	done   bool // all rows read, or reading failed
	closed bool
}

func (r *wireRows) NumFields() int { return r.n }

// Next reads the next row and writes its values as the text protocol
// would have them (see appendBinary); strings point into the session's
// read buffer, other values into session.text. They stay valid until the
// next call on the rows or the connection.
func (r *wireRows) Next(row [][]byte) (bool, error) {
	if r.closed || r.done {
		return false, nil
	}
	p, err := r.nextPacket()
	if p == nil {
		return false, err
	}
	if r.text {
		return r.textRow(p, row)
	}
	return r.binaryRow(p, row)
}

// binaryRow reads a binary row: a 0x00, a NULL bitmap (offset by two
// bits), then the values that are not NULL.
func (r *wireRows) binaryRow(p []byte, row [][]byte) (bool, error) {
	c := r.c
	n := r.n
	pos := 1 + (n+7+2)/8
	if pos > len(p) {
		return r.malformed()
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
				return r.malformed()
			}
			spans = append(spans, span{col: i, start: start, end: len(text)})
		default: // strings, decimals, bits, blobs, JSON: their text as is
			v, next, _, ok := lenencString(p, pos)
			if !ok {
				return r.malformed()
			}
			pos = next
			row[i] = v
		}
	}
	// Sliced only now: appending may have moved the buffer.
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
		v, next, null, ok := lenencString(p, pos)
		if !ok {
			return r.malformed()
		}
		pos = next
		if null {
			row[i] = nil
		} else {
			row[i] = v
		}
	}
	return true, nil
}

// malformed ends the rows on a row that cannot be read: the session is
// out of step, so it is lost.
func (r *wireRows) malformed() (bool, error) {
	r.done = true
	return false, r.c.lostNow(errMalformed, true)
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
		c.more = status&statusMoreResults != 0
		c.commandDone()
		return nil, nil
	case len(p) > 0 && p[0] == 0xff:
		c.commandDone()
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
	if r.c.cur == nil && r.c.more {
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
	if c.cur == r {
		c.cur = nil
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

// appendBinary appends the text of a binary-protocol number, date or time
// at p[pos:] of column col, as the text protocol shows it; it returns the
// position after the value, and false when p ends too soon. Numbers have
// a fixed size; dates and times, a length byte, then the fields present.
func appendBinary(dst, p []byte, pos int, col column) ([]byte, int, bool) {
	if size := fixedSize(col.typ); size > 0 {
		if pos+size > len(p) {
			return dst, pos, false
		}
		return appendNumber(dst, p[pos:pos+size], col), pos + size, true
	}
	if pos >= len(p) {
		return dst, pos, false
	}
	l := int(p[pos])
	pos++
	if pos+l > len(p) {
		return dst, pos, false
	}
	return appendTemporal(dst, p[pos:pos+l], col), pos + l, true
}

// fixedSize is the size of a binary number of type typ, 0 for the dates
// and times.
func fixedSize(typ byte) int {
	switch typ {
	case typeTiny:
		return 1
	case typeShort, typeYear:
		return 2
	case typeLong, typeInt24, typeFloat:
		return 4
	case typeLongLong, typeDouble:
		return 8
	}
	return 0
}

// appendNumber writes the binary number v (fixedSize(col.typ) bytes).
func appendNumber(dst, v []byte, col column) []byte {
	unsigned := col.flags&flagUnsigned != 0
	var u uint64 // the bits, little-endian
	var s int64  // the same, sign-extended
	switch len(v) {
	case 1:
		u, s = uint64(v[0]), int64(int8(v[0]))
	case 2:
		x := binary.LittleEndian.Uint16(v)
		u, s = uint64(x), int64(int16(x))
	case 4:
		x := binary.LittleEndian.Uint32(v)
		u, s = uint64(x), int64(int32(x))
	default:
		u = binary.LittleEndian.Uint64(v)
		s = int64(u)
	}
	switch {
	case col.typ == typeYear:
		return appendDigits(dst, int(u), 4)
	case col.typ == typeFloat:
		return appendFloat(dst, float64(math.Float32frombits(uint32(u))), 32)
	case col.typ == typeDouble:
		return appendFloat(dst, math.Float64frombits(u), 64)
	case unsigned:
		return strconv.AppendUint(dst, u, 10)
	}
	return strconv.AppendInt(dst, s, 10)
}

// appendTemporal writes the binary date or time v (its fields present).
func appendTemporal(dst, v []byte, col column) []byte {
	switch col.typ {
	case typeTime:
		return appendBinaryTime(dst, v, col.decimals)
	case typeDate, typeNewDate:
		return appendDate(dst, v)
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
	return appendFraction(dst, micro, col.decimals)
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
