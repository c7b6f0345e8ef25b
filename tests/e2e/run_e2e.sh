#!/usr/bin/env bash
# End-to-end tests of the `harness` binary with tiny budgets: output structure and exit codes.
# No test here asserts a time or a noise level.
# Usage: run_e2e.sh PATH/TO/harness
set -u
harness=${1:?usage: run_e2e.sh PATH/TO/harness}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"

# The default run: xor_loop, first call and both phases, every sample listed.
# The samples come in blocks, each phase's floor confirmed or not, saying why.
if expect 0 default -- --detail -n 5 --warmup 10ms --max-time 200ms; then
  for text in "clock: " "xor_loop/32000000" "first call (cold, alone):" \
    "baseline: 5 samples in 5 blocks" "prepared: " "block 5, from " "ticks:" "<-- lowest" \
    "preparation:" "pin to CPU" "read back: CPUs" "warmup: 10 ms requested" "    floor: " \
    "blocks (minimum, * within" "fastest reference loop known:" "summary" "spread %"; do
    contains out "$text" default
  done
fi

# A glob over names.
if expect 0 glob -- --detail -w 'sort*' -n 5 --warmup 50ms --max-time 200ms; then
  contains out "sort_ints/10000" glob
  contains out "baseline: 5 samples in 5 blocks" glob
fi

# Several workloads: samples are listed only with --detail; the summary names each one.
if expect 0 several -- -w empty -w memcpy_bytes/1024 -n 3 --warmup 0 --no-baseline; then
  contains out "memcpy_bytes/1024" several
  contains out "summary (ticks of " several
  lacks out "  baseline " several
  lacks out "<-- highest" several
fi
if expect 0 detail -- -w empty -w file_open_close -n 3 --warmup 0 --detail; then
  contains out "ticks:" detail
  contains out "warmup: disabled" detail
fi

# The default report is short: the answer first, a trust line, what preparation changed, at most
# 15 lines a workload and a summary of 100 columns; --detail has the rest.
if expect 0 short -- -w xor_loop/100000 -w empty -n 12 --warmup 10ms --max-time 200ms; then
  for text in "clock: " "  prepared    min " "  baseline    min " "  spread      prepared " \
    "  first call  " "  trust       " "  preparation " "summary (ticks of "; do
    contains out "$text" short
  done
  lacks out "all samples: n" short
  lacks out "why this clock" short
  # The summary in 100 columns. How many lines a workload takes depends on what the real run
  # found (its trust line's causes); the 15-line budget is the unit test's, on a synthetic run.
  if python3 - "$work/out" <<'PY'; then pass; else fail "short: a summary line over 100 columns"; fi
import sys
summary = False
for line in open(sys.argv[1], encoding="utf-8").read().split("\n"):
    summary = summary or line.startswith("summary")
    if summary:
        assert len(line) <= 100, line
assert summary
PY
fi

# `run` as a subcommand is the same as no subcommand.
expect 0 run-subcommand -- --detail run -w unordered_map_insert/10 -n 2 --warmup 0 && contains out "unordered_map_insert/10" run-subcommand

# list
if expect 0 list -- --detail list; then
  for w in xor_loop empty sort_ints memcpy_bytes unordered_map_insert file_open_close; do contains out "$w" list; done
fi

# Help shows examples.
expect 0 help -- --detail --help && contains out "Examples:" help

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
bad clock-unknown "CLOCK_MONOTONIC" --clock no_such_clock
bad samples-word "a positive integer or auto" -n lots
bad target "expected a percentage of the minimum" -n auto --target 0%
bad batch "expected a positive number of calls per sample" --batch 0

# -o never harms what is at the path (output_file.hpp). Every node is made in $work: a clone of
# /dev/null by mknod (skipped where mknod is refused), a link, a folder; never a system path.
tinyo=(-w empty -n 12 --warmup 0 --format json)
if mknod "$work/null" c 1 3 2>/dev/null; then
  expect 0 output-device -- --detail "${tinyo[@]}" -o "$work/null"
  if [ -c "$work/null" ] && [ "$(stat -c %t:%T "$work/null")" = 1:3 ]; then pass; else
    fail "output-device: $work/null is no longer the character device 1:3"
  fi
  ln -s null "$work/stdout"
  expect 0 output-device-link -- --detail "${tinyo[@]}" -o "$work/stdout"
  if [ -L "$work/stdout" ] && [ -c "$work/null" ]; then pass; else
    fail "output-device-link: the link or the device was replaced"
  fi
  rm -f "$work/stdout" "$work/null"
