#!/usr/bin/env bash
# `harness history` end to end (issue 29), over an SQLite store of runs saved by `--save`:
#   - the runs listed per workload and machine in every format, filtered by --branch and --since;
#   - JSON validated against the schema's fields read here, CSV a row per run;
#   - the store only read: a missing store is exit 2 and is not made, a store file is unchanged;
#   - bad inputs: no workload, --since that is no date, --threshold without --regressions.
# Regressions themselves are found on fixed data by the unit tests (Regressions.*): real floors
# move with the host.
# Usage: history_e2e.sh PATH/TO/harness
set -u
harness=${1:?usage: history_e2e.sh PATH/TO/harness}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
export HOME=$work/home
mkdir -p "$HOME"
unset XDG_STATE_HOME HARNESS_DB
db=$work/r.db
for c in 0a0a:main 1b1b:main 2c2c:topic; do
  expect 0 "save-${c%%:*}" -- -w xor_loop/1000 -n 5 --warmup 10ms --no-baseline --save \
    --db "$db" --commit "${c%%:*}" --branch "${c#*:}"
done
before=$(sha256sum "$db")

if expect 0 console -- history xor_loop/1000 --db "$db"; then
  contains out "history: 3 runs of 1 series on 1 machine, from $db" console
  contains out "0a0a" console
  contains out "2c2c    topic" console
fi
if expect 0 json -- history xor_loop/1000 --db "$db" --branch main --format json; then
  python3 - "$work/out" <<'PY' && pass || fail "json: $(cat "$work/py" 2>/dev/null)"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["history_schema_version"] == 1, d
assert [r["commit"] for r in d["runs"]] == ["0a0a", "1b1b"], d["runs"]
assert all(r["branch"] == "main" and r["floor_seconds"] > 0 for r in d["runs"]), d["runs"]
assert d["regressions"] is None
PY
fi
if expect 0 csv -- history xor_loop/1000 --db "$db" --format csv; then
  [ "$(wc -l <"$work/out")" -eq 4 ] && pass || fail "csv: $(wc -l <"$work/out") lines, expected 4"
fi
expect 0 markdown -- history xor_loop/1000 --db "$db" --format markdown && lacks out "## Regressions" markdown
if expect 0 regressions -- history xor_loop/1000 --db "$db" --regressions --format json; then
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["regressions"]["findings"] == [], d' "$work/out" && pass || fail "regressions: findings with too short a history"
fi
if expect 0 since -- history xor_loop/1000 --db "$db" --since 2999-01-01; then
  contains out "no saved run matches what was asked" since
fi
[ "$(sha256sum "$db")" = "$before" ] && pass || fail "the store changed while it was only read"

expect 2 missing -- history xor_loop/1000 --db "$work/none.db" && contains err "no such store" missing
[ -e "$work/none.db" ] && fail "missing: the store was made" || pass
expect 2 no-workload -- history --db "$db" && contains err "give the workloads" no-workload
expect 2 bad-since -- history x --db "$db" --since yesterday && contains err "--since: invalid value 'yesterday'" bad-since
expect 2 threshold-alone -- history x --db "$db" --threshold 2% && contains err "--threshold only means something with --regressions" threshold-alone

echo "history e2e: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
