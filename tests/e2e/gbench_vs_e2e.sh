#!/usr/bin/env bash
# `harness gbench --vs OLD -- NEW` end to end (issue 26), with the two binaries of
# tests/gbench/gbench_pair.cpp (NEW's BM_plus25 does 25% more work than OLD's, and declares its
# time, so B/A is 1.25 exactly on any host) and tiny budgets: the ABBA order of the invocations, the
# JSON answer's fields and the verdict's direction (never an absolute time), a benchmark only one binary lists, a benchmark's SkipWithError (exit 3), the gate
# (exit 4), a binary that crashes (exit 5), bad input (exit 2), SIGTERM passed on (exit 143), and
# nothing left running.
# Usage: gbench_vs_e2e.sh PATH/TO/harness PATH/TO/gbench_pair_old PATH/TO/gbench_pair_new
set -u
usage="usage: gbench_vs_e2e.sh PATH/TO/harness PATH/TO/gbench_pair_old PATH/TO/gbench_pair_new"
harness=${1:?$usage}
old=${2:?$usage}
new=${3:?$usage}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
export TMPDIR=$work/tmp  # the invocations' files go here, and must be gone afterwards
mkdir -p "$TMPDIR"
unset GBENCH_PAIR_CRASH

no_child_left() {
  if pgrep -f -- "^($old|$new)" >/dev/null; then
    fail "$1: a process of the pair is still running: $(pgrep -a -f -- "^($old|$new)")"
  else
    pass
  fi
  if [ -z "$(ls -A "$TMPDIR")" ]; then pass; else fail "$1: files left in TMPDIR: $(ls "$TMPDIR")"; fi
}

# Each invocation ~10 ms: a benchmark's rounds end after 0.7 s, some 30 rounds. Short repetitions,
# as the defaults': a few long ones let a loaded host's slow stretches into every invocation, and
# the gate below once missed a measured +25% difference by them (BM_plus25 now declares its time).
# Under ASan+UBSan (tests/CMakeLists.txt) an invocation starts slower, and 0.7 s holds fewer than
# the 6 rounds an interval needs: that build gives a longer GBENCH_VS_MAX_TIME.
tiny=(-n 10 --min-time 0.5ms --max-time "${GBENCH_VS_MAX_TIME:-0.7s}")

# The whole suite: BM_plus25 answered (B slower), BM_plus1 too (its direction is not checked: a
# tiny budget on a loaded host may not resolve 1%), BM_fails failed in NEW (exit 3), one benchmark
# only in each.
if expect 3 suite -- gbench --vs "$old" "${tiny[@]}" --log-level info -o "$work/vs.json" -- "$new"; then
  fits_schema "gbench --vs: vs.json" "$work/vs.json"
  contains_wrapped out "A: $old (--vs)" suite
  contains_wrapped out "B: $new" suite
  contains_wrapped out "BM_plus25/2000/manual_time" suite
  contains_wrapped out "  verdict: slower: " suite
  contains_wrapped out "  FAILED: B ('$new') reported an error in invocation 1 (SkipWithError): the new binary fails this one" suite
  contains_wrapped out "BM_old_only/100"$'\n'"  only in A: not compared" suite
  contains_wrapped out "BM_new_only/100"$'\n'"  only in B: not compared" suite
  contains_wrapped out "(ABBA order), 10 repetitions an invocation" suite
  contains_wrapped out "  host: the rounds' minimums at a median " suite
  # gbench --vs runs no reference loop: the host line names none.
  if unwrapped out | grep -q "reference loop at"; then fail "suite: a reference loop in the host line"; else pass; fi
  if unwrapped out | grep -qE "pin to CPU [0-9]+ \(sched_setaffinity\): applied"; then pass; else
    fail "suite: no applied pin in the report"
  fi
  if python3 - "$work/vs.json" <<'EOF'; then pass; else fail "suite: the JSON's content"; fi
import json, sys
d = json.load(open(sys.argv[1]))
assert d["harness"]["kind"] == "ab" and d["harness"]["clock"]["name"] == "gbench_real_time", d["harness"]
ab = d["ab"]
assert ab["mode"] == "gbench", ab["mode"]
assert ab["answer"] is None and ab["verdict"] is None  # a suite has no one answer
assert ab["only_in_a"] == ["BM_old_only/100"], ab["only_in_a"]
assert ab["only_in_b"] == ["BM_new_only/100"], ab["only_in_b"]
c = {x["benchmark"]: x for x in ab["comparisons"]}
assert list(c) == ["BM_plus1/10000", "BM_plus25/2000/manual_time", "BM_fails"], list(c)
p25 = c["BM_plus25/2000/manual_time"]
assert p25["verdict"] == "slower", p25
assert p25["answer"]["lower"] > 1.005 and p25["answer"]["ratio"] > 1.1, p25["answer"]
assert p25["answer"]["count"] == len(p25["pair"]["rounds"]) >= 6, p25["answer"]
rounds = p25["pair"]["rounds"]
assert [r["a_first"] for r in rounds] == [i % 2 == 0 for i in range(len(rounds))], rounds
assert all(r["ratio"] == r["b_min_ticks"] / r["a_min_ticks"] for r in rounds)
assert p25["pair"]["stopped_by"] in ("max_time", "target"), p25["pair"]["stopped_by"]
assert p25["pair"]["samples_per_side"] == 10
assert p25["error"] is None
f = c["BM_fails"]
assert f["verdict"] is None and f["pair"]["stopped_by"] == "failed", f
assert "the new binary fails this one" in f["error"], f["error"]
for x in c.values():
    assert x["pair"]["a"]["workload"] == x["benchmark"] == x["pair"]["b"]["workload"]
    assert x["pair"]["a"]["clock"] == "gbench_real_time"
