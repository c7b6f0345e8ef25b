#!/usr/bin/env bash
# `harness gbench` end to end (issue 17), with the small Google Benchmark binary of
# tests/gbench/gbench_fixture.cpp and tiny budgets: both phases and the preparation read back from
# the child, every report format, compare.py and `harness compare` on its JSON, a benchmark's
# SkipWithError, a binary that crashes, exits non-zero or is no Google Benchmark binary, SIGTERM
# passed on to the child, and nothing left running.
# Usage: gbench_e2e.sh PATH/TO/harness PATH/TO/gbench_fixture SOURCE_ROOT
set -u
harness=${1:?usage: gbench_e2e.sh PATH/TO/harness PATH/TO/gbench_fixture SOURCE_ROOT}
fixture=${2:?usage: gbench_e2e.sh PATH/TO/harness PATH/TO/gbench_fixture SOURCE_ROOT}
root=${3:?usage: gbench_e2e.sh PATH/TO/harness PATH/TO/gbench_fixture SOURCE_ROOT}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
export TMPDIR=$work/tmp  # the invocations' files go here, and must be gone afterwards
mkdir -p "$TMPDIR"
unset GBENCH_FIXTURE_CRASH GBENCH_FIXTURE_EXIT GBENCH_FIXTURE_SLEEP_MS
compare=/usr/share/benchmark/compare.py

# No process of the fixture may outlive a command.
no_fixture_left() {
  if pgrep -f -- "^$fixture" >/dev/null; then
    fail "$1: a process of the fixture is still running: $(pgrep -a -f -- "^$fixture")"
  else
    pass
  fi
  if [ -z "$(ls -A "$TMPDIR")" ]; then pass; else fail "$1: files left in TMPDIR: $(ls "$TMPDIR")"; fi
}

tiny=(-n 4 --blocks 2 --warmup 10ms --min-time 5ms)

# One benchmark: both phases, the preparation read back from the child, its samples listed.
if expect 0 one -- gbench --detail "${tiny[@]}" --log-level info -- "$fixture" --benchmark_filter='BM_sum'; then
  contains out "BM_sum/256" one
  contains out "  baseline: 4 samples in 2 invocations unprepared" one
  contains out "  prepared: 4 samples in 2 invocations" one
  contains out "one Google Benchmark repetition each" one
  contains out "figures: one sample = one repetition: Google Benchmark's real_time per iteration" one
  contains out ": applied" one
  contains out "read back: CPUs" one
  contains out "--benchmark_min_warmup_time=5 ms in each of the 2 prepared invocations" one
  contains out "floor:" one
  contains out "summary (" one
  lacks out "BM_copy" one
  # The pin, when the machine allows one: "pin to CPU N (sched_setaffinity): applied".
  if grep -qE "pin to CPU [0-9]+ \(sched_setaffinity\): applied" "$work/out"; then pass; else
    fail "one: no applied pin in the report"
  fi
  # Four invocations, each logged with its pid: none of them is left.
  [ "$(grep -c "invocation .* pid " "$work/err")" -eq 4 ] && pass || fail "one: not 4 invocations"
fi
no_fixture_left one

# Every benchmark, the report in a JSON file: the skipped one is that benchmark's failure (exit 3),
# the others carry bytes, items and the user counter.
if expect 3 all-json -- gbench --detail "${tiny[@]}" -o "$work/a.json" -- "$fixture" \
  --benchmark_filter='BM_(sum|copy|skipped)'; then
  contains out "FAILED in the baseline phase, sample 1 (block 1" all-json
  contains out "Google Benchmark reported an error (SkipWithError): the fixture skips this one" all-json
  fits_schema "a.json" "$work/a.json"
  if python3 - "$work/a.json" <<'EOF'; then pass; else fail "all-json: the JSON's content"; fi
