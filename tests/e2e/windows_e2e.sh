#!/usr/bin/env bash
# End-to-end test of the Windows `harness.exe`, run under Wine (or natively with HARNESS_WINE=""):
# a tiny run whose report must show the pinning applied and read back and both phases sampled with
# a QPC or TSC clock, `harness clocks` listing QueryPerformanceCounter as available and every
# unavailable source with its reason, and `harness doctor` reading the Win32 facts back (affinity
# mask, priority class, power plan or the error that kept it unread). No check here asserts a time
# or a noise level.
#
# With a Google Benchmark binary (tests/gbench/gbench_fixture.cpp cross-built), `harness gbench`
# too: the child started suspended, pinned and raised on its handle, read back, then resumed. And
# `harness ab --a --b` with two copies of harness.exe as its workers.
#
# Usage: windows_e2e.sh PATH/TO/harness.exe [PATH/TO/gbench_fixture.exe]
set -u
harness=${1:?usage: windows_e2e.sh PATH/TO/harness.exe [PATH/TO/gbench_fixture.exe]}
fixture=${2:-}
read -r -a runner <<<"${HARNESS_WINE-wine}"
work=$(mktemp -d)
# No run reads or writes the user's history of floors (history.hpp).
export HARNESS_HISTORY=off
trap 'rm -rf "$work"' EXIT
passed=0
failed=0

fail() {
  echo "FAIL: $*"
  failed=$((failed + 1))
}
pass() { passed=$((passed + 1)); }
show() { sed 's/^/    | /' "$work/$1" | head -60; }

# run NAME ARGS...: runs harness.exe, expects exit code 0, keeps stdout and stderr.
run() {
  local name=$1
  shift
  "${runner[@]}" "$harness" "$@" >"$work/out" 2>"$work/err"
  local got=$?
  # Windows writes text with CRLF line ends.
  sed -i 's/\r$//' "$work/out" "$work/err"
  if [ "$got" -ne 0 ]; then
    fail "$name: exit code $got (harness $*)"
    show err
    show out
    return 1
  fi
  pass
}
contains() {  # NAME EXTENDED-REGEX: stdout matches
  if grep -qE -- "$2" "$work/out"; then pass; else
    fail "$1: output lacks /$2/"
    show out
  fi
}
# contains_wrapped NAME EXTENDED-REGEX: as contains, over `ab`'s console block with its wrapped
# lines joined again (a line break and an indent of 3 or more read as one space).
contains_wrapped() {
  if perl -0pe 's/\r?\n {3,}/ /g' "$work/out" | grep -qE -- "$2"; then pass; else
    fail "$1: output lacks /$2/"
    show out
  fi
}

# A tiny run: both phases in blocks, each floor reported, pinned through SetProcessAffinityMask,
# the pin read back.
if run run -n 5 --warmup 50ms --max-time 200ms --detail; then
  contains run "baseline: 5 samples in 5 blocks"
  contains run "prepared: "
  contains run "    floor: "
  contains run "^clock: (rdtsc|rdtscp|lfence_rdtsc|QueryPerformanceCounter) "
  contains run "pin to CPU [0-9]+ \(SetProcessAffinityMask\): applied"
  contains run "SetPriorityClass\): applied"
  pinned=$(sed -nE 's/.*pin to CPU ([0-9]+) \(SetProcessAffinityMask\): applied.*/\1/p' "$work/out" |
    head -1)
  if [ -n "$pinned" ]; then
    contains run "read back: CPUs $pinned \(were "
  fi
fi

# harness ab (issue 26): two workloads in paired rounds, pinned through SetProcessAffinityMask,
# answered with an interval and a verdict.
if run ab ab xor_loop/1000 xor_loop/5000 --warmup 10ms --max-time 200ms; then
  # Widened to reach the halves' medians when either lies outside (docs/ab.md, "How it works"):
  # it depends on the rounds, so the clause may or may not be there.
  contains_wrapped ab "^  B is [0-9.]+% slower than A \[\+[0-9.]+%, \+[0-9.]+%\] \(95%, median of [0-9]+ round ratios(, widened to reach the rounds A ran first, [+-][0-9.]+%, and those B ran first, [+-][0-9.]+%)?, widened \+-[0-9.]+% for the clock's step\)$"
  contains_wrapped ab "^  verdict: slower: "
  contains_wrapped ab "pin to CPU [0-9]+ \(SetProcessAffinityMask\): applied"
fi

# -o NUL: the null device, written in place (output_file.hpp); no file named NUL, nor a
# temporary file beside it, appears in the working folder.
mkdir -p "$work/cwd"
back=$PWD
cd "$work/cwd" || exit 1
if run nul-output -w empty -n 3 --warmup 0 --format json -o NUL; then
  if [ -z "$(ls -A "$work/cwd")" ]; then pass; else
    fail "nul-output: made $(ls -A "$work/cwd")"
  fi
