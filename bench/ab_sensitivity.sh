#!/usr/bin/env bash
# How well `harness ab` reads a known difference, against the ways it replaces (issue 26).
#
# For each condition (quiet; bench/noisy_neighbour on the other CPU, ALU kind; the same, memory
# kind), N processes (default 20) of each method, one after the other:
#   ab +1%      harness ab xor_loop/1000000 xor_loop/1010000 at defaults (truth: +1.00%)
#   ab A/A      harness ab xor_loop/1000000 xor_loop/1000000 (truth: 0)
#   ab mem A/A  harness ab memcpy_bytes/16777216 memcpy_bytes/16777216 (truth: 0)
#   ab mem A/A D  the same with --max-time D, with --mem-max-time D (docs/ab.md: memory-bound
#               pairs run to --max-time, and more time narrows them)
#   unpaired    harness run -w xor_loop/1000000, then -w xor_loop/1010000 (two processes at
#               defaults): the ratio of their prepared floors, and whether both were confirmed
#               (`harness compare` leaves out unconfirmed floors)
#   compare.py  bench/ab_gbench_pair (the same loop), 10 repetitions of 0.1 s per benchmark, pinned
#               and at nice -20 as harness pins itself: compare.py's median time difference
# and prints per method: the estimates' error against the truth (median, min, max), the share of
# processes within +-0.05% and +-0.2%, how often the interval covered the truth, the verdicts, and
# the mean wall time per process, and for ab how slow the host ran the rounds (each process's
# median round minimum over its floor, the slower side's: `slow_a`/`slow_b` of its report; at
# 1.2x or more its console says most rounds ran slow). Every figure is measured in this run; the
# raw lines go to OUT/raw.tsv, and every ab report to OUT/ab/.
#
# Usage: bench/ab_sensitivity.sh [-n N] [--conditions quiet,alu,memory] [--cpu C] [--out DIR]
#                                [--build DIR] [--mem-max-time D]
# Needs the build's bin/harness, bench/noisy_neighbour and bench/ab_gbench_pair
# (./dev.sh test builds them), and /usr/bin/python3 with scipy for compare.py.
set -euo pipefail
n=20
conditions=quiet,alu,memory
cpu=1
out=
mem_max_time=
build=$(cd "$(dirname "$0")/.." && pwd)/build
while [ $# -gt 0 ]; do
  case "$1" in
    -n) n=$2; shift 2 ;;
    --conditions) conditions=$2; shift 2 ;;
    --cpu) cpu=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    --mem-max-time) mem_max_time=$2; shift 2 ;;
    -h|--help) sed -n '2,26p' "$0"; exit 0 ;;
    *) echo "ab_sensitivity: unknown argument '$1'; see --help" >&2; exit 2 ;;
  esac
done
case "$n" in ''|*[!0-9]*|0) echo "ab_sensitivity: -n: '$n' is not a positive count" >&2; exit 2 ;; esac
harness=$build/bin/harness
neighbour=$build/bench/noisy_neighbour
gbench=$build/bench/ab_gbench_pair
compare=/usr/share/benchmark/compare.py
for tool in "$harness" "$neighbour" "$gbench"; do
  [ -x "$tool" ] || { echo "ab_sensitivity: $tool is missing; build it first (./dev.sh test)" >&2; exit 2; }
done
[ -n "$out" ] || out=$(mktemp -d)
mkdir -p "$out/ab"
other=$((1 - cpu))  # the neighbour's CPU on this 2-vCPU machine
raw=$out/raw.tsv
printf 'condition\tmethod\tprocess\testimate\tlower\tupper\tverdict\tseconds\tslow\n' >"$raw"
export HARNESS_HISTORY=off

now() { date +%s.%N; }

ab_once() {  # CONDITION METHOD I A B [OPTION...]
  # Each report is kept as OUT/ab/CONDITION-METHOD-I.json (every round: the stop rule and the
  # estimate can be replayed on them offline).
  local t0 t1 f=$out/ab/$1-${2//[^A-Za-z0-9%]/_}-$3.json
  t0=$(now)
  "$harness" ab "$4" "$5" --cpu "$cpu" -o "$f" "${@:6}" >/dev/null
  t1=$(now)
  python3 - "$f" "$1" "$2" "$3" "$(echo "$t1 - $t0" | bc)" >>"$raw" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))["ab"]
a = d["answer"]
# How slow the host ran the rounds: the slower side's median round minimum over its floor, the
# largest over the pairs (two builds run several).
slows = [s for p in d["pairs"] for s in (p["estimate"]["slow_a"], p["estimate"]["slow_b"])]
slow = repr(max(slows)) if slows and None not in slows else ""
print("\t".join([sys.argv[2], sys.argv[3], sys.argv[4], repr(a["ratio"]), repr(a["lower"]),
                 repr(a["upper"]), d["verdict"], sys.argv[5], slow]))
PY
}

