#!/usr/bin/env bash
# A battery of bad inputs against the `harness` binary (issue 14): every one exits 2 with a message
# naming what was typed and what is accepted, starts no run, and changes no file.
#
# Every process runs with its working directory, HOME and TMPDIR inside one temporary folder, and
# every path it is given lies there too (an existing report, a symlink, a history that is not
# ours, a folder). The folder's whole listing (type, size, mode, modification time, link target)
# is taken before each bad input and compared after it: a bad input may not create, replace or
# touch anything. With HOME there, the default history file would land there as well.
# `ab --a BIN --b BIN` adds workers that go wrong at run time (not a harness, a crash, a hang,
# garbage): exit 1 with a message naming the side and the cause, no report, nothing left running.
# Usage: bad_inputs_e2e.sh PATH/TO/harness
set -u
harness=${1:?usage: bad_inputs_e2e.sh PATH/TO/harness}
harness=$(cd "$(dirname "$harness")" && pwd)/$(basename "$harness")  # the processes run elsewhere
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
# The default history path is part of what must stay untouched: no HARNESS_HISTORY=off here.
unset HARNESS_HISTORY

box=$work/box
mkdir -p "$box/cwd" "$box/home" "$box/tmp" "$box/folder" "$box/real"
printf '{"kept": true}\n' >"$box/real/target.json"
ln -s real/target.json "$box/link.json"
printf 'not a history\n' >"$box/foreign.json"
printf 'not json\n' >"$box/notes.txt"
printf 'x\n' >"$box/file"
chmod 640 "$box/real/target.json"
# A program gbench could run; no bad input gets as far as running it.
printf '#!/bin/sh\nexit 0\n' >"$box/exe"
chmod 755 "$box/exe"

# harness ab with two builds: two copies of this harness (two paths), a copy of true (no harness),
# and scripts that pretend to be workers, each going wrong in its own way (below).
cp "$harness" "$box/h1" && cp "$harness" "$box/h2"
cp /bin/true "$box/true"
# fake_worker NAME BODY: a worker that says ready (on CLOCK_MONOTONIC, which the real worker on
# the other side is then asked for), answers overhead and calibrate, and does BODY on `sample`
# (and SAMPLE_N counts them); HELLO overrides its answer to hello. `exec sleep` leaves no shell
# behind when the parent kills it.
fake_worker() {
  cat >"$box/$1" <<EOF2
#!/bin/sh
n=0
while read -r cmd a b c; do
  case \$cmd in
    hello) ${HELLO:-echo "ready 1 clock=CLOCK_MONOTONIC tps=1000000000 step=20 granularity=1 workload=\$b build=fake harness=fake"} ;;
    overhead) echo "overhead 40" ;;
    calibrate) echo "batch 1 0" ;;
    sample) n=\$((n + 1)); $2 ;;
    quit) echo bye; exit 0 ;;
  esac
done
EOF2
  chmod 755 "$box/$1"
}
samples='raws=""; i=0; while [ $i -lt $a ]; do raws="$raws 100000"; i=$((i + 1)); done; echo "samples 3000 0$raws"'
fake_worker crashes 'echo "worker: about to crash" >&2; kill -SEGV $$'
fake_worker hangs 'exec sleep 600'
fake_worker garbles "if [ \$n -ge 5 ]; then echo 'samples 12 0 zz'; else $samples; fi"
HELLO='echo "ready 1 clock=fake_clock tps=1000000000 step=1 granularity=1 workload=$b build=fake harness=fake"' \
  fake_worker other-clock "$samples"
HELLO='echo "ready 1 clock=$c tps=2000000000 step=1 granularity=1 workload=$b build=fake harness=fake"' \
  fake_worker other-rate "$samples"
HELLO='echo "ready 2 clock=$c"' fake_worker other-version "$samples"
HELLO='echo "error usage the workload '"'"'$b'"'"' matches no workload; known workloads: other"; exit 2' \
  fake_worker no-such-workload "$samples"

# A good report to compare against.
if ! (cd "$box/cwd" && HOME=$box/home TMPDIR=$box/tmp "$harness" -w empty -n 12 --warmup 0 \
  --no-history --format json -o "$box/good.json" >/dev/null 2>"$work/err"); then
  fail "setup: could not write a report"
  sed 's/^/    | /' "$work/err"
else
  fits_schema "setup: good.json" "$box/good.json"
fi

# An `ab` report, which compare refuses by name (it compares the reports of runs), and the same
# with one round's ratio a string, which report refuses naming it.
if ! (cd "$box/cwd" && HOME=$box/home TMPDIR=$box/tmp "$harness" ab empty empty --warmup 0 \
  --max-time 20ms --format json -o "$box/ab.json" >/dev/null 2>"$work/err"); then
  fail "setup: could not write an ab report"
  sed 's/^/    | /' "$work/err"
