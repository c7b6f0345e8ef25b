#!/usr/bin/env bash
# Issue 30 end to end: the CPU counters on this machine (the software set read, the hardware
# counters read or reported with the kernel's reason), a workload that maps fresh pages showing its
# page faults per call, the prepared phase's CPU migrations (the pin's check), --counters' bad
# values, and --instructions under valgrind (the same count in every call and in every process,
# exact ratios in `run` and `ab`). No time or noise level is asserted; the figures are printed.
# Usage: counters_e2e.sh PATH/TO/harness
set -u
harness=${1:?usage: counters_e2e.sh PATH/TO/harness}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"

# Fresh pages: 64 pages mapped and touched a call are at least 64 minor page faults a call.
if expect 0 fresh-pages -- -w fresh_pages/64 -n 6 --warmup 10ms --max-time 100ms \
  -o "$work/pages.json"; then
  contains out "  counters    a call at the min: " fresh-pages
  contains out "(held: 0 cpu-migrations" fresh-pages
  fits_schema fresh-pages "$work/pages.json"
  if python3 - "$work/pages.json" <<'PY'; then pass; else fail "fresh-pages: counters"; fi
import json, sys
w = json.load(open(sys.argv[1]))["harness"]["workloads"][0]
status = {s["name"]: s for s in w["counters"]["status"]}
assert len(status) == 12, status
for name, s in status.items():
    # Every counter asked for opened, or says why not (the errno's name in its reason).
    assert s["available"] or ("(E" in s["reason"] and s["error_code"] > 0), s
for name in ("task-clock", "page-faults", "context-switches", "cpu-migrations"):
    assert status[name]["available"], status[name]
prepared = [p for p in w["phases"] if p["phase"] == "prepared"][0]
faults = prepared["counters"]["per_call"]["page-faults"]
print(f"fresh_pages/64: page faults per call at the floor sample {faults['at_floor']}, "
      f"at the median sample {faults['at_median']}")
assert faults["at_floor"] >= 64 and faults["at_median"] >= 64, faults
check = w["counters"]["pin_check"]
print(f"prepared phase: {check['prepared_migrations']} CPU migrations, pinned {check['pinned']}: "
      f"{check['text']}")
assert check["pinned"] and check["prepared_migrations"] == 0, check
unavailable = [n for n, s in status.items() if not s["available"]]
print("not available:", ", ".join(unavailable) or "none",
      "-", status[unavailable[0]]["reason"] if unavailable else "")
rows = json.load(open(sys.argv[1]))["benchmarks"]
mins = [r for r in rows if r["name"] == "fresh_pages/64_min"]
assert mins and mins[0]["page-faults"] >= 64, mins
PY
fi

# The same through every other writer: CSV's columns, Markdown's table, --line's tokens.
if expect 0 fresh-pages-csv -- -w fresh_pages/16 -n 3 --warmup 0 --no-baseline --format csv; then
  contains out ",error,task-clock,page-faults," fresh-pages-csv
fi
if expect 0 fresh-pages-md -- -w fresh_pages/16 -n 3 --warmup 0 --no-baseline --format markdown; then
  contains out "#### CPU counters" fresh-pages-md
  contains out "the pin held: 0 cpu-migrations in the prepared phase" fresh-pages-md
fi
if expect 0 fresh-pages-line -- -w fresh_pages/16 -n 3 --warmup 0 --no-baseline \
  --line '{phase} {page_faults:.0f} {phase_migrations:.0f} {cycles}'; then
  if grep -Eq '^prepared (1[6-9]|[2-9][0-9]) 0 ' "$work/out"; then pass; else
    fail "fresh-pages-line: $(cat "$work/out")"
  fi
fi

# A process that starts on the CPU it pins to keeps it: no cpu-migration in the prepared phase.
# Linux counts a migration at the thread's next context switch, and one made before the counters
# opened (at fork or exec) used to land there with --warmup 0: 15 of 15 processes said "the pin
# did NOT hold: 1 cpu-migrations" (the sleep after opening them, platform/linux.cpp).
first_cpu=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*\([0-9]*\).*/\1/p' /proc/self/status)
for i in 1 2 3; do
  if taskset -c "$first_cpu" "$harness" -w fresh_pages/16 -n 3 --warmup 0 --no-baseline \
    --cpu "$first_cpu" --line '{phase} {phase_migrations:.0f}' >"$work/out" 2>"$work/err"; then
    if grep -qx 'prepared 0' "$work/out"; then pass; else
      fail "pinned-in-place-$i: $(cat "$work/out")"
    fi
  else fail "pinned-in-place-$i: exit $?: $(head -3 "$work/err")"; fi
