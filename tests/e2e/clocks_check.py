#!/usr/bin/env python3
"""End-to-end check of `harness clocks --json`: it parses, and lists every source with all fields.

Usage: clocks_check.py PATH_TO_HARNESS. Exits 0 when every check passes, 1 with the failures listed
otherwise. Asserts structure only, never a timing: the machine running it may be noisy. The one
relation it checks, granularity <= step, holds on any machine: two reads differ by whole quanta.
"""
import json
import platform
import subprocess
import sys

LINUX_SOURCES = [
    "rdtsc", "rdtscp", "lfence_rdtsc", "CLOCK_MONOTONIC", "CLOCK_MONOTONIC_RAW",
    "CLOCK_MONOTONIC_COARSE", "CLOCK_BOOTTIME", "CLOCK_REALTIME", "CLOCK_REALTIME_COARSE",
    "CLOCK_PROCESS_CPUTIME_ID", "CLOCK_THREAD_CPUTIME_ID", "gettimeofday", "time", "times",
    "getrusage_thread", "steady_clock", "system_clock", "high_resolution_clock",
]
SOURCE_FIELDS = {
    "name": str, "description": str, "kind": str, "monotonic": bool, "reads_in_order": bool,
    "available": bool, "ticks_per_second": (int, float),
}
NULLABLE_FIELDS = ["unavailable_reason", "declared_resolution_seconds", "call_cost",
                   "measured_resolution", "smallest_step", "granularity"]
COST_FIELDS = ["ns_per_call", "percent_of_cheapest", "pairs", "bounded_by_time", "pass_seconds"]
RESOLUTION_FIELDS = ["ticks", "seconds", "sweeps", "searched_seconds"]
STEP_FIELDS = ["ticks", "seconds", "reads", "changes", "searched_seconds"]
GRANULARITY_FIELDS = ["ticks", "seconds", "advances_every_tick", "read_cost_ticks",
                      "read_cost_counted", "reads", "changes", "sweeps", "searched_seconds"]
CALIBRATION_FIELDS = ["source", "reference", "ticks_per_second", "error_ppm", "duration_seconds",
                      "rounds", "converged"]


def check_granularity(where, granularity, step):
    """The granularity is none or a number of ticks >= 1, exactly 1 when the clock advances every
    tick, and at most the smallest step: a step is whole quanta, the smallest of which reads as a
    fractional quantum's floor (20 for 20.96), or 1 tick less on a clock converting its count to ns
    (hence the 2-tick and 1% slack)."""
    errors = []
    ticks = granularity.get("ticks")
    if ticks is None:
        if granularity.get("advances_every_tick"):
            errors.append(f"{where}: granularity advances every tick but has no ticks")
    elif not (isinstance(ticks, (int, float)) and ticks >= 1):
        errors.append(f"{where}: granularity.ticks {ticks!r} not a number >= 1")
    else:
        if granularity.get("advances_every_tick") and ticks != 1:
            errors.append(f"{where}: advances every tick but granularity is {ticks} ticks")
        step_ticks = step.get("ticks")
        if isinstance(step_ticks, (int, float)) and ticks > step_ticks * 1.01 + 2:
            errors.append(f"{where}: granularity {ticks} ticks exceeds the step {step_ticks} ticks")
    cost = granularity.get("read_cost_ticks")
    if not (isinstance(cost, (int, float)) and cost >= 0):
        errors.append(f"{where}: granularity.read_cost_ticks {cost!r} not a number >= 0")
    return errors


def check(doc):
    errors = []
    clocks = doc.get("clocks")
    if not isinstance(clocks, list) or not clocks:
        return ["'clocks' is not a non-empty list"]
    names = [c.get("name") for c in clocks]
    if len(set(names)) != len(names):
        errors.append(f"duplicate names: {names}")
    if platform.system() == "Linux" and names != LINUX_SOURCES:
        errors.append(f"sources {names} differ from the Linux list {LINUX_SOURCES}")
    for c in clocks:
        where = c.get("name", "?")
        for field, kind in SOURCE_FIELDS.items():
            if not isinstance(c.get(field), kind):
                errors.append(f"{where}: '{field}' missing or not {kind}")
        for field in NULLABLE_FIELDS:
            if field not in c:
                errors.append(f"{where}: '{field}' missing")
        if c.get("kind") not in ("wall", "thread_cpu", "process_cpu"):
            errors.append(f"{where}: unknown kind {c.get('kind')!r}")
        if not c.get("available"):
            if not c.get("unavailable_reason"):
                errors.append(f"{where}: unavailable without a reason")
            continue
        if c.get("unavailable_reason") is not None:
            errors.append(f"{where}: available but has a reason")
        if not c.get("ticks_per_second", 0) > 0:
            errors.append(f"{where}: ticks_per_second not positive")
        for field, keys in (("call_cost", COST_FIELDS), ("measured_resolution", RESOLUTION_FIELDS),
                            ("smallest_step", STEP_FIELDS), ("granularity", GRANULARITY_FIELDS)):
            block = c.get(field)
            if not isinstance(block, dict):
                errors.append(f"{where}: '{field}' not measured")
                continue
            errors += [f"{where}: '{field}.{k}' missing" for k in keys if k not in block]
        cost = c.get("call_cost") or {}
        if not (isinstance(cost.get("pairs"), int) and cost["pairs"] > 0):
            errors.append(f"{where}: call_cost.pairs not a positive count")
        if not (isinstance(cost.get("ns_per_call"), (int, float)) and cost["ns_per_call"] >= 0):
            errors.append(f"{where}: call_cost.ns_per_call not a number")
        errors += check_granularity(where, c.get("granularity") or {}, c.get("smallest_step") or {})
    default = doc.get("default_clock")
    available = {c["name"] for c in clocks if c.get("available")}
    if not isinstance(default, dict) or default.get("name") not in available:
        errors.append(f"default_clock {default!r} is not an available source")
    elif not default.get("reason"):
        errors.append("default_clock has no reason")
    calibration = doc.get("tsc_calibration", "missing")
    if calibration == "missing":
        errors.append("'tsc_calibration' missing")
    elif calibration is not None:
        errors += [f"tsc_calibration.{k} missing" for k in CALIBRATION_FIELDS if k not in calibration]
    if "settings" not in doc:
        errors.append("'settings' missing")
    return errors


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    run = subprocess.run([sys.argv[1], "clocks", "--json"], capture_output=True, text=True,
                         timeout=120)
    if run.returncode != 0:
        print(f"harness clocks --json exited {run.returncode}: {run.stderr}", file=sys.stderr)
        return 1
    try:
        doc = json.loads(run.stdout)
    except json.JSONDecodeError as e:
        print(f"harness clocks --json is not JSON: {e}", file=sys.stderr)
        return 1
    errors = check(doc)
    for e in errors:
        print(f"clocks_check: {e}", file=sys.stderr)
    print(f"clocks_check: {len(doc['clocks'])} sources, default {doc['default_clock']['name']}, "
          f"{'FAILED' if errors else 'ok'}")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
