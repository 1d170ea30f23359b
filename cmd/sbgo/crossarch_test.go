package main

import (
	"fmt"
	"strings"
	"testing"

	"sbgo/internal/release"
)

// crossarchDB is the MariaDB database of TestLinuxArm64UnderQEMU: the
// workloads' tables (sbtest1) live apart from other tests'.
const crossarchDB = "sbgo_crossarch"

// TestLinuxArm64UnderQEMU builds sbgo for linux/arm64 as a release does
// and runs it under qemu-aarch64-static against the local MariaDB and
// PostgreSQL: the bundled oltp_read_only through prepare, run and cleanup,
// and the 0.5-style legacy/oltp.lua, each report checked for its exact
// counts. The emulator runs the binary's own instructions (atomics, the
// raw system calls of blocking sockets, gopher-lua), which a build alone
// does not check.
func TestLinuxArm64UnderQEMU(t *testing.T) {
	qemu := release.QEMUArm64(t)
	admin := needMySQL(t)
	pg := pgwCreateDB(t, needPgSQL(t))
	if _, err := admin.Exec("CREATE DATABASE IF NOT EXISTS " + crossarchDB); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Exec("DROP DATABASE IF EXISTS " + crossarchDB) })
	bin, err := release.Build(release.Target{OS: "linux", Arch: "arm64"}, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	servers := map[string][]string{
		"mysql": {"--db-driver=mysql", "--mysql-host=127.0.0.1", "--mysql-port=3306", "--mysql-user=root", "--mysql-db=" + crossarchDB},
		"pgsql": pg.args(),
	}
	for _, name := range []string{"mysql", "pgsql"} {
		conn := servers[name]
		t.Run(name+"/oltp_read_only", func(t *testing.T) {
			// 14 reads and BEGIN/COMMIT per transaction.
			crossarchLifecycle(t, qemu, bin, withArgs([]string{"oltp_read_only", "--tables=1", "--table-size=1000"}, conn...),
				[]string{"--threads=2", "--events=40", "--time=0"}, map[string]int{"transactions": 40, "read": 560, "write": 0, "other": 80})
		})
		t.Run(name+"/legacy", func(t *testing.T) {
			// The same reads, 2 updates and a delete/insert pair.
			crossarchLifecycle(t, qemu, bin, withArgs([]string{"--test=legacy/oltp.lua", "--oltp-table-size=300"}, conn...),
				[]string{"--num-threads=1", "--max-requests=30"}, map[string]int{"transactions": 30, "read": 420, "write": 120, "other": 60})
		})
	}
}

// crossarchLifecycle runs bin under qemu with args through cleanup,
// prepare, run (with runArgs; its report must show want) and cleanup.
func crossarchLifecycle(t *testing.T, qemu, bin string, args, runArgs []string, want map[string]int) {
	t.Helper()
	emulated := func(command string, more ...string) result {
		t.Helper()
		r := runBinary(t, qemu, append(append(append([]string{bin}, args...), more...), command)...)
		if r.code != 0 {
			t.Fatalf("%s: exit %d\nstdout:\n%s\nstderr:\n%s", command, r.code, r.stdout, r.stderr)
		}
		return r
	}
	emulated("cleanup")
	emulated("prepare")
	defer emulated("cleanup")
	r := emulated("run", runArgs...)
	var got []string
	for _, label := range []string{"transactions", "read", "write", "other"} {
		if n := reportNumber(t, r.stdout, label); n != want[label] {
			got = append(got, fmt.Sprintf("%s %d, want %d", label, n, want[label]))
		}
	}
	if n := reportNumber(t, r.stdout, "ignored errors"); n != 0 {
		got = append(got, fmt.Sprintf("%d ignored errors", n))
	}
	if len(got) > 0 {
		t.Errorf("%s:\n%s", strings.Join(got, "; "), r.stdout)
	}
}
