package mysql

import (
	"context"
	"encoding/binary"
	"net"

	gomysql "github.com/go-sql-driver/mysql"

	"sbgo/db/sockconn"
)

// This file is sbgo's own reading and writing of the MySQL protocol for
// prepared statements (COM_STMT_PREPARE, COM_STMT_EXECUTE and
// COM_STMT_CLOSE), and for text queries, used on sessions without TLS or
// compression, over a blocking socket or Go's own connection.
//
// Why: prepared statements are the per-event path of every sysbench
// workload, and go-sql-driver's execute costs more client CPU than the
// rest of sbgo together. It boxes each parameter in an interface (an
// allocation per integer), reads the column definitions of every answer
// into new structures, and drains the rows nobody fetches (a 100-row
// range of oltp_read_only) through its general packet reader. Here an
// execute is built in one reused buffer and written with one write(2);
// the answer is read into one reused buffer, column definitions are
// reduced to the three fields decoding needs, and unread rows are
// skipped by their packet headers. Nothing is allocated per execute
// except the handle of a result set.
//
// go-sql-driver still opens the session (authentication, TLS,
// compression) and closes it: the two never overlap, because a session
// runs one command at a time and each command's answer is read to its
// end before the next command. The capabilities this code must
// honour are those go-sql-driver asked for in its handshake response,
// which the dialer's connection reads as it is written (capture). A
// session that negotiated anything this code does not implement (TLS,
// compression; see wireCarries), and every session of
// --mysql-io-mode=go-sql-driver, keeps go-sql-driver's statements: that
// is the fallback (sqlconn.go).

// Protocol constants (MySQL's and MariaDB's client/server protocol).
const (
	comQuery       = 0x03
	comStmtPrepare = 0x16
	comStmtExecute = 0x17
	comStmtClose   = 0x19

	capMySQL            = 1 << 0 // clear when talking to MariaDB with extended capabilities
	capFoundRows        = 1 << 1
	capLongFlag         = 1 << 2
	capConnectWithDB    = 1 << 3
	capCompress         = 1 << 5
	capLocalFiles       = 1 << 7
	capProtocol41       = 1 << 9
	capSSL              = 1 << 11
	capTransactions     = 1 << 13
	capSecureConn       = 1 << 15
	capMultiStatements  = 1 << 16
	capMultiResults     = 1 << 17
	capPSMultiResults   = 1 << 18
	capPluginAuth       = 1 << 19
	capConnectAttrs     = 1 << 20
	capPluginAuthLenenc = 1 << 21
	capSessionTrack     = 1 << 23
	capDeprecateEOF     = 1 << 24

	extCapBulkOperations   = 1 << 2 // MariaDB: COM_STMT_BULK_EXECUTE
	extCapExtendedMetadata = 1 << 3 // MariaDB: column definitions carry a type name
	extCapCacheMetadata    = 1 << 4 // MariaDB: execute answers may omit unchanged column definitions

	statusMoreResults = 0x0008 // SERVER_MORE_RESULTS_EXISTS

	maxPayload = 1<<24 - 1 // a payload this long continues in the next packet

	typeTiny       = 0x01
	typeShort      = 0x02
	typeLong       = 0x03
	typeFloat      = 0x04
	typeDouble     = 0x05
	typeNull       = 0x06
	typeTimestamp  = 0x07
	typeLongLong   = 0x08
	typeInt24      = 0x09
	typeDate       = 0x0a
	typeTime       = 0x0b
	typeDatetime   = 0x0c
	typeYear       = 0x0d
	typeNewDate    = 0x0e
	typeString     = 0xfe
	flagUnsigned   = 0x20
	decimalsNotSet = 0x1f
)

// wireBufferStart and wireBufferMax bound a session's read buffer: small
// answers (point selects) never need more than the first, and one that
// fills a read grows it to the second, so that a 100-row range result
// arrives with one read(2). Larger packets grow it as far as they need.
const (
	wireBufferStart = 4 << 10
	wireBufferMax   = 16 << 10
)

