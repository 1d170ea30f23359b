package main

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// tpccMixRe matches the line testdata/bench/tpcc_like.lua prints at a
// thread's end with --mix-report: transactions, statements and rows read
// per transaction type.
var tpccMixRe = regexp.MustCompile(`(?m)^thread 0 transactions/statements/rows: (.*)$`)

// tpccTypeRe reads one type's three counts from that line.
var tpccTypeRe = regexp.MustCompile(`([a-z_]+) ([0-9]+)/([0-9]+)/([0-9]+)`)

// TestTPCCLikeSameStatementsAsSysbench: the Lua-heavy benchmark script
// testdata/bench/tpcc_like.lua prepares the same data and runs the same
// transactions under sbgo as under sysbench 1.0.20. Each tool prepares
// a small scale (1 warehouse, 1000 items, 30 customers and orders per
// district) and runs 200 events on one thread with the same --rand-seed,
// so both draw the same numbers: the tables without timestamps have the
// same checksums after prepare, every transaction type has the same
// counts of transactions, statements and rows read, and the counter
// blocks are the same.
func TestTPCCLikeSameStatementsAsSysbench(t *testing.T) {
	admin := tpccAdmin(t)
	if _, err := os.Stat(wlSysbench); err != nil {
		t.Fatalf("sysbench 1.0.20 is needed (apt-get install sysbench): %v", err)
	}
	script, err := filepath.Abs("../../testdata/bench/tpcc_like.lua")
	if err != nil {
		t.Fatal(err)
	}
	schema := fmt.Sprintf("sbgo_tpcc_%d", os.Getpid())
	wlExec(t, admin, "CREATE DATABASE IF NOT EXISTS "+schema)
	t.Cleanup(func() { admin.Exec("DROP DATABASE IF EXISTS " + schema) })
	args := []string{script, "--db-driver=mysql", "--mysql-host=127.0.0.1", "--mysql-user=root",
		"--mysql-db=" + schema, "--warehouses=1", "--items=1000", "--customers=30", "--orders=30"}

	type outcome struct{ checksums, mix, report string }
	var got [2]outcome
	for i, bin := range []string{wlSysbench, sbgoBinary} {
		wlMust(t, bin, nil, withArgs(args, "cleanup")...)
		wlMust(t, bin, nil, withArgs(args, "prepare")...)
		got[i].checksums = tpccChecksums(t, admin, schema)
		r := wlMust(t, bin, nil, withArgs(args, "--threads=1", "--events=200", "--rand-seed=11", "--mix-report=on", "run")...)
		m := tpccMixRe.FindStringSubmatch(r.stdout)
		if m == nil {
			t.Fatalf("%s printed no transaction mix:\n%s", filepath.Base(bin), r.stdout)
		}
		got[i].mix, got[i].report = m[1], r.stdout
	}
	wlMust(t, sbgoBinary, nil, withArgs(args, "cleanup")...)

	sb, sbgo := got[0], got[1]
	if sb.checksums != sbgo.checksums {
		t.Errorf("prepare's tables differ:\nsysbench %s\nsbgo     %s", sb.checksums, sbgo.checksums)
	}
	if sb.mix != sbgo.mix {
		t.Errorf("transactions/statements/rows per type differ:\nsysbench %s\nsbgo     %s", sb.mix, sbgo.mix)
	}
	tpccCheckMix(t, sbgo.mix)
	sameCounters(t, "tpcc_like.lua", sb.report, sbgo.report)
}

// tpccAdmin returns an administrator connection to the local MariaDB; the
// test fails without one.
func tpccAdmin(t *testing.T) *sql.DB {
	t.Helper()
	admin, err := sql.Open("mysql", "root@tcp(127.0.0.1:3306)/")
	if err == nil {
		err = admin.Ping()
	}
	if err != nil {
		t.Fatalf("MariaDB on 127.0.0.1:3306 is needed: %v", err)
	}
	t.Cleanup(func() { admin.Close() })
	return admin
}

// tpccChecksums returns the checksums of the tables prepare fills without
// timestamps.
func tpccChecksums(t *testing.T, admin *sql.DB, schema string) string {
	t.Helper()
	var sums []string
	for _, table := range []string{"item", "stock", "warehouse", "district", "new_orders"} {
		var name string
		var sum sql.NullInt64
		if err := admin.QueryRow("CHECKSUM TABLE "+schema+"."+table).Scan(&name, &sum); err != nil {
			t.Fatalf("CHECKSUM TABLE %s: %v", table, err)
		}
		sums = append(sums, fmt.Sprintf("%s=%d", table, sum.Int64))
	}
	return strings.Join(sums, " ")
}

// tpccCheckMix fails the test unless the mix line names the five types in
// order, each with transactions and statements: a run that skipped a type
// would compare equal under both tools and prove nothing about it.
func tpccCheckMix(t *testing.T, mix string) {
	t.Helper()
	want := []string{"new_order", "payment", "order_status", "delivery", "stock_level"}
	types := tpccTypeRe.FindAllStringSubmatch(mix, -1)
	if len(types) != len(want) {
		t.Fatalf("mix %q: %d types, want %d", mix, len(types), len(want))
	}
	for i, m := range types {
		if m[1] != want[i] || m[2] == "0" || m[3] == "0" {
			t.Errorf("mix %q: type %d is %s with %s transactions and %s statements, want %s with some of each",
				mix, i+1, m[1], m[2], m[3], want[i])
		}
	}
}
