#!/usr/bin/env bash
# End-to-end tests of `harness ab A B` (issue 26) with tiny budgets: every report format, the
# JSON against its schema, --line, the gate's exit code, and a signal mid-run. No test here asserts
# a time or a noise level: the one direction checked is a workload doing 5x the work of the other.
# Usage: ab_e2e.sh PATH/TO/harness SOURCE_ROOT
set -u
harness=${1:?usage: ab_e2e.sh PATH/TO/harness SOURCE_ROOT}
root=${2:?usage: ab_e2e.sh PATH/TO/harness SOURCE_ROOT}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tiny=(--warmup 10ms --max-time 200ms)

# shellcheck source=lib.sh
source "$root/tests/e2e/lib.sh"

# The console block: the answer first, then its verdict, the floors and the rounds.
if expect 0 console -- ab xor_loop/1000 xor_loop/1000 "${tiny[@]}"; then
  contains_wrapped out "A: xor_loop/1000" console
  contains_wrapped out "B: xor_loop/1000" console
  contains_wrapped out "(95%, median of" console
  contains_wrapped out "  verdict: " console
  contains_wrapped out "floors over the run: A " console
  contains_wrapped out "host: the rounds' minimums at a median " console
  contains_wrapped out "(alternate order: A first " console
  contains_wrapped out "stopped: " console
  # The warmup's rounds said as the warmup's, not the measured rounds'.
  contains_wrapped out " of rounds after a warmup of " console
  contains_wrapped out "pin to CPU" console
fi

# --order balanced: every round ABBA ABBA..., A first, so nothing to split by who ran first.
if expect 0 balanced -- ab xor_loop/1000 xor_loop/1000 "${tiny[@]}" --order balanced \
  -o "$work/balanced.json"; then
  contains_wrapped out "(balanced order)" balanced
  fits_schema "balanced.json" "$work/balanced.json"
  if python3 - "$work/balanced.json" <<'PY'; then pass; else fail "balanced: the rounds"; fi
import json, sys
ab = json.load(open(sys.argv[1]))["ab"]
pair = ab["pairs"][0]
assert ab["options"]["order"] == "balanced", ab["options"]
assert all(r["a_first"] for r in pair["rounds"]), "a round B ran first"
assert pair["estimate"]["order_split"] is None, pair["estimate"]
PY
fi

# -o ab.json: the document against the schema, every round there with its ratio.
if expect 0 json -- ab xor_loop/1000 xor_loop/5000 "${tiny[@]}" --order random --seed 7 \
  -o "$work/ab.json"; then
  contains_wrapped out "B is " json
  fits_schema "ab.json" "$work/ab.json"
  if python3 - "$work/ab.json" <<'PY'; then pass; else fail "json: the document's figures"; fi
import json, math, sys
d = json.load(open(sys.argv[1]))
assert d["harness"]["kind"] == "ab", d["harness"]
ab = d["ab"]
assert ab["mode"] == "workloads" and ab["a"]["workload"] == "xor_loop/1000"
assert ab["b"]["workload"] == "xor_loop/5000"
assert ab["options"]["order"] == "random" and ab["options"]["seed"] == 7
# --max-time given alone is the budget asked for: no stop on a settled verdict before it.
assert ab["options"]["max_time_ns"] == 200_000_000 and ab["options"]["decide_after_ns"] is None
pair = ab["pairs"][0]
rounds = pair["rounds"]
assert len(rounds) >= 6, len(rounds)
for r in rounds:
    assert math.isclose(r["ratio"], r["b_min_ticks"] / r["a_min_ticks"], rel_tol=1e-12), r
# Random order: both orders among the rounds (30 or more of them: at least one of each is all
# but certain; the seed makes it the same every run).
assert {r["a_first"] for r in rounds} == {True, False}, "one order only"
answer = ab["answer"]
assert answer["lower"] <= answer["ratio"] <= answer["upper"], answer
# The clock's resolution: a step over each side's sample at its floor, and the interval holds it.
step = d["harness"]["clock"]["step_ticks"]
e = pair["estimate"]
resolution = step / (e["floor_a_ticks"] * pair["batch"]) + step / (e["floor_b_ticks"] * pair["batch"])
assert math.isclose(e["resolution"], resolution, rel_tol=1e-9), (e["resolution"], resolution)
assert math.isclose(answer["resolution"], resolution, rel_tol=1e-9), answer
# How slow the host ran each side: its median round minimum over its floor (the lowest).
import statistics
for side in "ab":
    mins = [r[f"{side}_min_ticks"] for r in rounds if r[f"{side}_min_ticks"] > 0]
    slow = statistics.median(mins) / min(mins)
    assert math.isclose(e[f"slow_{side}"], slow, rel_tol=1e-12), (side, e[f"slow_{side}"], slow)
refs = [r["reference_ticks"] for r in rounds if r["reference_ticks"] > 0]
assert math.isclose(e["slow_reference"], statistics.median(refs) / min(refs), rel_tol=1e-12), e
assert answer["lower"] <= answer["ratio"] * (1 - resolution) * (1 + 1e-12), answer
assert answer["upper"] >= answer["ratio"] / (1 - resolution) * (1 - 1e-12), answer
# The rounds split by which side ran first: each half's median, and the interval reaches both.
split = e["order_split"]
for first, key in ((True, "a_first"), (False, "b_first")):
    half = [r["ratio"] for r in rounds if r["a_first"] == first and r["ratio"] is not None]
    assert split[key + "_rounds"] == len(half), (key, split)
    assert math.isclose(split[key], statistics.median(half), rel_tol=1e-12), (key, split)
    assert answer["lower"] <= split[key] <= answer["upper"], (key, split, answer)