else
  echo "SKIP: -o to a character device: mknod refused"
fi
mkdir -p "$work/real"
echo old >"$work/real/target.json"
ln -s real/target.json "$work/link.json"
if expect 0 output-link -- --detail "${tinyo[@]}" -o "$work/link.json"; then
  fits_schema "output-link: link.json" "$work/link.json"
  if [ -L "$work/link.json" ] && [ "$(readlink "$work/link.json")" = real/target.json ]; then pass; else
    fail "output-link: link.json is no longer the link to real/target.json"
  fi
  if python3 -c 'import json, sys; json.load(open(sys.argv[1]))["harness"]' "$work/real/target.json"
  then pass; else fail "output-link: the target holds no JSON report"; fi
  if [ "$(ls -A "$work/real")" = target.json ]; then pass; else
    fail "output-link: left behind in real/: $(ls -A "$work/real")"
  fi
fi
rm -rf "$work/real" "$work/link.json"
# Refused before any run: exit 2, the path and why, no report on stdout.
mkdir -p "$work/folder"
bad output-folder "it is a directory" "${tinyo[@]}" -o "$work/folder"
lacks out "baseline" output-folder
# A folder has no extension: the path's error comes before the format's.
bad output-folder-no-format "it is a directory" -w empty -n 12 --warmup 0 -o "$work/folder"
bad output-empty "--output: the path is empty" "${tinyo[@]}" -o ''
lacks out "baseline" output-empty
bad output-missing "its folder '$work/missing' does not exist" "${tinyo[@]}" -o "$work/missing/x.json"
if [ -z "$(ls -A "$work/folder")" ] && [ ! -e "$work/missing" ]; then pass; else
  fail "output refusals: something was written"
fi
rm -rf "$work/folder"

# --clock chooses the sampling clock; the report names it and its rate.
if expect 0 clock-choice -- --detail --clock CLOCK_MONOTONIC -w empty -n 3 --warmup 0; then
  contains out "clock: CLOCK_MONOTONIC" clock-choice
  contains out "1000000000 ticks/s" clock-choice
fi
# The default run samples with a TSC source where the TSC is invariant, and says why.
if grep -qw constant_tsc /proc/cpuinfo && grep -qw nonstop_tsc /proc/cpuinfo; then
  expect 0 default-clock -- --detail -w empty -n 3 --warmup 0 && contains out "why this clock:" default-clock
  contains out "rdtsc" default-clock
else
  echo "SKIP: default-clock: /proc/cpuinfo lacks constant_tsc or nonstop_tsc (no invariant TSC)," \
    "so the default clock need not be a TSC source"
fi

# --samples auto ends by the target or by --max-time, and says which.
if expect 0 auto -- --detail -w empty -n auto --max-time 200ms --warmup 0 --no-baseline; then
  contains out "sampling ended:" auto
fi

# The history: written whole after a run, read by the next (which then knows the machine's
# fastest reference loop); a file that is not a harness history is refused and left as it was.
hist=(-w xor_loop/100000 -n 4 --warmup 0 --max-time 100ms)
if expect 0 history-first -- --detail "${hist[@]}" --history "$work/history.json" -o "$work/h1.json"; then
  fits_schema "history-first: h1.json" "$work/h1.json"
  contains out "fastest reference loop remembered: none yet" history-first
  if python3 -c '
import json, sys
h = json.load(open(sys.argv[1]))
assert h["harness_history"] == 1 and h["speeds"] and isinstance(h["floors"], list), h
r = json.load(open(sys.argv[2]))
# The history keeps the lowest block minimum another block agrees with (the agreed floor), or
# nothing when no two blocks agree.
prepared = [p for p in r["harness"]["workloads"][0]["phases"] if p["phase"] == "prepared"][0]
m = sorted(prepared["floor"]["block_minimums_ticks"])
tol = prepared["floor"]["tolerance_ticks"]
agreed = next((m[i] for i in range(len(m) - 1) if m[i + 1] - m[i] <= tol), None)
kept = [f["floor_ticks"] for f in h["floors"]]
assert kept == ([] if agreed is None else [agreed]), (kept, agreed, m, tol)
for w in r["harness"]["workloads"]:
    for p in w["phases"]:
        if p["phase"] == "first":
            continue
        f = p["floor"]
        assert isinstance(f["confirmed"], bool) and f["ticks"] > 0, f
        assert len(f["block_minimums_ticks"]) == len(p["blocks"]) >= 1, p
        assert f["tolerance_ticks"] > 0 and f["reason"], f
        assert (f["confirmed"] and not f["findings"]) or (not f["confirmed"] and f["findings"]), f