fi
python3 - "$box" <<'PY' || fail "setup: could not write a broken ab report"
import json, sys
box = sys.argv[1]
doc = json.load(open(box + "/ab.json"))
doc["ab"]["pairs"][0]["rounds"][0]["ratio"] = "1.01"
json.dump(doc, open(box + "/ab-string-ratio.json", "w"), indent=1)
PY

# Reports and a history broken in one place each, for compare, report and --history (issue 27):
# every value read is checked for its type and range, and named by its place in the file.
ln -s loop.json "$box/loop.json"
if ! python3 - "$box" <<'PY'
import json, sys
box = sys.argv[1]
good = json.load(open(box + "/good.json"))
rows = good["benchmarks"]
row = next(i for i, r in enumerate(rows) if r["run_type"] == "iteration" and r["phase"] == "prepared")
def broken(name, value):
    doc = json.loads(json.dumps(good))
    doc["benchmarks"][row]["ticks"] = value
    text = json.dumps(doc, indent=1)
    open(f"{box}/{name}.json", "w").write(text if value != "1e400" else text.replace('"1e400"', "1e400"))
broken("negative", -1280.3)
broken("string-ticks", "500")
broken("overflow", "1e400")
broken("huge", 2e15)
open(box + "/row.txt", "w").write(str(row))
json.dump({"harness_history": 1, "speeds": [{"machine": "m", "reference_ticks": "fast",
           "seen": "t", "seen_unix": 1}], "floors": []}, open(box + "/bad-history.json", "w"))
PY
then
  fail "setup: could not write the broken reports"
fi
row=$(cat "$box/row.txt")

# A folder's modification time is left out with dir_times=0: `ab` with two builds checks that -o's
# folder takes a file (a file made and removed) and keeps its workers' stderr in a folder of TMPDIR
# (made and removed) before a worker refuses; what the folders hold is still compared.
dir_times=1
snapshot() {
  if [ "$dir_times" = 1 ]; then
    (cd "$box" && find . -printf '%p %y %s %m %T@ %l\n' | LC_ALL=C sort)
  else
    (cd "$box" && find . \( -type d -printf '%p %y %m\n' \) -o -printf '%p %y %s %m %T@ %l\n' |
      LC_ALL=C sort)
  fi
}

# bad NAME MESSAGE -- ARGS...: exit 2, MESSAGE on stderr, no run on stdout, nothing in the box
# changed.
bad() {
  local name=$1 message=$2
  shift 3
  local before after got
  before=$(snapshot)
  (cd "$box/cwd" && HOME=$box/home TMPDIR=$box/tmp "$harness" "$@" >"$work/out" 2>"$work/err")
  got=$?
  after=$(snapshot)
  if [ "$got" -ne 2 ]; then
    fail "$name: exit code $got, expected 2 (harness $*)"
    sed 's/^/    | /' "$work/err" | head -10
    return
  fi
  pass
  contains err "$message" "$name"
  lacks out "first call" "$name"
  # CLI11's own words, which the harness replaces with its own.
  for raw in "At Most" "Could not convert" "not in {" "The following argument"; do
    lacks err "$raw" "$name"
  done
  if [ "$before" != "$after" ]; then
    fail "$name: files changed"
    diff <(echo "$before") <(echo "$after") | sed 's/^/    | /' | head -10
  else
    pass
  fi
}

# --- the samples and their timing -----------------------------------------------------------------
bad samples-zero "--samples: invalid value '0': expected a positive integer or auto" -- -n 0
bad samples-negative "--samples: invalid value '-3'" -- -n -3
bad samples-word "--samples: invalid value 'many'" -- -n many
bad samples-float "--samples: invalid value '1e3'" -- -n 1e3
bad samples-huge "--samples: invalid value '99999999999999999999'" -- -n 99999999999999999999
bad samples-twice "--samples: given 2 times ('12' and '15'); it takes one value" -- -n 12 -n 15
bad samples-missing "--samples: the value is missing" -- --samples
bad warmup-no-unit "--warmup: invalid duration '5': the unit is missing" -- --warmup 5
bad warmup-negative "--warmup: invalid duration '-1ms': it is negative" -- --warmup -1ms
bad warmup-hours "--warmup: invalid duration '1h': the unit 'h' is unknown" -- --warmup 1h
bad warmup-twice "--warmup: given 2 times ('1ms' and '2ms')" -- --warmup 1ms --warmup 2ms
bad max-time-zero "--max-time: invalid value '0s'" -- --max-time 0s
bad max-hold-zero "--max-hold: invalid value '0s'" -- --max-hold 0s --priority realtime
bad max-hold-alone "--max-hold 5ms only applies with --priority realtime" -- --max-hold 5ms
bad target-alone "--target 1% only applies with --samples auto" -- --target 1% -n 30
bad target-zero "--target: invalid value '0%'" -- -n auto --target 0%
bad target-hundred "--target: invalid value '100'" -- -n auto --target 100
bad blocks-zero "--blocks: invalid value '0': expected a positive number of blocks" -- --blocks 0
bad batch-zero "--batch: invalid value '0'" -- --batch 0
bad batch-word "--batch: invalid value 'x'" -- --batch x
bad min-sample-zero "--min-sample-time: invalid value '0'" -- --min-sample-time 0
bad min-sample-and-batch "--min-sample-time 1ms and --batch 2 both set the calls per sample" -- \
  --min-sample-time 1ms --batch 2