import json, sys
d = json.load(open(sys.argv[1]))
rows = d["benchmarks"]
copy = [r for r in rows if r["name"] == "BM_copy/4096" and r["run_type"] == "iteration"]
assert len(copy) == 4, len(copy)
assert all(r["buffers"] == 2 for r in copy), copy[0]
assert all(r["iterations"] > 1 for r in copy), copy[0]
base = [r for r in rows if r["name"] == "BM_copy/4096/baseline" and r["run_type"] == "iteration"]
assert len(base) == 4
w = {x["name"]: x for x in d["harness"]["workloads"]}
assert abs(w["BM_copy/4096"].get("items_per_call", 1) - 1) < 0.01 or "items_per_call" not in w["BM_copy/4096"]
assert w["BM_skipped"]["error"].endswith("the fixture skips this one"), w["BM_skipped"]
assert d["harness"]["clock"]["name"] == "gbench_real_time"
assert d["harness"]["source"]["tool"] == "Google Benchmark"
EOF
fi
no_fixture_left all-json

# compare.py and `harness compare` read it.
expect 0 second-json -- gbench --detail "${tiny[@]}" -o "$work/b.json" -- "$fixture" --benchmark_filter='BM_(sum|copy)'
if [ -f "$compare" ] && /usr/bin/python3 -c 'import scipy' 2>/dev/null; then
  if /usr/bin/python3 "$compare" benchmarks "$work/b.json" "$work/b.json" >"$work/cmp" 2>&1; then
    pass
    contains cmp "BM_copy/4096 " compare.py
    contains cmp "BM_sum/256/baseline " compare.py
  else
    fail "compare.py refused the gbench JSON"
    sed 's/^/    | /' "$work/cmp" | head -30
  fi
else
  echo "SKIP: compare.py: $compare or scipy for /usr/bin/python3 is missing"
fi
if expect 0 harness-compare -- compare --allow-not-compared "$work/b.json" "$work/b.json"; then
  contains_wrapped out "BM_copy/4096" harness-compare
  contains_wrapped out "prepared phases: one sample = one repetition: Google Benchmark's real_time" harness-compare
fi

# The other formats.
if expect 0 csv -- gbench --detail "${tiny[@]}" --format csv -- "$fixture" --benchmark_filter=BM_sum; then
  [ "$(grep -c '^BM_sum/256,' "$work/out")" -eq 8 ] && pass || fail "csv: not 8 sample rows"
fi
if expect 0 markdown -- gbench --detail "${tiny[@]}" --format markdown -- "$fixture" --benchmark_filter=BM_sum; then
  contains out "Google Benchmark" markdown
  contains out "| BM\\_sum/256 | baseline" markdown
fi
if expect 0 line -- gbench --detail "${tiny[@]}" --line '{workload} {phase} {samples}' -- "$fixture" \
  --benchmark_filter=BM_sum; then
  contains out "BM_sum/256 baseline 4" line
  contains out "BM_sum/256 prepared 4" line
fi
if expect 0 no-baseline -- gbench --detail "${tiny[@]}" --no-baseline --no-pin --priority normal -- \
  "$fixture" --benchmark_filter=BM_sum; then
  lacks out "  baseline:" no-baseline
  contains out "nothing to apply" no-baseline
fi
no_fixture_left formats

# The binary failing as a whole: exit 5, with what its stderr said.
if GBENCH_FIXTURE_CRASH=1 expect 5 crash -- gbench --detail "${tiny[@]}" -- "$fixture" --benchmark_filter=BM_sum; then
  contains err "was killed by signal 6 (SIGABRT" crash
fi
if GBENCH_FIXTURE_EXIT=7 expect 5 exit-status -- gbench --detail "${tiny[@]}" -- "$fixture"; then
  contains err "exited with status 7" exit-status
  contains err "gbench_fixture: told to exit with status 7" exit-status
fi
if expect 5 no-json -- gbench --detail "${tiny[@]}" -- /bin/true; then
  contains err "wrote no JSON to --benchmark_out: is it a Google Benchmark binary?" no-json
fi
if expect 5 no-match -- gbench --detail "${tiny[@]}" -- "$fixture" --benchmark_filter=nothing_matches; then
  contains err "'$fixture'" no-match