done

# --counters none reads nothing; a bad list is exit 2 naming the bad id and the accepted ones.
if expect 0 counters-none -- -w empty -n 3 --warmup 0 --counters none -o "$work/none.json"; then
  lacks out "  counters " counters-none
  if python3 -c '
import json, sys
w = json.load(open(sys.argv[1]))["harness"]["workloads"][0]
assert w["counters"]["requested"] == 0 and all(p["counters"] is None for p in w["phases"]), w
' "$work/none.json"; then pass; else fail "counters-none: counters in the JSON"; fi
fi
if expect 2 counters-bad -- -w empty --counters task-clock,bogus; then
  contains err "'bogus' is no counter; accepted: none, default, software, hardware" counters-bad
fi
expect 2 cache-sim-alone -- -w empty --cache-sim && contains err "--cache-sim only applies with --instructions" cache-sim-alone

# --instructions without valgrind on the PATH: exit 2, the Debian package named, nothing run.
mkdir -p "$work/nopath"
if PATH="$work/nopath" expect 2 no-valgrind -- -w empty --instructions; then
  contains err "install the Debian package valgrind" no-valgrind
fi
# A file named valgrind that is not executable is passed over, as the shell's PATH search does.
printf '#!/bin/sh\nexit 0\n' >"$work/nopath/valgrind"
chmod 644 "$work/nopath/valgrind"
if PATH="$work/nopath" expect 2 valgrind-not-executable -- -w empty --instructions; then
  contains err "no executable valgrind on PATH" valgrind-not-executable
fi

