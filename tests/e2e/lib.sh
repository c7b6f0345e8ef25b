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
