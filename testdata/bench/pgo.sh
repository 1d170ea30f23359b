#!/usr/bin/env bash
# Writes cmd/sbgo/default.pgo, the CPU profile that `go build` of
# ./cmd/sbgo reads by default (profile-guided optimisation: Go inlines and
# lays out the calls the profile finds hot, in sbgo and in gopher-lua).
# The profile is of the runs sbgo is measured on (docs/performance.md,
# "Profile-guided optimisation"): the TPC-C-like script and the stock
# OLTP workloads on the local MariaDB and PostgreSQL, and the oltp-like Lua
# event without a database.
#
#   testdata/bench/pgo.sh          (from the repository's root)
#
# Needs MariaDB on 127.0.0.1:3306 (root, no password) and PostgreSQL on
# 127.0.0.1:5432 (postgres, trust), as .ci/run leaves them. It creates and
# drops the database sbpgo on both. Environment: SECONDS_PER_RUN (10).
set -eu
cd "$(git rev-parse --show-toplevel)"
RUN=${SECONDS_PER_RUN:-10}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

go build -o "$tmp/sbgo" ./cmd/sbgo
my="--db-driver=mysql --mysql-host=127.0.0.1 --mysql-user=root --mysql-db=sbpgo"
pg="--db-driver=pgsql --pgsql-host=127.0.0.1 --pgsql-user=postgres --pgsql-db=sbpgo"
oltp="--tables=4 --table-size=100000"
tpcc="testdata/bench/tpcc_like.lua --warehouses=2"

mysql -h127.0.0.1 -uroot -e "DROP DATABASE IF EXISTS sbpgo; CREATE DATABASE sbpgo"
export PGOPTIONS="-c client_min_messages=warning"
psql -qX -h 127.0.0.1 -U postgres -c "DROP DATABASE IF EXISTS sbpgo" -c "CREATE DATABASE sbpgo"
cleanup() {
	mysql -h127.0.0.1 -uroot -e "DROP DATABASE IF EXISTS sbpgo"
	psql -qX -h 127.0.0.1 -U postgres -c "DROP DATABASE IF EXISTS sbpgo"
	rm -rf "$tmp"
}
trap cleanup EXIT

# sbgo RUN-LOG ARGUMENTS...: runs sbgo, its output in RUN-LOG, shown if it fails.
sbgo() {
	local log=$1
	shift
	"$tmp/sbgo" "$@" >"$log" 2>&1 || {
		cat "$log" >&2
		return 1
	}
}
# shellcheck disable=SC2086 # the option lists are meant to split
{
	sbgo "$tmp/prepare_mysql.log" oltp_read_write $my $oltp --threads=2 prepare
	sbgo "$tmp/prepare_pgsql.log" oltp_read_write $pg $oltp --threads=2 prepare
	sbgo "$tmp/prepare_tpcc.log" $tpcc $my --threads=2 prepare
}

# An event of an OLTP script's Lua work without its statements: random ids,
# SQL text from string.format and `..`, a random c-column string.
cat >"$tmp/lua_event.lua" <<'LUA'
local pattern = string.rep("#", 11) .. string.rep("-" .. string.rep("#", 11), 9)
local length = 0
function event()
  local id
  for _ = 1, 10 do
    id = sysbench.rand.default(1, 100000)
    length = length + #string.format("SELECT c FROM sbtest%d WHERE id=%d", id % 4 + 1, id)
  end
  local c = sysbench.rand.string(pattern)
  length = length + #("UPDATE sbtest" .. (id % 4 + 1) .. " SET c='" .. c .. "' WHERE id=" .. id)
end
LUA

# profile NAME SBGO-ARGUMENTS...: one run with its CPU profile in $tmp.
profile() {
	local name=$1
	shift
	echo "profiling $name"
	SBGO_CPUPROFILE="$tmp/$name.prof" sbgo "$tmp/$name.log" "$@" run
}
# shellcheck disable=SC2086
{
	profile tpcc_2 $tpcc $my --threads=2 --time=$((2 * RUN))
	profile tpcc_8 $tpcc $my --threads=8 --time=$((2 * RUN))
	profile point_select_1 oltp_point_select $my $oltp --threads=1 --time="$RUN"
	profile point_select_64 oltp_point_select $my $oltp --threads=64 --time="$RUN"
	profile read_only_16 oltp_read_only $my $oltp --threads=16 --time="$RUN"
	profile read_write_4 oltp_read_write $my $oltp --threads=4 --time="$RUN"
	profile pg_read_only_4 oltp_read_only $pg $oltp --threads=4 --time="$RUN"
	profile pg_read_write_64 oltp_read_write $pg $oltp --threads=64 --time="$RUN"
	profile lua_event_1 "$tmp/lua_event.lua" --threads=1 --time=$((RUN / 3))
	profile lua_event_2 "$tmp/lua_event.lua" --threads=2 --time=$((RUN / 3))
}
go tool pprof -proto "$tmp"/*.prof >cmd/sbgo/default.pgo
echo "wrote cmd/sbgo/default.pgo"
