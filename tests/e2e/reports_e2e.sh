#!/usr/bin/env bash
# End-to-end tests of the report formats (issue 8) and `--line` (issue 4) with tiny budgets:
# Google Benchmark's compare.py on two harness JSON files, the JSON against its schema, CSV and
# Markdown on stdout, atomic -o writes, exit codes, colour and progress only on a terminal.
# No test here asserts a time or a noise level.
# Usage: reports_e2e.sh PATH/TO/harness SOURCE_ROOT
set -u
harness=${1:?usage: reports_e2e.sh PATH/TO/harness SOURCE_ROOT}
root=${2:?usage: reports_e2e.sh PATH/TO/harness SOURCE_ROOT}
compare=/usr/share/benchmark/compare.py
work=$(mktemp -d)
trap 'chmod -R u+w "$work"; rm -rf "$work"' EXIT
# One block: exactly the samples asked for (the blocks and the floor have checks of their own).
tiny=(-w empty -n 5 --warmup 10ms --blocks 1)

# shellcheck source=lib.sh
source "$root/tests/e2e/lib.sh"

# no_leftovers DIR NAME: DIR holds no file (a failed write left nothing behind).
no_leftovers() {
  if [ -n "$(ls -A "$1")" ]; then fail "$2: left behind: $(ls -A "$1")"; else pass; fi
}

# -o r.json: console report on stdout, Google Benchmark JSON in the file, valid against the schema.
if expect 0 json-file -- --detail "${tiny[@]}" -o "$work/a.json"; then
  contains out "summary" json-file
  fits_schema "a.json" "$work/a.json"
  # and the unit tests' golden report (ReportGolden), which the writers keep byte for byte
  fits_schema "tests/golden/report.json" "$root/tests/golden/report.json"
fi
expect 0 json-file-2 -- --detail "${tiny[@]}" -o "$work/b.json"
# In five blocks, with time for more: blocks, floors and their findings fit the schema too.
if expect 0 json-blocks -- --detail -w empty -n 5 --warmup 10ms --max-time 100ms -o "$work/blocks.json"; then
  fits_schema "blocks.json" "$work/blocks.json"
fi

# Google Benchmark's compare.py takes two harness files as they are (it needs /usr/bin/python3
# with scipy, as Debian's libbenchmark-tools ships it).
if [ -f "$compare" ] && /usr/bin/python3 -c 'import scipy' 2>/dev/null; then
  if /usr/bin/python3 "$compare" benchmarks "$work/a.json" "$work/b.json" >"$work/cmp" 2>&1; then
    pass
    contains cmp "empty " compare
    contains cmp "empty/baseline " compare
    contains cmp "empty_median" compare
    contains cmp "OVERALL_GEOMEAN" compare
  else
    fail "compare.py refused the harness JSON files"
    sed 's/^/    | /' "$work/cmp" | head -30
  fi
else
  echo "SKIP: compare.py: $compare or scipy for /usr/bin/python3 is missing"
fi

# Throughput (issue 16): memcpy_bytes declares its bytes per call: GiB/s in the console, Google
# Benchmark's bytes_per_second on the JSON rows, which compare.py still reads, schema intact.
if expect 0 throughput -- --detail -w memcpy_bytes -n 5 --warmup 10ms --blocks 1 -o "$work/bytes.json"; then
  contains out "GiB/s at the minimum" throughput
  contains out "bytes/s" throughput
  if grep -q '"bytes_per_second": [0-9]' "$work/bytes.json"; then pass; else
    fail "throughput: no bytes_per_second row in the JSON"
  fi
  fits_schema "bytes.json" "$work/bytes.json"
  if [ -f "$compare" ] && /usr/bin/python3 -c 'import scipy' 2>/dev/null; then
    if /usr/bin/python3 "$compare" benchmarks "$work/bytes.json" "$work/bytes.json" >"$work/cmp" 2>&1; then
      contains cmp "memcpy_bytes/65536 " throughput-compare
    else
      fail "compare.py refused a JSON file with bytes_per_second"
    fi
  fi
fi

# --format json on stdout is the JSON alone; --format csv one row per sample.
if expect 0 json-stdout -- "${tiny[@]}" --no-baseline --format json; then
  fits_schema "stdout JSON" "$work/out"
fi
if expect 0 csv -- "${tiny[@]}" --format csv; then
  contains out "workload,phase,index,ticks,ns,disturbed,raw_ticks,batch" csv
  rows=$(grep -c '^empty,' "$work/out")
  # One first call, 5 baseline and 5 prepared samples.
  if [ "$rows" -eq 11 ]; then pass; else fail "csv: $rows sample rows, expected 11"; fi
