// One analysis of a run: the report model every writer formats.
//
// analyze_run() computes, once per run whatever the number of outputs, each phase's statistics
// over all and over its clean samples, its verdict, and per workload how the prepared phase
// compares with the baseline (spread, host speed). The floor and its confirmation come with the
// phases: the sampler decided them while it ran (floor.hpp). Writers (report.hpp) read the model
// and the run it points to, and compute nothing of their own.
//
// Caveat: the model points into the run_report it was made from, which must outlive it.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "harness/run_report.hpp"
#include "harness/statistics.hpp"

namespace harness {

// Statistics of one phase over all samples and over its undisturbed ones, and the verdict.
struct phase_analysis {
  const phase_result* phase = nullptr;  // the raw phase it was made from
  stats::phase_statistics all;
  std::optional<stats::phase_statistics> clean;  // only when some samples were disturbed
  std::optional<stats::verdict> verdict;         // none for the first call
};
// The first call gets its statistics only; the other phases their verdict too, judged with the
// clock's granularity per call.
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

// How fast the CPU ran the reference loop in the baseline and in the prepared phase. A host that
// ran the guest slower (or a lower clock) for a whole phase leaves no faster sample within that
// phase to flag, but shows against the other phase.
struct host_speed_change {
  std::uint64_t baseline_best = 0;  // fastest reference run, ticks
  std::uint64_t prepared_best = 0;
  double ratio = 1;              // the slower phase's best / the faster phase's best, >= 1
  bool baseline_slower = false;  // which phase was the slower one
};
// nullopt when either phase ran no reference loop.
std::optional<host_speed_change> compare_host_speed(const phase_result& baseline,
                                                    const phase_result& prepared);

// The phase's name in machine-readable reports (JSON, CSV, --line): "first", "baseline",
// "prepared". (to_string(phase_kind) is for people: "first call".)
inline std::string_view phase_id(phase_kind kind) noexcept {
  return names_of(kind).id;
}

// The phases of a workload in report order: first, baseline, prepared (those that ran).
std::vector<const phase_result*> phases_of(const workload_result& result);

struct workload_analysis {
  const workload_result* result = nullptr;
  std::vector<phase_analysis> phases;   // the phases that ran, in report order
  std::optional<spread_change> spread;  // both baseline and prepared ran, with spreads defined
  std::optional<host_speed_change> host_speed;  // both ran the reference loop

  // The phase of that kind, or nullptr when it did not run.
  const phase_analysis* find(phase_kind kind) const noexcept;
};

struct report_model {
  const run_report* run = nullptr;
  std::vector<workload_analysis> workloads;  // in run order
};

report_model analyze_run(const run_report& run);

}  // namespace harness
