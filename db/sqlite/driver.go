// Package sqlite is sbgo's embedded driver (--db-driver=sqlite): SQLite
// itself, in the process, from modernc.org/sqlite's translation of its C
// source to Go. No server and no cgo: the static and cross-compiled builds
// keep working, and `sbgo oltp_read_write --db-driver=sqlite prepare run
// cleanup` needs nothing installed.
//
// The driver calls SQLite's C API (modernc.org/sqlite/lib) directly rather
// than through database/sql's driver interfaces: each db.Conn is one
// sqlite3 handle with its own libc.TLS, statements are sqlite3_stmt handles
// reused from execute to execute, parameters are bound from C buffers that
// the statement owns, and results are copied into a buffer the connection
// reuses. The per-event path allocates nothing.
//
// What it shows scripts:
//
//   - sql_errno is SQLite's primary result code (5 for SQLITE_BUSY) and
//     sql_state the name of the extended one ("SQLITE_BUSY_SNAPSHOT"); the
//     results file counts errors by the primary code ("5").
//   - --sqlite-ignore-errors lists the codes that restart the event, by
//     name or number; a primary code covers its extended codes. The
//     default, SQLITE_BUSY and SQLITE_LOCKED, are SQLite's "try again",
//     the counterpart of a deadlock on a server.
//   - A result set is read completely before Query or Execute returns, so
//     that a statement always runs to its end (as on a server, whether or
//     not the script fetches the rows) and releases its read snapshot at
//     once. A statement with result columns is a read even without rows; a
//     statement that changed rows reports sqlite3_changes; anything else
//     (BEGIN, CREATE TABLE, an UPDATE that matched nothing) is "other".
//   - A text query may hold several statements separated by ';': they run
//     in order and the last one's result is returned, or the first error.
//   - --db-ps-mode=disable runs statements as text with the parameters as
//     literals (strings quoted, quotes doubled).
//
// Concurrency: SQLite has one writer at a time. Every connection sets
// PRAGMA busy_timeout (--sqlite-busy-timeout), so a writer waits for the
// lock instead of failing; in WAL mode (the default) readers never wait.
// A transaction that began with a plain BEGIN and reads before it writes
// may still fail with SQLITE_BUSY when another connection committed in
// between (its snapshot is stale): that error is ignorable by default, so
// the event restarts. The bundled write workloads begin with BEGIN
// IMMEDIATE on SQLite, which takes the write lock first, so they never
// meet it.
//
// Cancellation: a call whose context ends interrupts the statement
// (sqlite3_interrupt) and ends a wait for a lock; it fails with
// SQLITE_INTERRUPT, and the connection is unusable until Reconnect.
package sqlite

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"

	lib "modernc.org/sqlite/lib"

	"sbgo/db"
	"sbgo/engine"
)

func init() {
	lib.PatchIssue199() // a page size fix that linux/arm64 needs
	db.Register(Factory{})
}

// Factory registers the driver as "sqlite".
type Factory struct{}

var _ db.Factory = Factory{}

func (Factory) Name() string        { return "sqlite" }
func (Factory) Description() string { return "SQLite driver (embedded, no server)" }

// Defaults of the options. WAL with synchronous=NORMAL is what SQLite
// recommends for applications that write concurrently: commits do not
// wait for the disk, and a power loss (not a crash of the process) can
// lose the last transactions but never corrupts the file.
const (
	defaultPath         = "sbtest.db"
	defaultJournalMode  = "wal"
	defaultSynchronous  = "normal"
	defaultBusyTimeout  = 10000 // ms
	defaultIgnoreErrors = "SQLITE_BUSY,SQLITE_LOCKED"
)

// Options are the driver's; PRAGMAs beyond these go in --sqlite-pragma.
func (Factory) Options() []engine.Option {
	return []engine.Option{
		{Name: "sqlite-db", Desc: "SQLite database file (:memory: for a database in memory, shared by the connections of this process)", Type: engine.ArgString, Default: engine.Default(defaultPath)},
		{Name: "sqlite-journal-mode", Desc: "SQLite journal mode (wal, delete, truncate, persist, memory, off)", Type: engine.ArgString, Default: engine.Default(defaultJournalMode)},
		{Name: "sqlite-synchronous", Desc: "SQLite synchronous setting (off, normal, full, extra)", Type: engine.ArgString, Default: engine.Default(defaultSynchronous)},
		{Name: "sqlite-busy-timeout", Desc: "how long a statement waits for a lock held by another connection, in milliseconds", Type: engine.ArgInt, Default: engine.Default(strconv.Itoa(defaultBusyTimeout))},
		{Name: "sqlite-cache-size", Desc: "page cache size of each connection in KiB (0: SQLite's default)", Type: engine.ArgInt, Default: engine.Default("0")},
		{Name: "sqlite-pragma", Desc: "list of further PRAGMAs to run on every connection, as name=value", Type: engine.ArgList},
		{Name: "sqlite-ignore-errors", Desc: "list of SQLite result codes (names or numbers) of errors to ignore, or \"all\"", Type: engine.ArgList, Default: engine.Default(defaultIgnoreErrors)},
	}
}

// New reads and checks the options once for the process.
func (Factory) New(opts *engine.Options, log *engine.Logger) (db.Driver, error) {
	s, err := readSettings(opts)
	if err != nil {
		return nil, err
	}
	return &Driver{s: s}, nil
}

// Driver opens connections to one database.
type Driver struct {
	s settings
}

