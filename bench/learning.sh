#!/usr/bin/env bash
# Issue 27's two figures for the learning built-ins, each beside a control that says what the host
# allowed (docs/floor.md, "A workload that learns" and "A cost that varies with its input").
#
# N rounds (default 10), one process at a time, each at defaults with --no-history:
#   branchy_sum          the same 64 KiB every call: does the report name the learning (its trust
#                        line says "speeds up with repetition")?
#   branchy_sum_fresh    fresh bytes every call: do two of its prepared blocks agree within the
#                        floor's tolerance?
#   xor_loop/1000000     deterministic work in short samples (one call, ~0.25 ms): do its blocks
#                        agree? The host's state at the scale the floor is usually taken at.
#   xor_loop/1000000 --batch B, B the batch branchy_sum_fresh took in the same round: the same
#                        deterministic work in samples as long as the fresh built-in's. When these
#                        blocks do not agree, the host disturbs every sample of that length, and no
#                        workload sampled that long can agree there either.
# and prints per kind: how often the learning was named, the learning check ran and refuted it,
# blocks agreed, the floor was confirmed; the floors; the sample length; the wall time. Every
# figure is measured in this run.
#
#   bench/learning.sh [--harness PATH] [-n N] [--keep DIR] [-- HARNESS OPTIONS...]
# Everything after -- goes to every process. Needs python3.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
harness=$root/build/bin/harness
n=10
keep=
extra=()
usage() { sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
while [ $# -gt 0 ]; do
  case "$1" in
    --harness) harness=${2:?}; shift 2 ;;
    -n) n=${2:?}; shift 2 ;;
    --keep) keep=${2:?}; shift 2 ;;
    --) shift; extra=("$@"); break ;;
    -h|--help) usage ;;
    *) echo "learning.sh: unknown argument '$1'" >&2; usage ;;
  esac
done
case "$n" in ''|*[!0-9]*|0) echo "learning.sh: -n: '$n' is not a positive count" >&2; exit 2 ;; esac
[ -x "$harness" ] || { echo "learning.sh: no harness at $harness (build it: ./dev.sh test)" >&2; exit 2; }
command -v python3 >/dev/null || { echo "learning.sh: needs python3" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
out=${keep:-$work}
mkdir -p "$out"

# run NAME ARGS...: one process, its JSON report as NAME.json and its wall time as NAME.wall.
run() {
  local name=$1 start end
  shift
  start=$(date +%s.%N)
  "$harness" "$@" --no-history "${extra[@]}" --format json -o "$out/$name.json" \
    >/dev/null 2>"$work/$name.err" || { echo "learning.sh: $name failed:" >&2; cat "$work/$name.err" >&2; exit 1; }
  end=$(date +%s.%N)
  echo "$start $end" >"$out/$name.wall"
}

echo "harness: $harness; $n rounds; options: ${extra[*]:-(defaults)}; started $(date -u +%FT%TZ)"
for i in $(seq 1 "$n"); do
  run "learn$i" -w branchy_sum
  run "fresh$i" -w branchy_sum_fresh
  batch=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["harness"]["workloads"][0]["batch"])' "$out/fresh$i.json")
  run "short$i" -w xor_loop/1000000
  run "long$i" -w xor_loop/1000000 --batch "$batch"
  printf '.' >&2
done
echo >&2

python3 - "$out" "$n" <<'PY'
import json, statistics, sys
out, n = sys.argv[1], int(sys.argv[2])
kinds = [("learn", "branchy_sum (same input every call)"),
         ("fresh", "branchy_sum_fresh (fresh input every call)"),
         ("short", "xor_loop/1000000 (control: short samples)"),
         ("long", "xor_loop/1000000 --batch B (control: the fresh built-in's sample length)")]

def load(name):
    report = json.load(open(f"{out}/{name}.json"))["harness"]
    w = report["workloads"][0]
    prepared = next(p for p in w["phases"] if p["phase"] == "prepared")
    floor = prepared["floor"]
    start, end = map(float, open(f"{out}/{name}.wall").read().split())
    hz = report["clock"]["ticks_per_second"]
    text = (w.get("trust") or {}).get("text") or ""
    check = prepared.get("learning_check")
    return {"named": "speeds up with repetition" in text,
            "checked": check is not None,
            "refuted": check is not None and prepared["learning"] is None,
            "agree": len(floor["agreeing_blocks"]) >= 2,
            "confirmed": floor["confirmed"],
            "floor": floor["ticks"],
            "batch": w["batch"],
            "sample_ms": floor["ticks"] * w["batch"] / hz * 1e3,
            "blocks": len(prepared["blocks"]),
            "spread": (max(floor["block_minimums_ticks"]) / min(floor["block_minimums_ticks"]) - 1) * 100,
            "wall": end - start,
            "clock": report["clock"]["name"]}

print(f"\n{'kind':<74} {'named':>6} {'checked':>8} {'refuted':>8} {'agree':>6} {'confirmed':>9}")
rows = {}
for kind, label in kinds:
    runs = [load(f"{kind}{i}") for i in range(1, n + 1)]
    rows[kind] = runs
    count = lambda key: sum(1 for r in runs if r[key])
    print(f"{label:<74} {count('named'):>3}/{n:<2} {count('checked'):>5}/{n:<2} "
          f"{count('refuted'):>5}/{n:<2} {count('agree'):>3}/{n:<2} {count('confirmed'):>6}/{n:<2}")
print(f"\n{'kind':<6} {'floors (ticks a call)':>26} {'apart':>7} {'batch':>6} {'sample ms':>10} "
      f"{'blocks':>7} {'block minima apart, median':>27} {'wall s':>7}")
for kind, _ in kinds:
    runs = rows[kind]
    low, high = min(r["floor"] for r in runs), max(r["floor"] for r in runs)
    batches = sorted({r["batch"] for r in runs})
    print(f"{kind:<6} {low:>12.1f} to {high:>11.1f} {(high / low - 1) * 100:>6.2f}% "
          f"{'/'.join(map(str, batches)):>6} {statistics.median(r['sample_ms'] for r in runs):>10.2f} "
          f"{statistics.median(r['blocks'] for r in runs):>7} "
          f"{statistics.median(r['spread'] for r in runs):>26.3f}% "
          f"{statistics.mean(r['wall'] for r in runs):>7.2f}")
print(f"\nclock: {rows['short'][0]['clock']}; named: the trust line says the workload speeds up with "
      "repetition; checked: its first block alone lay far below the rest, so the learning check ran "
      "(a block after a gap against one after 500 ms of the workload); refuted: the check ran and "
      "its re-warmed block was not faster enough, so no learning was named; agree: two prepared "
      "blocks' minimums within the floor's tolerance; confirmed: the floor's verdict (it also asks "
      "the blocks to be 100 ms apart, the reference loop at its fastest, the floor not above the "
      "baseline's).")
long_agree = sum(1 for r in rows["long"] if r["agree"])
print(f"The host held deterministic work in samples as long as the fresh built-in's "
      f"({statistics.median(r['sample_ms'] for r in rows['long']):.1f} ms) to agreeing blocks in "
      f"{long_agree} of {n} processes, and in short samples in "
      f"{sum(1 for r in rows['short'] if r['agree'])} of {n}.")
PY