if command -v valgrind >/dev/null; then
  # The same count in every call and in every process.
  counts=()
  for i in 1 2 3 4 5; do
    if expect 0 "instructions-$i" -- -w xor_loop/1000000 -n 3 --warmup 0 --no-baseline \
      --instructions -o "$work/i$i.json"; then
      counts+=("$(python3 -c '
import json, sys
n = json.load(open(sys.argv[1]))["harness"]["workloads"][0]["instructions"]
assert n["same_in_every_call"] and n["counted_under"] == "valgrind", n
print(n["per_call"])' "$work/i$i.json")")
    fi
  done
  contains out "counted under Valgrind" instructions-5
  fits_schema instructions "$work/i5.json"
  echo "xor_loop/1000000 under callgrind, 5 processes: ${counts[*]}"
  if [ "${#counts[@]}" -eq 5 ] && [ "$(printf '%s\n' "${counts[@]}" | sort -u | wc -l)" -eq 1 ]; then
    pass
  else fail "instructions: not the same count in 5 processes: ${counts[*]}"; fi
  # The same count in --line's {counted_instructions} and in CSV's column, on every row.
  if expect 0 instructions-line -- -w xor_loop/1000000 -w empty -n 3 --warmup 0 --no-baseline \
    --instructions --line '{workload} {phase} {counted_instructions}' -o "$work/i.csv"; then
    contains out "xor_loop/1000000 prepared ${counts[0]:-none}" instructions-line
    if python3 - "$work/i.csv" "${counts[0]:-none}" <<'PY'; then pass; else fail "instructions-line: CSV"; fi
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
xor = [r for r in rows if r["workload"] == "xor_loop/1000000"]
assert xor and all(r["counted_instructions"] == sys.argv[2] for r in xor), xor[:2]
empty = [r for r in rows if r["workload"] == "empty"]
assert empty and all(int(r["counted_instructions"]) < 1000 for r in empty), empty[:2]
PY
  fi
  # Twice the iterations, twice the instructions, within the call's few of its own.
  if expect 0 instructions-double -- -w xor_loop/2000000 -w xor_loop/1000000 -n 3 --warmup 0 \
    --no-baseline --instructions --cache-sim -o "$work/double.json"; then
    if python3 - "$work/double.json" <<'PY'; then pass; else fail "instructions-double"; fi
import json, sys
w = json.load(open(sys.argv[1]))["harness"]["workloads"]
two, one = (x["instructions"]["per_call"] for x in w)
print(f"xor_loop/2000000 over xor_loop/1000000: {two} / {one} = {two / one:.6f}")
assert abs(two / one - 2) <= 0.001
assert w[0]["instructions"]["l1_misses_per_call"] is not None
PY
  fi
  # ab: B's instructions over A's, exact.
  if expect 0 ab-instructions -- ab xor_loop/1000000 xor_loop/1010000 --warmup 50ms --max-time 300ms \
    --instructions -o "$work/ab.json"; then
    contains_wrapped out "instructions: B/A 1.0100 exactly, counted under Valgrind" ab-instructions
    if python3 - "$work/ab.json" <<'PY'; then pass; else fail "ab-instructions: ratio"; fi
import json, sys
n = json.load(open(sys.argv[1]))["ab"]["instructions"]
print(f"ab --instructions xor_loop/1010000 over xor_loop/1000000: {n['ratio']:.6f}")
assert abs(n["ratio"] - 1.01) <= 0.0001, n
PY
  fi
  # Two builds: each side counted in its own binary (here the same one: exactly 1).
  if expect 0 ab-builds-instructions -- ab --a "$harness" --b "$harness" xor_loop/100000 \
    --pairs 1 --warmup 10ms --max-time 200ms --instructions -o "$work/abb.json"; then
    if python3 - "$work/abb.json" <<'PY'; then pass; else fail "ab-builds-instructions: ratio"; fi
import json, sys
n = json.load(open(sys.argv[1]))["ab"]["instructions"]
assert n["ratio"] == 1.0 and n["a"]["per_call"] > 0, n
PY
  fi
else
  echo "counters_e2e: valgrind is not installed: --instructions' counts not checked"
fi

# A count Valgrind cannot give, or one a signal cuts short, is said, and the timed report is still
# given without it (run, ab, ab of two builds): exit 1 for the failed count, 130/143 for the
# signal. A fake valgrind first on the PATH stands for both; the real one is not needed.
mkdir -p "$work/failing" "$work/hanging"
printf '#!/bin/sh\necho "valgrind: fake: cannot run here" >&2\nexit 1\n' >"$work/failing/valgrind"
printf '#!/bin/sh\n: >"%s"\nexec sleep 97\n' "$work/hanging.started" >"$work/hanging/valgrind"
chmod +x "$work/failing/valgrind" "$work/hanging/valgrind"
uncounted_report() { # NAME KEY: $work/u.json whole, with no instructions
  if python3 - "$work/u.json" "$2" <<'PY'; then pass; else fail "$1: the report"; fi
import json, sys
d = json.load(open(sys.argv[1]))
if sys.argv[2] == "run":
    w = d["harness"]["workloads"][0]
    assert w.get("instructions") is None and w["phases"], w.keys()
else:
    assert d["ab"].get("instructions") is None and d["ab"]["pairs"], d["ab"].keys()
PY
}
# Each case: its name, the report's kind (run or ab), the signal to stop the count with, and the
# command line.
uncounted_cases=(
  "run run INT run -w xor_loop/1000 -n 3 --warmup 0 --no-baseline"
  "ab ab TERM ab xor_loop/1000 xor_loop/1010 --warmup 0 --max-time 50ms"
  "ab-builds ab INT ab --a $harness --b $harness xor_loop/1000 --pairs 1 --warmup 0 --max-time 50ms"
)
for case in "${uncounted_cases[@]}"; do
  read -r -a parts <<<"$case"
  name=${parts[0]} key=${parts[1]} sig=${parts[2]} args=("${parts[@]:3}")
  rm -f "$work/u.json"
  if PATH="$work/failing:$PATH" expect 1 "$name-valgrind-fails" -- "${args[@]}" --instructions \
    -o "$work/u.json"; then
    contains err "--instructions: valgrind counting xor_loop/1000 exited with status 1" \
      "$name-valgrind-fails"
    contains err "valgrind: fake: cannot run here" "$name-valgrind-fails"
    uncounted_report "$name-valgrind-fails" "$key"
  fi
  rm -f "$work/u.json" "$work/hanging.started"
  PATH="$work/hanging:$PATH" "$harness" "${args[@]}" --instructions -o "$work/u.json" \
    >"$work/out" 2>"$work/err" &
  pid=$!
  if ! wait_for "$pid" test -e "$work/hanging.started"; then
    fail "$name-SIG$sig: valgrind was never started"
    kill -KILL "$pid" 2>/dev/null
    wait "$pid"
    continue
  fi
  kill "-$sig" "$pid"
  wait "$pid"
  got=$?
  code=$([ "$sig" = INT ] && echo 130 || echo 143)
  if [ "$got" -eq "$code" ]; then pass; else fail "$name-SIG$sig: exit $got, expected $code"; fi
  contains err "--instructions: interrupted" "$name-SIG$sig"
  uncounted_report "$name-SIG$sig" "$key"
  if pgrep -fx "sleep 97" >/dev/null; then
    fail "$name-SIG$sig: the fake valgrind was left running"
  else pass; fi
done

echo "counters_e2e: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
