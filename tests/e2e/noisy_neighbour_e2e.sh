#!/usr/bin/env bash
# bench/noisy_neighbour: bad inputs exit 2 naming the value, before any load is made or file
# written; a short run exits 0 with its summary, its log has one line per burst, the same seed draws
# the same kinds, and SIGTERM ends it with exit 0 after the summary. It loads a CPU for about 0.6 s
# in all, so it runs alone (tests/CMakeLists.txt gives it every timing test's lock).
# Usage: noisy_neighbour_e2e.sh PATH/TO/noisy_neighbour
set -u
tool=${1:?usage: noisy_neighbour_e2e.sh NOISY_NEIGHBOUR}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# lib.sh's expect runs $harness: here that is the neighbour.
# shellcheck disable=SC2034  # read by lib.sh
harness=$tool
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"

# Bad inputs: exit 2, the message names the flag and the value; nothing is run or written.
while IFS='|' read -r args message; do
  # shellcheck disable=SC2086  # the arguments are split on purpose
  if expect 2 "$args" -- $args --seconds 0.1 --log "$work/bad.csv"; then
    contains err "$message" "$args"
    [ -e "$work/bad.csv" ] && fail "$args: wrote the log" || pass
  fi
done <<'CASES'
--cpu 99999|--cpu: CPU 99999 is not one this process may run on; allowed CPUs:
--cpu -1|--cpu: CPU -1 is not one
--kind cache|--kind: invalid value 'cache': expected alu, memory or mixed
--burst-ms 0-10|--burst-ms: invalid value '0-10'
--burst-ms 300-10|--burst-ms: invalid value '300-10': MIN is greater than MAX
--burst-ms 10-|--burst-ms: invalid value '10-'
--burst-ms ten|--burst-ms: invalid value 'ten'
--idle-ms -5|--idle-ms: invalid value '-5': a length cannot be negative
--idle-ms 10-70000|--idle-ms: invalid value '10-70000'
--buffer-mib 0|--buffer-mib: invalid value '0'
--seed x|--seed
--bogus|--bogus
CASES
for seconds in 0 -1 nan; do
  if expect 2 "--seconds $seconds" -- --seconds "$seconds"; then
    contains err "--seconds: invalid value '$seconds'" "--seconds $seconds"
  fi
done
if expect 2 "log in a missing folder" -- --seconds 0.1 --log "$work/none/bursts.csv"; then
  contains err "--log: cannot write '$work/none/bursts.csv'" "log in a missing folder"
fi

# A short run: exit 0, the summary line on stderr, one CSV line per burst.
summary='^noisy_neighbour: [0-9]+ bursts \(alu [0-9]+, memory [0-9]+\), busy [0-9.]+ s of [0-9.]+ s \([0-9.]+%\), CPU [0-9]+, seed 5$'
if expect 0 "--seconds 0.3 --seed 5" -- --seconds 0.3 --seed 5 --log "$work/bursts.csv"; then
  grep -qE -- "$summary" "$work/err" && pass || fail "--seconds 0.3: no summary line: $(cat "$work/err")"
  bursts=$(sed -nE 's/^noisy_neighbour: ([0-9]+) bursts.*/\1/p' "$work/err")
  [ "$(head -1 "$work/bursts.csv")" = "start_seconds,kind,busy_ms,idle_ms" ] && pass ||
    fail "log header: $(head -1 "$work/bursts.csv")"
  lines=$(($(wc -l <"$work/bursts.csv") - 1))
  [ "$lines" -ge 1 ] && [ "$lines" = "$bursts" ] && pass ||
    fail "log: $lines lines for $bursts bursts"
  grep -vqE '^[0-9.]+,(alu|memory),[0-9.]+,[0-9.]+$' <(tail -n +2 "$work/bursts.csv") &&
    fail "log: malformed line: $(cat "$work/bursts.csv")" || pass
fi

# The same seed draws the same kinds (the lengths are targets, the times as they ran): the first
# ten bursts of two runs of ~30 bursts each.
kinds() { tail -n +2 "$work/$1" | head -10 | cut -d, -f2 | tr '\n' ' '; }
for run in 1 2; do
  "$tool" --seconds 0.1 --seed 5 --burst-ms 1-2 --idle-ms 1-2 --log "$work/seed$run.csv" 2>/dev/null
done
if [ "$(wc -l <"$work/seed1.csv")" -gt 10 ] && [ "$(kinds seed1.csv)" = "$(kinds seed2.csv)" ]; then
  pass
else
  fail "seed 5 twice: different kinds: $(kinds seed1.csv)/ $(kinds seed2.csv)"
fi

# SIGTERM: exit 0 after the summary, promptly (an idle gap sleeps in slices of 20 ms).
"$tool" --kind alu --seed 5 >"$work/out" 2>"$work/err" &
pid=$!
for _ in $(seq 100); do
  grep -q "until SIGINT or SIGTERM" "$work/err" && break
  sleep 0.01
done
kill -TERM "$pid"
wait "$pid"
code=$?
[ "$code" -eq 0 ] && pass || fail "SIGTERM: exit code $code, expected 0"
contains err "stopped by SIGTERM" "SIGTERM"
kill -0 "$pid" 2>/dev/null && fail "SIGTERM: still running" || pass

echo "noisy_neighbour e2e: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