// Errors of the protocol itself, worded by queryError as libmysqlclient's
// 2014 and 2027.
var (
	errPacketSync = gomysql.ErrPktSync
	errMalformed  = gomysql.ErrMalformPkt
)

// wire reads and writes one session's packets.
type wire struct {
	nc            wireSocket
	deprecateEOF  bool // result sets end with an OK packet, without EOF after the columns
	cacheMetadata bool // MariaDB: execute answers flag whether column definitions follow

	buf  []byte
	r, w int   // buf[r:w] is read from the socket but not yet consumed
	seq  uint8 // the sequence number of the next packet
	out  []byte
	long []byte // a payload of several packets, put together
}

// wireSocket is the socket under a wire: sockconn's blocking socket or its
// PollerConn. ReadUnbuffered reads straight into the wire's buffer, past
// any buffer of the connection's own.
type wireSocket interface {
	Write(b []byte) (int, error)
	ReadUnbuffered(b []byte) (int, error)
	Close() error
}

// handshakeCapture learns, at connect time, the socket and the
// capabilities go-sql-driver asked for. It travels to the dialer in the
// context of the connect.
type handshakeCapture struct {
	nc      wireSocket
	seen    bool
	caps    uint32
	extCaps uint32
	usable  bool
}

type captureKey struct{}

// dialBlocking and dialPoller are the DialFuncs of --mysql-io-mode=
// blocking (sockconn's blocking socket) and poller (Go's own connection
// with raw reads and writes, sockconn.PollerConn).
var (
	dialBlocking = dialWire(sockconn.Dial)
	dialPoller   = dialWire(sockconn.DialPoller)
)

// dialWire makes a DialFunc of dial whose connection, when the wire can
// use it, has its first write (the handshake response) read for its
// capabilities when the connect wants them (see capture).
func dialWire(dial func(ctx context.Context, network, addr string) (net.Conn, error)) func(context.Context, string, string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		nc, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		wc, ok := nc.(wireSocket)
		if !ok {
			return nc, nil
		}
		return capture(ctx, nc, wc), nil
	}
}

// capture returns nc for go-sql-driver, wrapped to read the handshake
// response when the connect's context carries a handshakeCapture; wc is
// the same socket for the session's wire.
func capture(ctx context.Context, nc net.Conn, wc wireSocket) net.Conn {
	hc, _ := ctx.Value(captureKey{}).(*handshakeCapture)
	if hc == nil {
		return nc
	}
	*hc = handshakeCapture{nc: wc} // a retried connect starts afresh
	return &capturingConn{Conn: nc, hc: hc}
}

// capturingConn is a connection that reads the capabilities in the
// first packet it writes.
type capturingConn struct {
	net.Conn
	hc *handshakeCapture
}

func (c *capturingConn) Write(b []byte) (int, error) {
	if !c.hc.seen {
		c.hc.seen = true
		c.hc.read(b)
	}
	return c.Conn.Write(b)
}

// read takes the capabilities from a handshake response packet (header,
// then capabilities, max packet size, collation, 19 bytes of filler and,
// for MariaDB, its extended capabilities). An SSL request has the same
// start, with the SSL bit set, which rules this path out.
func (hc *handshakeCapture) read(p []byte) {
	if len(p) < 4+32 {
		return
	}
	hc.caps = binary.LittleEndian.Uint32(p[4:])
	if hc.caps&capMySQL == 0 {
		hc.extCaps = binary.LittleEndian.Uint32(p[4+28:])
	}
	hc.usable = wireCarries(hc.caps, hc.extCaps)
}

