package luabind

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"sbgo/db"
	"sbgo/engine"
)

// The probes below time the Lua API calls a Lua-heavy script such as
// testdata/bench/tpcc_like.lua leans on, one worker through the real
// engine, with the SQL answered by cannedDriver so that only the client's
// side is measured: b.N events of ten calls each (ns/op is per event).
//
//	go test -run '^$' -bench 'Lua|TPCCLike' -benchmem ./luabind

// cannedName is the test-only driver that answers without a server.
const cannedName = "bench_canned"

func init() { db.Register(cannedFactory{}) }

type cannedFactory struct{}

func (cannedFactory) Name() string             { return cannedName }
func (cannedFactory) Description() string      { return "canned answers, for benchmarks" }
func (cannedFactory) Options() []engine.Option { return nil }
func (cannedFactory) New(*engine.Options, *engine.Logger) (db.Driver, error) {
	return cannedDriver{}, nil
}

// cannedDriver's sessions answer a SELECT with a result set of as many
// columns as its select list has (commas before FROM, plus one) and as
// many rows as its LIMIT says (3 without one); the first column is "3",
// the second "2718", the others a 24-letter string, as a server sends
// ids, amounts and text. Anything else changes one row. Nothing is
// allocated per query, as with the real drivers.
type cannedDriver struct{}

func (cannedDriver) Name() string { return cannedName }
func (cannedDriver) Connect(context.Context) (db.Conn, error) {
	return &cannedConn{}, nil
}

type cannedConn struct{ rows cannedRows }

var cannedValues = [][]byte{[]byte("3"), []byte("2718"), []byte("abcdefghijklmnopqrstuvwx")}

func (c *cannedConn) Query(_ context.Context, q string) (db.Result, error) {
	if !strings.HasPrefix(q, "SELECT") {
		return db.Result{Affected: 1}, nil
	}
	c.rows = cannedRows{fields: cannedFields(q), left: cannedLimit(q)}
	return db.Result{Rows: &c.rows}, nil
}

// cannedFields counts the select list's columns.
func cannedFields(q string) int {
	if i := strings.Index(q, " FROM "); i >= 0 {
		q = q[:i]
	}
	return strings.Count(q, ",") + 1
}

// cannedLimit reads "LIMIT n", or returns 3.
func cannedLimit(q string) int {
	i := strings.Index(q, "LIMIT ")
	if i < 0 {
		return 3
	}
	n := 0
	for _, ch := range q[i+6:] {
		if ch < '0' || ch > '9' {
			break
		}
		n = n*10 + int(ch-'0')
	}
	return n
}

func (c *cannedConn) Prepare(context.Context, string, []db.ParamType) (db.Stmt, error) {
	return nil, &db.Error{Msg: "the canned driver prepares nothing", Kind: db.Fatal}
}
func (c *cannedConn) Reconnect(context.Context) error { return nil }
func (c *cannedConn) Close() error                    { return nil }

type cannedRows struct{ fields, left int }

func (r *cannedRows) NumFields() int { return r.fields }
func (r *cannedRows) Close() error   { r.left = 0; return nil }
func (r *cannedRows) Next(row [][]byte) (bool, error) {
	if r.left == 0 {
		return false, nil
	}
	r.left--
	for i := range row {
		row[i] = cannedValues[min(i, len(cannedValues)-1)]
	}
	return true, nil
}

// loadCanned loads the script at path for run, on the canned driver, with
// args (options the script declares among them).
func loadCanned(tb testing.TB, path string, args ...string) *Script {
	tb.Helper()
	opts := engine.NewGeneralOptions()
	f, _ := db.Lookup(cannedName)
	if err := opts.Register(f.Options()...); err != nil {
		tb.Fatal(err)
	}
	argv := append([]string{"sbgo", "--db-driver=" + cannedName, path, "run"}, args...)
	cl, err := engine.ParseCommandLine(argv[1:], opts)
	if err != nil {
		tb.Fatal(err)
	}
	s, err := Load(Config{TestName: path, Command: "run", Argv: argv, Out: io.Discard,
		Log: engine.NewLogger(io.Discard, 3), Options: opts, VersionString: "sbgo test"})
	if err != nil {
		tb.Fatal(err)
	}
	declared, hasOptions := s.DeclaredOptions()
	if err := opts.Register(declared...); err != nil {
		tb.Fatal(err)
	}
	if _, err := opts.ApplyRest(cl.Rest, !hasOptions); err != nil {
		tb.Fatal(err)
	}
	s.Configure(DefaultRandOptions(), 1)
	return s
}

// runCanned runs events events of s in one worker and returns the exit
// code.
func runCanned(s *Script, events uint64) int {
	return engine.NewRun(engine.Config{Threads: 1, Events: events, Percentile: 95, ForcedShutdown: -1},
		engine.NewLogger(io.Discard, 3)).Execute(s)
}

