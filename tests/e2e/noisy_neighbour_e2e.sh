#!/usr/bin/env bash
# bench/noisy_neighbour, the load bench/ab_sensitivity.sh measures against: bad inputs exit 2 and
# name the value, a short run exits 0 with its summary, and its log holds one line a burst. It
# loads a CPU for 0.3 s in all.
# Usage: noisy_neighbour_e2e.sh PATH/TO/noisy_neighbour
set -u
neighbour=${1:?usage: noisy_neighbour_e2e.sh PATH/TO/noisy_neighbour}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
passed=0
failed=0
fail() { echo "FAIL: $*"; failed=$((failed + 1)); }
pass() { passed=$((passed + 1)); }

bad() {  # NAME MESSAGE ARGS...
  local name=$1 message=$2
  shift 2
  "$neighbour" "$@" >"$work/out" 2>"$work/err"
  local got=$?
  if [ "$got" -ne 2 ]; then fail "$name: exit $got, expected 2"; return; fi
  if grep -qF -- "$message" "$work/err"; then pass; else fail "$name: stderr lacks '$message'"; fi
}
bad burst-range "--burst-ms: invalid value '300-10'" --burst-ms 300-10
bad idle-word "--idle-ms: invalid value 'long'" --idle-ms long
bad kind "--kind: invalid value 'disk': expected alu, memory or mixed" --kind disk
bad cpu "--cpu: 4095 is not among the CPUs allowed here" --cpu 4095
bad log-folder "--log: cannot write '$work'" --log "$work" --seconds 0.1

if "$neighbour" --seconds 0.3 --seed 5 --burst-ms 10-20 --idle-ms 10-20 --log "$work/log.csv" \
  >"$work/out" 2>"$work/err"; then
  pass
  if grep -qE '^noisy_neighbour: CPU [0-9]+, seed 5: [0-9]+ alu and [0-9]+ memory bursts, busy ' \
    "$work/err"; then pass; else fail "summary: $(cat "$work/err")"; fi
  bursts=$(($(wc -l <"$work/log.csv") - 1))
  if [ "$(head -1 "$work/log.csv")" = "start_seconds,kind,busy_ms,idle_ms" ] && [ "$bursts" -ge 5 ]; then
    pass
  else
    fail "log: $bursts bursts in 0.3 s of 10-20 ms bursts and gaps"
  fi
else
  fail "short run exited $?: $(cat "$work/err")"
fi

echo "noisy_neighbour e2e: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