// The capabilities the wire implements. A session may use the wire only
// when it negotiated 4.1 packets and nothing outside wireCaps and
// wireExtCaps; anything else keeps go-sql-driver's statements. An
// allow-list, not a list of the known misfits (TLS, compression), because
// a capability this code has never seen may change the framing or the
// contents of what it reads (session tracking adds to OK packets,
// MariaDB's extended metadata to column definitions): falling back is
// slower, misreading a session is wrong.
//
// Implemented: capMySQL says whether MariaDB's extended capabilities
// follow; 4.1 packets with 2-byte column flags (capProtocol41,
// capLongFlag) and their status (capTransactions); several results per
// command (capMultiStatements, capMultiResults: see statusMoreResults);
// LOAD DATA LOCAL requests, refused (capLocalFiles); result sets without
// EOF packets (capDeprecateEOF); MariaDB's cached column definitions
// (extCapCacheMetadata). The others only shape the handshake, which
// go-sql-driver does (capConnectWithDB, capSecureConn, capPluginAuth,
// capPluginAuthLenenc, capConnectAttrs).
const (
	wireCaps = capMySQL | capLongFlag | capConnectWithDB | capLocalFiles |
		capProtocol41 | capTransactions | capSecureConn | capMultiStatements |
		capMultiResults | capPluginAuth | capConnectAttrs | capPluginAuthLenenc |
		capDeprecateEOF
	wireExtCaps = extCapCacheMetadata
)

// wireCarries reports whether a session that negotiated caps and (for
// MariaDB) extCaps can be carried by the wire.
func wireCarries(caps, extCaps uint32) bool {
	return caps&capProtocol41 != 0 && caps&^wireCaps == 0 && extCaps&^wireExtCaps == 0
}

// newWire is the protocol reader of a session go-sql-driver opened
// through dialBlocking, or nil when this session must keep go-sql-driver's
// statements.
func newWire(hc *handshakeCapture) *wire {
	if hc == nil || hc.nc == nil || !hc.usable {
		return nil
	}
	return &wire{
		nc:            hc.nc,
		deprecateEOF:  hc.caps&capDeprecateEOF != 0,
		cacheMetadata: hc.extCaps&extCapCacheMetadata != 0,
	}
}

// begin starts a command packet in w.out, after room for its header.
func (w *wire) begin(cmd byte) []byte {
	return append(w.out[:0], 0, 0, 0, 0, cmd)
}

// send writes the command built in out (from begin) and sets up the
// sequence numbers of its answer. A payload longer than a packet is
// split as the protocol wants.
func (w *wire) send(out []byte) error {
	w.out = out
	if w.r != w.w {
		return errPacketSync // bytes of an earlier answer were left unread
	}
	payload := len(out) - 4
	if payload < maxPayload {
		putHeader(out, payload, 0)
		w.seq = 1
		_, err := w.nc.Write(out)
		return err
	}
	var seq uint8
	var hdr [4]byte
	rest := out[4:]
	for {
		n := min(len(rest), maxPayload)
		putHeader(hdr[:], n, seq)
		seq++
		if _, err := w.nc.Write(hdr[:]); err != nil {
			return err
		}
		if _, err := w.nc.Write(rest[:n]); err != nil {
			return err
		}
		rest = rest[n:]
		if n < maxPayload {
			break
		}
	}
	w.seq = seq
	return nil
}

func putHeader(b []byte, n int, seq uint8) {
	b[0], b[1], b[2], b[3] = byte(n), byte(n>>8), byte(n>>16), seq
}

// readPacket returns the next payload of the answer. It stays valid until
// the next read.
func (w *wire) readPacket() ([]byte, error) {
	p, err := w.readFrame()
	if err != nil || len(p) < maxPayload {
		return p, err
	}
	w.long = append(w.long[:0], p...)
	for {
		p, err = w.readFrame()
		if err != nil {
			return nil, err
		}
		w.long = append(w.long, p...)
		if len(p) < maxPayload {
			return w.long, nil
		}
	}
}

// readFrame reads one packet: its 4-byte header, then its payload.
func (w *wire) readFrame() ([]byte, error) {
	if err := w.fill(4); err != nil {
		return nil, err
	}
	h := w.buf[w.r : w.r+4]
	n := int(h[0]) | int(h[1])<<8 | int(h[2])<<16
	if h[3] != w.seq {
		return nil, errPacketSync
	}
	w.seq++
	if err := w.fill(4 + n); err != nil {
		return nil, err
	}
	start := w.r + 4
	w.r = start + n
	return w.buf[start:w.r:w.r], nil
}