# --- preparation ----------------------------------------------------------------------------------
bad cpu-word "--cpu: invalid value 'abc': expected a CPU number, 0 or more" -- --cpu abc
bad cpu-negative "--cpu: invalid value '-1'" -- --cpu -1
bad cpu-outside "--cpu: CPU 99999 is not one this process may run on" -- --cpu 99999
bad cpu-and-no-pin "--cpu and --no-pin contradict each other" -- --cpu 0 --no-pin
bad priority "--priority: invalid value 'max': expected normal, high or realtime" -- --priority max
bad log-level "--log-level: invalid value 'loud': expected trace, debug, info, warn" -- \
  --log-level loud
bad clock "unknown clock 'nope'; available clocks:" -- --clock nope

# --- workloads ------------------------------------------------------------------------------------
bad workload-unknown "--workload: 'nope' matches no workload; known workloads: xor_loop" -- -w nope
bad workload-empty "--workload: '' matches no workload" -- -w ''
bad workload-below-min "--workload: 'sort_ints/-5': sort_ints takes an integer of 0 or more, not -5" \
  -- -w sort_ints/-5
bad workload-glob-below-min "takes an integer of 0 or more, not -1" -- -w 'memcpy*/-1'
bad workload-arg-word "--workload: invalid argument 'abc' in 'sort_ints/abc'" -- -w sort_ints/abc
bad workload-arg-huge "invalid argument '99999999999999999999'" -- -w xor_loop/99999999999999999999
bad workload-no-arg "'empty' takes no argument, but 'empty/5' gives it 5" -- -w empty/5
bad workload-list-below-min "sort_ints takes an integer of 0 or more, not -1" -- \
  -w 'sort_ints/10,-1,20'
bad workload-range-empty "invalid range '100..10:x2' in 'xor_loop/100..10:x2': 100..10 is empty" \
  -- -w 'xor_loop/100..10:x2'
bad workload-range-no-step "expected LO..HI:xFACTOR" -- -w 'xor_loop/1..100'
bad workload-range-huge "expands to more than 1000 arguments" -- -w 'xor_loop/0..5000:+1'

# --- reports --------------------------------------------------------------------------------------
bad format "--format: invalid value 'xml'" -- --format xml
bad format-twice "--format: given 2 times ('json' and 'csv')" -- --format json --format csv
bad line-empty "--line: the template is empty" -- --line ''
bad line-unknown-token "--line: bad format template: unknown token {nope}" -- --line '{nope}'
bad line-unclosed "--line: bad format template: '{' opens a field that is never closed" -- \
  --line '{min'
bad line-and-format "--line and --format json both say what stdout gets" -- --line '{min}' \
  --format json
bad output-empty "--output: the path is empty" -- -o ''
bad output-folder "it is a directory" -- -w empty -n 3 -o "$box/folder"
bad output-missing-folder "$box/missing/r.json" -- -w empty -n 3 -o "$box/missing/r.json"
bad output-extension "cannot tell the format of '$box/r.xyz' from its extension '.xyz'" -- \
  -w empty -n 3 -o "$box/r.xyz"
bad history-empty "--history: the path is empty" -- --history ''
bad history-and-no-history "--history and --no-history contradict each other" -- \
  --history "$box/h.json" --no-history
bad history-foreign "$box/foreign.json: not a harness history" -- -w empty -n 3 \
  --history "$box/foreign.json"
bad history-malformed \
  "$box/bad-history.json: speeds[0].reference_ticks: expected a whole number of 0 or more, got a string" \
  -- -w empty -n 3 --history "$box/bad-history.json"
