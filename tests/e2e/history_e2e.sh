#!/usr/bin/env bash
# `harness history` end to end (issue 29), over an SQLite store of runs saved by `--save`:
#   - the runs listed per workload and machine in every format, filtered by --branch and --since,
#     each floor with its 95% interval (the store's schema 2), and `-` / null for a run without one;
#   - a store of schema 1 migrated when opened, its old runs' intervals filled from their reports;
#   - JSON validated against the schema's fields read here, CSV a row per run;
#   - the store only read: a missing store is exit 2 and is not made, a store file is unchanged;
#   - bad inputs: no workload, --since that is no date, --threshold without --regressions.
#   - --regressions on recorded data: one saved run copied into 30 commits per machine with fixed
#     floors (seeded noise of 0.3%, as real floors move with the host), a +3% step at one commit
#     found there with exit 4, noise alone exit 0, a second machine 10% faster (no step) never
#     mixed in.
# The estimator itself is tested on more seeds by the unit tests (Regressions.*).
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
# Pinned to one CPU: a series is a machine and the CPU the floor ran on, and the default CPU (the
# least loaded) may differ from run to run on a busy machine.
pin=$(python3 -c 'import os; print(max(os.sched_getaffinity(0)))')
for c in 0a0a:main 1b1b:main 2c2c:topic; do
  expect 0 "save-${c%%:*}" -- -w xor_loop/1000 -n 5 --warmup 10ms --no-baseline --save \
    --cpu "$pin" --db "$db" --commit "${c%%:*}" --branch "${c#*:}"
done
before=$(sha256sum "$db")

if expect 0 console -- history xor_loop/1000 --db "$db"; then
  contains out "history: 3 runs of 1 series on 1 machine, from $db" console
  contains out "0a0a" console
  contains out "2c2c    topic" console
  # The interval column holds an interval on every run: "[lower, upper]", never "-".
  python3 - "$work/out" <<'PY' && pass || fail "console: a run without its interval: $(cat "$work/out")"
import sys
rows = [l for l in open(sys.argv[1]) if l.startswith("  20")]
assert len(rows) == 3 and all("[" in r and "]" in r for r in rows), rows
PY
fi
if expect 0 json -- history xor_loop/1000 --db "$db" --branch main --format json; then
  python3 - "$work/out" <<'PY' && pass || fail "json: $(cat "$work/py" 2>/dev/null)"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["history_schema_version"] == 1, d
assert [r["commit"] for r in d["runs"]] == ["0a0a", "1b1b"], d["runs"]
assert all(r["branch"] == "main" and r["floor_seconds"] > 0 for r in d["runs"]), d["runs"]
# The floor's 95% interval: the minimum's, so its upper bound is the floor itself.
assert all(0 <= r["floor_lower_seconds"] <= r["floor_seconds"] == r["floor_upper_seconds"]
           for r in d["runs"]), d["runs"]
assert d["regressions"] is None
PY
fi
if expect 0 csv -- history xor_loop/1000 --db "$db" --format csv; then
  python3 - "$work/out" <<'PY' && pass || fail "csv: $(cat "$work/out")"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == 3, rows
assert all(float(r["floor_lower_seconds"]) <= float(r["floor_upper_seconds"]) for r in rows), rows
PY
fi
expect 0 markdown -- history xor_loop/1000 --db "$db" --format markdown && lacks out "## Regressions" markdown &&
  contains out "| 95% interval |" markdown && lacks out "| - | yes |" markdown && lacks out "| - | no |" markdown
if expect 0 regressions -- history xor_loop/1000 --db "$db" --regressions --format json; then
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["regressions"]["findings"] == [], d' "$work/out" && pass || fail "regressions: findings with too short a history"
fi
if expect 0 since -- history xor_loop/1000 --db "$db" --since 2999-01-01; then
  contains out "no saved run matches what was asked" since
fi
# A glob over the saved workloads' names, as -w takes one; a glob that matches none lists nothing.
if expect 0 glob -- history 'xor_*/1?00' 'xor_loop/*' --db "$db"; then
  contains out "history: 3 runs of 1 series on 1 machine, from $db" glob
fi
expect 0 glob-none -- history 'nosuch*' --db "$db" && contains out "no saved run matches what was asked" glob-none
[ "$(sha256sum "$db")" = "$before" ] && pass || fail "the store changed while it was only read"

# A store of schema 1 (the saved one with the interval's columns dropped, its version set back):
# history migrates it on opening and lists the old runs with their intervals, from their reports.
cp "$db" "$work/v1.db"
python3 - "$work/v1.db" <<'PY' || fail "v1: not made"
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
c.execute("ALTER TABLE phases DROP COLUMN floor_lower_ticks")
c.execute("ALTER TABLE phases DROP COLUMN floor_upper_ticks")
c.execute("ALTER TABLE phases DROP COLUMN floor_cpu")
c.execute("ALTER TABLE runs DROP COLUMN saved_ns")
c.execute("UPDATE harness_store SET value = '1' WHERE name = 'schema_version'")
c.commit()
PY
if expect 0 v1 -- history xor_loop/1000 --db "$work/v1.db" --format json; then
  python3 - "$work/out" "$work/v1.db" <<'PY' && pass || fail "v1: $(cat "$work/out")"
import json, sqlite3, sys
runs = json.load(open(sys.argv[1]))["runs"]
assert len(runs) == 3 and all(0 <= r["floor_lower_seconds"] <= r["floor_upper_seconds"]
                              for r in runs), runs
v = sqlite3.connect(sys.argv[2]).execute(
    "SELECT value FROM harness_store WHERE name = 'schema_version'").fetchone()[0]