// fill reads until buf[r:] holds n bytes, moving or growing the buffer
// when they would not fit.
func (w *wire) fill(n int) error {
	for w.w-w.r < n {
		if w.r == w.w {
			w.r, w.w = 0, 0
		}
		if w.r+n > len(w.buf) {
			size := len(w.buf)
			if size == 0 {
				size = wireBufferStart
			}
			for size < n {
				size *= 2
			}
			if size == len(w.buf) {
				copy(w.buf, w.buf[w.r:w.w])
			} else {
				nb := make([]byte, size)
				copy(nb, w.buf[w.r:w.w])
				w.buf = nb
			}
			w.w -= w.r
			w.r = 0
		}
		m, err := w.nc.ReadUnbuffered(w.buf[w.w:])
		w.w += m
		if err != nil {
			return err
		}
		if w.w == len(w.buf) && len(w.buf) < wireBufferMax {
			// The answer is larger than the buffer: grow it now, so
			// that the rest comes in one read.
			nb := make([]byte, wireBufferMax)
			w.w = copy(nb, w.buf[w.r:w.w])
			w.r = 0
			w.buf = nb
		}
	}
	return nil
}

// lenenc reads a length-encoded integer at p[pos:]; ok is false when p
// is too short. A NULL (0xfb) reads as 0 with null set.
func lenenc(p []byte, pos int) (v uint64, next int, null, ok bool) {
	if pos >= len(p) {
		return 0, pos, false, false
	}
	switch c := p[pos]; {
	case c < 0xfb:
		return uint64(c), pos + 1, false, true
	case c == 0xfb:
		return 0, pos + 1, true, true
	case c == 0xfc:
		if pos+3 > len(p) {
			return 0, pos, false, false
		}
		return uint64(p[pos+1]) | uint64(p[pos+2])<<8, pos + 3, false, true
	case c == 0xfd:
		if pos+4 > len(p) {
			return 0, pos, false, false
		}
		return uint64(p[pos+1]) | uint64(p[pos+2])<<8 | uint64(p[pos+3])<<16, pos + 4, false, true
	case c == 0xfe:
		if pos+9 > len(p) {
			return 0, pos, false, false
		}
		return binary.LittleEndian.Uint64(p[pos+1:]), pos + 9, false, true
	}
	return 0, pos, false, false // 0xff never starts an integer
}

// lenencString reads a length-encoded string at p[pos:]: its bytes, the
// position after it, and null for a NULL (0xfb). ok is false when p is
// shorter than the length says, which a damaged packet may put anywhere
// up to 2^64-1, beyond what an int holds.
func lenencString(p []byte, pos int) (s []byte, next int, null, ok bool) {
	n, start, null, ok := lenenc(p, pos)
	if !ok || n > uint64(len(p)-start) {
		return nil, pos, false, false
	}
	next = start + int(n)
	return p[start:next:next], next, null, true
}

// serverError reads an ERR packet.
func serverError(p []byte) error {
	if len(p) < 3 {
		return errMalformed
	}
	e := &gomysql.MySQLError{Number: binary.LittleEndian.Uint16(p[1:])}
	msg := p[3:]
	if len(msg) >= 6 && msg[0] == '#' {
		copy(e.SQLState[:], msg[1:6])
		msg = msg[6:]
	}
	e.Message = string(msg)
	return e
}

// okStatus reads an OK packet (0x00, or 0xfe where it ends a result set
// without EOF packets): the affected rows and the server status.
func okStatus(p []byte) (affected uint64, status uint16, err error) {
	affected, pos, _, ok := lenenc(p, 1)
	if !ok {
		return 0, 0, errMalformed
	}
	if _, pos, _, ok = lenenc(p, pos); !ok { // last insert id
		return 0, 0, errMalformed
	}
	if pos+2 > len(p) {
		return affected, 0, nil // a 4.1-era OK without status
	}
	return affected, binary.LittleEndian.Uint16(p[pos:]), nil
}

