// Package dbtest is an in-memory database driver for tests, registered as
// "dbtest" (--db-driver=dbtest), so that the Lua bindings and the run can
// be tested under -race without a server. It understands no SQL: a test
// scripts what each statement returns, and reads back what was called.
//
// A test makes a Server, adds Rules (which statements, by exact text,
// prefix or regular expression, get which Reply: columns and rows, a
// count of changed rows, an error, a delay, further results) and passes
// Server.Option() on the command line with --db-driver=dbtest. A
// statement no rule answers returns no result set and changes nothing.
// An error of kind db.Reconnect loses the session: every later call on
// the connection fails the same way until it reconnects.
// The driver honours ctx as db's contract asks: a call held by a Delay or
// a Block returns as soon as its ctx is done, with a lost connection
// (2013, db.Reconnect), and Connect and Reconnect fail that way on a ctx
// already done.
//
// The Server logs every call (connect, query, prepare, bind, execute,
// statement close, next result, reconnect, close) with its bound values;
// Calls and Log may be read from any goroutine. A Conn is meant for one
// goroutine at a time (db.Conn): a call that starts while another call on
// the same connection is still running is recorded in Overlaps.
//
// The driver implements the optional interfaces the bindings look for:
// db.ParamCounter and db.TypeBinder on statements, db.MoreResults on
// connections, db.ErrorTexter and db.PrepareErrorTexter on the driver.
//
// It is for engine and binding tests; whether SQL works is proven against
// real servers (db/mysql, db/pgsql).
package dbtest

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"sbgo/db"
)

// Reply is what a statement returns.
type Reply struct {
	Columns []string // a result set when not nil, even with no rows
	// Rows are the result set's rows, one value per column: nil is SQL
	// NULL, anything else is sent as its text (fmt's %v).
	Rows     [][]any
	Affected int64         // changed rows, for a statement without result set
	Err      *db.Error     // the call fails with this error
	Delay    time.Duration // the call takes at least this long
	// Block, when not nil, holds the call until it is closed: a test
	// decides when a statement in flight returns.
	Block <-chan struct{}
	More  []Reply // the results that follow, for db.MoreResults
}

// Rule answers the statements it matches with its Reply.
type Rule struct {
	Match func(query string) bool
	// Calls chooses which of the matched calls the rule answers: n is 1
	// for the first call Match accepted, 2 for the second, and so on,
	// counted over every connection. nil answers all of them.
	Calls func(n int) bool
	// Prepare makes the rule answer Prepare instead of Query and Execute
	// (only Err and Delay apply).
	Prepare bool
	Reply   Reply

	seen int // calls matched so far
}

// Exact matches a statement whose text is q.
func Exact(q string) func(string) bool { return func(s string) bool { return s == q } }

// Prefix matches a statement whose text begins with p.
func Prefix(p string) func(string) bool {
	return func(s string) bool { return strings.HasPrefix(s, p) }
}

// Regexp matches a statement that the regular expression expr matches.
func Regexp(expr string) func(string) bool { return regexp.MustCompile(expr).MatchString }

// Nth answers the n-th matched call only.
func Nth(n int) func(int) bool { return func(i int) bool { return i == n } }

// Odd answers the first, third, fifth... matched calls.
func Odd(n int) bool { return n%2 == 1 }

// Err is an error of kind k with MySQL's error number and message, and
// the generic SQLSTATE HY000.
func Err(k db.Kind, errno int, msg string) *db.Error {
	return &db.Error{Errno: errno, State: "HY000", Msg: msg, Kind: k}
}

// Op names a logged call.
type Op string

const (
	OpConnect    Op = "connect"
	OpQuery      Op = "query"
	OpPrepare    Op = "prepare"
	OpBind       Op = "bind"
	OpExecute    Op = "execute"
	OpCloseStmt  Op = "close-stmt"
	OpNextResult Op = "next-result"
	OpReconnect  Op = "reconnect"
	OpClose      Op = "close"
)

// Call is one logged call.
type Call struct {
	Conn  int // 1 for the first connection made, and so on
	Op    Op
	Query string    // the statement's text (a statement's own for OpExecute)
	Args  []string  // bound values as SQL literals (OpExecute), or types (OpBind)
	Err   *db.Error // what the call failed with, or nil
}

