// Reports to save in the store's tests and its concurrency tool: small JSON documents shaped as
// the harness writes them (docs/output.md), with the figures the tests look for.
#pragma once

#include <fmt/format.h>

#include <string>

#include "store/store.hpp"

namespace harness::store::fixtures {

// A sample row of "benchmarks" (docs/output.md): `ticks` per call of workload 0's `phase`.
inline std::string sample_row(const std::string& phase, double ticks) {
  const std::string name = phase == "prepared" ? "sort/1000" : "sort/1000/" + phase;
  return fmt::format(
      R"({{"name": "{0}", "family_index": 0, "run_name": "{0}", "run_type": "iteration", )"
      R"("iterations": 1, "phase": "{1}", "ticks": {2}}})",
      name, phase, ticks);
}

// The sample rows of run_report(floor): the first call; the baseline's 5 samples, 110 ticks and
// up by 2 (its minimum's 95% interval [72, 110]); the prepared phase's 20, `floor` and up by
// floor / 800 (its interval [floor - 19 floor / 800, floor]: [97.625, 100] for 100).
inline std::string sample_rows(double floor) {
  std::string rows = sample_row("first", 900);
  for (int i = 0; i < 5; ++i)
    rows += ", " + sample_row("baseline", 110.0 + 2 * i);
  for (int i = 0; i < 20; ++i)
    rows += ", " + sample_row("prepared", floor + i * floor / 800);
  return rows;
}

// A run report of one workload, sort/1000: a first call, a baseline whose floor is not confirmed
// (its CPU not said, as a harness before the CPU was read wrote it), and a prepared phase whose
// floor is `floor` ticks, confirmed, on CPU 1; with its sample rows, or without them
// (`with_samples` false, as a report that kept none).
inline std::string run_report(double floor, bool with_samples = true) {
  return fmt::format(
      R"({{"context": {{"host_name": "runner-1"}}, "benchmarks": [{2}], "harness": {{
  "schema_version": 1, "harness_version": "0.1.0",
  "clock": {{"name": "tsc", "ticks_per_second": 2500000000.0}},
  "workloads": [{{"name": "sort/1000", "phases": [
    {{"phase": "first", "samples": 1, "min_ticks": 900.0}},
    {{"phase": "baseline", "samples": 5, "min_ticks": 110.0, "median_ticks": 120.0,
      "spread_percent": 9.0, "verdict": "too_few_samples",
      "floor": {{"confirmed": false, "ticks": 110.0, "findings": ["too_few_blocks", "no_agreement"]}}}},
    {{"phase": "prepared", "samples": 20, "min_ticks": {0}, "median_ticks": {1},
      "spread_percent": 1.5, "verdict": "stable",
      "floor": {{"confirmed": true, "ticks": {0}, "findings": [], "floor_cpu": 1}}}}]}}]}}}}
)",
      floor, floor * 1.0125, with_samples ? sample_rows(floor) : std::string());
}

inline std::string ab_report() {
  return R"({"context": {}, "benchmarks": [], "harness": {"schema_version": 1,
  "harness_version": "0.1.0", "kind": "ab", "clock": {"name": "tsc", "ticks_per_second": 2.5e9}},
  "ab": {"mode": "workloads", "a": {"workload": "sort/1000"}, "b": {"workload": "sort/2000"},
  "answer": {"ratio": 1.02, "lower": 1.01, "upper": 1.03, "level": 0.95, "count": 40},
  "verdict": "slower"}}
)";
}

// A save request of `kind` ("run" or "ab") on the test machine.
inline save_request request(const std::string& kind, double floor) {
  save_request r;
  r.machine = {"Test CPU", 2.5e9, "Linux 6.1.0", "runner-1"};
  r.build = "xxh3:0123456789abcdef";
  r.report_json = kind == "ab" ? ab_report() : run_report(floor);
  return r;
}

}  // namespace harness::store::fixtures