bad history-folder "--history: $box/folder: it is a directory, not a regular file" -- \
  -w empty -n 3 --history "$box/folder"
bad history-loop "--history: $box/loop.json: it cannot be looked at: Too many levels of symbolic links (ELOOP)" \
  -- -w empty -n 3 --history "$box/loop.json"
# The report would replace the history: one file, however it is named.
bad history-is-output "--history '$box/r.json' and -o '$box/r.json' are one file" -- \
  -w empty -n 3 -o "$box/r.json" --history "$box/r.json"
bad history-is-output-link "--history '$box/real/target.json' and -o '$box/link.json' are one file" \
  -- -w empty -n 3 -o "$box/link.json" --history "$box/real/target.json"
bad history-is-output-dotted "--history './../r.json' and -o '$box/r.json' are one file" -- \
  -w empty -n 3 -o "$box/r.json" --history ./../r.json

# --- the command line itself ----------------------------------------------------------------------
bad unknown-option "'--frob' is not an option of harness; see harness --help" -- --frob
bad unknown-argument "unexpected argument 'frob': give options, after at most one command" -- frob
bad list-argument "unexpected argument 'extra' to harness list" -- list extra
bad clocks-option "'--frob' is not an option of harness clocks" -- clocks --frob

# --- doctor ---------------------------------------------------------------------------------------
bad doctor-root-missing "--root: '$box/missing' cannot be read" -- doctor --root "$box/missing"
bad doctor-root-file "--root: '$box/file' is not a directory" -- doctor --root "$box/file"
bad doctor-root-empty "--root: the path is empty" -- doctor --root ''
bad doctor-cpu-word "--cpu: invalid value 'x'" -- doctor --cpu x
bad doctor-cpu-twice "--cpu: given 2 times" -- doctor --cpu 0 --cpu 1

# --- compare --------------------------------------------------------------------------------------
bad compare-nothing "compare: give two reports" -- compare
bad compare-missing "cannot read '$box/missing.json': No such file or directory" -- \
  compare "$box/missing.json" "$box/good.json"
bad compare-folder "$box/folder" -- compare "$box/folder" "$box/good.json"
bad compare-not-json "$box/notes.txt" -- compare "$box/notes.txt" "$box/good.json"
bad compare-ab "$box/ab.json: a report of \`harness ab\` (or \`gbench --vs\`), which compares A and B itself: only the reports of runs are compared here" \
  -- compare "$box/good.json" "$box/ab.json"
bad compare-threshold "--threshold: invalid value 'abc'" -- compare --threshold abc \
  "$box/good.json" "$box/good.json"
bad compare-threshold-twice "--threshold: given 2 times" -- compare --threshold 1% \
  --threshold 2% "$box/good.json" "$box/good.json"
bad compare-format "--format: invalid value 'xml'" -- compare --format xml "$box/good.json" \
  "$box/good.json"
bad compare-negative "$box/negative.json: benchmarks[$row].ticks: a sample of -1280.3 ticks is out of range" \
  -- compare "$box/good.json" "$box/negative.json"
bad compare-huge "$box/huge.json: benchmarks[$row].ticks: a sample of 2e+15 ticks is out of range" \
  -- compare "$box/good.json" "$box/huge.json"
bad compare-type "$box/string-ticks.json: benchmarks[$row].ticks: expected a number, got a string" \
  -- compare "$box/string-ticks.json" "$box/good.json"
bad compare-overflow "$box/overflow.json: not JSON: number overflow parsing '1e400'" -- \
  compare "$box/good.json" "$box/overflow.json"

# --- report, and the HTML pages of compare and clocks (issue 18) ---------------------------------
bad report-nothing "REPORT is required" -- report
bad report-missing "cannot read '$box/missing.json': No such file or directory" -- \
  report "$box/missing.json" -o "$box/r.html"
bad report-folder "cannot read '$box/folder': it is a folder" -- report "$box/folder" \
  -o "$box/r.html"
bad report-not-json "$box/notes.txt: not JSON" -- report "$box/notes.txt" -o "$box/r.html"
bad report-not-harness "not a harness JSON report" -- report "$box/real/target.json" \
  -o "$box/r.html"
bad report-ab-type "$box/ab-string-ratio.json: ab.pairs[0].rounds[0].ratio: expected a number, got a string" \
  -- report "$box/ab-string-ratio.json" -o "$box/r.html"
bad report-negative "$box/negative.json: benchmarks[$row].ticks: a sample of -1280.3 ticks is out of range" \
  -- report "$box/negative.json" -o "$box/r.html"