// String is the call as one line, e.g. "1 execute SELECT ? [5]".
func (c Call) String() string {
	s := strconv.Itoa(c.Conn) + " " + string(c.Op)
	if c.Query != "" {
		s += " " + c.Query
	}
	if c.Args != nil {
		s += " [" + strings.Join(c.Args, " ") + "]"
	}
	if c.Err != nil {
		s += fmt.Sprintf(" -> error %d", c.Err.Errno)
	}
	return s
}

// Server is the scripted database behind the driver. Its methods may be
// called from any goroutine.
type Server struct {
	id string

	mu       sync.Mutex
	rules    []*Rule
	calls    []Call
	overlaps []string
	conns    int
	failures map[Op]int       // OpConnect, OpReconnect: calls still to fail
	failErrs map[Op]*db.Error // and their error
}

var (
	serversMu sync.Mutex
	servers   = map[string]*Server{}
	serverSeq int
)

// NewServer makes a server that --dbtest-server=ID (Option) selects until
// Close.
func NewServer() *Server {
	serversMu.Lock()
	defer serversMu.Unlock()
	serverSeq++
	s := &Server{id: "s" + strconv.Itoa(serverSeq)}
	servers[s.id] = s
	return s
}

// Close makes the server unknown to drivers created from now on.
func (s *Server) Close() {
	serversMu.Lock()
	defer serversMu.Unlock()
	delete(servers, s.id)
}

// Option is the command-line option that selects this server.
func (s *Server) Option() string { return "--dbtest-server=" + s.id }

// Add adds rules; earlier rules are tried first.
func (s *Server) Add(rules ...*Rule) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rules = append(s.rules, rules...)
}

// On adds a rule answering every statement that match accepts with r.
func (s *Server) On(match func(string) bool, r Reply) {
	s.Add(&Rule{Match: match, Reply: r})
}

// FailConnects makes the next n Connect calls fail with err.
func (s *Server) FailConnects(n int, err *db.Error) { s.fail(OpConnect, n, err) }

// FailReconnects makes the next n Reconnect calls fail with err.
func (s *Server) FailReconnects(n int, err *db.Error) { s.fail(OpReconnect, n, err) }

func (s *Server) fail(op Op, n int, err *db.Error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.failures == nil {
		s.failures, s.failErrs = map[Op]int{}, map[Op]*db.Error{}
	}
	s.failures[op], s.failErrs[op] = n, err
}

// Calls returns a copy of the log.
func (s *Server) Calls() []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Call(nil), s.calls...)
}

// Log returns the calls of the given kinds (all calls when none is
// given) as lines (Call.String).
func (s *Server) Log(ops ...Op) []string {
	var out []string
	for _, c := range s.Calls() {
		if len(ops) == 0 || containsOp(ops, c.Op) {
			out = append(out, c.String())
		}
	}
	return out
}

func containsOp(ops []Op, op Op) bool {
	for _, o := range ops {
		if o == op {
			return true
		}
	}
	return false
}

// Overlaps describes each call that started while another call on the
// same connection was running.
func (s *Server) Overlaps() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.overlaps...)
}

// reply finds the reply to a statement and logs the call.
func (s *Server) reply(c Call, prepare bool) Reply {
	s.mu.Lock()
	defer s.mu.Unlock()
	var r Reply
	for _, rule := range s.rules {
		if rule.Prepare != prepare || !rule.Match(c.Query) {
			continue
		}
		rule.seen++
		if rule.Calls == nil || rule.Calls(rule.seen) {
			r = rule.Reply
			break
		}
	}
	c.Err = r.Err
	s.calls = append(s.calls, c)
	return r
}

// log records a call that no rule answers.
func (s *Server) log(c Call) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = append(s.calls, c)
}

// connect opens a session (conn 0: a new connection) and logs it.
func (s *Server) connect(conn int, op Op) (int, *db.Error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if conn == 0 {
		s.conns++
		conn = s.conns
	}
	var err *db.Error
	if s.failures[op] > 0 {
		s.failures[op]--
		err = s.failErrs[op]
	}
	s.calls = append(s.calls, Call{Conn: conn, Op: op, Err: err})
	return conn, err
}

func (s *Server) overlap(conn int, op Op, query string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.overlaps = append(s.overlaps, fmt.Sprintf("conn %d: %s %q started while another call was running", conn, op, query))
}
