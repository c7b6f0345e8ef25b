#!/usr/bin/env bash
# --save end to end (issue 29), run under tests/store/with_postgres.sh ($HARNESS_TEST_POSTGRES is
# a real server of its own, $HARNESS_TEST_POSTGRES_CTL stops and starts it):
#   - run, ab and gbench saved into the default store, $HARNESS_DB and --db; what the store holds
#     read back with Python's sqlite3 and psql;
#   - an interrupted run saves nothing;
#   - PostgreSQL: a run saved; a database the server refuses: exit 2; the server stopped while
#     the run measures: exit 1 and nothing saved.
# Usage: store_e2e.sh PATH/TO/harness PATH/TO/gbench_fixture
set -u
harness=${1:?usage: store_e2e.sh PATH/TO/harness PATH/TO/gbench_fixture}
fixture=${2:?usage: store_e2e.sh PATH/TO/harness PATH/TO/gbench_fixture}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
export HOME=$work/home
mkdir -p "$HOME"
unset XDG_STATE_HOME HARNESS_DB
tiny=(-w empty -n 5 --warmup 10ms)

# sql NAME DB QUERY EXPECTED: QUERY's rows (one a line, columns joined by |) are EXPECTED.
sql() {
  local got
  got=$(python3 -c 'import sqlite3, sys
for r in sqlite3.connect(sys.argv[1]).execute(sys.argv[2]): print("|".join(map(str, r)))' "$2" "$3" 2>&1)
  if [ "$got" = "$4" ]; then pass; else fail "$1: '$3' gave '$got', expected '$4'"; fi
}

# --- the default store, with CI's facts -----------------------------------------------------------
expect 0 default-store -- "${tiny[@]}" --save --commit 0123abcd --branch main --tag runner=e2e \
  --tag os=debian -o "$work/r.json"
contains err "harness: saved run " default-store
db=$HOME/.local/state/harness/results.db
sql default-runs "$db" "SELECT kind, commit_sha, branch, phase_count, tag_count FROM runs" \
  "run|0123abcd|main|2|2"
sql default-tags "$db" "SELECT name || '=' || value FROM run_tags ORDER BY name" "os=debian
runner=e2e"
sql default-phases "$db" "SELECT workload, phase, samples >= 5, floor_ticks IS NOT NULL FROM phases ORDER BY phase" \
  "empty|baseline|1|1
empty|prepared|1|1"
# The floor's 95% interval (schema 2): the minimum's, from the report's samples.
sql default-interval "$db" "SELECT phase, floor_lower_ticks <= floor_upper_ticks, floor_upper_ticks = min_ticks FROM phases ORDER BY phase" \
  "baseline|1|1
prepared|1|1"
sql default-machine "$db" "SELECT machine = cpu_model || ' | ' || printf('TSC %.0f MHz', tsc_hz / 1e6) || ' | ' || kernel || ' | ' || host, build LIKE 'xxh3:%' FROM runs" \
  "1|1"
# The saved report is the run's JSON report: the same figures as -o's file.
python3 - "$db" "$work/r.json" <<'PY' && pass || fail "default-report: the saved report differs from -o's"
import json, sqlite3, sys
saved = json.loads(sqlite3.connect(sys.argv[1]).execute("SELECT report_json FROM runs").fetchone()[0])
written = json.load(open(sys.argv[2]))
for doc in (saved, written):
    doc.pop("context", None)
assert [w["phases"][-1]["min_ticks"] for w in saved["harness"]["workloads"]] == \
       [w["phases"][-1]["min_ticks"] for w in written["harness"]["workloads"]]
PY

# --- $HARNESS_DB, ab and gbench ---------------------------------------------------------------
HARNESS_DB=$work/env.db expect 0 env-store -- "${tiny[@]}" --save
sql env-runs "$work/env.db" "SELECT COUNT(*) FROM runs" "1"
expect 0 ab-save -- ab empty empty --warmup 10ms --max-time 200ms --save --db "$work/ab.db"
sql ab-rows "$work/ab.db" "SELECT r.kind, a.a, a.b, a.ratio IS NOT NULL FROM runs r JOIN ab_results a ON a.run_id = r.id" \
  "ab|empty|empty|1"
expect 0 gbench-save -- gbench -n 3 --blocks 2 --min-time 1ms --warmup 0 --save --db "$work/g.db" \
  -- "$fixture" --benchmark_filter='^BM_sum'
sql gbench-rows "$work/g.db" "SELECT DISTINCT r.kind, p.phase FROM runs r JOIN phases p ON p.run_id = r.id ORDER BY p.phase" \
  "gbench|baseline
gbench|prepared"
sql gbench-interval "$work/g.db" "SELECT DISTINCT floor_lower_ticks <= floor_upper_ticks, floor_upper_ticks = min_ticks FROM phases" \
  "1|1"

# --- an interrupted run saves nothing -----------------------------------------------------------
"$harness" -w xor_loop -n 400 --warmup 0 --save --db "$work/int.db" >"$work/out" 2>"$work/err" &
pid=$!
sleep 1.5
kill -INT "$pid"
wait "$pid"
got=$?
[ "$got" -eq 130 ] && pass || fail "interrupted: exit $got, expected 130"
contains err "the run was interrupted; nothing was saved into $work/int.db" interrupted
sql interrupted-runs "$work/int.db" "SELECT COUNT(*) FROM runs" "0"

# --- PostgreSQL ---------------------------------------------------------------------------------
pg=${HARNESS_TEST_POSTGRES:?store_e2e.sh runs under tests/store/with_postgres.sh}
count() { psql -qtA "$pg" -c 'SELECT COUNT(*) FROM runs' 2>&1; }
expect 0 pg-save -- "${tiny[@]}" --save --db "$pg" --commit abcdef12 --tag runner=pg
[ "$(count)" = 1 ] && pass || fail "pg-save: $(count) runs, expected 1"
refused=${pg/\/postgres\?/\/nosuchdb?}
expect 2 pg-refused -- "${tiny[@]}" --save --db "$refused"
contains err 'cannot connect: connection to server on socket' pg-refused
contains err 'database "nosuchdb" does not exist' pg-refused
# The server stops while the run measures: the save fails, exit 1, nothing kept.
"$harness" -w xor_loop -n 200 --warmup 0 --save --db "$pg" >"$work/out" 2>"$work/err" &
pid=$!
sleep 1
"$HARNESS_TEST_POSTGRES_CTL" stop
wait "$pid"
got=$?
[ "$got" -eq 1 ] && pass || fail "pg-gone: exit $got, expected 1"
contains err "harness: --save: the store failed; the run was not saved:" pg-gone
"$HARNESS_TEST_POSTGRES_CTL" start
[ "$(count)" = 1 ] && pass || fail "pg-gone: $(count) runs after the server came back, expected 1"

echo "store e2e: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
