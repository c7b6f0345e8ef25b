#!/usr/bin/env bash
# End-to-end tests of the `harness` binary with tiny budgets: output structure and exit codes.
# No test here asserts a time or a noise level.
# Usage: run_e2e.sh PATH/TO/harness
set -u
harness=${1:?usage: run_e2e.sh PATH/TO/harness}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
passed=0
failed=0

fail() { echo "FAIL: $*"; failed=$((failed + 1)); }
pass() { passed=$((passed + 1)); }

# expect CODE NAME -- ARGS...: runs harness, checks the exit code, keeps stdout/stderr for checks.
expect() {
  local code=$1 name=$2
  shift 3
  "$harness" "$@" >"$work/out" 2>"$work/err"
  local got=$?
  if [ "$got" -ne "$code" ]; then
    fail "$name: exit code $got, expected $code (harness $*)"
    sed 's/^/    | /' "$work/err" | head -20
    return 1
  fi
  pass
}

# contains FILE TEXT NAME: FILE (out or err) contains the fixed string TEXT.
contains() {
  if grep -qF -- "$2" "$work/$1"; then pass; else
    fail "$3: $1 lacks '$2'"
    sed 's/^/    | /' "$work/$1" | head -40
  fi
}
lacks() {
  if grep -qF -- "$2" "$work/$1"; then fail "$3: $1 has '$2'"; else pass; fi
}

# The default run: xor_loop, first call and both phases, every sample listed.
if expect 0 default -- -n 5 --warmup 10ms; then
  for text in "clock: " "xor_loop/32000000" "first call (cold, alone):" "baseline: 5 samples" \
    "prepared: 5 samples" "ticks:" "<-- lowest" "preparation:" "pin to CPU" "read back: CPUs" \
    "warmup: 10 ms requested" "summary" "spread %"; do
    contains out "$text" default
  done
fi

# A glob over names.
if expect 0 glob -- -w 'sort*' -n 5 --warmup 50ms; then
  contains out "sort_ints/10000" glob
  contains out "prepared: 5 samples" glob
fi

# Several workloads: samples are listed only with --detail; the summary names each one.
if expect 0 several -- -w empty -w memcpy_bytes/1024 -n 3 --warmup 0 --no-baseline; then
  contains out "memcpy_bytes/1024" several
  contains out "warmup: disabled" several
  lacks out "baseline:" several
  lacks out "<-- highest" several
fi
if expect 0 detail -- -w empty -w file_open_close -n 3 --warmup 0 --detail; then
  contains out "ticks:" detail
fi

# `run` as a subcommand is the same as no subcommand.
expect 0 run-subcommand -- run -w unordered_map_insert/10 -n 2 --warmup 0 && contains out "unordered_map_insert/10" run-subcommand

# list
if expect 0 list -- list; then
  for w in xor_loop empty sort_ints memcpy_bytes unordered_map_insert file_open_close; do contains out "$w" list; done
fi

# Help shows examples.
expect 0 help -- --help && contains out "Examples:" help

# Bad input: exit 2, a message naming the value and what is accepted, no run.
bad() {
  local name=$1 message=$2
  shift 2
  if expect 2 "$name" -- "$@"; then
    contains err "$message" "$name"
    lacks out "first call" "$name"
  fi
}
bad cpu "allowed CPUs: " --cpu 99 -n 2 --warmup 0
bad unknown-workload "known workloads:" -w no_such_thing
bad unknown-option "--frobnicate" --frobnicate
bad samples-zero "expected a positive integer" --samples 0
bad samples-negative "'-4'" -n -4
bad duration-malformed "invalid duration '10 parsecs'" --warmup "10 parsecs"
bad duration-negative "it is negative" --warmup -5ms
bad duration-no-unit "the unit is missing" --warmup 100
bad arg-on-plain "'empty' takes no argument" -w empty/5
bad arg-malformed "invalid argument 'lots'" -w xor_loop/lots
bad priority "expected normal, high or realtime" --priority turbo

# As a user without privileges: pinning works, the priority raise is refused and reported, the
# run goes on. Needs root to drop to nobody; skipped (and said) otherwise.
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
  cp "$harness" "$work/harness-copy" && chmod 755 "$work" "$work/harness-copy"
  setpriv --reuid=65534 --regid=65534 --clear-groups "$work/harness-copy" -w empty -n 3 --warmup 0 \
    >"$work/out" 2>"$work/err"
  code=$?
  if [ "$code" -eq 0 ]; then pass; else fail "non-root: exit code $code"; fi
  contains out "pin to CPU" non-root
  contains out "REFUSED: Permission denied (EACCES)" non-root
  contains err "refused" non-root
else
  echo "SKIP: non-root run (needs root and setpriv to drop privileges)"
fi

echo "e2e: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