fi
no_fixture_left failures

# Without the right to raise priority (as nobody): nice -20 refused on the child, with the system's
# reason, and the run goes on.
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
  cp "$harness" "$work/harness-copy" && cp "$fixture" "$work/fixture-copy"
  chmod 755 "$work" "$work/harness-copy" "$work/fixture-copy" && chmod 1777 "$TMPDIR"
  setpriv --reuid=65534 --regid=65534 --clear-groups "$work/harness-copy" gbench --detail "${tiny[@]}" -- \
    "$work/fixture-copy" --benchmark_filter=BM_sum >"$work/out" 2>"$work/err"
  code=$?
  [ "$code" -eq 0 ] && pass || fail "non-root: exit code $code"
  contains out "nice -20 (setpriority): REFUSED: Permission denied (EACCES)" non-root
  contains out "  prepared: 4 samples" non-root
  if pgrep -f -- "^$work/fixture-copy" >/dev/null; then fail "non-root: left running"; else pass; fi
  no_fixture_left non-root
else
  echo "SKIP: non-root gbench (needs root and setpriv to drop privileges)"
fi

# The history, as for `harness run`: keyed by the binary's bytes and how it is run; its first run
# here is not confirmed, the file keeps each benchmark's agreed floor (the lowest block minimum
# another block came within the tolerance of; nothing when none did), and the next run checks
# against it. Floors are kept per CPU the prepared phase is pinned to, and the default CPU follows
# the load: these runs pin one CPU, so each next run reads the records of the one before.
pin=$(python3 -c 'import os; print(max(os.sched_getaffinity(0)))')
ghist=(gbench --detail "${tiny[@]}" --cpu "$pin" --history "$work/gh.json")
gcheck='
import json, sys
h = json.load(open(sys.argv[1]))
r = json.load(open(sys.argv[2]))
first = sys.argv[3] == "first"
earlier = json.loads(sys.argv[4]) if len(sys.argv) > 4 else []
assert h["harness_history"] == 1 and h["speeds"] == [], h  # no reference loop runs
assert r["harness"]["history"]["path"] == sys.argv[1], r["harness"]["history"]
assert r["harness"]["history"]["build"].startswith("xxh3:"), r["harness"]["history"]
key = "%s | prepared on CPU %d" % (r["harness"]["history"]["machine"], r["harness"]["options"]["cpu"])
assert all(x["machine"] == key for x in h["floors"]), (key, h["floors"])
for w in r["harness"]["workloads"]:
    p = [p for p in w["phases"] if p["phase"] == "prepared"][0]
    f = p["floor"]
    build = r["harness"]["history"]["build"]
    had = [e for e in earlier if e["workload"] == w["name"] and e["build"] == build]
    # The first run of the binary here, or one after a run that kept nothing for it.
    assert ("first_of_build" in f["findings"]) == (first or not had), (f, had)
    m = sorted(f["block_minimums_ticks"])
    agreed = next((m[i] for i in range(len(m) - 1) if m[i + 1] - m[i] <= f["tolerance_ticks"]), None)
    kept = [x["floor_ticks"] for x in h["floors"] if x["workload"] == w["name"] and x["build"] == build]
    if first:
        assert kept == ([] if agreed is None else [agreed]), (kept, agreed, m)
