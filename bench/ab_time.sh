#!/usr/bin/env bash
# Does more time buy `harness ab` a closer answer on this host? (docs/ab.md, "How well it reads a
# known difference": the stop rule trades the target against the wall time.)
#
# N processes (default 12), one after the other, of
#   harness ab A B --max-time T --target 0.0001%
# (T default 5s; a target no pair reaches, so every process runs its whole T of rounds), each with
# its JSON report. Then, for prefixes of each process's rounds (the first 1 s, 2 s, ... of rounds,
# by the share of its rounds), the answer the harness would have given there (the median of the
# round ratios) against the truth: how many lie within +-0.05% and +-0.2%, their root mean square
# and largest error. And per process: how far the median of the ratios moves between sixths of its
# rounds, beside how slow the host ran the rounds then (the median of A's round minimums against
# A's fastest round). The truth is B's work over A's: 1.01 for the default pair, --truth R
# otherwise. Every figure is measured in this run.
#
#   bench/ab_time.sh [--harness PATH] [-n N] [--max-time T] [--truth R] [--keep DIR]
#                    [-- A B [HARNESS AB OPTIONS...]]
# A and B default to xor_loop/1000000 xor_loop/1010000. Needs python3.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
harness=$root/build/bin/harness
n=12
max_time=5s
truth=1.01
keep=
pair=(xor_loop/1000000 xor_loop/1010000)
usage() { sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
while [ $# -gt 0 ]; do
  case "$1" in
    --harness) harness=${2:?}; shift 2 ;;
    -n) n=${2:?}; shift 2 ;;
    --max-time) max_time=${2:?}; shift 2 ;;
    --truth) truth=${2:?}; shift 2 ;;
    --keep) keep=${2:?}; shift 2 ;;
    --) shift; [ $# -ge 2 ] || { echo "ab_time.sh: after --, give A and B" >&2; exit 2; }; pair=("$@"); break ;;
    -h|--help) usage ;;
    *) echo "ab_time.sh: unknown argument '$1'" >&2; usage ;;
  esac
done
case "$n" in ''|*[!0-9]*|0) echo "ab_time.sh: -n: '$n' is not a positive count" >&2; exit 2 ;; esac
[ -x "$harness" ] || { echo "ab_time.sh: no harness at $harness (build it: ./dev.sh test)" >&2; exit 2; }
command -v python3 >/dev/null || { echo "ab_time.sh: needs python3" >&2; exit 2; }
python3 -c 'import sys; float(sys.argv[1]) > 0 or sys.exit(1)' "$truth" 2>/dev/null ||
  { echo "ab_time.sh: --truth: '$truth' is not a positive ratio" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
out=${keep:-$work}
mkdir -p "$out"

echo "harness: $harness; $n processes of: harness ab ${pair[*]} --max-time $max_time --target 0.0001%; truth $truth; started $(date -u +%FT%TZ)"
for i in $(seq 1 "$n"); do
  "$harness" ab "${pair[@]}" --max-time "$max_time" --target 0.0001% --format json \
    -o "$out/ab$i.json" >/dev/null 2>"$work/ab$i.err" ||
    { echo "ab_time.sh: process $i failed:" >&2; cat "$work/ab$i.err" >&2; exit 1; }
  printf '.' >&2
done
echo >&2

python3 - "$out" "$n" "$truth" <<'PY'
import json, math, statistics, sys
out, n, truth = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
runs = []
for i in range(1, n + 1):
    pair = json.load(open(f"{out}/ab{i}.json"))["ab"]["pairs"][0]
    runs.append((pair["rounds"], pair["seconds"]))

def error(rounds):  # % off the truth, of the median of the round ratios
    return (statistics.median(r["ratio"] for r in rounds) / truth - 1) * 100

shortest = min(seconds for _, seconds in runs)
cuts = [s for s in (0.5, 1, 2, 3, 5, 10, 20) if s < 0.95 * shortest] + [shortest]
print(f"\nthe answer (median of the round ratios) after the first S seconds of rounds, {n} processes")
print(f"{'S':>6} {'rounds':>8} {'within 0.05%':>13} {'0.2%':>6} {'rms %':>7} {'max %':>7}")
for s in cuts:
    errors, counts = [], []
    for rounds, seconds in runs:
        k = max(1, round(len(rounds) * min(1.0, s / seconds)))
        errors.append(error(rounds[:k]))
        counts.append(k)
    within = lambda limit: sum(1 for e in errors if abs(e) <= limit)
    print(f"{s:>5.1f}s {statistics.median(counts):>8.0f} {within(0.05):>9}/{n:<3} {within(0.2):>3}/{n:<2} "
          f"{math.sqrt(statistics.mean(e * e for e in errors)):>7.3f} {max(abs(e) for e in errors):>7.3f}")

print("\nper process: the median's error in each sixth of its rounds (%), and the host's speed then "
      "(A's median round minimum over A's fastest)")
for i, (rounds, seconds) in enumerate(runs, 1):
    fastest = min(r["a_min_ticks"] for r in rounds)
    w = max(1, len(rounds) // 6)
    parts = [rounds[k * w:(k + 1) * w] for k in range(6) if rounds[k * w:(k + 1) * w]]
    errs = " ".join(f"{error(p):+.3f}" for p in parts)
    slow = " ".join(f"{statistics.median(r['a_min_ticks'] for r in p) / fastest:.2f}" for p in parts)
    print(f"{i:>3}  {len(rounds):>5} rounds in {seconds:.1f} s  error {errs}  slow {slow}")
PY