bad report-type "$box/string-ticks.json: benchmarks[$row].ticks: expected a number, got a string" \
  -- report "$box/string-ticks.json" -o "$box/r.html"
bad report-overflow "$box/overflow.json: not JSON: number overflow parsing '1e400'" -- \
  report "$box/overflow.json" -o "$box/r.html"
bad report-output-extension "harness report writes an HTML page; name a file ending in .html" -- \
  report "$box/good.json" -o "$box/r.json"
bad report-output-folder "--output: " -- report "$box/good.json" -o "$box/folder"
bad report-output-empty "--output: the path is empty" -- report "$box/good.json" -o ''
bad report-two-inputs "unexpected argument '$box/good.json' to harness report" -- \
  report "$box/good.json" "$box/good.json"
bad clocks-format "--format: invalid value 'pdf': clocks writes text, json or html" -- \
  clocks --format pdf
bad clocks-json-and-html "--json and --format html both say what to print" -- \
  clocks --json --format html

# --- gbench ---------------------------------------------------------------------------------------
bad gbench-nothing "gbench: give the Google Benchmark binary to run after --" -- gbench
bad gbench-missing "gbench: cannot run '$box/missing': No such file or directory" -- \
  gbench -- "$box/missing"
bad gbench-bare-name "the PATH is not searched" -- gbench -- missing_benchmarks
bad gbench-not-executable "gbench: cannot run '$box/file': not executable" -- gbench -- "$box/file"
bad gbench-folder "gbench: cannot run '$box/folder': it is a directory" -- gbench -- "$box/folder"
bad gbench-repetitions "'--benchmark_repetitions=3' is refused: harness gbench sets it itself" -- \
  gbench -- "$box/exe" --benchmark_repetitions=3
bad gbench-out "'--benchmark_out=$box/x.json' is refused" -- \
  gbench -- "$box/exe" "--benchmark_out=$box/x.json"
bad gbench-format "'--benchmark_format=json' is refused" -- \
  gbench -- "$box/exe" --benchmark_format=json
bad gbench-aggregates "'--benchmark_report_aggregates_only=true' is refused" -- \
  gbench -- "$box/exe" --benchmark_report_aggregates_only=true
bad gbench-samples-auto "--samples: invalid value 'auto': harness gbench takes a fixed number" -- \
  gbench -n auto -- "$box/exe"
bad gbench-min-time-zero "--min-time: invalid value '0'" -- gbench --min-time 0 -- "$box/exe"
bad gbench-min-time-word "--min-time: invalid duration 'long'" -- gbench --min-time long -- "$box/exe"
bad gbench-lock-memory "--lock-memory: not possible for a Google Benchmark binary" -- \
  gbench --lock-memory -- "$box/exe"
bad gbench-option "'--max-hold' is not an option of harness gbench" -- \
  gbench --max-hold 1s -- "$box/exe"
bad gbench-root-option "'--samples' went to harness run, not gbench" -- -n 3 gbench -- "$box/exe"
bad gbench-output-folder "--output: " -- gbench -o "$box/folder" -- "$box/exe"
# The history is read before the binary runs (which would exit 5 here: it writes no JSON).
bad gbench-history-foreign "$box/foreign.json: not a harness history" -- \
  gbench --history "$box/foreign.json" -- "$box/exe"
bad gbench-history-folder "it is a directory, not a regular file" -- \
  gbench --history "$box/folder" -- "$box/exe"
bad gbench-history-loop "Too many levels of symbolic links (ELOOP)" -- \
  gbench --history "$box/loop.json" -- "$box/exe"
bad gbench-history-is-output "--history '$box/g.json' and -o '$box/g.json' are one file" -- \
  gbench -o "$box/g.json" --history "$box/g.json" -- "$box/exe"
bad gbench-history-no-folder "does not exist" -- gbench --history "$box/none/h.json" -- "$box/exe"
bad gbench-history-both "--history and --no-history contradict each other" -- \
  gbench --history "$box/h.json" --no-history -- "$box/exe"

# --- harness ab ---------------------------------------------------------------------------------
bad ab-unknown-a "A: " -- ab nosuch xor_loop/10
bad ab-unknown-b "B: " -- ab xor_loop/10 nosuch
bad ab-glob-several "A: 'xor_loop/1,2' names 2 workloads (xor_loop/1, xor_loop/2); give exactly one" -- \
  ab xor_loop/1,2 xor_loop/10
bad ab-one-workload "give two workloads, A and B" -- ab xor_loop/10
bad ab-threshold-bare "--threshold: invalid value '0.5': give a percentage with its percent sign" -- \
  ab --threshold 0.5 xor_loop/10 xor_loop/20