assert v == "3", v
PY
fi

# Recorded data: the run saved above as 30 commits of each of two machines, floors set here.
# CPU_AT: from that commit on, machine one's floors ran on CPU 1, 5% slower than on CPU 0 (a
# machine's two vCPUs need not run at one speed); 0 leaves every run on the saved run's CPU.
series() {  # series DB STEP_AT [CPU_AT]: STEP_AT 0 for noise alone
  python3 - "$1" "$2" "${3:-0}" <<'PY'
import random, sqlite3, sys
db, step_at, cpu_at = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
c = sqlite3.connect(db)
src = c.execute("SELECT id FROM runs ORDER BY saved_unix LIMIT 1").fetchone()[0]
cols = [r[1] for r in c.execute("PRAGMA table_info(runs)")]
pcols = [r[1] for r in c.execute("PRAGMA table_info(phases)")]
rng = random.Random(7)
base = c.execute("SELECT floor_ticks FROM phases WHERE run_id = ?", [src]).fetchone()[0]
for m, (machine, speed) in enumerate([("machine one", 1.0), ("machine two", 0.9)]):
    for i in range(30):
        rid = f"copy{m}{i:02d}"
        over = {"id": rid, "machine": machine, "commit_sha": f"c{i:03d}", "branch": "main",
                "saved_unix": 2_000_000_000 + 60 * i + m}
        c.execute(f"INSERT INTO runs ({','.join(cols)}) SELECT "
                  + ",".join("?" if k in over else k for k in cols) + " FROM runs WHERE id = ?",
                  [over[k] for k in cols if k in over] + [src])
        step = 1.03 if machine == "machine one" and step_at and i >= step_at else 1.0
        on_cpu1 = machine == "machine one" and cpu_at and i >= cpu_at
        floor = base * speed * step * (1.05 if on_cpu1 else 1.0) * (1 + rng.gauss(0, 0.003))
        # A floor set here has no interval: the copies keep none (NULL, as a run saved by a
        # harness of store schema 1 whose report had no samples).
        pover = {"run_id": rid, "floor_ticks": floor, "floor_lower_ticks": None,
                 "floor_upper_ticks": None}
        if machine == "machine one" and cpu_at:
            pover["floor_cpu"] = 1 if on_cpu1 else 0
        c.execute(f"INSERT INTO phases ({','.join(pcols)}) SELECT "
                  + ",".join("?" if k in pover else k for k in pcols) + " FROM phases WHERE run_id = ?",
                  [pover[k] for k in pcols if k in pover] + [src])
c.execute("DELETE FROM runs WHERE id NOT LIKE 'copy%'")
c.execute("DELETE FROM phases WHERE run_id NOT LIKE 'copy%'")
c.commit()
PY
}
cp "$db" "$work/step.db" && cp "$db" "$work/noise.db" && cp "$db" "$work/cpus.db"
series "$work/step.db" 20 && series "$work/noise.db" 0 && series "$work/cpus.db" 0 15 ||
  fail "recorded data: not written"
if expect 4 step -- history xor_loop/1000 --db "$work/step.db" --regressions --format json; then
  python3 - "$work/out" <<'PY' && pass || fail "step: $(cat "$work/out")"
import json, sys
f = json.load(open(sys.argv[1]))["regressions"]["findings"]
assert len(f) == 1, f
cpu = json.load(open(sys.argv[1]))["runs"][0]["floor_cpu"]
assert isinstance(cpu, int), cpu
assert (f[0]["commit_before"], f[0]["commit_after"], f[0]["machine"]) == (
    "c019", "c020", f"machine one | prepared on CPU {cpu}"), f
assert 0.02 < f[0]["change"] < 0.04, f
runs = json.load(open(sys.argv[1]))["runs"]
assert all(r["floor_lower_seconds"] is None and r["floor_upper_seconds"] is None for r in runs), runs
PY
fi
expect 4 step-console -- history xor_loop/1000 --db "$work/step.db" --regressions && contains out "c019" step-console
expect 0 noise -- history xor_loop/1000 --db "$work/noise.db" --regressions && contains out "machine two" noise
# Machine one's floors moved to its slower CPU from commit c015 on: two series of their own, no
# finding (one series would read the CPU's 5% as a regression at c015).
if expect 0 cpus -- history xor_loop/1000 --db "$work/cpus.db" --regressions --format json; then
  python3 - "$work/out" <<'PY' && pass || fail "cpus: $(cat "$work/out")"
import collections, json, sys
d = json.load(open(sys.argv[1]))
assert d["regressions"]["findings"] == [], d["regressions"]
one = collections.Counter(r["series"] for r in d["runs"] if r["machine"] == "machine one")
assert one == {"machine one | prepared on CPU 0": 15, "machine one | prepared on CPU 1": 15}, one
PY
fi
expect 0 cpus-console -- history xor_loop/1000 --db "$work/cpus.db" &&
  contains out "xor_loop/1000 on machine one | prepared on CPU 1, clock" cpus-console

expect 2 missing -- history xor_loop/1000 --db "$work/none.db" && contains err "no such store" missing
[ -e "$work/none.db" ] && fail "missing: the store was made" || pass
expect 2 no-workload -- history --db "$db" && contains err "give the workloads" no-workload
expect 2 bad-since -- history x --db "$db" --since yesterday && contains err "--since: invalid value 'yesterday'" bad-since
expect 2 threshold-alone -- history x --db "$db" --threshold 2% && contains err "--threshold only means something with --regressions" threshold-alone

echo "history e2e: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