print(json.dumps(h["floors"]))
'
if expect 0 gbench-history-first -- "${ghist[@]}" -o "$work/g1.json" -- "$fixture" \
  --benchmark_filter='BM_sum'; then
  contains out "history: $work/gh.json (this machine: " gbench-history-first
  contains out "| Google Benchmark real_time in ns; build xxh3:" gbench-history-first
  # The build is the binary with how it is run: the repetition length and its own arguments.
  contains out " (--min-time 5 ms -- --benchmark_filter=BM_sum))" gbench-history-first
  contains out "a build's first run on a CPU is not confirmed" gbench-history-first
  lacks out "reference loop remembered" gbench-history-first
  fits_schema "g1.json" "$work/g1.json"
  if kept=$(python3 -c "$gcheck" "$work/gh.json" "$work/g1.json" first); then pass; else
    fail "gbench-history-first: the history or the floor's findings"
  fi
  if expect 0 gbench-history-second -- "${ghist[@]}" -o "$work/g2.json" -- "$fixture" \
    --benchmark_filter='BM_sum'; then
    if python3 -c "$gcheck" "$work/gh.json" "$work/g2.json" second "$kept" >/dev/null; then pass; else
      fail "gbench-history-second: the floor's findings against the first run's record"
    fi
  fi
  # Another repetition length is another build: its first run here.
  if expect 0 gbench-history-other -- gbench --detail -n 4 --blocks 2 --warmup 10ms --min-time 6ms \
    --cpu "$pin" --history "$work/gh.json" -o "$work/g3.json" -- "$fixture" --benchmark_filter='BM_sum'; then
    if python3 -c "$gcheck" "$work/gh.json" "$work/g3.json" first >/dev/null; then pass; else
      fail "gbench-history-other: not the first run of a new build"
    fi
  fi
fi
printf 'my notes\n' >"$work/notes.txt"
if expect 2 gbench-history-foreign -- gbench --detail "${tiny[@]}" --log-level info \
  --history "$work/notes.txt" -- "$fixture"; then
  contains err "not a harness history" gbench-history-foreign
  [ "$(cat "$work/notes.txt")" = "my notes" ] && pass || fail "gbench-history-foreign: the file was changed"
  # Refused before the binary ran: --log-level info logs each invocation it starts.
  lacks err "invocation" gbench-history-foreign
fi
no_fixture_left gbench-history

# SIGTERM while the binary runs: passed on, the results so far reported, exit 143, nothing left.
: >"$work/err"  # as below: no earlier test's lines for the loop to find
GBENCH_FIXTURE_SLEEP_MS=2 "$harness" gbench --detail -n 4 --blocks 4 --warmup 0 --min-time 300ms \
  --log-level info -- "$fixture" --benchmark_filter=BM_sleep >"$work/out" 2>"$work/err" &
pid=$!
for _ in $(seq 1 200); do
  [ "$(grep -c "invocation .* pid " "$work/err")" -ge 2 ] && break
  sleep 0.05
done
kill -TERM "$pid"
wait "$pid"
got=$?
[ "$got" -eq 143 ] && pass || fail "sigterm: exit $got, expected 143"
contains out "BM_sleep/real_time" sigterm
contains out "INTERRUPTED" sigterm
contains err "interrupted" sigterm
no_fixture_left sigterm

# SIGINT likewise, before the first invocation has reported anything: exit 130, no report.
# The err file is emptied first: the loop below may read it before the background command's
# redirection truncates it, and the SIGTERM test's lines would then send SIGINT at once, to a
# subshell that ignores it (a background job's SIGINT is ignored) before the harness even runs.
: >"$work/err"
GBENCH_FIXTURE_SLEEP_MS=2 "$harness" gbench --detail -n 2 --blocks 2 --warmup 0 --min-time 2s \
  --log-level info -- "$fixture" --benchmark_filter=BM_sleep >"$work/out" 2>"$work/err" &
pid=$!
for _ in $(seq 1 200); do
  [ "$(grep -c "invocation .* pid " "$work/err")" -ge 1 ] && break
  sleep 0.05
done
kill -INT "$pid"
wait "$pid"
got=$?
[ "$got" -eq 130 ] && pass || fail "sigint: exit $got, expected 130"
contains err "interrupted before the binary reported anything" sigint
no_fixture_left sigint

# A signal while the report is being written ends the command after the write (lib.sh).
signal_while_writing gbench-signal-while-writing TERM 143 harness -- gbench "${tiny[@]}" \
  --format json -o "$work/report.fifo" -- "$fixture" --benchmark_filter=BM_sum
no_fixture_left gbench-signal-while-writing

echo "gbench e2e: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
