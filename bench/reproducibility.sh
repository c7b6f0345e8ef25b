#!/usr/bin/env bash
# Does the floor hold from one process to the next? Runs the harness as separate processes, at its
# default settings, and reports each process's prepared floor and whether it was confirmed, then:
# the spread of the confirmed floors across processes, the share confirmed, the processes that
# said "confirmed" with a floor away from the lowest, the B/A ratio of each interleaved pair, and
# the wall time. See docs/benchmarks.md.
#
#   bench/reproducibility.sh [options] [-- HARNESS OPTIONS...]
#     --harness PATH   the harness binary (default: build/bin/harness)
#     -n N             processes of workload A (default 20)
#     --pairs P        the first P of them are each followed by one process of B (default 10)
#     -a WORKLOAD      A (default xor_loop/1000000)
#     -b WORKLOAD      B (default xor_loop/1010000: 1% more work)
#     --history FILE   the history the processes share (default: a new, empty one, so the run
#                      starts as on a machine the harness has not measured on before)
#     --keep DIR       keep every process's JSON report in DIR
# Everything after -- goes to every process (e.g. -- --max-time 1s). Needs python3.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
harness=$root/build/bin/harness
n=20
pairs=10
a=xor_loop/1000000
b=xor_loop/1010000
history=
keep=
extra=()
usage() { sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
while [ $# -gt 0 ]; do
  case "$1" in
    --harness) harness=${2:?}; shift 2 ;;
    -n) n=${2:?}; shift 2 ;;
    --pairs) pairs=${2:?}; shift 2 ;;
    -a) a=${2:?}; shift 2 ;;
    -b) b=${2:?}; shift 2 ;;
    --history) history=${2:?}; shift 2 ;;
    --keep) keep=${2:?}; shift 2 ;;
    --) shift; extra=("$@"); break ;;
    -h|--help) usage ;;
    *) echo "reproducibility.sh: unknown argument '$1'" >&2; usage ;;
  esac
done
case "$n$pairs" in *[!0-9]*) echo "reproducibility.sh: -n and --pairs take whole numbers" >&2; exit 2 ;; esac
[ "$pairs" -le "$n" ] || { echo "reproducibility.sh: --pairs $pairs is more than -n $n" >&2; exit 2; }
[ -x "$harness" ] || { echo "reproducibility.sh: no harness at $harness (build it: ./dev.sh run --help)" >&2; exit 2; }
command -v python3 >/dev/null || { echo "reproducibility.sh: needs python3" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
[ -n "$history" ] || history=$work/history.json
out=${keep:-$work}
mkdir -p "$out"

# One process: its JSON report, and its wall time in a side file.
run() {
  local name=$1 workload=$2
  local start end
  start=$(date +%s.%N)
  "$harness" -w "$workload" --history "$history" "${extra[@]}" --format json -o "$out/$name.json" \
    >/dev/null 2>"$work/$name.err" || { echo "reproducibility.sh: $name failed:" >&2; cat "$work/$name.err" >&2; exit 1; }
  end=$(date +%s.%N)
  echo "$start $end" >"$out/$name.wall"
}

echo "harness: $harness"
echo "A: $a x $n processes; B: $b after each of the first $pairs; history: $history; options: ${extra[*]:-(defaults)}"
for i in $(seq 1 "$n"); do
  run "a$i" "$a"
  [ "$i" -le "$pairs" ] && run "b$i" "$b"
  printf '.' >&2
done
echo >&2

python3 - "$out" "$n" "$pairs" <<'PY'
import collections, json, statistics, sys
out, n, pairs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])

def load(name):
    r = json.load(open(f"{out}/{name}.json"))
    w = r["harness"]["workloads"][0]
    prepared = next(p for p in w["phases"] if p["phase"] == "prepared")
    f = prepared["floor"]
    start, end = map(float, open(f"{out}/{name}.wall").read().split())
    wall = end - start
    return {"name": name, "workload": w["name"], "floor": f["ticks"], "confirmed": f["confirmed"],
            "findings": f["findings"], "samples": prepared["samples"],
            "blocks": len(prepared["blocks"]), "wall": wall,
            "clock": r["harness"]["clock"]["name"]}

a = [load(f"a{i}") for i in range(1, n + 1)]
b = [load(f"b{i}") for i in range(1, pairs + 1)]
print(f"\n{'process':<8} {'workload':<20} {'floor ticks':>12} {'status':<13} {'vs lowest':>10} "
      f"{'samples':>7} {'blocks':>6} {'wall s':>7}  findings")
lowest = {}
for r in a + b:
    lowest[r["workload"]] = min(lowest.get(r["workload"], r["floor"]), r["floor"])
for r in a + b:
    off = (r["floor"] / lowest[r["workload"]] - 1) * 100
    print(f"{r['name']:<8} {r['workload']:<20} {r['floor']:>12.1f} "
          f"{'confirmed' if r['confirmed'] else 'not confirmed':<13} {off:>9.3f}% "
          f"{r['samples']:>7} {r['blocks']:>6} {r['wall']:>7.2f}  {', '.join(r['findings'])}")

def summary(label, runs):
    confirmed = [r for r in runs if r["confirmed"]]
    low_all = min(r["floor"] for r in runs)
    print(f"\n{label}: {len(runs)} processes of {runs[0]['workload']} "
          f"(ticks of {runs[0]['clock']} per call)")
    print(f"  confirmed: {len(confirmed)} of {len(runs)}")
    why = collections.Counter(f for r in runs for f in r["findings"])
    if why:
        print("  why not: " + ", ".join(f"{f} {k}" for f, k in why.most_common()) +
              " (processes; one may have several)")
    print(f"  floors of all processes: {low_all:.1f} to {max(r['floor'] for r in runs):.1f} "
          f"({(max(r['floor'] for r in runs) / low_all - 1) * 100:.3f}% apart)")
    if confirmed:
        low = min(r["floor"] for r in confirmed)
        high = max(r["floor"] for r in confirmed)
        within_01 = sum(1 for r in confirmed if r["floor"] <= low * 1.001)
        off_05 = [r for r in confirmed if r["floor"] > low_all * 1.005]
        print(f"  confirmed floors: {low:.1f} to {high:.1f} ({(high / low - 1) * 100:.3f}% apart); "
              f"{within_01} of {len(confirmed)} within 0.1% of the lowest confirmed")
        print(f"  confirmed with a floor more than 0.5% above the lowest of all processes: "
              f"{len(off_05)}" + (f" ({', '.join(r['name'] for r in off_05)})" if off_05 else ""))
    walls = [r["wall"] for r in runs]
    print(f"  wall time per process: median {statistics.median(walls):.2f} s, "
          f"min {min(walls):.2f} s, max {max(walls):.2f} s")

summary("A/A", a)
if b:
    summary("B", b)
    print(f"\nA/B pairs ({b[0]['workload']} / {a[0]['workload']}), from each pair's floors:")
    good = 0
    both = 0
    for i, rb in enumerate(b):
        ra = a[i]
        ratio = (rb["floor"] / ra["floor"] - 1) * 100
        valid = ra["confirmed"] and rb["confirmed"]
        both += valid
        good += valid and abs(ratio - 1.0) <= 0.2
        print(f"  pair {i + 1:>2}: B/A {ratio:+.3f}%  "
              f"{'both confirmed' if valid else 'not both confirmed: not a result'}")
    print(f"  pairs with both floors confirmed: {both} of {len(b)}; of those, within "
          f"+1.0% +- 0.2%: {good}")
PY