bad ab-threshold-negative "--threshold: invalid value '-1%'" -- ab --threshold -1% xor_loop/10 xor_loop/20
bad ab-target-zero "--target: invalid value '0%': expected a percentage above 0" -- \
  ab --target 0% xor_loop/10 xor_loop/20
bad ab-gate-word "--fail-if-slower: invalid value 'much'" -- \
  ab --fail-if-slower much xor_loop/10 xor_loop/20
bad ab-order "--order: invalid value 'abba': expected balanced, alternate or random" -- \
  ab --order abba xor_loop/10 xor_loop/20
bad ab-seed-negative "--seed: invalid value '-1': expected a whole number from 0 to" -- \
  ab --order random --seed -1 xor_loop/10 xor_loop/20
bad ab-seed-too-large "--seed: invalid value '18446744073709551616'" -- \
  ab --order random --seed 18446744073709551616 xor_loop/10 xor_loop/20
bad ab-max-time-zero "--max-time: invalid value '0'" -- ab --max-time 0 xor_loop/10 xor_loop/20
bad ab-warmup-word "--warmup: invalid duration 'long'" -- ab --warmup long xor_loop/10 xor_loop/20
bad ab-batch-zero "--batch: invalid value '0'" -- ab --batch 0 xor_loop/10 xor_loop/20
bad ab-batch-and-min "--min-sample-time 1ms and --batch 4 both set the calls per sample" -- \
  ab --batch 4 --min-sample-time 1ms xor_loop/10 xor_loop/20
# Sides of very different cost: empty's batch would make one sample of a 10 ms call last
# seconds (a sample is not cut short, not even by SIGINT: bench/soak.sh saw one run minutes).
bad ab-batch-shared-beyond-max-time "xor_loop/30000000 and empty cannot share one batch" -- \
  ab xor_loop/30000000 empty --warmup 10ms --max-time 100ms
bad ab-batch-beyond-max-time "--batch 100: a sample of xor_loop/30000000 takes about" -- \
  ab xor_loop/30000000 empty --warmup 10ms --max-time 100ms --batch 100
bad ab-cpu-and-no-pin "--cpu and --no-pin contradict each other" -- \
  ab --cpu 0 --no-pin xor_loop/10 xor_loop/20
bad ab-cpu-missing "--cpu: CPU 4095 is not one this process may run on" -- \
  ab --cpu 4095 xor_loop/10 xor_loop/20
bad ab-priority "--priority: invalid value 'max'" -- ab --priority max xor_loop/10 xor_loop/20
bad ab-clock "unknown clock 'sundial'" -- ab --clock sundial xor_loop/10 xor_loop/20
bad ab-format "pdf" -- ab --format pdf xor_loop/10 xor_loop/20
bad ab-line-token "--line: " -- ab --line '{nosuch}' xor_loop/10 xor_loop/20
bad ab-output-folder "--output: " -- ab -o "$box/folder" xor_loop/10 xor_loop/20
bad ab-output-no-folder "--output: " -- ab -o "$box/none/ab.json" xor_loop/10 xor_loop/20
bad ab-output-empty "--output: the path is empty" -- ab -o '' xor_loop/10 xor_loop/20
bad ab-option "'--samples' is not an option of harness ab" -- ab --samples 5 xor_loop/10 xor_loop/20
bad ab-root-option "'--samples' went to harness run, not ab" -- -n 3 ab xor_loop/10 xor_loop/20
# --- ab with two builds -----------------------------------------------------------------------
tiny_ab=(--warmup 10ms --max-time 200ms --pairs 2 -o "$box/ab.json")
bad ab-a-alone "--a given without --b: two builds take both" -- ab --a "$box/h1" xor_loop/1000
bad ab-b-alone "--b given without --a" -- ab --b "$box/h2" xor_loop/1000
bad ab-two-workloads "with --a and --b give one workload, run in both builds" -- \
  ab --a "$box/h1" --b "$box/h2" xor_loop/1000 xor_loop/2000
bad ab-no-workload "got 0 workloads" -- ab --a "$box/h1" --b "$box/h2"
bad ab-a-missing "--a: cannot run '$box/missing': No such file or directory" -- \
  ab --a "$box/missing" --b "$box/h2" xor_loop/1000
bad ab-b-not-executable "--b: cannot run '$box/file': not executable" -- \
  ab --a "$box/h1" --b "$box/file" xor_loop/1000
bad ab-a-folder "--a: cannot run '$box/folder': it is a directory" -- \
  ab --a "$box/folder" --b "$box/h2" xor_loop/1000