assert r["harness"]["history"]["path"] == sys.argv[1], r["harness"]["history"]
' "$work/history.json" "$work/h1.json"; then pass; else fail "history-first: history file or floor JSON malformed"; fi
fi
if expect 0 history-second -- --detail "${hist[@]}" --history "$work/history.json"; then
  lacks out "fastest reference loop remembered: none yet" history-second
  contains out "fastest reference loop remembered: " history-second
fi
printf 'my notes\n' >"$work/notes.txt"
bad history-foreign "not a harness history" "${hist[@]}" --history "$work/notes.txt"
if [ "$(cat "$work/notes.txt")" = "my notes" ]; then pass; else fail "history-foreign: the file was changed"; fi
bad history-folder "it is a directory, not a regular file" "${hist[@]}" --history "$work"
bad history-no-folder "does not exist" "${hist[@]}" --history "$work/none/h.json"
bad history-both "contradict" "${hist[@]}" --history "$work/history.json" --no-history
bad blocks-zero "--blocks: invalid value '0'" --blocks 0

# As a user without privileges: pinning works, the priority raise is refused and reported, the
# run goes on. Needs root to drop to nobody; skipped (and said) otherwise.
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
  cp "$harness" "$work/harness-copy" && chmod 755 "$work" "$work/harness-copy"
  setpriv --reuid=65534 --regid=65534 --clear-groups "$work/harness-copy" -w empty -n 3 --warmup 0 --detail \
    >"$work/out" 2>"$work/err"
  code=$?
  if [ "$code" -eq 0 ]; then pass; else fail "non-root: exit code $code"; fi
  contains out "pin to CPU" non-root
  contains out "REFUSED: Permission denied (EACCES)" non-root
  contains err "refused" non-root
  # Defaults degrade, explicit choices refuse (issue 27): with a HOME this user may not enter, the
  # default store of the history cannot be looked at (EACCES): one warning, and the run goes on
  # without it;
  # the same file named with --history is exit 2 with the same reason. A HOME of the test's own.
  mkdir "$work/home000" && chmod 000 "$work/home000"
  default_history=$work/home000/.local/state/harness/history.json
  default_store=$work/home000/.local/state/harness/results.db
  env -u HARNESS_HISTORY -u XDG_STATE_HOME HOME="$work/home000" \
    setpriv --reuid=65534 --regid=65534 --clear-groups "$work/harness-copy" -w empty -n 3 \
    --warmup 0 --no-baseline --detail >"$work/out" 2>"$work/err"
  code=$?
  if [ "$code" -eq 0 ]; then pass; else fail "non-root-home: exit code $code"; fi
  contains err "harness: warning: the default store cannot keep the history: $default_store: it cannot be looked at: Permission denied (EACCES); running without one; give --db FILE or URL, --history FILE or --no-history" non-root-home
  if [ "$(grep -c 'history' "$work/err")" -eq 1 ]; then pass; else
    fail "non-root-home: not one warning line"
    sed 's/^/    | /' "$work/err"
  fi
  contains out "history: none" non-root-home
  env -u HARNESS_HISTORY HOME="$work/home000" \
    setpriv --reuid=65534 --regid=65534 --clear-groups "$work/harness-copy" -w empty -n 3 \
    --warmup 0 --history "$default_history" >"$work/out" 2>"$work/err"
  code=$?
  if [ "$code" -eq 2 ]; then pass; else fail "non-root-history: exit code $code, expected 2"; fi
  contains err ": --history: $default_history: it cannot be looked at: Permission denied (EACCES); name a file this user may read and write, or give --no-history" non-root-history
  lacks out "first call" non-root-history
  chmod 755 "$work/home000"
  if [ ! -e "$work/home000/.local" ]; then pass; else fail "non-root-home: the HOME was written"; fi
