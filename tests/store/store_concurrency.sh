#!/usr/bin/env bash
# The store under concurrent writers and under SIGKILL (issue 29), on SQLite and, when
# $HARNESS_TEST_POSTGRES names a server (with_postgres.sh), on PostgreSQL:
#   - 8 processes saving 50 runs each into one store at once: all 400 runs there, each whole;
#   - 20 times, a process saving runs killed with SIGKILL at a random moment: the store opens,
#     holds only whole runs, and the next save works.
# Prints the wall time of the 400 saves per backend (figures for docs/store.md).
# Usage: store_concurrency.sh PATH/TO/store_hammer
set -u
hammer=${1:?usage: store_concurrency.sh PATH/TO/store_hammer}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

# server_settled CONNINFO: waits (up to 10 s) until no other session is open on the database. A
# client killed while its COMMIT is on the way leaves the server to finish that commit, and its
# session ends only when the server next reads from the dead connection: a count taken before that
# may miss a run that then lands (measured: the count went 4024, then 4026 after one save).
server_settled() {
  local left=100 others
  while :; do
    others=$(psql -qtA "$1" -c 'SELECT count(*) FROM pg_stat_activity
      WHERE datname = current_database() AND backend_type = '\''client backend'\''
        AND pid <> pg_backend_pid()' 2>/dev/null) || return 1
    [ "$others" = 0 ] && return 0
    left=$((left - 1))
    [ "$left" -gt 0 ] || return 1
    sleep 0.1
  done
}

exercise() {
  local name=$1 where=$2
  local start end pids=() bad=0
  start=$(date +%s.%N)
  for p in 1 2 3 4 5 6 7 8; do
    "$hammer" save "$where" 50 "$((p * 1000))" &
    pids+=($!)
  done
  for pid in "${pids[@]}"; do
    wait "$pid" || bad=$((bad + 1))
  done
  end=$(date +%s.%N)
  [ "$bad" -eq 0 ] || fail "$name: $bad of 8 saving processes failed"
  local seconds
  seconds=$(awk -v a="$start" -v b="$end" 'BEGIN { print b - a }')
  awk -v n="$name" -v s="$seconds" \
    'BEGIN { printf "%s: 8 processes x 50 saves: %.2f s (%.1f ms a save, all processes together)\n", n, s, s * 1000 / 400 }'
  "$hammer" check "$where" 400 || fail "$name: not 400 whole runs after 8 x 50 concurrent saves"

  # 20 SIGKILLs at random moments of a process saving runs.
  local count before after
  for i in $(seq 1 20); do
    "$hammer" save "$where" 100000 &
    local pid=$!
    sleep "0.$(printf '%03d' $((RANDOM % 400 + 20)))"
    kill -KILL "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    if [ "$name" = postgresql ] && ! server_settled "$where"; then
      fail "$name: kill $i: the killed client's session did not end within 10 s"
    fi
    "$hammer" check "$where" >"$work/check" || fail "$name: kill $i: the store holds a partial run: $(cat "$work/check")"
    before=$(cut -d' ' -f1 "$work/check")
    "$hammer" save "$where" 1 || fail "$name: kill $i: the next save failed"
    "$hammer" check "$where" >"$work/check" || fail "$name: kill $i: after the next save: $(cat "$work/check")"
    after=$(cut -d' ' -f1 "$work/check")
    [ "$after" -eq $((before + 1)) ] || fail "$name: kill $i: the next save did not add one run ($before, then $after)"
  done
  echo "$name: 20 SIGKILLs during saves: store then $(cat "$work/check")"
}

exercise sqlite "$work/results.db"
if [ -n "${HARNESS_TEST_POSTGRES:-}" ]; then
  psql -q "$HARNESS_TEST_POSTGRES" -c 'DROP SCHEMA public CASCADE; CREATE SCHEMA public;' 2>/dev/null ||
    fail "could not empty the PostgreSQL database"
  exercise postgresql "$HARNESS_TEST_POSTGRES"
else
  echo "store_concurrency: no PostgreSQL server given (run it under with_postgres.sh); SQLite only" >&2
  fail "no PostgreSQL server"
fi
[ "$failures" -eq 0 ] && echo "store_concurrency: ok" && exit 0
echo "store_concurrency: $failures failure(s)" >&2
exit 1
