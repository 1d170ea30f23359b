#!/usr/bin/env bash
# Side by side with the classic tools: sbgo's pgbench_tpcb against
# PostgreSQL's pgbench (and a byte-identical copy of pgbench, the noise
# control), and sbgo's mysqlslap workload against mariadb-slap, interleaved
# (A B C, then C B A, ...) on the local servers. Client CPU is user+sys of
# the whole process, from GNU time.
#
#   testdata/bench/classics.sh SBGO_BINARY [pgbench|mysqlslap|all]
#
# Environment: REPS (5), PGB_SCALE (16), PGB_THREADS ("1 4 16"),
# PGB_SYNC (off: the database's synchronous_commit, so that the clients
# and not the fsync set the pace; "on" for the server's default),
# SLAP_CONCURRENCY ("50 150"), RUN_SECONDS (10: each pgbench run), OUT (/tmp/sbgo-bench/classics-<time>).
# It creates and drops the PostgreSQL database sbclassics and the MariaDB
# database sbslap. Output: OUT/pgbench.tsv, OUT/mysqlslap.tsv, OUT/logs.
set -u
SBGO=${1:?usage: classics.sh SBGO_BINARY [pgbench|mysqlslap|all]}
WHAT=${2:-all}
REPS=${REPS:-5}
PGB_SCALE=${PGB_SCALE:-16}
PGB_THREADS=${PGB_THREADS:-1 4 16}
PGB_SYNC=${PGB_SYNC:-off}
SLAP_CONCURRENCY=${SLAP_CONCURRENCY:-50 150}
RUN_SECONDS=${RUN_SECONDS:-10}
OUT=${OUT:-/tmp/sbgo-bench/classics-$(date +%Y%m%d-%H%M%S)}
PGBENCH=${PGBENCH:-/usr/lib/postgresql/15/bin/pgbench}
mkdir -p "$OUT/logs"
cp "$PGBENCH" "$OUT/pgbench_copy"

cputime() { awk '{print $1 + $2}' "$1"; }
walltime() { awk '{print $3}' "$1"; }

# order REP A B C: the labels in order for odd repetitions, reversed for even.
order() {
  local rep=$1; shift
  if [ $((rep % 2)) = 1 ]; then echo "$@"; else echo "$@" | tr ' ' '\n' | tac | tr '\n' ' '; fi
}

pgbench_side_by_side() {
  local db=sbclassics pgc="-h 127.0.0.1 -U sbtest sbclassics"
  local spg="--db-driver=pgsql --pgsql-host=127.0.0.1 --pgsql-user=sbtest --pgsql-password=sbtest --pgsql-db=$db"
  psql -q -h 127.0.0.1 -U postgres -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db OWNER sbtest" \
    -c "ALTER DATABASE $db SET synchronous_commit = $PGB_SYNC" >/dev/null
  "$PGBENCH" -i -s "$PGB_SCALE" -q $pgc > "$OUT/logs/pgbench_init.log" 2>&1
  printf 'rep\ttool\tthreads\ttps\ttransactions\tclient_cpu_s\twall_s\n' > "$OUT/pgbench.tsv"
  for rep in $(seq 1 "$REPS"); do
    for n in $PGB_THREADS; do
      for tool in $(order "$rep" pgbench sbgo pgbench_copy); do
        local log=$OUT/logs/pgbench_${tool}_${n}_$rep.log tps tx
        case $tool in
          sbgo)
            /usr/bin/time -f '%U %S %e' -o "$log.time" "$SBGO" pgbench_tpcb $spg --scale="$PGB_SCALE" \
              --threads="$n" --time="$RUN_SECONDS" run > "$log" 2>&1
            tps=$(grep -oP 'transactions: +[0-9]+ +\(\K[0-9.]+' "$log")
            tx=$(grep -oP 'transactions: +\K[0-9]+' "$log") ;;
          *)
            local bin=$PGBENCH
            [ "$tool" = pgbench_copy ] && bin=$OUT/pgbench_copy
            /usr/bin/time -f '%U %S %e' -o "$log.time" "$bin" -n -M prepared -c "$n" -j "$n" -T "$RUN_SECONDS" $pgc > "$log" 2>&1
            tps=$(grep -oP 'tps = \K[0-9.]+(?= \(without)' "$log")
            tx=$(grep -oP 'actually processed: \K[0-9]+' "$log") ;;
        esac
        printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$rep" "$tool" "$n" "$tps" "$tx" \
          "$(cputime "$log.time")" "$(walltime "$log.time")" >> "$OUT/pgbench.tsv"
        sleep 1
      done
    done
  done
  psql -q -h 127.0.0.1 -U postgres -c "DROP DATABASE $db" >/dev/null
}

mysqlslap_side_by_side() {
  local common="--auto-generate-sql --auto-generate-sql-guid-primary --engine=innodb --number-int-cols=20
    --number-char-cols=20 --auto-generate-sql-write-number=2000 --auto-generate-sql-execute-number=2000
    --auto-generate-sql-load-type=mixed"
  printf 'rep\ttool\tconcurrency\tseconds\tclient_cpu_s\twall_s\n' > "$OUT/mysqlslap.tsv"
  for rep in $(seq 1 "$REPS"); do
    for n in $SLAP_CONCURRENCY; do
      for tool in $(order "$rep" mysqlslap sbgo); do
        local log=$OUT/logs/mysqlslap_${tool}_${n}_$rep.log secs
        mariadb -uroot -h127.0.0.1 -e 'CREATE DATABASE IF NOT EXISTS sbslap'
        if [ "$tool" = sbgo ]; then
          /usr/bin/time -f '%U %S %e' -o "$log.time" "$SBGO" mysqlslap --db-driver=mysql --mysql-host=127.0.0.1 \
            --mysql-user=root --mysql-db=sbslap --guid_primary=on --engine=innodb --number_int_cols=20 \
            --number_char_cols=20 --threads="$n" --write_number=2000 --execute_number=2000 --load_type=mixed \
            --time=0 prepare run cleanup > "$log" 2>&1
          secs=$(grep -oP 'total time: +\K[0-9.]+' "$log")
        else
          /usr/bin/time -f '%U %S %e' -o "$log.time" mariadb-slap -h127.0.0.1 -uroot --create-schema=sbslap \
            $common --concurrency="$n" > "$log" 2>&1
          secs=$(grep -oP 'Average number of seconds to run all queries: \K[0-9.]+' "$log")
        fi
        printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$rep" "$tool" "$n" "$secs" \
          "$(cputime "$log.time")" "$(walltime "$log.time")" >> "$OUT/mysqlslap.tsv"
        sleep 1
      done
    done
  done
  mariadb -uroot -h127.0.0.1 -e 'DROP DATABASE IF EXISTS sbslap'
}

case $WHAT in
  pgbench) pgbench_side_by_side ;;
  mysqlslap) mysqlslap_side_by_side ;;
  all) pgbench_side_by_side; mysqlslap_side_by_side ;;
  *) echo "classics.sh: unknown part '$WHAT' (pgbench, mysqlslap or all)" >&2; exit 2 ;;
esac
echo "results: $OUT" >&2