// benchLua runs b.N events of the script at path (with args) in one
// worker on the canned driver.
func benchLua(b *testing.B, path string, args ...string) {
	s := loadCanned(b, path, args...)
	defer s.Close()
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	code := runCanned(s, uint64(b.N))
	elapsed := time.Since(start)
	if code != 0 {
		b.Fatalf("exit code %d", code)
	}
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "events/s")
}

// cannedProbe writes a probe script: src after an option declaration and
// a thread_init that connects con.
func cannedProbe(tb testing.TB, src string) string {
	path := filepath.Join(tb.TempDir(), "probe.lua")
	src = "sysbench.cmdline.options = {x = {'x', 1}}\n" +
		"function thread_init() con = sysbench.sql.driver():connect() end\n" + src
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		tb.Fatal(err)
	}
	return path
}

// benchLuaSource is benchLua on a probe script (cannedProbe).
func benchLuaSource(b *testing.B, src string) { benchLua(b, cannedProbe(b, src)) }

// BenchmarkLuaFormat: string.format with six arguments of four kinds.
func BenchmarkLuaFormat(b *testing.B) {
	benchLuaSource(b, `
local fmt, n = string.format, 0
function event()
  for i = 1, 10 do
    local q = fmt("UPDATE stock SET s_quantity = %d, s_ytd = s_ytd + %d WHERE s_i_id = %d AND s_w_id = %d AND s_data = '%s' AND s_amount > %.2f",
      i * 7, i, 1000 + i, 2, "abcdefghijklmnop", i * 1.25)
    n = n + #q
  end
end`)
}

// BenchmarkLuaRand: sysbench.rand's uniform, default and string, ten
// calls in all per event, as a transaction draws its ids and strings.
func BenchmarkLuaRand(b *testing.B) {
	benchLuaSource(b, `
local rand, n = sysbench.rand.uniform, 0
function event()
  for i = 1, 4 do
    n = n + rand(1, 100000) + sysbench.rand.default(1, 3000)
  end
  n = n + #sysbench.rand.string("@@@@@@@@@@@@@@@@") + #sysbench.rand.string("###########-###########")
end`)
}

// BenchmarkLuaQueryRows: con:query returning ten rows of three columns,
// read with rs:fetch_row.
func BenchmarkLuaQueryRows(b *testing.B) {
	benchLuaSource(b, `
local n = 0
function event()
  local rs = con:query("SELECT ol_i_id, ol_amount, ol_dist_info FROM order_line LIMIT 10")
  local row = rs:fetch_row()
  while row do
    n = n + #row[3]
    row = rs:fetch_row()
  end
end`)
}

// BenchmarkLuaQueryRow: ten con:query_row calls returning three columns.
func BenchmarkLuaQueryRow(b *testing.B) {
	benchLuaSource(b, `
local n = 0
function event()
  for i = 1, 10 do
    local a, b, c = con:query_row("SELECT i_price, i_name, i_data FROM item WHERE i_id = 5")
    n = n + #c
  end
end`)
}

// BenchmarkLuaQueryNoRows: ten con:query calls that return no result
// set, the call overhead of a statement.
func BenchmarkLuaQueryNoRows(b *testing.B) {
	benchLuaSource(b, `
function event()
  for i = 1, 10 do
    con:query("UPDATE district SET d_next_o_id = 3001 WHERE d_w_id = 1 AND d_id = 2")
  end
end`)
}

// BenchmarkLuaTables: table-heavy Lua, as an order's lines are kept:
// ten records built, sorted with a comparator, and joined.
func BenchmarkLuaTables(b *testing.B) {
	benchLuaSource(b, `
local n = 0
local function less(a, b)
  if a.supply ~= b.supply then return a.supply < b.supply end
  return a.item < b.item
end
function event()
  local lines, parts = {}, {}
  for i = 1, 10 do
    lines[i] = {item = (i * 7919) % 1000, supply = i % 2, qty = i}
  end
  table.sort(lines, less)
  for i, line in ipairs(lines) do
    parts[i] = line.item .. ":" .. line.qty
  end
  n = n + #table.concat(parts, ",")
end`)
}

// BenchmarkTPCCLikeCanned: testdata/bench/tpcc_like.lua's transactions
// (its mix, 2 warehouses) on the canned driver: the client's whole Lua
// and binding cost per transaction.
func BenchmarkTPCCLikeCanned(b *testing.B) {
	path, err := filepath.Abs("../testdata/bench/tpcc_like.lua")
	if err != nil {
		b.Fatal(err)
	}
	benchLua(b, path)
}