else
  echo "SKIP: non-root run (needs root and setpriv to drop privileges)"
fi

# SIGINT and SIGTERM mid-run: the results so far are printed, affinity and priority restored, and
# the exit code says which signal ended the run.
interrupt() {
  local sig=$1 code=$2
  # The previous run's log must be gone before this one starts: the shell truncates it in the
  # child, after the fork, and a look at it before then would find the old ready mark.
  rm -f "$work/err"
  "$harness" -w xor_loop/2000000 -n 100000 --warmup 0 --no-baseline --log-level debug --detail \
    >"$work/out" 2>"$work/err" &
  local pid=$!
  # The signal goes once the prepared phase has taken its first sample, which the sampler says on
  # the log at debug level; the run is 100000 samples of milliseconds, so it is still sampling.
  if ! wait_for "$pid" grep -qs "^harness: debug: xor_loop/2000000: prepared samples: sample 1 taken" \
    "$work/err"; then
    fail "SIG$sig: the prepared phase never logged its first sample"
    sed 's/^/    | /' "$work/err" | tail -5
    kill -KILL "$pid" 2>/dev/null
    wait "$pid"
    return
  fi
  kill "-$sig" "$pid"
  wait "$pid"
  local got=$?
  if [ "$got" -eq "$code" ]; then pass; else fail "SIG$sig: exit code $got, expected $code"; fi
  contains out "INTERRUPTED: results so far" "SIG$sig"
  contains out "sampling ended: interrupted" "SIG$sig"
  # The affinity put back: "allow CPUs 0-1", or "pin to CPU 0" where only one CPU is allowed.
  if grep -qE '^ *restore: .* \(sched_setaffinity\): applied$' "$work/out"; then pass; else
    fail "SIG$sig: no applied restore of the affinity"
    sed 's/^/    | /' "$work/out" | grep 'restore' | head -5
  fi
  lacks out "REFUSED" "SIG$sig"
}
interrupt INT 130
interrupt TERM 143

# A workload selected twice runs once, said on stderr: a report and a store hold one result per
# name (`-w fresh_pages/1000,1000 --save` failed on the store's second row; bench/soak.sh).
if expect 0 repeated -- -w empty -w 'emp*' -w xor_loop/100,100 -n 2 --warmup 0 --no-baseline \
  --no-history --save --db "$work/repeated.db" -o "$work/repeated.json"; then
  contains err "warning: --workload: empty is selected more than once; it runs once" repeated
  contains err "warning: --workload: xor_loop/100 is selected more than once; it runs once" repeated
  if python3 -c '
import json, sys
names = [w["name"] for w in json.load(open(sys.argv[1]))["harness"]["workloads"]]
assert names == ["empty", "xor_loop/100"], names' "$work/repeated.json"; then pass; else
    fail "repeated: the report does not hold each workload once"
  fi
fi

# --min-sample-time sets the sample length and the report says where it came from (a workload's
# own min_sample_time() is tested through the API: no built-in declares one).
if expect 0 min-sample-option -- -w empty -n 2 --warmup 0 --no-baseline --no-history \
  --min-sample-time 100us --format json -o "$work/min-sample.json"; then
  if python3 -c '
import json, sys
h = json.load(open(sys.argv[1]))["harness"]
w = h["workloads"][0]
assert w["min_sample_source"] == "option", w["min_sample_source"]
assert abs(w["min_sample_ticks"] - 0.1e-3 * h["clock"]["ticks_per_second"]) <= 1, w["min_sample_ticks"]
assert w["batch_calibrated"] and w["batch"] > 1, w["batch"]' "$work/min-sample.json"; then
    pass
  else
    fail "min-sample-option: the sample length or its source is not --min-sample-time's"
  fi
fi

# branchy_sum_fresh declares a min_batch() of 80 at 64 KiB, where a call is long enough for a batch
# of 1: the declaration raises it to 80; --batch decides when given. In JSON, in --detail's batch line
# and in `harness list`.
if expect 0 min-batch-declared -- -w branchy_sum_fresh/65536 -n 2 --warmup 0 --no-baseline \
  --no-history --detail --format json -o "$work/min-batch.json"; then
  if python3 -c '