// isTextEnd reports whether p, read among text rows, ends them: 0xfe
// starts a text row only when its first value is 16 MB or longer.
func (w *wire) isTextEnd(p []byte) bool {
	if len(p) == 0 || p[0] != 0xfe {
		return false
	}
	if w.deprecateEOF {
		return len(p) < maxPayload
	}
	return len(p) < 9
}

// isEnd reports whether p ends a result set's rows (binary rows start
// with 0x00, so 0xfe is always the end), and the status it carries.
func (w *wire) isEnd(p []byte) (end bool, status uint16, err error) {
	if len(p) == 0 || p[0] != 0xfe {
		return false, 0, nil
	}
	if !w.deprecateEOF || len(p) < 7 {
		// EOF packet: 0xfe, warnings, status.
		if len(p) < 5 {
			return true, 0, nil
		}
		return true, binary.LittleEndian.Uint16(p[3:]), nil
	}
	_, status, err = okStatus(p)
	return true, status, err
}

// column is what decoding a binary row needs of a column definition.
type column struct {
	typ      byte
	flags    uint16
	decimals byte
}

// parseColumn reads a column definition packet: six length-encoded
// strings (catalog, schema, table, original table, name, original name),
// then the fixed fields: length of them, character set, column length,
// type, flags, decimals.
func parseColumn(p []byte) (column, error) {
	pos := 0
	for range 6 {
		_, next, _, ok := lenencString(p, pos)
		if !ok {
			return column{}, errMalformed
		}
		pos = next
	}
	_, pos, _, ok := lenenc(p, pos) // length of the fixed fields
	if !ok || pos+10 > len(p) {
		return column{}, errMalformed
	}
	return column{typ: p[pos+6], flags: binary.LittleEndian.Uint16(p[pos+7:]), decimals: p[pos+9]}, nil
}

// readColumns reads n column definitions, into cols[:0] when keep is
// set, then the EOF packet that follows them without
// CLIENT_DEPRECATE_EOF.
func (w *wire) readColumns(n int, cols []column, keep bool) ([]column, error) {
	cols = cols[:0]
	for range n {
		p, err := w.readPacket()
		if err != nil {
			return cols, err
		}
		if len(p) > 0 && p[0] == 0xff {
			return cols, serverError(p)
		}
		if keep {
			col, err := parseColumn(p)
			if err != nil {
				return cols, err
			}
			cols = append(cols, col)
		}
	}
	if n > 0 && !w.deprecateEOF {
		p, err := w.readPacket()
		if err != nil {
			return cols, err
		}
		if len(p) == 0 || p[0] != 0xfe {
			return cols, errMalformed
		}
	}
	return cols, nil
}

// skipRows consumes the rows that follow, straight from the read buffer:
// a row is recognised by its header and first byte (0x00 for a binary
// row; for a text row anything but the 0xfe and 0xff that start the end
// of the rows or an error) and stepped over. It stops before the first
// packet that is not a whole row of one packet (the end of the rows, an
// error, a row of 16 MB or more), which readPacket then reads.
func (w *wire) skipRows(text bool) error {
	for {
		r, seq := w.r, w.seq
		for w.w-r >= 5 {
			b := w.buf[r : r+5]
			n := int(b[0]) | int(b[1])<<8 | int(b[2])<<16
			isRow := b[4] == 0x00 || text && b[4] < 0xfe
			if !isRow || b[3] != seq || n >= maxPayload {
				w.r, w.seq = r, seq
				return nil
			}
			if r+4+n > w.w {
				break
			}
			seq++
			r += 4 + n
		}
		w.r, w.seq = r, seq
		need := 5 // an incomplete packet is left, or none
		if w.w-r >= 4 {
			b := w.buf[r:]
			need = 4 + (int(b[0]) | int(b[1])<<8 | int(b[2])<<16)
		}
		if err := w.fill(need); err != nil {
			return err
		}
	}
}
