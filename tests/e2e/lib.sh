# Helpers shared by the end-to-end scripts; source it after setting $harness and $work.
# Each check counts into $passed / $failed; the script prints "N passed, N failed" at the end.
passed=0
failed=0
# No run of a test reads or writes the user's history of floors (history.hpp): results stay
# independent of earlier runs; the checks of the history name their own file with --history.
export HARNESS_HISTORY=off

fail() { echo "FAIL: $*"; failed=$((failed + 1)); }
pass() { passed=$((passed + 1)); }

# expect CODE NAME -- ARGS...: runs harness, checks the exit code, keeps stdout/stderr in
# $work/out and $work/err for the checks that follow.
expect() {
  local code=$1 name=$2
  shift 3
  "$harness" "$@" >"$work/out" 2>"$work/err"
  local got=$?
  if [ "$got" -ne "$code" ]; then
    fail "$name: exit code $got, expected $code (harness $*)"
    sed 's/^/    | /' "$work/err" | head -20
    return 1
  fi
  pass
}

# contains FILE TEXT NAME: $work/FILE (out or err) contains the fixed string TEXT.
contains() {
  if grep -qF -- "$2" "$work/$1"; then pass; else
    fail "$3: $1 lacks '$2'"
    sed 's/^/    | /' "$work/$1" | head -40
  fi
}

# unwrapped FILE: $work/FILE with the lines a report wrapped at 100 columns (`ab`, `compare`) joined
# again: a line break and the next line's indent of 3 or more read as one space (`ab`'s own lines
# start at 0 or 2; `compare`'s notes at 4 are joined too, which a search for a phrase does not
# mind).
unwrapped() {
  perl -0pe 's/\n {3,}/ /g' "$work/$1"
}

# contains_wrapped FILE TEXT NAME: as contains, over unwrapped FILE, so a phrase a wrap split is
# still found.
contains_wrapped() {
  if unwrapped "$1" | grep -qF -- "$2"; then pass; else
    fail "$3: $1 lacks '$2'"
    sed 's/^/    | /' "$work/$1" | head -40
  fi
}

# lacks_wrapped FILE TEXT NAME: unwrapped FILE does not contain TEXT.
lacks_wrapped() {
  if unwrapped "$1" | grep -qF -- "$2"; then fail "$3: $1 has '$2'"; else pass; fi
}

# lacks FILE TEXT NAME: $work/FILE does not contain TEXT.
lacks() {
  if grep -qF -- "$2" "$work/$1"; then fail "$3: $1 has '$2'"; else pass; fi
}

# fits_schema NAME FILE...: every FILE is a harness JSON report valid against
# docs/output.schema.json (schema_check.py, python3-jsonschema); a failure names each bad field's
# path.
lib_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
fits_schema() {
  local name=$1
  shift
  if /usr/bin/python3 "$lib_dir/schema_check.py" "$lib_dir/../../docs/output.schema.json" "$@" \
    >"$work/schema" 2>&1; then pass; else
    fail "$name: breaks docs/output.schema.json"
    sed 's/^/    | /' "$work/schema" | head -40
  fi
}

# wait_for PID COMMAND...: runs COMMAND every 50 ms until it succeeds (0) or PID has ended or a
# minute has passed (1): what a test waits for before it signals a command at a chosen moment.
wait_for() {
  local pid=$1
  shift
  for _ in $(seq 1200); do
    "$@" && return 0
    kill -0 "$pid" 2>/dev/null || return 1
    sleep 0.05
  done
  return 1
}

# Whether PID is in openat (syscall 257) after writing its console report to $work/out: every
# command writes and flushes that before its -o file, so the openat is the -o FIFO's, waiting
# for its reader (one seen earlier could be one of the doctor's, before the handlers are set).
opening_report_file() {
  [ -s "$work/out" ] && [ "$(cut -d' ' -f1 "/proc/$1/syscall" 2>/dev/null)" = 257 ]
}

# signal_while_writing NAME SIG CODE KEY -- ARGS...: a signal while the report is being written
# ends the command after the write, not the process in the middle of it (found by
# bench/soak.sh: a temporary file was left). ARGS write a JSON report with -o "$work/report.fifo",
# a FIFO this makes: the command blocks opening it until it is read; SIG then (TERM: a background
# job of a script ignores INT, so an INT could not fail the check), and the report must still
# come whole through the FIFO (a JSON document with KEY at its top), with exit CODE. A process the
# signal killed writes nothing (and its exit status in the shell would be the same).
signal_while_writing() {
  local name=$1 sig=$2 code=$3 key=$4
  shift 5
  local fifo="$work/report.fifo" pid got
  # The previous command's stdout must be gone first: the shell truncates it in the child, after
  # the fork, and wait_for could see the old one.
  rm -f "$fifo" "$work/out" "$work/err"
  mkfifo "$fifo"
  "$harness" "$@" >"$work/out" 2>"$work/err" &
  pid=$!
  if ! wait_for "$pid" opening_report_file "$pid"; then
    fail "$name: the command never blocked opening the FIFO"
    sed 's/^/    | /' "$work/err" | head -20
    kill -KILL "$pid" 2>/dev/null
    wait "$pid"
    rm -f "$fifo"
    return 1
  fi
  kill "-$sig" "$pid"
  sleep 0.2
  timeout 20 cat "$fifo" >"$work/fifo.json"
  wait "$pid"
  got=$?
  rm -f "$fifo"
  if [ "$got" -eq "$code" ]; then pass; else fail "$name: exit code $got, expected $code"; fi
  if /usr/bin/python3 -c 'import json, sys; json.load(open(sys.argv[1]))[sys.argv[2]]' \
    "$work/fifo.json" "$key" 2>/dev/null; then pass; else
    fail "$name: the report did not come whole through the FIFO (SIG$sig killed the process?)"
    sed 's/^/    | /' "$work/err" | head -20
  fi
}