import json, sys
w = json.load(open(sys.argv[1]))["harness"]["workloads"][0]
assert w["min_batch"] == 80 and w["batch"] == 80 and w["batch_raised"], w' "$work/min-batch.json" &&
    grep -q "batch: 80 calls per sample (the workload's min_batch()" "$work/out"; then
    pass
  else
    fail "min-batch-declared: branchy_sum_fresh/65536's batch is not its min_batch() of 80"
  fi
fi
if expect 0 min-batch-option -- -w branchy_sum_fresh/65536 -n 2 --warmup 0 --no-baseline \
  --no-history --batch 3 --format json -o "$work/min-batch-3.json"; then
  if python3 -c '
import json, sys
w = json.load(open(sys.argv[1]))["harness"]["workloads"][0]
assert w["batch"] == 3 and not w["batch_raised"], w' "$work/min-batch-3.json"; then
    pass
  else
    fail "min-batch-option: --batch 3 did not decide over min_batch()"
  fi
fi
if "$harness" list >"$work/out" 2>&1 && grep -q "^branchy_sum_fresh .*80 calls a sample or more" "$work/out"; then
  pass
else
  fail "list: branchy_sum_fresh is not tagged with its min_batch"
fi

# A signal while the report is being written ends the command after the write (lib.sh).
signal_while_writing signal-while-writing TERM 143 harness -- \
  -w empty -n 3 --warmup 0 --no-baseline --no-history --format json -o "$work/report.fifo"

# harness clocks --json: every source with every field, a default with its reason.
if python3 "$(dirname "$0")/clocks_check.py" "$harness" >"$work/out" 2>&1; then pass; else
  fail "clocks: clocks_check.py"
  sed 's/^/    | /' "$work/out" | head -20
fi

# doctor on a fake /proc and /sys tree: every check present, JSON that parses.
data=$(cd "$(dirname "$0")/../data/doctor" && pwd)
if expect 0 doctor-json -- doctor --root "$data/tuned" --json; then
  if python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
ids = {c["id"] for c in d["checks"]}
need = {"load", "steal", "governor", "turbo", "smt", "isolation", "irqs", "hypervisor", "tsc",
        "aslr", "perf_event_paranoid", "priority", "harness_build", "benchmark_build"}
missing = need - ids
assert not missing, missing
assert d["system"] == "linux", d["system"]
for c in d["checks"]:
    assert c["status"] in ("ok", "warn", "unknown"), c
' "$work/out"; then pass; else fail "doctor-json: checks missing or malformed"; fi
fi
if expect 0 doctor-text -- doctor --root "$data/empty"; then
  contains out "unknown" doctor-text
fi
bad doctor-cpu "not an online CPU" doctor --cpu 64 --root "$data/tuned"

