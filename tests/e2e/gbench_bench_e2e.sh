#!/usr/bin/env bash
# The Google Benchmark binaries of this project (bench/) run through `harness gbench` (issue 17),
# one small benchmark each with tiny budgets: both phases reported, exit 0, nothing left running.
# Usage: gbench_bench_e2e.sh PATH/TO/harness PATH/TO/statistics_bench PATH/TO/sampling_bench
set -u
harness=${1:?usage: gbench_bench_e2e.sh HARNESS STATISTICS_BENCH SAMPLING_BENCH}
statistics=${2:?usage: gbench_bench_e2e.sh HARNESS STATISTICS_BENCH SAMPLING_BENCH}
sampling=${3:?usage: gbench_bench_e2e.sh HARNESS STATISTICS_BENCH SAMPLING_BENCH}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
export TMPDIR=$work/tmp
mkdir -p "$TMPDIR"

tiny=(-n 2 --blocks 2 --warmup 0 --min-time 1ms --line '{workload} {phase} {samples}')
for case in "$statistics|bm_summarize/distinct/1000\$|bm_summarize/distinct/1000" \
  "$sampling|bm_timed_empty_sample|bm_timed_empty_sample"; do
  IFS='|' read -r binary filter name <<<"$case"
  if expect 0 "$name" -- gbench "${tiny[@]}" -- "$binary" "--benchmark_filter=$filter"; then
    contains out "$name baseline 2" "$name"
    contains out "$name prepared 2" "$name"
  fi
  if pgrep -f -- "^$binary" >/dev/null; then fail "$name: left running"; else pass; fi
done
[ -z "$(ls -A "$TMPDIR")" ] && pass || fail "files left in TMPDIR: $(ls "$TMPDIR")"

echo "gbench bench e2e: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
