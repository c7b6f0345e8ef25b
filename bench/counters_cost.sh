#!/usr/bin/env bash
# What the CPU counters cost a run (issue 30): pairs of processes, one with --counters none (the
# sampler reads nothing between its samples) and one with the default counters (read right before
# and right after every sample, outside its clock reads), in alternating order; per pair the ratio
# of the prepared floors per call (default / none) and of the wall times. Medians over the pairs.
# A floor ratio of 1 within the processes' own spread says the reads stay out of the timed region;
# the wall-time ratio is what a run takes longer.
#
#   bench/counters_cost.sh [--harness PATH] [-p PAIRS] [-w WORKLOAD] [-- HARNESS OPTIONS...]
#     defaults: build/bin/harness, 6 pairs, xor_loop/100000 (a ~20 µs call: reads at every
#     sample of a short call are the worst case); harness options default to -n 200
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
harness=$root/build/bin/harness
pairs=6
workload=xor_loop/100000
extra=()
while [ $# -gt 0 ]; do
  case "$1" in
    --harness) harness=$2; shift 2 ;;
    -p) pairs=$2; shift 2 ;;
    -w) workload=$2; shift 2 ;;
    --) shift; extra=("$@"); break ;;
    *) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
  esac
done
[ ${#extra[@]} -gt 0 ] || extra=(-n 200)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export HARNESS_HISTORY=off
run() {  # run NAME COUNTERS: one process, its JSON report and its wall time in ns
  local start end
  start=$(date +%s%N)
  "$harness" -w "$workload" --counters "$2" "${extra[@]}" -o "$work/$1.json" >/dev/null
  end=$(date +%s%N)
  echo $((end - start)) >"$work/$1.wall"
}
for i in $(seq 1 "$pairs"); do
  if [ $((i % 2)) -eq 1 ]; then run "none$i" none; run "default$i" default; else
    run "default$i" default; run "none$i" none; fi
done
python3 - "$work" "$pairs" "$workload" <<'PY'
import json, statistics, sys
work, pairs, workload = sys.argv[1], int(sys.argv[2]), sys.argv[3]
def floor(name):
    w = json.load(open(f"{work}/{name}.json"))["harness"]["workloads"][0]
    return [p for p in w["phases"] if p["phase"] == "prepared"][0]["min_ticks"]
def wall(name):
    return int(open(f"{work}/{name}.wall").read())
floors, walls = [], []
for i in range(1, pairs + 1):
    f = floor(f"default{i}") / floor(f"none{i}")
    t = wall(f"default{i}") / wall(f"none{i}")
    floors.append(f)
    walls.append(t)
    print(f"pair {i}: floor default/none {f:.5f}, wall time {t:.4f}")
print(f"{workload}, {pairs} pairs: median floor ratio (counters default / none) "
      f"{statistics.median(floors):.5f} (range {min(floors):.5f} to {max(floors):.5f}); "
      f"median wall-time ratio {statistics.median(walls):.4f}")
PY
