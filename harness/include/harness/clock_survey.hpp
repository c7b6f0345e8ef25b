// The clock survey: what each clock costs to read and how finely it really resolves.
//
// Four estimators, the first three after the WinSTL performance-counter study, each a template
// over a callable that reads the clock (returns native ticks) and one that reads a reference clock
// in nanoseconds, so that tests can drive them with fake clocks and get exact answers:
//   measure_call_cost   the loop of N start/stop pairs timed by the reference, run twice and
//                       the second pass kept (the first warms caches and the branch predictor);
//   measure_resolution  the smallest non-zero interval seen around an inner loop of 0..2047
//                       iterations (the study's counter_resolution);
//   measure_step        the smallest non-zero difference between back-to-back readings;
//   measure_granularity the smallest amount by which the clock's value advances (its quantum),
//                       apart from what a read costs, and the ticks that pass between two reads.
// survey_clock() applies them to a clock_source, bounded in time so the whole survey takes a
// few seconds; measure_clock_granularity() is the runner's entry point to the last one.
//
// Granularity, read cost and step differ: a TSC on bare metal advances every tick (granularity 1)
// but two back-to-back reads are 25-40 ticks apart (the read cost), and that is its step; a TSC in
// a VM that advances in 10 ns quanta (~21 ticks) read in 11 ns steps by 21 ticks, its granularity.
// The step is the larger of the two, roughly; only the granularity bounds how finely an interval
// is resolved.
//
// Caveats: call cost includes the loop and, for clock_source, one virtual call per read, as on the
// harness's sampling path. A clock coarser than the search time shows no resolution, step or
// granularity at all; that is reported as "none seen in N ms", never as a number. The granularity
// needs delays finer than 2 ticks, or some jitter: a clock advancing every tick, read around spins
// of whole cycles of a core running at under a third of its rate with no jitter at all, would show
// differences every 3 ticks and could pass for a 3-tick quantum.
//
// Why one header of ~400 lines: the estimators are templates over the read and reference
// callables, so that tests drive them with fake clocks and get exact answers; they must be
// visible where they are instantiated.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <utility>
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

// The delay of measure_granularity: n iterations of a register-only loop, about one core cycle
// each (under one TSC tick at usual clock rates). busy_spin's store-to-load chain takes ~5 cycles
// an iteration: its delays form a lattice a few ticks apart, which on a clock advancing every tick
// leaves gaps between the differences that could pass for a quantum. The empty asm keeps the
// counter in a register and the loop alive (GCC and Clang syntax, as the harness builds with both).
struct fine_spin {
  void operator()(int n) const noexcept {
    int j = 0;
    for (; j < n; ++j) {
#if defined(__GNUC__) || defined(__clang__)
      asm volatile("" : "+r"(j));
#else
      sink = sink + 1;
#endif
    }
  }
};
}  // namespace survey_detail

// Tuning of measure_granularity. The runner calls it at the start of every run, so its whole
// search is bounded to `budget_seconds`; on this VM's TSC and vDSO clocks it ends in under 1 ms.
struct granularity_settings {
  // Spin lengths 0..max_spin per sweep: 512 cycles is ~150-250 ns, several 10 ns quanta of a VM's
  // TSC, and hundreds of ticks of a bare-metal one, so the differences show many quanta.
  int max_spin = 511;
  // Sweeps repeat until this many non-zero differences were seen (and at least min_sweeps
  // sweeps ran): on a clock advancing every tick, ~10 differences for each tick value of the range.
  std::uint64_t enough_changes = 2'048;
  std::uint64_t min_sweeps = 4;
  // Fewer non-zero differences than this, when the budget ends, say nothing: a 4 ms clock moves
  // two or three times in 10 ms, which is "none seen", never a number.
  std::uint64_t min_changes = 64;
  // The read cost: the median of the mean tick differences of this many batches of back-to-back
  // reads (an interruption spoils one batch, not the median). At most a quarter of the budget.
  int cost_batches = 9;
  std::uint64_t cost_pairs_per_batch = 256;
  // The whole search, cost batches included, stops after this much reference time.
  double budget_seconds = 0.01;
};

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
  // The granularity search uses the runner's settings, so the survey shows what a run will use.
  granularity_settings granularity;
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
  // The smallest non-zero forward step seen often enough (measure_step); empty: none seen.
  std::optional<std::uint64_t> ticks;
  std::uint64_t reads = 0;    // readings taken
  std::uint64_t changes = 0;  // readings that differed from the one before
  double searched_seconds = 0;
};