fi
if expect 0 markdown-file -- --detail "${tiny[@]}" -o "$work/r.md"; then
  if grep -qF "| workload | phase |" "$work/r.md" && grep -qF "| empty | prepared |" "$work/r.md"
  then pass; else fail "markdown: no summary table in r.md"; fi
fi
expect 0 format-overrides-extension -- "${tiny[@]}" --format csv -o "$work/r.json"
if head -1 "$work/r.json" | grep -qF "workload,phase"; then pass; else fail "--format csv -o r.json is not CSV"; fi

# Usage errors: exit 2, naming the value and what is accepted; nothing is run or written.
if expect 2 bad-format -- "${tiny[@]}" --format xml; then
  contains err "'xml'" bad-format
  contains err "console, json, csv, markdown or html" bad-format
fi
if expect 2 bad-extension -- --detail "${tiny[@]}" -o "$work/r.xlsx"; then
  contains err "'.xlsx'" bad-extension
  contains err ".json, .csv, .md" bad-extension
fi
[ -e "$work/r.xlsx" ] && fail "bad-extension: a file was written" || pass

# A file that cannot be written is found before the run: exit 2 with the path and the reason,
# and no file, partial or whole, left behind.
mkdir -p "$work/empty-dir"
if expect 2 missing-dir -- --detail "${tiny[@]}" -o "$work/empty-dir/missing/r.json"; then
  contains err "cannot write" missing-dir
  contains err "its folder '$work/empty-dir/missing' does not exist" missing-dir
fi
no_leftovers "$work/empty-dir" missing-dir
mkdir -p "$work/a-dir.json"
if expect 2 directory-target -- --detail "${tiny[@]}" -o "$work/a-dir.json"; then
  contains err "is a directory" directory-target
fi
no_leftovers "$work/a-dir.json" directory-target
mkdir -p "$work/read-only"
chmod a-w "$work/read-only"
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null; then
  # root writes anywhere: try as nobody, who may not write there.
  chmod a+rx "$work"
  setpriv --reuid=nobody --regid=nogroup --clear-groups "$harness" "${tiny[@]}" \
    -o "$work/read-only/r.json" >"$work/out" 2>"$work/err"
  got=$?
  if [ "$got" -eq 2 ]; then pass; else fail "read-only: exit code $got, expected 2"; fi
  contains err "Permission denied" read-only
elif [ "$(id -u)" -ne 0 ]; then
  expect 2 read-only -- --detail "${tiny[@]}" -o "$work/read-only/r.json" && contains err "Permission denied" read-only
else
  echo "SKIP: read-only directory: running as root without setpriv"
fi
no_leftovers "$work/read-only" read-only

# --line: one line per workload and phase, every token rendered, braces escaped.
if expect 0 line -- "${tiny[@]}" --line '{workload}|{phase}|{samples}|{runs}|{verdict}|{min:.3e}|{median}|{clock}|{0}|{{x}}'; then
  n=$(wc -l <"$work/out")
  if [ "$n" -eq 3 ]; then pass; else fail "line: $n lines, expected 3"; sed 's/^/    | /' "$work/out"; fi
  contains out "empty|first|1|1|n/a|" line
  contains out "empty|baseline|5|" line
  contains out "empty|prepared|5|" line
  contains out "|{x}" line
  lacks out "summary" line
fi
if expect 0 line-and-file -- "${tiny[@]}" --line '{workload} {phase}' -o "$work/l.json"; then
  contains out "empty prepared" line-and-file
  fits_schema "l.json" "$work/l.json"
fi
if expect 2 bad-line -- "${tiny[@]}" --line '{workload} {nope}'; then
  contains err "{nope}" bad-line
  contains err "{median}" bad-line
fi
expect 2 line-and-format -- "${tiny[@]}" --line '{workload}' --format json

# Pipes get no colour and no progress line; NO_COLOR is honoured on a terminal.
expect 0 piped -- --detail "${tiny[@]}"
if grep -q $'\x1b' "$work/out" "$work/err"; then fail "piped: escape sequences in a pipe"; else pass; fi
if command -v script >/dev/null; then
  # `script` gives the harness a terminal; its transcript holds stdout and stderr together.
  TERM=xterm script -qec "$harness ${tiny[*]}" /dev/null >"$work/tty" 2>&1
  if grep -q $'\x1b\\[3[123]m' "$work/tty"; then pass; else fail "tty: no colour on a terminal"; fi
  if grep -qF "[1/1] empty: " "$work/tty"; then pass; else fail "tty: no progress line on a terminal"; fi
  NO_COLOR=1 TERM=xterm script -qec "$harness ${tiny[*]}" /dev/null >"$work/tty" 2>&1
  if grep -q $'\x1b\\[3[123]m' "$work/tty"; then fail "NO_COLOR: colour on a terminal"; else pass; fi
else
  echo "SKIP: terminal checks: script(1) is missing"
fi

echo "reports e2e: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
