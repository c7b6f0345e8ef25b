#!/usr/bin/env python3
"""Prints the clock facts of this host from `harness clocks --format json` (read on stdin) in a few
lines, so that a red CI run on a new host shape can be read from its log alone (./dev.sh test
prints them before the tests). Usage: harness clocks --format json | clock_facts.py"""
import json
import sys

# The sources whose facts decide a run: the TSC readers and the vDSO clock.
SHOWN = ["rdtsc", "rdtscp", "lfence_rdtsc", "CLOCK_MONOTONIC", "CLOCK_MONOTONIC_COARSE"]


def ticks(value):
    if value is None:
        return "none"
    return f"{value:.0f} t" if value >= 1000 else f"{value:.4g} t"


def main():
    doc = json.load(sys.stdin)
    calibration = doc.get("tsc_calibration")
    if calibration:
        print(f"clock facts: TSC {calibration['ticks_per_second'] / 1e6:.3f} MHz against "
              f"{calibration['reference']} (error within {calibration['error_ppm']:.1f} ppm)")
    else:
        print("clock facts: no TSC calibration")
    for c in doc["clocks"]:
        if c["name"] not in SHOWN:
            continue
        if not c["available"]:
            print(f"  {c['name']}: unavailable ({c['unavailable_reason']})")
            continue
        step = c["smallest_step"] or {}
        gran = c["granularity"] or {}
        cost = c["call_cost"] or {}
        print(f"  {c['name']}: {cost.get('ns_per_call', 0):.1f} ns a call, step "
              f"{ticks(step.get('ticks'))}, granularity {ticks(gran.get('ticks'))}, "
              f"{'' if gran.get('read_cost_counted') else '~'}{ticks(gran.get('read_cost_ticks'))}"
              f" a read, {c['ticks_per_second'] / 1e6:.6g} MHz")
    print(f"  default sampling clock: {doc['default_clock']['name']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