struct granularity_estimate {
  // The smallest amount the clock's value advances by, in ticks: 1 when it advances every tick,
  // else the mean spacing of the groups of differences (a quantum of 20.96 ticks, seen as
  // differences of 20 or 21, 41 or 42..., gives ~20.96, not 21). Empty: none seen (fewer than
  // min_changes differences, or no single quantum fits them).
  std::optional<double> ticks;
  bool advances_every_tick = false;
  // Ticks between two back-to-back reads, averaged: on a quantized clock the mean difference is
  // the time between the reads however coarse the quantum (a 10-tick read of a 21-tick quantum
  // reads 0 or 21, 10 on average). Empty when the granularity is unknown or more than 4 read costs,
  // as then too few pairs see the clock move for the mean to hold.
  std::optional<double> read_cost_ticks;
  std::uint64_t reads = 0;      // readings taken, cost batches included
  std::uint64_t changes = 0;    // non-zero forward differences around the spins
  std::uint64_t zeros = 0;      // differences of zero around the spins
  std::size_t groups = 0;       // groups of differences (within 1 tick of each other)
  std::uint64_t sweeps = 0;     // complete 0..max_spin sweeps
  double searched_seconds = 0;  // reference time spent
};

// What the differences around the spins say about the clock's quantum.
struct granularity_analysis {
  std::optional<double> ticks;  // empty: too few differences, or no single quantum fits them
  bool advances_every_tick = false;
  std::size_t groups = 0;
};

// The granularity rule, given the non-zero forward differences (any order) and the count of zero
// ones. Differences within 1 tick of each other form a group (a fractional quantum of 20.96 shows
// as 20 and 21). When most differences lie in groups 4 or more ticks wide, every tick value appears
// across the range: the clock advances every tick (a quantum under 2 ticks shows this way too).
// Otherwise the groups holding a real share of the differences (strays from a clock correction
// are left out) must sit on multiples of one quantum, as a clock's value reads floor(k * quantum):
// the quantum is the spacing of adjacent groups refined over all of them (total ticks over total
// quanta); a single group with zeros beside it is one quantum. Groups off the lattice, or a single
// group without zeros, give none.
granularity_analysis analyse_differences(std::vector<std::uint64_t> non_zero, std::uint64_t zeros,
                                         std::uint64_t min_changes);

// Reads the clock around spin(n) for n in 0..max_spin, sweep after sweep, and applies
// analyse_differences to what it saw; before that, times batches of back-to-back reads for the read
// cost. Stops when enough non-zero differences were seen or the budget is spent; a clock that did
// not move at least min_changes times by then gives none.
template <class Read, class ReferenceNs, class Spin = survey_detail::fine_spin>
granularity_estimate measure_granularity(Read&& read, ReferenceNs&& reference_ns,
                                         const granularity_settings& settings = {},
                                         Spin&& spin = {}) {
  // The reference is read once per this many pairs: often enough to stop a slow clock in time.
  constexpr int kPairsPerDeadlineCheck = 64;
  granularity_estimate estimate;
  const std::uint64_t begin = reference_ns();
  const auto budget_ns = static_cast<std::uint64_t>(settings.budget_seconds * 1e9);
  const auto spent_ns = [&] { return reference_ns() - begin; };

  std::vector<double> batch_means;
  for (int b = 0; b < settings.cost_batches; ++b) {
    std::uint64_t total = 0;
    for (std::uint64_t i = 0; i < settings.cost_pairs_per_batch; ++i) {
      const std::uint64_t start = read();
      const std::uint64_t stop = read();
      if (stop > start) total += stop - start;
    }
    estimate.reads += 2 * settings.cost_pairs_per_batch;
    if (settings.cost_pairs_per_batch > 0) {
      batch_means.push_back(static_cast<double>(total) /
                            static_cast<double>(settings.cost_pairs_per_batch));
    }
    if (spent_ns() >= budget_ns / 4) break;
  }

  std::vector<std::uint64_t> non_zero;
  bool out_of_time = false;
  while (!out_of_time) {
    for (int n = 0; n <= settings.max_spin; ++n) {
      const std::uint64_t start = read();
      spin(n);
      const std::uint64_t stop = read();
      estimate.reads += 2;
      if (stop > start) {
        non_zero.push_back(stop - start);
      } else if (stop == start) {
        ++estimate.zeros;
      }  // a backward jump (a calendar clock being set) is no difference
      if ((n + 1) % kPairsPerDeadlineCheck == 0 && spent_ns() >= budget_ns) {
        out_of_time = n < settings.max_spin;
        break;
      }
    }
    if (!out_of_time) ++estimate.sweeps;
    if (non_zero.size() >= settings.enough_changes && estimate.sweeps >= settings.min_sweeps) break;
    if (spent_ns() >= budget_ns) break;
  }
  estimate.searched_seconds = static_cast<double>(spent_ns()) / 1e9;
  estimate.changes = non_zero.size();

  const granularity_analysis analysis =
      analyse_differences(std::move(non_zero), estimate.zeros, settings.min_changes);
  estimate.ticks = analysis.ticks;
  estimate.advances_every_tick = analysis.advances_every_tick;
  estimate.groups = analysis.groups;
  if (estimate.ticks && !batch_means.empty()) {
    std::sort(batch_means.begin(), batch_means.end());
    const double cost = batch_means[batch_means.size() / 2];
    if (*estimate.ticks <= 4 * cost) estimate.read_cost_ticks = cost;
  }
  return estimate;
}

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
// whichever ends first. Backward jumps (a calendar clock being set) are not steps. A difference
// counts when it is seen in at least one change in kStepStrayShare (and at least twice); failing
// that, the smallest seen twice; failing that, the smallest seen. On this VM a TSC advancing in
// 21-tick quanta showed stray 1-tick differences, once and then twice among about a million
// (pinned to one CPU; the host adjusting the guest's TSC), and a step of 1 tick would set samples
// 21 times too short.
inline constexpr std::uint64_t kStepStrayShare = 10'000;