# compare: two tiny runs written with -o, then one report against the other and against itself.
if expect 0 compare-run-a -- --detail -w empty -w sort_ints/100 -n 12 --warmup 10ms -o "$work/a.json" &&
  expect 0 compare-run-b -- --detail -w empty -n 12 --warmup 10ms -o "$work/b.json"; then
  fits_schema "compare-run: a.json, b.json" "$work/a.json" "$work/b.json"
  # Tiny real runs: B may or may not come out slower, but the exit code must say which (4, 6 for
  # a workload not compared, or 0); a floor not confirmed is decided by the medians.
  # compare_says NAME ARGS...: run compare; its exit code must be the one its rows say.
  compare_says() {
    local name=$1
    shift
    "$harness" compare "$@" >"$work/out" 2>"$work/err"
    local code=$? want
    if grep -qE ' B slower( \(by medians\))?$' "$work/out"; then want=4
    elif grep -qE ' not compared$' "$work/out"; then want=6
    else want=0; fi
    if [ "$code" -eq "$want" ]; then pass; else
      fail "$name: exit code $code, expected $want"
      sed 's/^/    | /' "$work/out" "$work/err"
    fi
  }
  compare_says compare "$work/a.json" "$work/b.json"
  contains_wrapped out "figures: ticks of " compare
  # Figures, or "-" for a side whose floor no report confirmed.
  if grep -qE '^  empty +[0-9.-]+ +[0-9.-]+ +[0-9.-]+ +[-+0-9.%]+ +(B faster|B slower|no difference shown|not compared)( \(by medians\))?$' "$work/out"; then
    pass
  else
    fail "compare: no row for 'empty'"
    sed 's/^/    | /' "$work/out"
  fi
  if grep -qE '^  sort_ints/100 +- +- +- +- +only in A$' "$work/out"; then pass; else
    fail "compare: no 'only in A' row for sort_ints/100"
    sed 's/^/    | /' "$work/out"
  fi
  # A report against itself: identical samples, so no difference can be shown; exit 0.
  if expect 0 compare-self -- compare "$work/a.json" "$work/a.json"; then
    contains_wrapped out "B/A 1.000): both sides saw the same CPU speed" compare-self
    contains_wrapped out "gate: no workload B slower beyond the threshold 0%: exit 0" compare-self
    lacks_wrapped out "lies below A's" compare-self
    lacks_wrapped out "lies above A's" compare-self
  fi
  # Several reports per side (-a/-b): the side's floor joins them. Whether B comes out slower is
  # the host's (by the medians, when the tiny runs confirm no floor); the exit code says which.
  compare_says compare-sides -a "$work/a.json" -a "$work/b.json" -b "$work/b.json"
  contains_wrapped out "A: $work/a.json (" compare-sides
  contains_wrapped out "joined over each side's reports" compare-sides
  lacks_wrapped out "one report per side" compare-sides
  bad compare-one "give two reports" compare "$work/a.json"
  bad compare-mixed "got 1 positional, 1 with -a, 0 with -b" compare "$work/a.json" -a "$work/b.json"
  bad compare-missing "cannot read '$work/no_such.json': No such file or directory" \
    compare "$work/a.json" "$work/no_such.json"
  bad compare-folder "cannot read '$work': it is a folder" compare "$work/a.json" "$work"
  echo '{"benchmarks": []}' >"$work/gb.json"
  bad compare-not-harness "not a harness JSON report" compare "$work/gb.json" "$work/a.json"
  bad compare-threshold "--threshold: invalid value 'abc': expected a percentage" \
    compare --threshold abc "$work/a.json" "$work/a.json"
  bad compare-threshold-negative "--threshold: invalid value '-2%'" \
    compare --threshold -2% "$work/a.json" "$work/a.json"
  bad compare-threshold-bare "give a percentage with its percent sign" \
    compare --threshold 0.02 "$work/a.json" "$work/a.json"
  bad compare-format "--format: invalid value 'xml'" compare --format xml "$work/a.json" "$work/a.json"
fi

# compare as a gate, deterministically: a real report whose prepared samples are replaced by
# fixed ones (floor confirmed), and the same with every sample of B three times as long.
if expect 0 gate-run -- -w empty -w sort_ints/100 -n 12 --warmup 0 -o "$work/g.json" --format json; then
  fits_schema "gate-run: g.json" "$work/g.json"
  python3 - "$work" <<'PY'
import json, sys
work = sys.argv[1]
doc = json.load(open(f"{work}/g.json"))
for w in doc["harness"]["workloads"]:
    for p in w["phases"]:
        if p["phase"] == "prepared":
            p["floor"]["confirmed"] = True
def samples(scale):
    rows = [dict(r) for r in doc["benchmarks"]]
    i = 0
    for r in rows:
        if r.get("run_type") == "iteration" and r.get("phase") == "prepared":
            r["ticks"] = (1000 + 10 * i) * scale
            i += 1
    return rows
a = dict(doc, benchmarks=samples(1))
json.dump(a, open(f"{work}/ga.json", "w"))
json.dump(dict(doc, benchmarks=samples(3)), open(f"{work}/gb.json", "w"))
# The issue's case: B twice as slow and neither floor confirmed.
unconfirmed = json.loads(json.dumps(doc))
for w in unconfirmed["harness"]["workloads"]:
    for p in w["phases"]:
        if p["phase"] == "prepared":
            p["floor"]["confirmed"] = False
# The same samples as Google Benchmark's tools read them: real_time and cpu_time in ns of the
# ticks, the prepared phase's aggregates dropped (compare.py then pairs the repetitions).
tps = doc["harness"]["clock"]["ticks_per_second"]
def timed(rows):
    out = []
    for r in rows:
        if r.get("phase") == "prepared" and r.get("run_type") == "aggregate":
            continue
        if r.get("run_type") == "iteration" and r.get("phase") == "prepared":
            r["real_time"] = r["cpu_time"] = r["ticks"] / tps * 1e9
            r["time_unit"] = "ns"
        out.append(r)
    return out
