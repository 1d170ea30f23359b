package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var tidRe = regexp.MustCompile(`tid ([0-9]+)`)

// callbackOrder splits the output of lifecycle.lua into one sequence of
// lines per thread id and one of the other lines (masked). Threads run
// concurrently, so only the order within each of these is deterministic.
func callbackOrder(out string) map[string][]string {
	seqs := map[string][]string{}
	var rest []string
	for _, l := range strings.Split(out, "\n") {
		if m := tidRe.FindStringSubmatch(l); m != nil {
			seqs["tid "+m[1]] = append(seqs["tid "+m[1]], l)
			continue
		}
		rest = append(rest, l)
	}
	seqs["other"] = strings.Split(mask(strings.Join(rest, "\n")), "\n")
	return seqs
}

// TestLifecycleOrder checks that every callback runs in the same order,
// in the same thread, as under sysbench 1.0.20, for each command with one
// and with three threads.
func TestLifecycleOrder(t *testing.T) {
	for _, threads := range []string{"1", "3"} {
		for _, cmd := range []string{"run", "prepare", "cleanup", "help", "custom"} {
			name := fmt.Sprintf("lifecycle_%s_%s", cmd, threads)
			args := []string{"lifecycle.lua", "--threads=" + threads, cmd}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				golden := filepath.Join("testdata", name+".golden")
				if *update {
					ref := runBinary(t, "/usr/bin/sysbench", args...)
					raw := fmt.Sprintf("# sysbench %s\n# exit %d\n--- stdout\n%s\n--- stderr\n%s\n",
						strings.Join(args, " "), ref.code, ref.stdout, ref.stderr)
					if err := os.WriteFile(golden, []byte(raw), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				wantText, err := os.ReadFile(golden)
				if err != nil {
					t.Fatalf("no golden file (run with -update where sysbench is installed): %v", err)
				}
				r := runBinary(t, sbgoBinary, args...)
				// These golden files keep sysbench's output unmasked, so
				// that the thread ids stay; callbackOrder masks the rest.
				want := callbackOrder(goldenStdout(string(wantText)))
				got := callbackOrder(r.stdout)
				for key, seq := range want {
					if strings.Join(got[key], "\n") != strings.Join(seq, "\n") {
						t.Errorf("%s: sequence differs\nsysbench:\n%s\nsbgo:\n%s", key,
							strings.Join(seq, "\n"), strings.Join(got[key], "\n"))
					}
				}
				if len(got) != len(want) {
					t.Errorf("sbgo has %d sequences, sysbench %d: %v", len(got), len(want), got)
				}
			})
		}
	}
}

// goldenStdout returns the stdout section of a golden file.
func goldenStdout(g string) string {
	_, after, _ := strings.Cut(g, "--- stdout\n")
	before, _, _ := strings.Cut(after, "\n--- stderr\n")
	return before
}