template <class Read, class ReferenceNs>
step_estimate measure_step(Read&& read, ReferenceNs&& reference_ns, std::uint64_t enough_reads,
                           std::uint64_t enough_changes, double budget_seconds) {
  // The reference is read once per this many readings so that it hardly slows the loop.
  constexpr std::uint64_t kReadsPerDeadlineCheck = 64;
  // The smallest distinct differences, ascending, each with how often it was seen.
  constexpr std::size_t kMaxCandidates = 64;
  step_estimate estimate;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> candidates;
  const auto note = [&](std::uint64_t d) {
    const auto it = std::lower_bound(candidates.begin(), candidates.end(), d,
                                     [](const auto& c, std::uint64_t v) { return c.first < v; });
    if (it != candidates.end() && it->first == d) {
      ++it->second;
    } else if (candidates.size() < kMaxCandidates) {
      candidates.insert(it, {d, 1});
    } else if (it != candidates.end()) {
      candidates.pop_back();  // the largest makes room for a smaller one
      candidates.insert(it, {d, 1});
    }
  };
  const std::uint64_t begin = reference_ns();
  const auto budget_ns = static_cast<std::uint64_t>(budget_seconds * 1e9);
  std::uint64_t previous = read();
  estimate.reads = 1;
  while (estimate.reads < enough_reads || estimate.changes < enough_changes) {
    const std::uint64_t value = read();
    ++estimate.reads;
    if (value != previous) {
      ++estimate.changes;
      if (value > previous) note(value - previous);
      previous = value;
    }
    if (estimate.reads % kReadsPerDeadlineCheck == 0 && reference_ns() - begin >= budget_ns) {
      break;
    }
  }
  const std::uint64_t needed = std::max<std::uint64_t>(2, estimate.changes / kStepStrayShare);
  for (const std::uint64_t least : {needed, std::uint64_t{2}, std::uint64_t{1}}) {
    const auto it = std::find_if(candidates.begin(), candidates.end(),
                                 [least](const auto& c) { return c.second >= least; });
    if (it != candidates.end()) {
      estimate.ticks = it->first;
      break;
    }
  }
  estimate.searched_seconds = static_cast<double>(reference_ns() - begin) / 1e9;
  return estimate;
}

// The granularity and read cost of a real clock source, for the runner and the survey.
struct clock_granularity {
  // The smallest amount the value advances by, in ticks (1 when it advances every tick); empty
  // when none was seen in the budget (a coarse clock), and the caller falls back to the step.
  std::optional<double> granularity_ticks;
  // Ticks one read costs: counted between back-to-back reads (read_cost_counted), or, when the
  // clock is too coarse to count them, the call cost (ns a call over 1,000 pairs) x ticks/s.
  double read_cost_ticks = 0;
  bool read_cost_counted = false;
  bool advances_every_tick = false;
  std::uint64_t reads = 0;      // readings the granularity search took
  std::uint64_t changes = 0;    // non-zero differences it saw around its spins
  std::uint64_t sweeps = 0;     // complete spin sweeps
  double searched_seconds = 0;  // steady_clock time of the search, the timed call cost excluded
};

// measure_granularity over `clock` (read through its virtual now(), as the sampler reads it),
// timed against std::chrono::steady_clock; all empty for an unavailable source. Under ~1 ms on a
// TSC or vDSO clock, at most settings.budget_seconds (+ ~1 ms) on a coarse one.
clock_granularity measure_clock_granularity(const clock_source& clock,
                                            const granularity_settings& settings = {});

// Everything the survey measured about one source; the estimates are empty when the source is
// unavailable.
struct clock_survey_row {
  const clock_source* source = nullptr;
  std::optional<call_cost_estimate> cost;
  std::optional<double> percent_of_cheapest;  // cost / cheapest cost of the survey * 100
  std::optional<resolution_estimate> resolution;
  std::optional<step_estimate> step;
  std::optional<clock_granularity> granularity;
};

// std::chrono::steady_clock's reading in nanoseconds: the reference the estimators above are
// timed against on a real machine.
std::uint64_t steady_now_ns() noexcept;

// Surveys one source, timed against std::chrono::steady_clock.
clock_survey_row survey_clock(const clock_source& source, const survey_settings& settings = {});

// Surveys every source and fills percent_of_cheapest.
std::vector<clock_survey_row> survey_clocks(std::span<const clock_source* const> sources,
                                            const survey_settings& settings = {});

}  // namespace harness
