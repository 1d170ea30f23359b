#!/bin/sh
# Records the results files the compare and report tests read, by real
# runs of sleepy.lua (testdata/) and jitter.lua (here); no server needed.
#
#   go build -o /tmp/sbgo ./cmd/sbgo && compare/testdata/record.sh /tmp/sbgo
#
# Two labelled runs share workloads but not every thread count, so that
# the tables have cells of both and dashes; interrupted.json is an
# unlabelled run stopped by SIGINT during its second step.
set -eu
sbgo=$1
cd "$(dirname "$0")"
sleepy=../../testdata/sleepy.lua
run() { out=$1; shift; "$sbgo" "$@" --time=2 --results-file="$out" run >/dev/null; }
run fast-sleepy.json $sleepy --sleep_ms=1 --threads=1,2,4 --results-label="1 ms sleeps"
run fast-jitter.json jitter.lua --jitter_max_ms=4 --threads=1,2 --results-label="1 ms sleeps"
run slow-sleepy.json $sleepy --sleep_ms=2 --threads=1,2 --results-label="2 ms sleeps"
run slow-jitter.json jitter.lua --jitter_max_ms=8 --threads=2,4 --results-label="2 ms sleeps"
"$sbgo" $sleepy --sleep_ms=1 --threads=1,2,4 --time=2 --results-file=interrupted.json run >/dev/null &
sleep 3
kill -INT $!
wait $! || true
chmod 644 ./*.json