unpaired_once() {  # CONDITION I
  local t0 t1
  t0=$(now)
  "$harness" -w xor_loop/1000000 --cpu "$cpu" --no-history -o "$out/a.json" >/dev/null
  "$harness" -w xor_loop/1010000 --cpu "$cpu" --no-history -o "$out/b.json" >/dev/null
  t1=$(now)
  python3 - "$out/a.json" "$out/b.json" "$1" "$2" "$(echo "($t1 - $t0) / 2" | bc -l)" \
    >>"$raw" <<'PY'
import json, sys
def floor(path):
    w = json.load(open(path))["harness"]["workloads"][0]
    p = [p for p in w["phases"] if p["phase"] == "prepared"][0]
    return p["floor"]["ticks"], p["floor"]["confirmed"]
(a, a_ok), (b, b_ok) = floor(sys.argv[1]), floor(sys.argv[2])
confirmed = "both_confirmed" if a_ok and b_ok else "unconfirmed"
print("\t".join([sys.argv[3], "unpaired", sys.argv[4], repr(b / a), "", "", confirmed,
                 sys.argv[5], ""]))
PY
}

gbench_once() {  # CONDITION I
  local t0 t1
  t0=$(now)
  taskset -c "$cpu" nice -n -20 "$gbench" --benchmark_filter='BM_xor' --benchmark_repetitions=10 \
    --benchmark_min_time=0.1 --benchmark_out="$out/gb.json" --benchmark_out_format=json >/dev/null 2>&1
  t1=$(now)
  /usr/bin/python3 "$compare" -d "$out/cmp.json" filters "$out/gb.json" BM_xor/1000000 \
    BM_xor/1010000 >"$out/cmp.txt" 2>&1
  python3 - "$out/cmp.json" "$1" "$2" "$(echo "$t1 - $t0" | bc)" >>"$raw" <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))
median = [r for r in rows if r["name"].endswith("_median")][0]["measurements"][0]["time"]
utest = [r for r in rows if "utest" in r and r["utest"]]
p = utest[0]["utest"].get("time_pvalue") if utest else None
verdict = "differs" if p is not None and p < 0.05 else "no_difference"
print("\t".join([sys.argv[2], "compare.py", sys.argv[3], repr(1 + median), "", "", verdict,
                 sys.argv[4], ""]))
PY
}

neighbour_pid=
stop_neighbour() {
  if [ -n "$neighbour_pid" ]; then
    kill -INT "$neighbour_pid" 2>/dev/null || true
    wait "$neighbour_pid" 2>/dev/null || true
    neighbour_pid=
  fi
}
trap stop_neighbour EXIT

IFS=, read -r -a list <<<"$conditions"
for condition in "${list[@]}"; do
  case "$condition" in
    quiet) ;;
    alu|memory)
      "$neighbour" --cpu "$other" --kind "$condition" 2>"$out/neighbour-$condition.txt" &
      neighbour_pid=$!
      sleep 0.5 ;;
    *) echo "ab_sensitivity: unknown condition '$condition' (quiet, alu, memory)" >&2; exit 2 ;;
  esac
  for i in $(seq "$n"); do
    ab_once "$condition" "ab +1%" "$i" xor_loop/1000000 xor_loop/1010000
    ab_once "$condition" "ab A/A" "$i" xor_loop/1000000 xor_loop/1000000
    ab_once "$condition" "ab mem A/A" "$i" memcpy_bytes/16777216 memcpy_bytes/16777216
    if [ -n "$mem_max_time" ]; then
      ab_once "$condition" "ab mem A/A $mem_max_time" "$i" memcpy_bytes/16777216 \
        memcpy_bytes/16777216 --max-time "$mem_max_time"
    fi
    unpaired_once "$condition" "$i"
    gbench_once "$condition" "$i"
    echo "ab_sensitivity: $condition: $i of $n" >&2
  done
  stop_neighbour
done

python3 - "$raw" <<'PY'
import csv, statistics, sys
truth = {"ab +1%": 1.01, "ab A/A": 1.0, "ab mem A/A": 1.0, "unpaired": 1.01, "compare.py": 1.01}
rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
for method in dict.fromkeys(r["method"] for r in rows):
    if method.startswith("ab mem A/A "):
        truth[method] = 1.0
print("condition  method          n  error % median [min, max]     within 0.05%  0.2%  covered"
      "  verdicts                 wall s  slow, median [max]")
for condition in dict.fromkeys(r["condition"] for r in rows):
    for method in truth:
        sel = [r for r in rows if r["condition"] == condition and r["method"] == method]
        if not sel:
            continue
        t = truth[method]
        errors = [(float(r["estimate"]) / t - 1) * 100 for r in sel]
        within = lambda w: sum(abs(e) <= w for e in errors)
        covered = [r for r in sel if r["lower"]]
        cov = sum(float(r["lower"]) <= t <= float(r["upper"]) for r in covered)
        verdicts = {}
        for r in sel:
            verdicts[r["verdict"]] = verdicts.get(r["verdict"], 0) + 1
        slows = [float(r["slow"]) for r in sel if r["slow"]]
        slow = f"{statistics.median(slows):.3f}x [{max(slows):.3f}x]" if slows else "-"
        print(f"{condition:<10} {method:<14} {len(sel):>2}  {statistics.median(errors):+.3f} "
              f"[{min(errors):+.3f}, {max(errors):+.3f}]  {within(0.05):>6}/{len(sel):<4}"
              f"{within(0.2):>5}/{len(sel):<3} "
              f"{(f'{cov}/{len(covered)}' if covered else '-'):>7}  "
              f"{' '.join(f'{k} {v}' for k, v in sorted(verdicts.items())):<24} "
              f"{statistics.mean(float(r['seconds']) for r in sel):<7.2f} {slow}")
PY
echo "ab_sensitivity: raw figures in $raw" >&2