# Set only when the interval had to be widened to reach them, and then the same figures.
assert answer["order"] in (None, split), (answer, split)
# Five times the iterations: B is slower, whatever the machine.
assert answer["ratio"] > 2, answer
assert ab["verdict"] == "slower", ab["verdict"]
assert math.isclose(ab["change_percent"], (answer["ratio"] - 1) * 100, rel_tol=1e-12)
PY
fi

# The default budget, 5 s, with a stop when the verdict is settled at a look (the first at
# --decide-after): B doing 5x the work is slower at once. With 1us the first look is the first
# check (round 20), where the target cannot stop the rounds yet (it takes two checks in a row).
if expect 0 decided -- ab xor_loop/1000 xor_loop/5000 --warmup 10ms --decide-after 1us \
  -o "$work/decided.json"; then
  contains_wrapped out "stopped: the verdict was settled after --decide-after" decided
  fits_schema "decided.json" "$work/decided.json"
  if python3 - "$work/decided.json" <<'PY'; then pass; else fail "decided: the options and the stop"; fi
import json, sys
ab = json.load(open(sys.argv[1]))["ab"]
assert ab["options"]["max_time_ns"] == 5_000_000_000, ab["options"]
assert ab["options"]["decide_after_ns"] == 1_000, ab["options"]
assert ab["options"]["order"] == "alternate", ab["options"]  # two workloads' default
assert ab["pairs"][0]["stopped_by"] == "decided", ab["pairs"][0]["stopped_by"]
assert len(ab["pairs"][0]["rounds"]) == 20, len(ab["pairs"][0]["rounds"])
assert ab["verdict"] == "slower", ab["verdict"]
PY
fi

# The gate: B five times slower than A beyond --fail-if-slower 1%: exit 4, and the report printed.
if expect 4 gate -- ab xor_loop/1000 xor_loop/5000 "${tiny[@]}" --fail-if-slower 1%; then
  contains_wrapped out "--fail-if-slower" gate
  contains_wrapped out "verdict: slower" gate
fi
expect 0 gate-passes -- ab xor_loop/5000 xor_loop/1000 "${tiny[@]}" --fail-if-slower 1%
contains_wrapped out "verdict: faster" gate-passes

# --line, CSV and Markdown on stdout.
if expect 0 line -- ab xor_loop/1000 xor_loop/5000 "${tiny[@]}" \
  --line '{b} against {a}: {verdict} {rounds:d} rounds, ratio {ratio:.3f} [{lower:.3f}, {upper:.3f}], host {slow_a:.2f} {slow_b:.2f} {slow_reference:.2f}'; then
  # The host figures are a median over a minimum: never under 1.
  if grep -qE '^xor_loop/5000 against xor_loop/1000: slower [0-9]+ rounds, ratio [0-9.]+ \[[0-9.]+, [0-9.]+\], host( [1-9][0-9]*\.[0-9]{2}){3}$' "$work/out"; then
    pass
  else
    fail "line: $(cat "$work/out")"
  fi
fi
if expect 0 csv -- ab xor_loop/1000 xor_loop/1000 "${tiny[@]}" --format csv; then
  if head -1 "$work/out" | grep -qx 'pair,round,a,b,a_first,a_min_ticks,b_min_ticks,ratio,disturbed,reference_ticks,context_switches'; then
    pass
  else
    fail "csv: header $(head -1 "$work/out")"
  fi
  if [ "$(sed -n 2p "$work/out" | cut -d, -f1-4)" = '1,1,"xor_loop/1000","xor_loop/1000"' ]; then pass; else
    fail "csv: first row $(sed -n 2p "$work/out")"
  fi
fi
if expect 0 markdown -- ab xor_loop/1000 xor_loop/1000 "${tiny[@]}" --format markdown; then
  contains_wrapped out "| A | B | B/A | change | 95% interval | verdict | rounds | disturbed | host A / B |" markdown
  contains_wrapped out "| xor_loop/1000 | xor_loop/1000 | " markdown
  if grep -qE '^\| xor_loop/1000 \|.* \| [1-9][0-9]*\.[0-9]{2}x / [1-9][0-9]*\.[0-9]{2}x \|$' "$work/out"; then pass; else
    fail "markdown: no host cell in $(tail -1 "$work/out")"
  fi
fi

# SIGINT and SIGTERM mid-run: what was measured is reported, and the exit code says which signal.
interrupt() {
  local sig=$1 code=$2
  # The previous run's log must be gone before this one starts: the shell truncates it in the
  # child, after the fork, and a look at it before then would find the old ready mark.
  rm -f "$work/err"
  "$harness" ab xor_loop/2000000 xor_loop/2000000 --warmup 0 --max-time 600s --target 0.000001% \
    --log-level debug >"$work/out" 2>"$work/err" &
  local pid=$!
  if ! wait_for "$pid" grep -qs "ab: xor_loop/2000000 vs xor_loop/2000000: measured round 1 taken" \
    "$work/err"; then
    fail "SIG$sig: the rounds never logged their first"
    kill -KILL "$pid" 2>/dev/null
    wait "$pid"
    return
  fi
  kill "-$sig" "$pid"
  wait "$pid"
  local got=$?
  if [ "$got" -eq "$code" ]; then pass; else fail "SIG$sig: exit code $got, expected $code"; fi
  contains_wrapped out "stopped: interrupted" "SIG$sig"
  contains_wrapped out "interrupted: the figures are what came before" "SIG$sig"
}
interrupt INT 130
interrupt TERM 143

# A signal while the report is being written ends the command after the write (lib.sh).
signal_while_writing ab-signal-while-writing TERM 143 ab -- ab xor_loop/1000 xor_loop/1000 \
  "${tiny[@]}" --format json -o "$work/report.fifo"

echo "ab e2e: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
