#!/usr/bin/env bash
# `harness ab --a BIN --b BIN WORKLOAD` end to end (issue 26, two builds), with two copies of the
# harness binary (two paths, the same bytes) and tiny budgets: the report of two pairs of workers
# in both layouts and its JSON, the workers pinned and raised while the parent is left as it was,
# SIGINT and SIGTERM stopping after the round with what was gathered, and no worker left
# running. No check here asserts a time, a ratio or a verdict: tiny budgets on a shared machine
# decide nothing. The bad inputs (a worker that crashes, hangs or speaks garbage, clocks that
# differ) are bad_inputs_e2e.sh's.
# Usage: ab_builds_e2e.sh PATH/TO/harness
set -u
harness=${1:?usage: ab_builds_e2e.sh PATH/TO/harness}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
export TMPDIR=$work/tmp  # the workers' stderr goes here, and must be gone afterwards
mkdir -p "$TMPDIR" "$work/a" "$work/b"
cp "$harness" "$work/a/harness" && cp "$harness" "$work/b/harness"
a=$work/a/harness
b=$work/b/harness
tiny=(--warmup 10ms --max-time 200ms --pairs 2)

no_worker_left() {
  if pgrep -f -- "^$work/[ab]/harness" >/dev/null; then
    fail "$1: a worker is still running: $(pgrep -a -f -- "^$work/[ab]/harness")"
  else
    pass
  fi
  if [ -z "$(ls -A "$TMPDIR")" ]; then pass; else fail "$1: files left in TMPDIR: $(ls "$TMPDIR")"; fi
}

# Turns (the default): two pairs of fresh workers, each pinned and raised, the interval over them.
# 1 s a pair, as windows_e2e gives it: both pairs must answer (6 rounds at least), and under the
# sanitizers on a busy CI host one pair took fewer than 6 rounds in 200 ms.
if expect 0 turns -- ab --a "$a" --b "$b" xor_loop/100000 --warmup 10ms --max-time 1s --pairs 2 \
  --log-level info -o "$work/turns.json"; then
  fits_schema "turns: turns.json" "$work/turns.json"
  contains_wrapped out "A: xor_loop/100000 of $a (xxh3:" turns
  contains_wrapped out "B: xor_loop/100000 of $b (xxh3:" turns
  contains_wrapped out "(95%, over 2 pairs of processes, widened +-" turns
  contains_wrapped out "% for the clock's step)" turns
  contains_wrapped out "  pair 1: " turns
  contains_wrapped out "  pair 2: " turns
  contains_wrapped out "its width comes from the spread" turns
  contains_wrapped out "workers: 2 of 2 pairs, layout turns (the two take turns on one CPU)" turns
  contains_wrapped out "A worker: pin to CPU " turns
  contains_wrapped out "B worker: nice -20 (setpriority): " turns
  grep -qE "verdict: (faster|slower|same|unsure): " "$work/out" && pass || fail "turns: no verdict"
  # Four workers, each started and ready once.
  [ "$(grep -c "worker started, pid " "$work/err")" -eq 4 ] && pass || fail "turns: not 4 workers"
  [ "$(grep -c "): ready, pid " "$work/err")" -eq 4 ] && pass || fail "turns: not 4 ready"
  if python3 - "$work/turns.json" "$a" "$b" <<'EOF'; then pass; else fail "turns: the JSON's content"; fi
import json, sys
d = json.load(open(sys.argv[1]))
ab = d["ab"]
assert d["harness"]["kind"] == "ab"
assert ab["mode"] == "builds", ab["mode"]
assert ab["options"]["layout"] == "turns" and ab["options"]["pairs"] == 2, ab["options"]
# Two builds take the balanced order by default: every round starts with A.
assert ab["options"]["order"] == "balanced", ab["options"]
assert all(r["a_first"] for p in ab["pairs"] for r in p["rounds"]), "a round B ran first"
assert len(ab["pairs"]) == 2 and len(ab["pair_ratios"]) == 2
for p in ab["pairs"]:
    assert p["a"]["build"].startswith(sys.argv[2] + " (xxh3:"), p["a"]["build"]
    assert p["b"]["build"].startswith(sys.argv[3] + " (xxh3:"), p["b"]["build"]
    assert p["a"]["clock"] == p["b"]["clock"] == d["harness"]["clock"]["name"]
    assert len(p["rounds"]) > 0