bad ab-bare-name "the PATH is not searched" -- ab --a h1 --b "$box/h2" xor_loop/1000
bad ab-pairs-zero "--pairs: invalid value '0': expected a positive number of pairs" -- \
  ab --a "$box/h1" --b "$box/h2" xor_loop/1000 --pairs 0
bad ab-layout "--layout: invalid value 'both': expected turns" -- \
  ab --a "$box/h1" --b "$box/h2" xor_loop/1000 --layout both
bad ab-worker-timeout "--worker-timeout: invalid value '0s'" -- \
  ab --a "$box/h1" --b "$box/h2" xor_loop/1000 --worker-timeout 0s
bad ab-pairs-without-builds "--pairs only applies to two builds" -- ab empty empty --pairs 3
# Refused by the workers, at hello: nothing measured, no report.
dir_times=0
bad ab-unknown-workload-a "A ('$box/h1'): the workload 'nope' matches no workload; known workloads: xor_loop" \
  -- ab --a "$box/h1" --b "$box/h2" nope "${tiny_ab[@]}"
bad ab-unknown-workload-b "B ('$box/no-such-workload'): the workload 'xor_loop/1000' matches no workload; known workloads: other" \
  -- ab --a "$box/h1" --b "$box/no-such-workload" xor_loop/1000 "${tiny_ab[@]}"
bad ab-other-clock "the two workers sample different clocks: A ('$box/h1') CLOCK_MONOTONIC, B ('$box/other-clock') fake_clock" \
  -- ab --a "$box/h1" --b "$box/other-clock" xor_loop/1000 --clock CLOCK_MONOTONIC "${tiny_ab[@]}"
bad ab-other-rate "the two workers' CLOCK_MONOTONIC runs at different rates: A ('$box/h1') 1000000000 ticks/s, B ('$box/other-rate') 2000000000 ticks/s" \
  -- ab --a "$box/h1" --b "$box/other-rate" xor_loop/1000 --clock CLOCK_MONOTONIC "${tiny_ab[@]}"
bad ab-other-version "B ('$box/other-version') speaks worker protocol 2, this harness speaks 1" \
  -- ab --a "$box/h1" --b "$box/other-version" xor_loop/1000 "${tiny_ab[@]}"

# fails NAME CODE MESSAGE -- ARGS...: as bad, with exit CODE (a failure at run time, 1), and no
# process of the box left running (a worker, or what a fake one started).
fails() {
  local name=$1 code=$2 message=$3
  shift 4
  local before after got
  before=$(snapshot)
  (cd "$box/cwd" && HOME=$box/home TMPDIR=$box/tmp "$harness" "$@" >"$work/out" 2>"$work/err")
  got=$?
  after=$(snapshot)
  if [ "$got" -ne "$code" ]; then
    fail "$name: exit code $got, expected $code (harness $*)"
    sed 's/^/    | /' "$work/err" | head -10
    return
  fi
  pass
  contains err "$message" "$name"
  if [ -s "$work/out" ]; then fail "$name: a report on stdout"; else pass; fi
  if [ "$before" != "$after" ]; then
    fail "$name: files changed (a report, a worker's stderr left in TMPDIR?)"
    diff <(echo "$before") <(echo "$after") | sed 's/^/    | /' | head -10
  else
    pass
  fi
  if pgrep -f -- "$box/" >/dev/null; then
    fail "$name: left running: $(pgrep -a -f -- "$box/")"
  else
    pass
  fi
}
fails ab-not-harness 1 "A ('$box/true') exited with status 0 before answering 'hello 1 xor_loop/1000': is it a harness binary" \
  -- ab --a "$box/true" --b "$box/h2" xor_loop/1000 "${tiny_ab[@]}"
fails ab-crashes 1 "A ('$box/crashes') was killed by signal 11 (SIGSEGV: Segmentation fault) before answering 'sample 1 " \
  -- ab --a "$box/crashes" --b "$box/h2" xor_loop/1000 "${tiny_ab[@]}"
contains err "    | worker: about to crash" ab-crashes
fails ab-hangs 1 "A ('$box/hangs') did not answer 'sample 1 " \
  -- ab --a "$box/hangs" --b "$box/h2" xor_loop/1000 --worker-timeout 1s "${tiny_ab[@]}"
contains err "' within 1 s: taken for hung and killed" ab-hangs
fails ab-garbles 1 "A ('$box/garbles') answered 'samples 12 0 zz' to 'sample " \
  -- ab --a "$box/garbles" --b "$box/h2" xor_loop/1000 --clock CLOCK_MONOTONIC "${tiny_ab[@]}"
contains err "not a line of the worker protocol (sample 1: 'zz' is not a whole number" ab-garbles
dir_times=1