EOF
  # The ABBA order, from the log: each round's two invocations, one of each binary, the first
  # alternating; two listings first.
  if grep -oE "BM_plus25/2000/manual_time: [AB] invocation [0-9]+" "$work/err" | python3 -c '
import sys
seen = [line.split(": ")[1].split(" invocation ") for line in sys.stdin.read().split("\n") if line]
assert len(seen) >= 12 and len(seen) % 2 == 0, seen
for i in range(0, len(seen), 2):
    r = i // 2
    want = ["A", "B"] if r % 2 == 0 else ["B", "A"]
    assert [seen[i][0], seen[i + 1][0]] == want, (r, seen[i : i + 2])
    assert seen[i][1] == seen[i + 1][1] == str(r + 1), (r, seen[i : i + 2])
'; then pass; else fail "suite: the invocations were not in ABBA order"; sed 's/^/    | /' "$work/err" | head -20; fi
  [ "$(grep -c "the listing of [AB]: pid " "$work/err")" -eq 2 ] && pass || fail "suite: not 2 listings"
fi
no_child_left suite

# Swapped: B is the one with less work, faster; --line gives a line per benchmark.
if expect 0 swapped -- gbench --vs "$new" "${tiny[@]}" --line '{a} {verdict} {rounds} {slow_a:.2f} {slow_reference}' -- "$old" \
  --benchmark_filter='BM_plus25|BM_new_only'; then
  if grep -qE "^BM_plus25/2000/manual_time faster [0-9]+ [1-9][0-9]*\.[0-9]{2} n/a$" "$work/out"; then pass; else
    fail "swapped: no 'BM_plus25/2000/manual_time faster N SLOW n/a' line"
    sed 's/^/    | /' "$work/out"
  fi
  [ "$(wc -l <"$work/out")" -eq 1 ] && pass || fail "swapped: not one line"
fi

# The gate: B slower by more than 1% with confidence exits 4; CSV has a row per round. (Measured,
# the sanitized run once missed it with bad_inputs_e2e busy on the other CPU: 14 pairs, the
# interval [1.039, 1.885] of a true 1.25; BM_plus25's declared time makes it 1.25 exactly.)
if expect 4 gate -- gbench --vs "$old" "${tiny[@]}" --fail-if-slower 1% --format csv -- "$new" \
  --benchmark_filter=BM_plus25; then
  contains_wrapped out "pair,round,a,b,a_first,a_min_ticks,b_min_ticks,ratio" gate
  [ "$(grep -c '^1,[0-9]*,"BM_plus25/2000/manual_time","BM_plus25/2000/manual_time",' "$work/out")" -ge 6 ] && pass ||
    fail "gate: fewer than 6 rows of rounds"
fi
no_child_left gate-and-swapped

# A binary that crashes: exit 5, the rounds before reported, its stderr's last lines shown.
if GBENCH_PAIR_CRASH=new expect 5 crash -- gbench --vs "$old" "${tiny[@]}" -- "$new" \
  --benchmark_filter=BM_plus25; then
  contains err "'$new' (--vs B, BM_plus25/2000/manual_time invocation 1) was killed by signal 6 (SIGABRT" crash
  contains_wrapped out "BM_plus25/2000/manual_time" crash
fi
no_child_left crash

# Bad input, refused before anything runs.
printf '#!/bin/sh\n' >"$work/plain" && chmod 644 "$work/plain"
if expect 2 not-executable -- gbench --vs "$work/plain" --log-level info -- "$new"; then
  contains err "--vs: cannot run '$work/plain': not executable" not-executable
  lacks err "pid " not-executable
fi
if expect 2 missing-new -- gbench --vs "$old"; then
  contains err "give the new Google Benchmark binary after --" missing-new
fi
if expect 2 vs-only -- gbench --threshold 1% -- "$new"; then
  contains err "--threshold: only with --vs OLD" vs-only
fi
if expect 2 blocks -- gbench --vs "$old" --blocks 2 -- "$new"; then
  contains err "--blocks: not with --vs" blocks
fi

# SIGTERM while a benchmark's rounds run: passed on, the rounds so far reported, exit 143. The err
# file is emptied first, so the loop cannot find an earlier test's lines in it before the
# background command's redirection truncates it.
: >"$work/err"
"$harness" gbench --vs "$old" -n 2 --min-time 50ms --max-time 30s --log-level info -- "$new" \
  --benchmark_filter=BM_plus25 >"$work/out" 2>"$work/err" &
pid=$!
for _ in $(seq 1 200); do
  [ "$(grep -c "BM_plus25/2000/manual_time: . invocation .* pid " "$work/err")" -ge 3 ] && break
  sleep 0.05
done
kill -TERM "$pid"
wait "$pid"
got=$?
[ "$got" -eq 143 ] && pass || fail "sigterm: exit $got, expected 143"
contains_wrapped out "BM_plus25/2000/manual_time" sigterm
contains_wrapped out "stopped: interrupted" sigterm
contains_wrapped out "interrupted: the figures are what came before" sigterm
no_child_left sigterm

# A signal while the report is being written ends the command after the write (lib.sh).
signal_while_writing vs-signal-while-writing TERM 143 ab -- gbench --vs "$old" "${tiny[@]}" \
  --format json -o "$work/report.fifo" -- "$new" --benchmark_filter='BM_plus25'
no_child_left vs-signal-while-writing

echo "gbench --vs e2e: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
