package engine

import (
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The golden files under testdata:
//   - help_sysbench1020.golden is the output of the real `sysbench --help`
//     (1.0.20, Debian). It is a capture, never rewritten by tests.
//   - help_oltp_read_write.golden is the option lines of the real
//     `sysbench oltp_read_write help`, with the blank line that ends them.
//   - help_sbgo.golden is sbgo's --help: the capture above with sbgo's
//     additions. It is rewritten when the package's -update flag is set.

// goldenUpdate reports whether -update was given. The flag belongs to
// another test file of the package; without it nothing is rewritten.
func goldenUpdate() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

func readHelpGolden(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// diffHelpLines reports the first line where got and want differ.
func diffHelpLines(t *testing.T, got, want string) {
	t.Helper()
	if got == want {
		return
	}
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < max(len(g), len(w)); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl || i >= len(g) || i >= len(w) {
			t.Fatalf("line %d differs:\n got: %q\nwant: %q", i+1, gl, wl)
		}
	}
}

// sysbenchDrivers are the driver blocks of sysbench 1.0.20 (spec §1.9,
// §1.10), as the db drivers declare them.
func sysbenchDrivers() []DriverHelp {
	return []DriverHelp{
		{Name: "mysql", Description: "MySQL driver", Options: []Option{
			{"mysql-host", "MySQL server host", ArgList, Default("localhost")},
			{"mysql-port", "MySQL server port", ArgList, Default("3306")},
			{"mysql-socket", "MySQL socket", ArgList, nil},
			{"mysql-user", "MySQL user", ArgString, Default("sbtest")},
			{"mysql-password", "MySQL password", ArgString, Default("")},
			{"mysql-db", "MySQL database name", ArgString, Default("sbtest")},
			{"mysql-ssl", "use SSL connections, if available in the client library", ArgBool, Default("off")},
			{"mysql-ssl-cipher", "use specific cipher for SSL connections", ArgString, Default("")},
			{"mysql-compression", "use compression, if available in the client library", ArgBool, Default("off")},
			{"mysql-debug", "trace all client library calls", ArgBool, Default("off")},
			{"mysql-ignore-errors", "list of errors to ignore, or \"all\"", ArgList, Default("1213,1020,1205")},
			{"mysql-dry-run", "Dry run, pretend that all MySQL client API calls are successful without executing them", ArgBool, Default("off")},
		}},
		{Name: "pgsql", Description: "PostgreSQL driver", Options: []Option{
			{"pgsql-host", "PostgreSQL server host", ArgString, Default("localhost")},
			{"pgsql-port", "PostgreSQL server port", ArgInt, Default("5432")},
			{"pgsql-user", "PostgreSQL user", ArgString, Default("sbtest")},
			{"pgsql-password", "PostgreSQL password", ArgString, Default("")},
			{"pgsql-db", "PostgreSQL database name", ArgString, Default("sbtest")},
		}},
	}
}

// groups1020 is GeneralGroups without what sbgo adds to sysbench 1.0.20.
func groups1020() []Group {
	groups := GeneralGroups()
	for i := range groups {
		groups[i].Options = slices.DeleteFunc(groups[i].Options, func(o Option) bool {
			return o.Name == "warmup-time" || o.Name == "thread-init-timeout" || o.Name == "rand-zipfian-exp" ||
				o.Name == "db-timeout"
		})
		for j, o := range groups[i].Options {
			if o.Name == "rand-type" {
				groups[i].Options[j].Desc = strings.Replace(o.Desc, ",zipfian}", "}", 1)
			}
		}
	}
	return groups
}

// TestWriteGeneralHelpMatchesSysbench renders 1.0.20's own tables and
// checks the layout byte for byte against the real binary's --help.
func TestWriteGeneralHelpMatchesSysbench(t *testing.T) {
	tests := []TestHelp{
		{"fileio", "File I/O test"},
		{"cpu", "CPU performance test"},
		{"memory", "Memory functions speed test"},
		{"threads", "Threads subsystem performance test"},
		{"mutex", "Mutex performance test"},
	}
	var b strings.Builder
	if err := WriteGeneralHelp(&b, "sysbench", groups1020(), sysbenchDrivers(), tests); err != nil {
		t.Fatal(err)
	}
	diffHelpLines(t, b.String(), readHelpGolden(t, "help_sysbench1020.golden"))
}

// TestWriteGeneralHelpSbgo checks sbgo's own --help: the 1.0.20 text plus
// --warmup-time, --thread-init-timeout and --rand-zipfian-exp (which
// widens the RNG group) and --db-timeout, no built-in tests, and the
// program name given.
func TestWriteGeneralHelpSbgo(t *testing.T) {
	var b strings.Builder
	if err := WriteGeneralHelp(&b, "sbgo", GeneralGroups(), sysbenchDrivers(), nil); err != nil {
		t.Fatal(err)
	}
	const golden = "help_sbgo.golden"
	if goldenUpdate() {
		if err := os.WriteFile(filepath.Join("testdata", golden), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got := b.String()
	diffHelpLines(t, got, readHelpGolden(t, golden))
	if strings.Contains(got, "Compiled-in tests:") {
		t.Error("help lists built-in tests although there are none")
	}
}

// TestWriteOptionLinesOLTP declares oltp_common.lua's options the way a
// script does (sorted; numbers are DOUBLE, booleans BOOL, strings and nil
// STRING) and compares with the real `sysbench oltp_read_write help`.
func TestWriteOptionLinesOLTP(t *testing.T) {
	opts := []Option{
		{"auto_inc", "Use AUTO_INCREMENT column as Primary Key (for MySQL), or its alternatives in other DBMS. When disabled, use client-generated IDs", ArgBool, Default("on")},
		{"create_secondary", "Create a secondary index in addition to the PRIMARY KEY", ArgBool, Default("on")},
		{"delete_inserts", "Number of DELETE/INSERT combinations per transaction", ArgDouble, Default("1")},
		{"distinct_ranges", "Number of SELECT DISTINCT queries per transaction", ArgDouble, Default("1")},
		{"index_updates", "Number of UPDATE index queries per transaction", ArgDouble, Default("1")},
		{"mysql_storage_engine", "Storage engine, if MySQL is used", ArgString, Default("innodb")},
		{"non_index_updates", "Number of UPDATE non-index queries per transaction", ArgDouble, Default("1")},
		{"order_ranges", "Number of SELECT ORDER BY queries per transaction", ArgDouble, Default("1")},
		{"pgsql_variant", "Use this PostgreSQL variant when running with the PostgreSQL driver. The only currently supported variant is 'redshift'. When enabled, create_secondary is automatically disabled, and delete_inserts is set to 0", ArgString, nil},
		{"point_selects", "Number of point SELECT queries per transaction", ArgDouble, Default("10")},
		{"range_selects", "Enable/disable all range SELECT queries", ArgBool, Default("on")},
		{"range_size", "Range size for range SELECT queries", ArgDouble, Default("100")},
		{"secondary", "Use a secondary index in place of the PRIMARY KEY", ArgBool, Default("off")},
		{"simple_ranges", "Number of simple range SELECT queries per transaction", ArgDouble, Default("1")},
		{"skip_trx", "Don't start explicit transactions and execute all queries in the AUTOCOMMIT mode", ArgBool, Default("off")},
		{"sum_ranges", "Number of SELECT SUM() queries per transaction", ArgDouble, Default("1")},
		{"table_size", "Number of rows per table", ArgDouble, Default("10000")},
		{"tables", "Number of tables", ArgDouble, Default("1")},
	}
	var b strings.Builder
	if err := WriteOptionLines(&b, opts); err != nil {
		t.Fatal(err)
	}
	// sysbench ends the group with a blank line; WriteOptionLines leaves
	// that to its caller.
	diffHelpLines(t, b.String()+"\n", readHelpGolden(t, "help_oltp_read_write.golden"))
}

// helpPad is n spaces, to spell out padding in expected help lines.
func helpPad(n int) string { return strings.Repeat(" ", n) }

func TestWriteOptionLines(t *testing.T) {
	tests := []struct {
		name string
		opts []Option
		want string
	}{
		{
			// no options, no output (not even a blank line)
			"empty", nil, "",
		},
		{
			// one option: a single space between format and description
			"single", []Option{{"threads", "number of threads", ArgInt, Default("1")}},
			"  --threads=N number of threads [1]\n",
		},
		{
			// the widest name+format sets the column; a NULL default
			// prints nothing, an empty one prints "[]"
			"alignment and defaults",
			[]Option{
				{"a", "null default", ArgString, nil},
				{"bb", "empty default", ArgString, Default("")},
				{"list-opt", "a list", ArgList, Default("x,y")},
			},
			"  --a=STRING" + helpPad(12) + "null default\n" +
				"  --bb=STRING" + helpPad(11) + "empty default []\n" +
				"  --list-opt=[LIST,...]" + helpPad(1) + "a list [x,y]\n",
		},
		{
			// every type's format; the name is printed as registered,
			// dashes kept
			"formats",
			[]Option{
				{"b", "", ArgBool, Default("off")},
				{"i", "", ArgInt, nil},
				{"s", "", ArgSize, nil},
				{"d", "", ArgDouble, nil},
				{"f", "", ArgFile, nil},
				{"n-u-l-l", "", ArgNull, nil},
				{"x", "", ArgMax, nil},
			},
			"  --b[=on|off]" + helpPad(6) + " [off]\n" +
				"  --i=N" + helpPad(13) + "\n" +
				"  --s=SIZE" + helpPad(10) + "\n" +
				"  --d=N" + helpPad(13) + "\n" +
				"  --f=FILENAME" + helpPad(6) + "\n" +
				"  --n-u-l-l=UNKNOWN" + helpPad(1) + "\n" +
				"  --x=UNKNOWN" + helpPad(7) + "\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			if err := WriteOptionLines(&b, tt.opts); err != nil {
				t.Fatal(err)
			}
			if b.String() != tt.want {
				t.Errorf("got:\n%s\nwant:\n%s", b.String(), tt.want)
			}
		})
	}
}

// TestWriteGeneralHelpNoDrivers checks the fixed frame around the groups
// when nothing else is given: the title handling, the blank lines and the
// program name.
func TestWriteGeneralHelpNoDrivers(t *testing.T) {
	groups := []Group{
		{Title: "First", Options: []Option{{"a", "desc a", ArgInt, Default("1")}}},
		{Options: []Option{{"b", "desc b", ArgBool, Default("off")}}},
		{Title: "Spaced", BlankAfterTitle: true, Options: []Option{{"c", "desc c", ArgString, nil}}},
	}
	want := "Usage:\n  prog [options]... [testname] [command]\n\n" +
		"Commands implemented by most tests: prepare run cleanup help\n\n" +
		"First:\n  --a=N desc a [1]\n\n" +
		"  --b[=on|off] desc b [off]\n\n" +
		"Spaced:\n\n  --c=STRING desc c\n\n" +
		"\nCompiled-in database drivers:\n\n" +
		"See 'prog <testname> help' for a list of options for each test.\n\n"
	var b strings.Builder
	if err := WriteGeneralHelp(&b, "prog", groups, nil, nil); err != nil {
		t.Fatal(err)
	}
	diffHelpLines(t, b.String(), want)
}