# --- the results store (issue 29): --save refuses a store it cannot use, before the run ----------
# A FIFO and a character device of our own (never a real /dev path), a file that is no SQLite
# database, a store of a newer harness, a database of something else; each left as it was.
mkfifo "$box/fifo"
mknod "$box/null" c 1 3 2>/dev/null || true
python3 - "$box" <<'PY'
import sqlite3, sys
box = sys.argv[1]
newer = sqlite3.connect(box + "/newer.db")
newer.executescript("CREATE TABLE harness_store (name TEXT PRIMARY KEY, value TEXT NOT NULL);"
                    "INSERT INTO harness_store VALUES ('schema_version', '4');")
newer.close()
other = sqlite3.connect(box + "/other.db")
other.executescript("CREATE TABLE customers (name TEXT); INSERT INTO customers VALUES ('x');")
other.close()
PY
store_run=(-w empty -n 3 --warmup 0 --no-history --save)
bad store-folder "--save: --db cannot be used: $box/folder: it is a directory, not a store file" \
  -- "${store_run[@]}" --db "$box/folder"
bad store-fifo "$box/fifo: it is a FIFO, not a store file" -- "${store_run[@]}" --db "$box/fifo"
if [ -c "$box/null" ]; then
  bad store-device "$box/null: it is a character device, not a store file" -- \
    "${store_run[@]}" --db "$box/null"
fi
bad store-corrupt "$box/notes.txt: file is not a database" -- "${store_run[@]}" --db "$box/notes.txt"
bad store-newer "$box/newer.db: written by a newer harness (store schema 4, this build knows up to 3)" \
  -- "${store_run[@]}" --db "$box/newer.db"
bad store-foreign "$box/other.db: not a harness results store" -- "${store_run[@]}" --db "$box/other.db"
bad store-no-folder "$box/none/r.db: its folder '$box/none' does not exist" -- \
  "${store_run[@]}" --db "$box/none/r.db"
bad store-no-server "--db cannot be used: postgresql://harness@/perf?host=$box/folder: cannot connect" \
  -- "${store_run[@]}" --db "postgresql://harness@/perf?host=$box/folder"
bad store-gbench-folder "--db: the store of the history cannot be used: $box/folder: it is a directory" -- \
  gbench --save --db "$box/folder" -- "$box/exe"
bad store-ab-fifo "$box/fifo: it is a FIFO, not a store file" -- \
  ab xor_loop/1000 xor_loop/2000 --save --db "$box/fifo"
bad store-db-empty "--db: the store is empty" -- "${store_run[@]}" --db ''
bad store-commit "--commit: 'main' is not a commit id: expected 4 to 64 hexadecimal digits" -- \
  "${store_run[@]}" --commit main
bad store-tag "--tag: 'runner' is not KEY=VALUE" -- "${store_run[@]}" --tag runner
bad store-tag-twice "--tag: the key 'a' is given twice" -- "${store_run[@]}" --tag a=1 --tag a=2
bad store-commit-alone "--commit only means something with --save" -- -w empty --commit abcd
bad store-db-alone "--db only means something with --save, or for the floor history kept in the store" -- \
  -w empty --no-history --db "$box/r.db"
# Unreadable: as an unprivileged user (root reads everything), a store it may not read in a
# folder it may write (sticky, as /tmp).
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null; then
  open=$(mktemp -d)
  chmod 1777 "$open"
  cp "$harness" "$open/harness" && chmod 755 "$open/harness"
  cp "$box/newer.db" "$open/locked.db" && chmod 000 "$open/locked.db"
  before=$(cksum <"$open/locked.db")
  (cd "$open" && HOME=$open setpriv --reuid=65534 --regid=65534 --clear-groups "$open/harness" \
    "${store_run[@]}" --db "$open/locked.db" >"$work/out" 2>"$work/err")
  got=$?
  if [ "$got" -eq 2 ] && [ "$(cksum <"$open/locked.db")" = "$before" ]; then pass; else
    fail "store-unreadable: exit $got, expected 2 and the file unchanged"
  fi
  contains err "$open/locked.db: it cannot be read: Permission denied (EACCES)" store-unreadable
  rm -rf "$open"
else
  echo "SKIP: store-unreadable (needs root and setpriv to drop privileges)"
fi

# What the box held is still there, as it was.
if [ "$(cat "$box/real/target.json")" = '{"kept": true}' ] && [ -L "$box/link.json" ] &&
  [ "$(cat "$box/foreign.json")" = "not a history" ] && [ ! -e "$box/home/.local" ]; then
  pass
else
  fail "the box's files changed"
fi

echo "bad inputs e2e: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