json.dump(dict(unconfirmed, benchmarks=timed(samples(1))), open(f"{work}/ua.json", "w"))
json.dump(dict(unconfirmed, benchmarks=timed(samples(2))), open(f"{work}/ub.json", "w"))
# B interrupted before sort_ints/100's prepared phase.
cut = json.loads(json.dumps(a))
w = cut["harness"]["workloads"][1]
w["phases"] = [p for p in w["phases"] if p["phase"] != "prepared"]
w["interrupted"] = True
cut["benchmarks"] = [r for r in cut["benchmarks"] if r.get("run_name") != w["name"]]
json.dump(cut, open(f"{work}/gi.json", "w"))
# The same workloads under other names: nothing in common.
other = json.loads(json.dumps(a))
for w in other["harness"]["workloads"]:
    w["name"] = "other_" + w["name"]
for r in other["benchmarks"]:
    r["run_name"] = "other_" + r["run_name"]
json.dump(other, open(f"{work}/go.json", "w"))
PY
  if expect 4 gate-slower -- compare "$work/ga.json" "$work/gb.json"; then
    contains_wrapped out "B slower" gate-slower
    contains_wrapped out "gate: B slower beyond the threshold 0% in 2 workloads (empty, sort_ints/100): exit 4" gate-slower
  fi
  expect 0 gate-faster -- compare "$work/gb.json" "$work/ga.json"
  expect 0 gate-same-file -- compare "$work/ga.json" "$work/ga.json"
  expect 4 gate-under-threshold -- compare --threshold 150% "$work/ga.json" "$work/gb.json"
  expect 0 gate-over-threshold -- compare --threshold 250% "$work/ga.json" "$work/gb.json"
  if expect 4 gate-json -- compare --format json "$work/ga.json" "$work/gb.json"; then
    if python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["gate"] == {"threshold_percent": 0.0, "slower": ["empty", "sort_ints/100"], "not_compared": [], "exit_code": 4}, d["gate"]
assert [w["decided_by"] for w in d["workloads"]] == ["floor", "floor"]
assert [w["outcome"] for w in d["workloads"]] == ["slower", "slower"]
assert all(w["a"]["floor"]["lower"] >= 0 for w in d["workloads"])
' "$work/out"; then pass; else fail "gate-json: document not as expected"; fi
  fi
  # A workload not compared fails the gate with its own exit code, unless allowed.
  expect 0 gate-interrupted-allowed -- compare --allow-not-compared "$work/ga.json" "$work/gi.json"
  if expect 6 gate-interrupted -- compare "$work/ga.json" "$work/gi.json"; then
    contains_wrapped out "but 1 workload not compared (sort_ints/100), so nothing is known of it: exit 6" \
      gate-interrupted
    if grep -qE '^  sort_ints/100 +- +- +- +- +not compared$' "$work/out"; then pass; else
      fail "gate-interrupted: no 'not compared' row"
      sed 's/^/    | /' "$work/out"
    fi
    contains_wrapped out "sort_ints/100: no prepared phase in $work/gi.json (interrupted before it)" \
      gate-interrupted
  fi
  # B 2x slower, no floor confirmed on either side: the medians decide, and the gate fails.
  if expect 4 gate-by-medians -- compare --threshold 2% "$work/ua.json" "$work/ub.json"; then
    contains_wrapped out "B slower (by medians)" gate-by-medians
    contains_wrapped out "no report on either side confirmed its floor, so the medians decided: B/A 2.0000" \
      gate-by-medians
  fi
  # Google Benchmark's compare.py reads the same files the same way round.
  if [ -f /usr/share/benchmark/compare.py ] && /usr/bin/python3 -c 'import scipy' 2>/dev/null; then
    /usr/bin/python3 /usr/share/benchmark/compare.py -d "$work/cmp.json" benchmarks "$work/ua.json" \
      "$work/ub.json" >/dev/null 2>&1
    if python3 -c '
import json, sys
rows = json.load(open(sys.argv[1]))
pairs = [m for r in rows if r["name"] == "empty" for m in r["measurements"]]
assert pairs and all(m["time"] > 0.5 for m in pairs), pairs
' "$work/cmp.json"; then pass; else fail "compare.py: B not slower on the same files"; fi
  fi
  bad gate-nothing-in-common "the two sides name no workload in common" \
    compare "$work/ga.json" "$work/go.json"
fi

echo "e2e: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
