// The clock survey: what each clock costs to read and how finely it really resolves.
//
// Three estimators, after the WinSTL performance-counter study, each a template over a callable
// that reads the clock (returns native ticks) and one that reads a reference clock in
// nanoseconds, so that tests can drive them with fake clocks and get exact answers:
//   measure_call_cost   the loop of N start/stop pairs timed by the reference, run twice and
//                       the second pass kept (the first warms caches and the branch predictor);
//   measure_resolution  the smallest non-zero interval seen around an inner loop of 0..2047
//                       iterations (the study's counter_resolution);
//   measure_step        the smallest non-zero difference between back-to-back readings.
// survey_clock() applies them to a clock_source, bounded in time so the whole survey takes a
// few seconds.
//
// Caveats: call cost includes the loop and, for clock_source, one virtual call per read, as on the
// harness's sampling path. A clock coarser than the search time shows no resolution or step at
// all; that is reported as "none seen in N ms", never as a number.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "harness/clock.hpp"

namespace harness {

namespace survey_detail {
// Results of the loops are folded here so the compiler cannot drop reads of a pure fake clock.
inline volatile std::uint64_t sink = 0;

// The inner work loop of measure_resolution: n dependent volatile increments.
struct busy_spin {
  void operator()(int n) const noexcept {
    for (int j = 0; j < n; ++j)
      sink = sink + 1;
  }
};
}  // namespace survey_detail

// Tuning of the survey, gathered here; each default says why.
struct survey_settings {
  // The pair count, as in the study's Table 4.
  std::uint64_t max_pairs = 1'000'000;
  // A clock whose pilot cost is under this always runs the full count: every TSC and vDSO clock,
  // even on a VM running 2x slow (200 ns makes at most 0.4 s a pass).
  double cheap_call_ns = 200;
  // A dearer one (a system call) has its pass cut to this much reference time, so a 0.7 us call
  // runs ~70,000 pairs instead of taking 1.4 s; the output says the count used.
  double cost_pass_budget_seconds = 0.1;
  // Pairs of each of the three pilot passes that size the real one; the cheapest pilot is kept,
  // so one interruption does not make a cheap clock look dear.
  std::uint64_t pilot_pairs = 1'000;
  // Inner loop lengths 0..2047, as in the study's counter_resolution.
  int resolution_max_inner = 2047;
  // Sweeps repeat until this many non-zero intervals were seen, so that one late update of a
  // tick-driven clock (a 20 ms jump of a 4 ms clock on a busy VM) is not taken for its resolution.
  std::uint64_t resolution_enough_intervals = 5;
  // ... or until this much time passed: a 4 ms (HZ=250) or 10 ms (CLK_TCK) clock shows several
  // intervals within it, while a 1 s clock gives up quickly.
  double resolution_budget_seconds = 0.05;
  // Back-to-back reads for the step: at 12 ns a read, 100,000 are about 1 ms. A clock that has not
  // moved this many times by then is read on, up to the budget, for the same reason as above.
  std::uint64_t step_enough_reads = 100'000;
  std::uint64_t step_enough_changes = 5;
  double step_budget_seconds = 0.05;
};

struct call_cost_estimate {
  std::uint64_t pairs = 0;       // start/stop pairs of the kept (second) pass
  double seconds = 0;            // reference time of the kept pass
  double ns_per_call = 0;        // seconds / (2 * pairs), in nanoseconds
  bool bounded_by_time = false;  // pairs was cut below the requested count by the time budget
};

struct resolution_estimate {
  std::optional<std::uint64_t> ticks;  // smallest non-zero interval; none seen when empty
  std::uint64_t sweeps = 0;            // 0..max_inner sweeps run
  double searched_seconds = 0;         // reference time spent
};

struct step_estimate {
  std::optional<std::uint64_t> ticks;  // smallest non-zero forward step; none seen when empty
  std::uint64_t reads = 0;             // readings taken
  std::uint64_t changes = 0;           // readings that differed from the one before
  double searched_seconds = 0;
};

// Times `pairs` start/stop pairs of `read` with `reference_ns`, twice; keeps the second pass.
template <class Read, class ReferenceNs>
call_cost_estimate measure_call_cost(Read&& read, ReferenceNs&& reference_ns, std::uint64_t pairs) {
  call_cost_estimate estimate;
  std::uint64_t folded = 0;
  for (int pass = 0; pass < 2; ++pass) {
    const std::uint64_t begin = reference_ns();
    for (std::uint64_t i = 0; i < pairs; ++i) {
      const std::uint64_t start = read();
      const std::uint64_t stop = read();
      folded += stop - start;
    }
    const std::uint64_t end = reference_ns();
    estimate.pairs = pairs;
    estimate.seconds = static_cast<double>(end - begin) / 1e9;
    estimate.ns_per_call =
        pairs == 0 ? 0.0 : static_cast<double>(end - begin) / (2.0 * static_cast<double>(pairs));
  }
  survey_detail::sink = survey_detail::sink + folded;
  return estimate;
}

// How many pairs to time at `pilot_ns_per_call`: `max_pairs` for a cheap clock, else as many
// as fit a pass of `budget_seconds`, at most `max_pairs` and at least one.
inline std::uint64_t plan_pairs(double pilot_ns_per_call, std::uint64_t max_pairs,
                                double budget_seconds, double cheap_call_ns) {
  if (!(pilot_ns_per_call > cheap_call_ns)) return max_pairs;
  const double fit = budget_seconds * 1e9 / (2.0 * pilot_ns_per_call);
  if (fit >= static_cast<double>(max_pairs)) return max_pairs;
  return std::max<std::uint64_t>(1, static_cast<std::uint64_t>(fit));
}

// measure_call_cost with the pair count cut by a pilot pass to fit the time budget.
template <class Read, class ReferenceNs>
call_cost_estimate measure_call_cost_bounded(Read&& read, ReferenceNs&& reference_ns,
                                             const survey_settings& settings) {
  constexpr int kPilots = 3;
  const std::uint64_t pilot_pairs = std::min(settings.pilot_pairs, settings.max_pairs);
  double pilot_ns = measure_call_cost(read, reference_ns, pilot_pairs).ns_per_call;
  for (int i = 1; i < kPilots; ++i) {
    pilot_ns = std::min(pilot_ns, measure_call_cost(read, reference_ns, pilot_pairs).ns_per_call);
  }
  const std::uint64_t pairs = plan_pairs(pilot_ns, settings.max_pairs,
                                         settings.cost_pass_budget_seconds, settings.cheap_call_ns);
  call_cost_estimate estimate = measure_call_cost(read, reference_ns, pairs);
  estimate.bounded_by_time = pairs < settings.max_pairs;
  return estimate;
}

// The smallest non-zero interval between a start and a stop reading around spin(i), for i in
// 0..max_inner; sweeps repeat until `enough_intervals` non-zero intervals were seen or
// `budget_seconds` of reference time passed.
template <class Read, class ReferenceNs, class Spin = survey_detail::busy_spin>
resolution_estimate measure_resolution(Read&& read, ReferenceNs&& reference_ns, int max_inner,
                                       std::uint64_t enough_intervals, double budget_seconds,
                                       Spin&& spin = {}) {
  resolution_estimate estimate;
  const std::uint64_t begin = reference_ns();
  const auto budget_ns = static_cast<std::uint64_t>(budget_seconds * 1e9);
  std::uint64_t elapsed = 0;
  std::uint64_t non_zero = 0;
  do {
    for (int i = 0; i <= max_inner; ++i) {
      const std::uint64_t start = read();
      spin(i);
      const std::uint64_t stop = read();
      if (stop > start) {
        ++non_zero;
        if (!estimate.ticks || stop - start < *estimate.ticks) estimate.ticks = stop - start;
      }
    }
    ++estimate.sweeps;
    elapsed = reference_ns() - begin;
  } while (non_zero < enough_intervals && elapsed < budget_ns);
  estimate.searched_seconds = static_cast<double>(elapsed) / 1e9;
  return estimate;
}

// The smallest forward difference between successive readings, over at least `enough_reads`
// readings showing at least `enough_changes` changes, or `budget_seconds` of reference time,
// whichever ends first. Backward jumps (a calendar clock being set) are not steps.
template <class Read, class ReferenceNs>
step_estimate measure_step(Read&& read, ReferenceNs&& reference_ns, std::uint64_t enough_reads,
                           std::uint64_t enough_changes, double budget_seconds) {
  // The reference is read once per this many readings so that it hardly slows the loop.
  constexpr std::uint64_t kReadsPerDeadlineCheck = 64;
  step_estimate estimate;
  const std::uint64_t begin = reference_ns();
  const auto budget_ns = static_cast<std::uint64_t>(budget_seconds * 1e9);
  std::uint64_t previous = read();
  estimate.reads = 1;
  while (estimate.reads < enough_reads || estimate.changes < enough_changes) {
    const std::uint64_t value = read();
    ++estimate.reads;
    if (value != previous) {
      ++estimate.changes;
      if (value > previous && (!estimate.ticks || value - previous < *estimate.ticks)) {
        estimate.ticks = value - previous;
      }
      previous = value;
    }
    if (estimate.reads % kReadsPerDeadlineCheck == 0 && reference_ns() - begin >= budget_ns) {
      break;
    }
  }
  estimate.searched_seconds = static_cast<double>(reference_ns() - begin) / 1e9;
  return estimate;
}

// Everything the survey measured about one source; the estimates are empty when the source is
// unavailable.
struct clock_survey_row {
  const clock_source* source = nullptr;
  std::optional<call_cost_estimate> cost;
  std::optional<double> percent_of_cheapest;  // cost / cheapest cost of the survey * 100
  std::optional<resolution_estimate> resolution;
  std::optional<step_estimate> step;
};

// Surveys one source, timed against std::chrono::steady_clock.
clock_survey_row survey_clock(const clock_source& source, const survey_settings& settings = {});

// Surveys every source and fills percent_of_cheapest.
std::vector<clock_survey_row> survey_clocks(std::span<const clock_source* const> sources,
                                            const survey_settings& settings = {});

}  // namespace harness
