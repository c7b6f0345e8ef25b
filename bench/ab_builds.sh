#!/usr/bin/env bash
# How `harness ab --a BIN --b BIN` holds on this host (docs/ab.md, "Two builds: turns or duet, and
# how many pairs"): builds bench/ab_pair_bench.cpp twice against a harness build (as is, and with
# 1% more work a call), then runs `harness ab` R times per configuration, each run at the
# defaults but for --layout and --pairs, and prints per configuration: the answer, its interval
# and what widens it (the spread between pairs or within them), whether it covers 0 (A/A) or lies
# within 0.1% of +1% (A/B), the verdicts, the spread of the pairs' ratios, and the wall time.
#
#   bench/ab_builds.sh [options] [-- HARNESS AB OPTIONS...]
#     --build DIR      the harness build to link against and run (default: build)
#     -r R             runs per configuration (default 5)
#     --pairs P        pairs of workers per run (default 5)
#     --layouts LIST   comma-separated (default turns,duet)
#     --cases LIST     comma-separated among xor-ab, xor-aa, memcpy-aa, memcpy-ab
#                      (default xor-ab,xor-aa,memcpy-aa)
#     --keep DIR       keep the JSON reports in DIR
# Needs g++ and python3. A run takes the CPU(s) it pins for its --max-time per pair (2 s) at most.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build
runs=5
pairs=5
layouts=turns,duet
cases=xor-ab,xor-aa,memcpy-aa
keep=
extra=()
usage() { sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build=${2:?}; shift 2 ;;
    -r) runs=${2:?}; shift 2 ;;
    --pairs) pairs=${2:?}; shift 2 ;;
    --layouts) layouts=${2:?}; shift 2 ;;
    --cases) cases=${2:?}; shift 2 ;;
    --keep) keep=${2:?}; shift 2 ;;
    --) shift; extra=("$@"); break ;;
    -h|--help) usage ;;
    *) echo "ab_builds.sh: unknown argument '$1'" >&2; usage ;;
  esac
done
build=$(cd "$build" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
[ -n "$keep" ] && mkdir -p "$keep"

# The two builds (and a second copy of the first, so A/A compares two paths).
for permille in 1000 1010; do
  g++ -O2 -std=c++20 -falign-loops=64 -falign-functions=64 -DWORK_PERMILLE=$permille \
    -I"$root/harness/include" "$root/bench/ab_pair_bench.cpp" "$build/harness/libharness_main.a" \
    "$build/harness/libharness_cli.a" -lsqlite3 -lpq "$build/harness/libharness.a" -lbenchmark \
    -lfmt -lspdlog -lpthread -o "$work/bench-$permille"
done
mkdir -p "$work/a" "$work/a2" "$work/b"
cp "$work/bench-1000" "$work/a/bench"
cp "$work/bench-1000" "$work/a2/bench"
cp "$work/bench-1010" "$work/b/bench"

IFS=, read -r -a layout_list <<<"$layouts"
IFS=, read -r -a case_list <<<"$cases"
for c in "${case_list[@]}"; do
  case "$c" in
    xor-ab) args=(--a "$work/a/bench" --b "$work/b/bench" xor_work/1000000) ;;
    xor-aa) args=(--a "$work/a/bench" --b "$work/a2/bench" xor_work/1000000) ;;
    memcpy-aa) args=(--a "$work/a/bench" --b "$work/a2/bench" memcpy_work/16777216) ;;
    memcpy-ab) args=(--a "$work/a/bench" --b "$work/b/bench" memcpy_work/16777216) ;;
    *) echo "ab_builds.sh: unknown case '$c'" >&2; exit 2 ;;
  esac
  for layout in "${layout_list[@]}"; do
    for r in $(seq 1 "$runs"); do
      out=$work/$c-$layout-$r.json
      start=$(date +%s.%N)
      "$build/bin/harness" ab "${args[@]}" --layout "$layout" --pairs "$pairs" "${extra[@]}" \
        --format json -o "$out" >/dev/null 2>"$work/err" || { cat "$work/err" >&2; exit 1; }
      end=$(date +%s.%N)
      python3 -c "import json,sys; d=json.load(open(sys.argv[1])); d['wall_seconds']=float(sys.argv[2]); json.dump(d, open(sys.argv[1],'w'))" \
        "$out" "$(echo "$end - $start" | bc)"
      [ -n "$keep" ] && cp "$out" "$keep/"
    done
  done
done

python3 - "$work" "$runs" <<'PY'
import glob, json, math, os, statistics, sys
work, runs = sys.argv[1], int(sys.argv[2])
groups = {}
for f in sorted(glob.glob(os.path.join(work, "*.json"))):
    name = os.path.basename(f).rsplit("-", 1)[0]
    groups.setdefault(name, []).append(json.load(open(f)))
pct = lambda r: (r - 1) * 100
print(f"{'case':<18} {'runs':>4} {'answer % (min..max)':>22} {'width %':>16} {'widened by':>18}"
      f" {'ok':>6} {'verdicts':<22} {'sd pairs %':>10} {'sd rounds %':>11} {'wall s':>7}")
for name, docs in sorted(groups.items()):
    ab = [d["ab"] for d in docs]
    answers = [pct(a["answer"]["ratio"]) for a in ab]
    widths = [pct(a["answer"]["upper"]) - pct(a["answer"]["lower"]) for a in ab]
    between = sum(1 for a in ab if (a["between_pairs"]["upper"] - a["between_pairs"]["lower"])
                  >= (a["pooled_rounds"]["upper"] - a["pooled_rounds"]["lower"]))
    target = 1.01 if name.startswith(("xor-ab", "memcpy-ab")) else 1.0
    if target == 1.0:
        ok = sum(1 for a in ab if a["answer"]["lower"] <= 1 <= a["answer"]["upper"])
    else:
        ok = sum(1 for a in ab if abs(a["answer"]["ratio"] - target) <= 0.001)
    verdicts = {}
    for a in ab:
        verdicts[a["verdict"]] = verdicts.get(a["verdict"], 0) + 1
    # The spread between pairs: the standard deviation of the pairs' log ratios within each run,
    # pooled over the runs; the spread within a pair: of its rounds' log ratios, pooled likewise.
    def pooled_sd(groups_of_logs):
        num = sum((len(g) - 1) * statistics.variance(g) for g in groups_of_logs if len(g) > 1)
        den = sum(len(g) - 1 for g in groups_of_logs if len(g) > 1)
        return math.sqrt(num / den) * 100 if den else float("nan")
    sd_pairs = pooled_sd([[math.log(r) for r in a["pair_ratios"]] for a in ab])
    sd_rounds = pooled_sd([[math.log(r["ratio"]) for r in p["rounds"] if r["ratio"]]
                           for a in ab for p in a["pairs"]])
    wall = statistics.mean(d["wall_seconds"] for d in docs)
    vtext = ", ".join(f"{k} {v}" for k, v in sorted(verdicts.items()))
    print(f"{name:<18} {len(ab):>4} {statistics.median(answers):>+7.3f} ({min(answers):+.3f}..{max(answers):+.3f})"
          f" {statistics.median(widths):>7.3f} ({max(widths):.3f}) {between:>3} between/{len(ab) - between} in"
          f" {ok:>3}/{len(ab):<2} {vtext:<22} {sd_pairs:>10.4f} {sd_rounds:>11.4f} {wall:>7.1f}")
PY