var (
	_ db.Driver             = (*Driver)(nil)
	_ db.ErrorTexter        = (*Driver)(nil)
	_ db.PrepareErrorTexter = (*Driver)(nil)
	_ db.ConnectionLoser    = (*Driver)(nil)
	_ db.Conn               = (*conn)(nil)
	_ db.Stmt               = (*stmt)(nil)
	_ db.ParamCounter       = (*stmt)(nil)
	_ db.Rows               = (*rows)(nil)
)

func (d *Driver) Name() string { return "sqlite" }

// Connect opens a connection and applies the settings. A failure is a
// *db.Error with SQLite's code.
func (d *Driver) Connect(ctx context.Context) (db.Conn, error) {
	if d.s.memory {
		if err := keepMemoryDB(d.s.uri); err != nil {
			return nil, err
		}
	}
	c := &conn{d: d}
	if err := c.open(ctx); err != nil {
		return nil, err
	}
	return c, nil
}

// settings are the validated options.
type settings struct {
	path        string // as given, for messages
	uri         string // what sqlite3_open_v2 opens
	memory      bool
	setup       []string // the PRAGMAs every connection runs first
	busyTimeout int
	ignore      ignoreList
	emulate     bool // --db-ps-mode=disable
}

// memoryURI names the database that --sqlite-db=:memory: stands for: a
// memdb database, which all the connections of the process share (a
// plain ":memory:" is private to one connection, so the tables prepare
// creates would be gone for run).
const memoryURI = "file:/sbgo-memory?vfs=memdb"

func readSettings(opts *engine.Options) (settings, error) {
	s := settings{path: stringOption(opts, "sqlite-db", defaultPath)}
	if s.path == "" {
		return s, fmt.Errorf("Invalid value for --sqlite-db: ''")
	}
	s.uri = s.path
	if s.path == ":memory:" {
		s.uri, s.memory = memoryURI, true
	}
	var err error
	if s.setup, err = setupPragmas(opts); err != nil {
		return s, err
	}
	if s.busyTimeout, err = intOption(opts, "sqlite-busy-timeout", defaultBusyTimeout); err != nil {
		return s, err
	}
	if s.ignore, err = parseIgnoreList(listOption(opts, "sqlite-ignore-errors")); err != nil {
		return s, err
	}
	switch mode := stringOption(opts, "db-ps-mode", "auto"); mode {
	case "auto":
	case "disable":
		s.emulate = true
	default:
		return s, fmt.Errorf("Invalid value for db-ps-mode: %s", mode)
	}
	return s, nil
}

// setupPragmas are the PRAGMAs of the options, checked here so that a
// typo is an option error rather than a failed connection.
func setupPragmas(opts *engine.Options) ([]string, error) {
	journal := strings.ToLower(stringOption(opts, "sqlite-journal-mode", defaultJournalMode))
	if !oneOf(journal, "wal", "delete", "truncate", "persist", "memory", "off") {
		return nil, fmt.Errorf("Invalid value for --sqlite-journal-mode: '%s'", journal)
	}
	sync := strings.ToLower(stringOption(opts, "sqlite-synchronous", defaultSynchronous))
	if !oneOf(sync, "off", "normal", "full", "extra") {
		return nil, fmt.Errorf("Invalid value for --sqlite-synchronous: '%s'", sync)
	}
	cache, err := intOption(opts, "sqlite-cache-size", 0)
	if err != nil {
		return nil, err
	}
	pragmas := []string{"journal_mode=" + journal, "synchronous=" + sync}
	if cache != 0 {
		pragmas = append(pragmas, "cache_size=-"+strconv.Itoa(cache))
	}
	for _, p := range listOption(opts, "sqlite-pragma") {
		p = strings.TrimSpace(p)
		if p == "" || strings.ContainsAny(p, ";") {
			return nil, fmt.Errorf("Invalid value for --sqlite-pragma: '%s'", p)
		}
		pragmas = append(pragmas, p)
	}
	return pragmas, nil
}

func oneOf(s string, choices ...string) bool {
	for _, c := range choices {
		if s == c {
			return true
		}
	}
	return false
}

func listOption(opts *engine.Options, name string) []string {
	if v, ok := opts.Lookup(name); ok {
		return v.List()
	}
	return nil
}

// stringOption is the option's text, def when it has none.
func stringOption(opts *engine.Options, name, def string) string {
	if v, ok := opts.Lookup(name); ok && !v.IsNull() {
		return v.String()
	}
	return def
}

// intOption is a non-negative integer option, def when it is not set.
func intOption(opts *engine.Options, name string, def int) (int, error) {
	v, ok := opts.Lookup(name)
	if !ok || v.IsNull() {
		return def, nil
	}
	if v.Int() < 0 {
		return 0, fmt.Errorf("Invalid value for --%s: %d", name, v.Int())
	}
	return v.Int(), nil
}

// memoryKeepers holds one connection open to each memdb database for the
// life of the process: SQLite frees a memdb database with its last
// connection, and a prepare command closes all of its own before run
// opens any.
var memoryKeepers struct {
	mu    sync.Mutex
	conns map[string]*conn
}

func keepMemoryDB(uri string) error {
	memoryKeepers.mu.Lock()
	defer memoryKeepers.mu.Unlock()
	if memoryKeepers.conns[uri] != nil {
		return nil
	}
	c := &conn{d: &Driver{s: settings{path: ":memory:", uri: uri}}}
	if err := c.open(context.Background()); err != nil {
		return err
	}
	if memoryKeepers.conns == nil {
		memoryKeepers.conns = map[string]*conn{}
	}
	memoryKeepers.conns[uri] = c
	return nil
}
