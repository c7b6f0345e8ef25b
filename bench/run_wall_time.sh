#!/usr/bin/env bash
# The wall time of a tiny `harness run` of two builds, interleaved (issue 29: the results store
# must not make a run without --save slower). Each build runs ROUNDS times, A and B alternating,
# each with a HOME of its own (so the default history, a JSON file before the store and the
# default results store after, is read and written as a user's would be); and again with
# --no-history. Prints the median wall time of each and B/A.
# Usage: bench/run_wall_time.sh HARNESS_A HARNESS_B [ROUNDS]
set -euo pipefail
a=${1:?usage: run_wall_time.sh HARNESS_A HARNESS_B [ROUNDS]}
b=${2:?usage: run_wall_time.sh HARNESS_A HARNESS_B [ROUNDS]}
rounds=${3:-15}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
unset HARNESS_HISTORY HARNESS_DB XDG_STATE_HOME
tiny=(-w empty -n 5 --warmup 10ms --blocks 2)
mkdir -p "$work/home-a" "$work/home-b"
one() {  # one HARNESS HOME ARGS...: prints the wall seconds of one run
  local bin=$1 home=$2
  shift 2
  local t0 t1
  t0=$(date +%s.%N)
  HOME=$home "$bin" "${tiny[@]}" "$@" >/dev/null 2>"$work/err" || { cat "$work/err" >&2; exit 1; }
  t1=$(date +%s.%N)
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f\n", b - a }'
}
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
for mode in history no-history; do
  extra=()
  [ "$mode" = no-history ] && extra=(--no-history)
  : >"$work/a" && : >"$work/b"
  for _ in $(seq "$rounds"); do
    one "$a" "$work/home-a" "${extra[@]}" >>"$work/a"
    one "$b" "$work/home-b" "${extra[@]}" >>"$work/b"
  done
  ma=$(median <"$work/a")
  mb=$(median <"$work/b")
  awk -v m="$mode" -v a="$ma" -v b="$mb" -v n="$rounds" \
    'BEGIN { printf "%s: A %.3f s, B %.3f s (medians of %d), B/A %.3f\n", m, a, b, n, b / a }'
done