# Two copies of one binary: the same fingerprint.
assert ab["pairs"][0]["a"]["build"].split(" ")[-1] == ab["pairs"][0]["b"]["build"].split(" ")[-1]
assert ab["answer"]["count"] == 2 and ab["between_pairs"] and ab["pooled_rounds"]
assert ab["answer"]["lower"] <= ab["between_pairs"]["lower"] and ab["answer"]["lower"] <= ab["pooled_rounds"]["lower"]
assert ab["verdict"] in ("faster", "slower", "same", "unsure")
assert len(ab["preparations"]) == 2
EOF
fi
no_worker_left turns

# Duet: the two workers on two CPUs at once, when this process may use two.
if [ "$(nproc)" -ge 2 ]; then
  if expect 0 duet -- ab --a "$a" --b "$b" xor_loop/100000 "${tiny[@]}" --layout duet --format json; then
    fits_schema "duet: stdout JSON" "$work/out"
    if python3 - "$work/out" <<'EOF'; then pass; else fail "duet: the JSON's content"; fi
import json, sys
ab = json.load(open(sys.argv[1]))["ab"]
assert ab["options"]["layout"] == "duet"
prep = ab["preparations"]
pins = [s for p in prep for s in p["applied"] + [r["action"] for r in p["refused"]] if "pin to CPU" in s]
assert len(pins) == 2, pins
assert pins[0].split("pin to CPU ")[1].split(" ")[0] != pins[1].split("pin to CPU ")[1].split(" ")[0], pins
EOF
  fi
  no_worker_left duet
else
  echo "SKIP: duet (one CPU here)"
fi

# One pair: the rounds' interval alone, said so.
if expect 0 one-pair -- ab --a "$a" --b "$b" xor_loop/100000 --warmup 10ms --max-time 200ms --pairs 1; then
  contains_wrapped out "(95%, median of " one-pair
  contains_wrapped out "workers: 1 of 1 pairs" one-pair
fi

# A stop while the rounds run: the workers quit, the report holds what came before, the parent is
# as it was throughout (its affinity and nice value) while the workers were pinned and raised.
stop_check() {
  local sig=$1 code=$2 name=$3
  # A memory-bound workload: its round ratios vary, so the interval never shrinks to the target
  # (an A/A compute-bound one can give identical ratios, a width of 0, and stop at once).
  "$harness" ab --a "$a" --b "$b" memcpy_bytes/4194304 --warmup 10ms --max-time 20s --pairs 3 \
    --target 0.000001% --log-level info >"$work/out" 2>"$work/err" &
  local pid=$!
  for _ in $(seq 1 200); do
    grep -q "B ('$b'): ready" "$work/err" && break
    sleep 0.05
  done
  sleep 0.3
  local worker
  worker=$(grep "B ('$b'): worker started, pid " "$work/err" | head -1 | sed 's/.*pid //')
  if [ -n "$worker" ] && [ -r "/proc/$worker/status" ]; then
    local parent_cpus worker_cpus shell_cpus
    parent_cpus=$(awk '/Cpus_allowed_list/ {print $2}' "/proc/$pid/status")
    shell_cpus=$(awk '/Cpus_allowed_list/ {print $2}' /proc/self/status)
    worker_cpus=$(awk '/Cpus_allowed_list/ {print $2}' "/proc/$worker/status")
    [ "$parent_cpus" = "$shell_cpus" ] && pass || fail "$name: the parent's CPUs $parent_cpus, not $shell_cpus"
    [ "$(ps -o ni= -p "$pid" | tr -d ' ')" = "$(ps -o ni= -p $$ | tr -d ' ')" ] && pass ||
      fail "$name: the parent's nice value changed"
    [ "$worker_cpus" != "$shell_cpus" ] || [ "$(nproc)" -eq 1 ] && pass ||
      fail "$name: the worker is not pinned ($worker_cpus)"
  else
    fail "$name: no worker pid seen in the log"
  fi
  kill "-$sig" "$pid"
  wait "$pid"
  local got=$?
  [ "$got" -eq "$code" ] && pass || fail "$name: exit $got, expected $code"
  contains_wrapped out "interrupted: the figures are what came before" "$name"
  contains_wrapped out "workers: 1 of 3 pairs" "$name"
  no_worker_left "$name"
}
stop_check INT 130 sigint
stop_check TERM 143 sigterm

# A signal while the report is being written ends the command after the write (lib.sh).
signal_while_writing builds-signal-while-writing TERM 143 ab -- ab --a "$a" --b "$b" \
  xor_loop/100000 --warmup 10ms --max-time 200ms --pairs 1 -o "$work/report.fifo" --format json
no_worker_left builds-signal-while-writing

echo "ab builds e2e: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