fi
cd "$back" || exit 1

# The clock survey: QPC measured (listed before the unavailable ones); every unavailable source
# (QueryThreadCycleTime under Wine) named with a reason.
if run clocks clocks; then
  if sed '/^Unavailable here:/,$d' "$work/out" | grep -qE '^ *QueryPerformanceCounter '; then pass; else
    fail "clocks: QueryPerformanceCounter is not among the measured sources"
    show out
  fi
  contains clocks "^Default sampling clock: "
  sed -n '/^Unavailable here:/,/^$/p' "$work/out" | sed '1d;/^$/d' >"$work/unavailable"
  while read -r source reason; do
    if [ -n "$reason" ]; then pass; else fail "clocks: $source is unavailable without a reason"; fi
  done <"$work/unavailable"
fi

# The doctor on Windows: Win32 facts read back, "unknown" with a reason for the rest. Under Wine
# PowerGetActiveScheme is not implemented, so the power plan may be unknown with its error.
if run doctor doctor; then
  contains doctor "^ok +Affinity mask: the process may run on CPUs [0-9,-]+ \(mask 0x[0-9a-f]+\) .*GetProcessAffinityMask"
  contains doctor "^(ok|warn) +Right to raise priority: process at [A-Z_]+_PRIORITY_CLASS, thread at THREAD_PRIORITY_[A-Z_]+ "
  contains doctor "^(ok|warn|unknown) +Power plan: (active power plan '.*' \{[0-9a-f-]+\}|PowerGetActiveScheme failed: .*\(error [0-9]+\))"
  contains doctor "^(ok|warn) +Load on each CPU: busy over [0-9.]+ m?s \(NtQuerySystemInformation\)"
  contains doctor "^unknown +Steal time .*: not read on Windows: "
  contains doctor "^summary: [0-9]+ ok, [0-9]+ warn, [0-9]+ unknown$"
fi
if run doctor-json doctor --json; then
  if python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["system"] == "windows", d["system"]
checks = {c["id"]: c for c in d["checks"]}
for need in ("load", "power_plan", "smt", "hypervisor", "tsc", "priority", "affinity"):
    assert need in checks, need
for c in checks.values():
    assert c["status"] in ("ok", "warn", "unknown"), c
    assert c["fact"], c
assert checks["affinity"]["status"] == "ok", checks["affinity"]
assert d["cpu"] in d["allowed_cpus"], d
' "$work/out"; then pass; else
    fail "doctor-json: not the Windows checks"
    show out
  fi
fi
# --root runs the Linux checks over a tree, on Windows too.
data=$(cd "$(dirname "$0")/../data/doctor" && pwd)
if run doctor-root doctor --root "$data/tuned"; then
  contains doctor-root "^ok +CPU frequency governor: CPU [0-9]+: governor performance"
fi

# harness gbench (issue 17): both phases from a Google Benchmark binary, each prepared invocation
# created suspended, pinned and raised, read back, resumed.
if [ -n "$fixture" ]; then
  if run gbench gbench --detail -n 2 --blocks 2 --warmup 10ms --min-time 5ms -- "$fixture" \
    --benchmark_filter=BM_sum; then
    contains gbench "^  baseline: 2 samples in 2 invocations"
    contains gbench "^  prepared: 2 samples in 2 invocations"
    contains gbench "pin to CPU [0-9]+ \(SetProcessAffinityMask\): applied"
    contains gbench "HIGH_PRIORITY_CLASS \(SetPriorityClass\): applied"
    contains gbench "read back: CPUs [0-9]+ \(were "
  fi
fi

# harness ab with two builds (issue 26): two copies of harness.exe as workers, spoken to over
# pipes (the parent's end overlapped), each created suspended, pinned and raised, then resumed.
# Under Wine a message over those pipes can take milliseconds on a busy host: a pair once took 3
# rounds (of the 6 an answer needs) in 200 ms, so each pair gets a second.
cp "$harness" "$work/a.exe" && cp "$harness" "$work/b.exe"
if run ab-builds ab --a "$work/a.exe" --b "$work/b.exe" xor_loop/100000 --warmup 10ms \
  --max-time 1s --pairs 2; then
  contains_wrapped ab-builds "^A: xor_loop/100000 of .*a\.exe \(xxh3:"
  contains_wrapped ab-builds "\(95%, over 2 pairs of processes, widened \+-[0-9.]+% for the clock's step\)"
  contains_wrapped ab-builds "workers: 2 of 2 pairs, layout turns"
  contains_wrapped ab-builds "A worker: pin to CPU [0-9]+ \(SetProcessAffinityMask\): applied"
  contains_wrapped ab-builds "B worker: HIGH_PRIORITY_CLASS \(SetPriorityClass\): applied"
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
