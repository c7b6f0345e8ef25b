// Comparing two runs: did build B make a workload faster or slower than build A?
//
// Reads two JSON reports of `harness --format json` (or `-o FILE.json`) and, for every workload
// both prepared phases sampled, compares the headline estimator of each run: the minimum, with its
// 95% Robson-Whitlock interval for the floor widened by one clock step each way (a sample is a
// difference of two clock reads, each quantised to the step). B is called faster or slower only
// when those intervals are apart; otherwise the difference is "not shown". The statistics are
// recomputed from the samples in the files with the same code that made the reports.
//
// The two runs are also checked against each other: when the fastest reference-loop runs of the
// prepared phases differ by more than the slow-down factor the runs used, the host (or the clock
// speed) differed between them and the comparison says so instead of trusting it.
//
// Caveats: ticks of two runs compare directly only when both used the same clock; otherwise both
// are converted to nanoseconds with each run's own ticks_per_second (a calibrated TSC rate can
// differ between runs by a few ppm). A difference between two builds can come from code
// placement (alignment) rather than from the change itself.
#pragma once

#include <cstdint>
#include <filesystem>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "harness/statistics.hpp"

namespace harness::compare {

// The prepared phase of one workload as a report recorded it.
struct workload_run {
  std::string name;
  std::vector<double> values;  // ticks per call, timer overhead subtracted, in sampling order
  std::uint64_t batch = 1;     // calls per sample
  std::optional<std::uint64_t> reference_best;  // fastest reference-loop run, ticks
  std::string verdict;  // the run's own verdict of the phase ("stable", ...); "" if none
  std::string verdict_reason;
};

// What compare needs from one report.
struct run_file {
  std::string source;  // where it was read from, for messages
  std::string date;    // the run's date as recorded; may be empty
  std::string clock;   // the sampling clock's name
  double ticks_per_second = 0;
  double step_ticks = 0;                // the clock step seen by the run (0: not measured)
  double slowdown_factor = 1.3;         // the run's host slow-down factor
  std::vector<workload_run> workloads;  // those with a prepared phase, in report order
};

// Parses a harness JSON report. Throws harness::usage_error naming `source` and what is wrong
// (not JSON, not a harness report, a schema version this build does not read).
run_file parse_run(std::string_view json_text, const std::string& source);
// Reads and parses a file; a missing or unreadable file is a usage_error naming it.
run_file read_run(const std::filesystem::path& path);

enum class outcome {
  faster,     // B's interval lies wholly below A's
  slower,     // B's interval lies wholly above A's
  not_shown,  // the intervals overlap: no difference shown at this resolution
  undefined,  // too few samples in one of the runs (fewer than the verdicts need)
};
std::string_view to_string(outcome o) noexcept;

struct workload_comparison {
  std::string name;
  stats::phase_statistics a;  // in the comparison's unit
  stats::phase_statistics b;
  double a_step = 0;  // one clock step per call of each run, in the comparison's unit
  double b_step = 0;
  bool whole_ticks = false;     // same clock, one call per sample in both: figures are whole ticks
  std::optional<double> ratio;  // B's minimum / A's minimum; nullopt when A's minimum is not > 0
  outcome result = outcome::undefined;
  std::string reason;              // why, in one sentence
  std::vector<std::string> notes;  // e.g. a run that judged its own phase unstable
};

struct comparison {
  bool same_clock = true;  // both runs sampled with one clock: figures are its ticks
  std::string unit;        // "ticks of lfence_rdtsc" or "ns"
  std::vector<workload_comparison> workloads;  // in A's order
  std::vector<std::string> only_in_a;
  std::vector<std::string> only_in_b;
  // Fastest reference-loop run of each whole run (over its workloads), in the comparison's unit.
  std::optional<double> a_reference;
  std::optional<double> b_reference;
  double slowdown_factor = 1.3;     // the larger of the runs' factors
  bool host_speed_differs = false;  // the reference bests differ by more than the factor
};

comparison compare_runs(const run_file& a, const run_file& b);

// The comparison for people: what is compared and how, one row per workload, the host check, the
// workloads found in one run only.
void write_text(std::ostream& out, const comparison& c, const run_file& a, const run_file& b);

}  // namespace harness::compare
