// Reports of a run. The console report follows the Stopwatch article: every sample in ticks and ms
// with the lowest and highest marked, then the statistics and a verdict per phase, and a summary
// per workload comparing baseline and prepared.
#pragma once

#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "harness/clock.hpp"
#include "harness/runner.hpp"
#include "harness/statistics.hpp"

namespace harness {

struct run_report {
  clock_facts clock;
  std::string clock_reason;  // why this clock samples (default choice or --clock)
  run_options options;
  std::vector<workload_result> results;
  bool show_samples = false;  // list every sample (one workload with few samples, or --detail)
  std::vector<std::string> environment;  // lines about the machine (doctor summary)
};

// Statistics of one phase over all samples and over its undisturbed ones, and the verdict.
struct phase_analysis {
  stats::phase_statistics all;
  std::optional<stats::phase_statistics> clean;  // only when some samples were disturbed
  stats::verdict verdict;
};
phase_analysis analyze(const phase_result& phase, const clock_facts& clock);

// How the prepared spread compares with the baseline's, both in % of their minimum.
struct spread_change {
  double baseline_percent = 0;
  double prepared_percent = 0;
  // baseline spread % / prepared spread %; nullopt when either spread is 0 (no ratio).
  std::optional<double> factor;
};
// nullopt when either spread % is undefined (a minimum at or below 0 ticks).
std::optional<spread_change> compare_spread(const stats::phase_statistics& baseline,
                                            const stats::phase_statistics& prepared);

void print_console_report(std::ostream& out, const run_report& report);

// The per-sample listing of one phase ("  3. ticks: 1110543  ms: 402.000  <-- highest").
void print_samples(std::ostream& out, const phase_result& phase, const clock_source& clock);

}  // namespace harness
