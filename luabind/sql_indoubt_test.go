package luabind

import (
	"regexp"
	"testing"

	"sbgo/db"
	"sbgo/db/dbtest"
)

// TestIsCommit pins which statements count as commits when their session
// is lost in doubt.
func TestIsCommit(t *testing.T) {
	for _, c := range []struct {
		query string
		want  bool
	}{
		{"COMMIT", true},                   // oltp_common's prepared COMMIT
		{"commit", true},                   // any case
		{"  COMMIT;", true},                // blanks and a semicolon
		{"COMMIT WORK AND NO CHAIN", true}, // MySQL's long forms
		{"COMMIT PREPARED 'tx1'", true},    // PostgreSQL's two-phase commit
		{"END", true},                      // PostgreSQL's synonym
		{"\nEnd\n", true},                  // blanks of any kind
		{"COMMITTED", false},               // a longer word
		{"BEGIN", false},                   // not a commit
		{"ROLLBACK", false},                // nothing committed
		{"UPDATE t SET c = 1", false},      // an autocommitted write is not counted
		{"", false},                        // empty
	} {
		if got := isCommit(c.query); got != c.want {
			t.Errorf("isCommit(%q) = %v, want %v", c.query, got, c.want)
		}
	}
}

var ambiguousLine = regexp.MustCompile(`(?m)^    ambiguous commits: +(\d+) +\(`)

// TestFakeCommitInDoubt: a COMMIT, text or prepared, that fails with a
// lost session in doubt counts one ambiguous commit, shown in the report,
// and its event runs again and is counted once; a COMMIT that was never
// sent (not in doubt) and an UPDATE in doubt count none, and a run
// without any prints no such line (sysbench's report is unchanged).
func TestFakeCommitInDoubt(t *testing.T) {
	lost := func(inDoubt bool) *db.Error {
		e := dbtest.Err(db.Reconnect, 2013, "Lost connection to MySQL server during query")
		e.InDoubt = inDoubt
		return e
	}
	const events = 5
	for _, c := range []struct {
		name      string
		prepared  bool
		failing   string // the statement whose second call fails
		err       *db.Error
		ambiguous string // the report's count, "" for no line
	}{
		{"text COMMIT in doubt", false, "COMMIT", lost(true), "1"},
		{"prepared COMMIT in doubt", true, "COMMIT", lost(true), "1"},
		{"COMMIT never sent", false, "COMMIT", lost(false), ""},
		{"UPDATE in doubt", false, "UPDATE", lost(true), ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			commit := `con:query("COMMIT")`
			if c.prepared {
				commit = `commit:execute()`
			}
			f := loadFake(t, "run", `
function thread_init()
  con = sysbench.sql.driver():connect()
  commit = con:prepare("COMMIT")
end
function event()
  con:query("BEGIN")
  con:query("UPDATE t SET c = 1")
  `+commit+`
end
function sysbench.hooks.before_restart_event()
  commit = con:prepare("COMMIT")
end
`)
			f.srv.Add(&dbtest.Rule{Match: dbtest.Prefix(c.failing), Calls: dbtest.Nth(2), Reply: dbtest.Reply{Err: c.err}})
			f.srv.On(dbtest.Prefix("UPDATE"), dbtest.Reply{Affected: 1})
			if code := f.run(1, events); code != 0 {
				t.Fatalf("exit code %d:\n%s", code, f.log.String())
			}
			counts := f.counts(t)
			if counts.transactions != events || counts.reconnects != 1 {
				t.Errorf("%d transactions, %d reconnects; want %d, 1", counts.transactions, counts.reconnects, events)
			}
			got := ""
			if m := ambiguousLine.FindStringSubmatch(f.log.String()); m != nil {
				got = m[1]
			}
			if got != c.ambiguous {
				t.Errorf("ambiguous commits %q, want %q:\n%s", got, c.ambiguous, f.log.String())
			}
		})
	}
}

// TestFakePrepareLostAgain: a session lost again while
// before_restart_event prepares the statements anew, with the code in
// the ignore list, restarts like a lost query: the hook runs again on
// the next session and the run goes on, every event counted once and
// both reconnects counted. A prepare that fails otherwise stays fatal,
// as in sysbench.
func TestFakePrepareLostAgain(t *testing.T) {
	const events = 5
	script := `
function thread_init()
  con = sysbench.sql.driver():connect()
  upd = con:prepare("UPDATE t SET c = 1")
end
function event()
  upd:execute()
end
function sysbench.hooks.before_restart_event()
  upd = con:prepare("UPDATE t SET c = 1")
end
`
	for _, c := range []struct {
		name string
		err  *db.Error
		code int // the run's exit code
	}{
		{"lost", dbtest.Err(db.Reconnect, 2013, "Lost connection to MySQL server during query"), 0},
		{"fatal", dbtest.Err(db.Fatal, 1146, "Table 'sbtest.t' doesn't exist"), 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := loadFake(t, "run", script)
			lost := dbtest.Err(db.Reconnect, 2013, "Lost connection to MySQL server during query")
			f.srv.Add(&dbtest.Rule{Match: dbtest.Prefix("UPDATE"), Calls: dbtest.Nth(2), Reply: dbtest.Reply{Err: lost}})
			// The first prepare is thread_init's, the second the hook's.
			f.srv.Add(&dbtest.Rule{Match: dbtest.Prefix("UPDATE"), Prepare: true, Calls: dbtest.Nth(2), Reply: dbtest.Reply{Err: c.err}})
			f.srv.On(dbtest.Prefix("UPDATE"), dbtest.Reply{Affected: 1})
			code := f.run(1, events)
			if code != c.code {
				t.Fatalf("exit code %d, want %d:\n%s", code, c.code, f.log.String())
			}
			if c.code != 0 {
				return
			}
			if counts := f.counts(t); counts.transactions != events || counts.reconnects != 2 {
				t.Errorf("%d transactions, %d reconnects; want %d, 2:\n%s", counts.transactions, counts.reconnects, events, f.log.String())
			}
		})
	}
}
