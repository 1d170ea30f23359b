package scripts

import (
	"bytes"
	"io/fs"
	"regexp"
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/parse"
)

// requireCommon matches a top-level require of the library.
var requireCommon = regexp.MustCompile(`(?m)^require\("oltp_common"\)$`)

// TestBundledScripts: FS holds exactly sysbench's set of workloads and
// the other tools' loads, at its root, each compiles, and each OLTP
// workload builds on oltp_common.
func TestBundledScripts(t *testing.T) {
	want := []string{
		"bulk_insert.lua", "mysqlslap.lua", "oltp_common.lua", "oltp_delete.lua", "oltp_insert.lua",
		"oltp_point_select.lua", "oltp_read_only.lua", "oltp_read_write.lua",
		"oltp_update_index.lua", "oltp_update_non_index.lua", "oltp_write_only.lua",
		"pgbench_tpcb.lua", "select_random_points.lua", "select_random_ranges.lua",
	}
	entries, err := fs.ReadDir(FS, ".")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("bundled scripts %v, want %v", got, want)
	}
	for _, name := range got {
		src, err := fs.ReadFile(FS, name)
		if err != nil {
			t.Fatal(err)
		}
		chunk, err := parse.Parse(bytes.NewReader(src), name)
		if err == nil {
			_, err = lua.Compile(chunk, name)
		}
		if err != nil {
			t.Errorf("%s does not compile: %v", name, err)
		}
		usesCommon := requireCommon.Match(src)
		if wantCommon := strings.HasPrefix(name, "oltp_") && name != "oltp_common.lua" || strings.HasPrefix(name, "select_random_"); usesCommon != wantCommon {
			t.Errorf("%s: requires oltp_common: %v, want %v", name, usesCommon, wantCommon)
		}
	}
}
