package sqlite

import (
	"fmt"
	"strconv"
	"strings"

	lib "modernc.org/sqlite/lib"

	"sbgo/db"
)

// codeNames are the names of SQLite's result codes: the primary ones,
// then the extended ones, whose low byte is their primary code.
var codeNames = map[int32]string{
	1: "SQLITE_ERROR", 2: "SQLITE_INTERNAL", 3: "SQLITE_PERM", 4: "SQLITE_ABORT",
	5: "SQLITE_BUSY", 6: "SQLITE_LOCKED", 7: "SQLITE_NOMEM", 8: "SQLITE_READONLY",
	9: "SQLITE_INTERRUPT", 10: "SQLITE_IOERR", 11: "SQLITE_CORRUPT", 12: "SQLITE_NOTFOUND",
	13: "SQLITE_FULL", 14: "SQLITE_CANTOPEN", 15: "SQLITE_PROTOCOL", 16: "SQLITE_EMPTY",
	17: "SQLITE_SCHEMA", 18: "SQLITE_TOOBIG", 19: "SQLITE_CONSTRAINT", 20: "SQLITE_MISMATCH",
	21: "SQLITE_MISUSE", 22: "SQLITE_NOLFS", 23: "SQLITE_AUTH", 24: "SQLITE_FORMAT",
	25: "SQLITE_RANGE", 26: "SQLITE_NOTADB", 27: "SQLITE_NOTICE", 28: "SQLITE_WARNING",

	261: "SQLITE_BUSY_RECOVERY", 517: "SQLITE_BUSY_SNAPSHOT", 773: "SQLITE_BUSY_TIMEOUT",
	262: "SQLITE_LOCKED_SHAREDCACHE", 518: "SQLITE_LOCKED_VTAB",
	264: "SQLITE_READONLY_RECOVERY", 520: "SQLITE_READONLY_CANTLOCK", 776: "SQLITE_READONLY_ROLLBACK",
	1032: "SQLITE_READONLY_DBMOVED", 1288: "SQLITE_READONLY_CANTINIT", 1544: "SQLITE_READONLY_DIRECTORY",
	516: "SQLITE_ABORT_ROLLBACK", 266: "SQLITE_IOERR_READ", 522: "SQLITE_IOERR_SHORT_READ",
	778: "SQLITE_IOERR_WRITE", 1034: "SQLITE_IOERR_FSYNC", 3338: "SQLITE_IOERR_NOMEM",
	270: "SQLITE_CANTOPEN_NOTEMPDIR", 526: "SQLITE_CANTOPEN_ISDIR", 782: "SQLITE_CANTOPEN_FULLPATH",
	275: "SQLITE_CONSTRAINT_CHECK", 531: "SQLITE_CONSTRAINT_COMMITHOOK", 787: "SQLITE_CONSTRAINT_FOREIGNKEY",
	1043: "SQLITE_CONSTRAINT_FUNCTION", 1299: "SQLITE_CONSTRAINT_NOTNULL", 1555: "SQLITE_CONSTRAINT_PRIMARYKEY",
	1811: "SQLITE_CONSTRAINT_TRIGGER", 2067: "SQLITE_CONSTRAINT_UNIQUE", 2323: "SQLITE_CONSTRAINT_VTAB",
	2579: "SQLITE_CONSTRAINT_ROWID", 3091: "SQLITE_CONSTRAINT_DATATYPE",
}

// codeName is the name of result code rc; an extended code without a
// name of its own takes its primary code's.
func codeName(rc int32) string {
	if n, ok := codeNames[rc]; ok {
		return n
	}
	if n, ok := codeNames[rc&0xff]; ok {
		return n
	}
	return "SQLITE_" + strconv.Itoa(int(rc))
}

// codeOf reads an item of --sqlite-ignore-errors: a number, or a name
// with or without its SQLITE_ prefix, in any case.
func codeOf(item string) (int32, bool) {
	if n, err := strconv.ParseInt(item, 10, 32); err == nil {
		return int32(n), n > 0
	}
	name := strings.ToUpper(item)
	if !strings.HasPrefix(name, "SQLITE_") {
		name = "SQLITE_" + name
	}
	for code, n := range codeNames {
		if n == name {
			return code, true
		}
	}
	return 0, false
}

// ignoreList is --sqlite-ignore-errors: the result codes a script
// survives, or all of them. A primary code covers its extended codes.
type ignoreList struct {
	all   bool
	codes []int32
}

func parseIgnoreList(items []string) (ignoreList, error) {
	var l ignoreList
	for _, item := range items {
		item = strings.TrimSpace(item)
		switch code, ok := codeOf(item); {
		case item == "all":
			l.all = true
		case item == "none":
		case ok:
			l.codes = append(l.codes, code)
		default:
			return ignoreList{}, fmt.Errorf("Invalid value for --sqlite-ignore-errors: '%s'", item)
		}
	}
	return l, nil
}

func (l ignoreList) has(rc int32) bool {
	if l.all {
		return true
	}
	for _, c := range l.codes {
		if c == rc || (c <= 0xff && c == rc&0xff) {
			return true
		}
	}
	return false
}

// codeError is a failure with result code rc and message msg, classified
// by --sqlite-ignore-errors.
func (d *Driver) codeError(rc int32, msg string) *db.Error {
	e := &db.Error{Errno: int(rc & 0xff), State: codeName(rc), Msg: msg, Kind: db.Fatal}
	if d.s.ignore.has(rc) {
		e.Kind = db.Ignorable
	}
	return e
}

// error is the failure rc of a call on c, with SQLite's message.
func (c *conn) error(rc int32) *db.Error {
	return c.d.codeError(rc, goString(lib.Xsqlite3_errmsg(c.tls, c.db)))
}

// LostConnection is the failure of a call whose context ended
// (db.ConnectionLoser): SQLite's SQLITE_INTERRUPT, the counterpart of a
// lost connection, which asks for a reconnect when --sqlite-ignore-errors
// lists it.
func (d *Driver) LostConnection() *db.Error {
	e := d.codeError(lib.SQLITE_INTERRUPT, "interrupted")
	if e.Kind == db.Ignorable {
		e.Kind = db.Reconnect
	}
	return e
}

// QueryErrorText is logged at FATAL before a fatal query or execute
// error, in the shape of sysbench's MySQL driver.
func (d *Driver) QueryErrorText(e *db.Error, query string, prepared bool) string {
	fn := "sqlite_drv_query()"
	if prepared {
		fn = "sqlite_drv_execute()"
	}
	return fmt.Sprintf("%s returned error %d (%s: %s) for query '%s'", fn, e.Errno, e.State, e.Msg, query)
}

// PrepareErrorText is logged at FATAL when preparing a statement fails.
func (d *Driver) PrepareErrorText(e *db.Error) []string {
	return []string{fmt.Sprintf("sqlite3_prepare_v2() failed: error %d (%s): %s", e.Errno, e.State, e.Msg)}
}

// ConnectErrorText is logged at FATAL when opening the database fails.
func (d *Driver) ConnectErrorText(err error) []string {
	e := db.AsError(err)
	return []string{fmt.Sprintf("cannot open SQLite database '%s': %s (%s)", d.s.path, e.Msg, e.State)}
}

// quoteLiteral appends s as an SQL string literal: quotes are doubled,
// and nothing else is special in SQLite's literals.
func quoteLiteral(dst, s []byte) []byte {
	dst = append(dst, '\'')
	for _, b := range s {
		if b == '\'' {
			dst = append(dst, '\'')
		}
		dst = append(dst, b)
	}
	return append(dst, '\'')
}
