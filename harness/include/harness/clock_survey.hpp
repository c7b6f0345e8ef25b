// The clock survey: what each clock costs to read and how finely it really resolves.
//
// What a clock's readings say is gathered as histograms of differences (difference_histogram),
// and every rule is a pure function of them, so that tests drive the rules with the histograms
// recorded on real hosts (tests/data/clock_shapes/) and with fake clocks, and get exact answers:
//   measure_call_cost   the loop of N start/stop pairs timed by the reference, run twice and
//                       the second pass kept (the first warms caches and the branch predictor);
//   measure_resolution  the smallest non-zero interval seen around an inner loop of 0..2047
//                       iterations (the WinSTL performance-counter study's counter_resolution);
//   read_back_to_back   the differences between back-to-back readings: the step and read cost;
//   read_around_spins   the differences between readings around spins of 0..511 cycles: the
//                       granularity (the clock's quantum);
//   analyse_clock_shape the step, granularity and read cost from those two histograms.
// survey_clock() applies them to a clock_source, bounded in time so the whole survey takes a
// few seconds; measure_clock_shape() is the runner's entry point to the last three.
//
// Granularity, read cost and step differ: a TSC on bare metal advances every tick (granularity 1)
// but two back-to-back reads are 25-40 ticks apart (the read cost), and that is its step; a TSC in
// a VM that advances in 10 ns quanta (21 or 26 ticks) read in 11 ns steps by one quantum, its
// granularity. Hosts differ in how a quantum that is not a whole number of ticks reads (25.96
// ticks as 25 or 26, 51 or 52...) and in how often the host's corrections of the guest's TSC show
// as differences of a tick or so (once in a million changes on one host, once in a hundred on
// another): the step is found from the quantum, never from how rare a stray is.
//
// Caveats: call cost includes the loop and, for clock_source, one virtual call per read, as on the
// harness's sampling path. A clock coarser than the search time shows no resolution, step or
// granularity at all; that is reported as "none seen in N ms", never as a number. The granularity
// needs delays finer than 2 ticks, or some jitter: a clock advancing every tick, read around spins
// of whole cycles of a core running at under a third of its rate with no jitter at all, would show
// differences every 3 ticks and could pass for a 3-tick quantum.
//
// Why one header of ~500 lines: the estimators are templates over the read and reference
// callables, so that tests drive them with fake clocks and get exact answers; they must be
// visible where they are instantiated.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "harness/clock.hpp"
#include "harness/enum_names.hpp"

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

// Tuning of read_back_to_back, the step's and read cost's readings. The runner reads them at the
// start of every run: on a TSC or vDSO clock 100,000 reads take about 1 ms.
struct step_settings {
  // Readings to take at least: ~75,000 changes of a 10 ns TSC quantum read every 12 ns, so even a
  // multiple seen in 1 change in 1,000 is seen dozens of times.
  std::uint64_t enough_reads = 100'000;
  // ... and changes: a clock that has not moved this many times by then is read on, up to the
  // budget, so that one late update of a tick-driven clock (a 20 ms jump of a 4 ms clock on a busy
  // VM) is not its only difference.
  std::uint64_t enough_changes = 5;
  // The whole reading stops after this much reference time: a 4 ms (HZ=250) clock moves a dozen
  // times within it, a 1 s clock not at all (none seen).
  double budget_seconds = 0.05;
};

// Tuning of read_around_spins, the granularity's readings. The runner reads them at the start of
// every run, so the whole search is bounded to `budget_seconds`; on this VM's TSC and vDSO clocks
// it ends in under 1 ms.
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
  // The whole search stops after this much reference time.
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
  // The step and granularity use the runner's settings, so the survey shows what a run will use.
  step_settings step;
  granularity_settings granularity;
};

// The differences between the two readings of many pairs, counted by value.
class difference_histogram {
 public:
  // One pair's readings.
  void add_pair(std::uint64_t start, std::uint64_t stop) {
    if (stop > start) {
      add(stop - start);
    } else if (stop == start) {
      ++zeros_;
    } else {
      ++backward_;  // a calendar clock being set back: no difference of the clock's own
    }
  }
  // `count` pairs `difference` apart (0: equal readings).
  void add(std::uint64_t difference, std::uint64_t count = 1) {
    if (count == 0) return;
    if (difference == 0) {
      zeros_ += count;
      return;
    }
    counts_[difference] += count;
    changes_ += count;
  }
  // Non-zero forward differences, ascending, each with how many pairs showed it.
  const std::map<std::uint64_t, std::uint64_t>& counts() const noexcept { return counts_; }
  std::uint64_t changes() const noexcept { return changes_; }  // pairs with a forward difference
  std::uint64_t zeros() const noexcept { return zeros_; }      // pairs with equal readings
  std::uint64_t backward() const noexcept { return backward_; }

 private:
  std::map<std::uint64_t, std::uint64_t> counts_;
  std::uint64_t changes_ = 0;
  std::uint64_t zeros_ = 0;
  std::uint64_t backward_ = 0;
};

// What the differences say about the clock's quantum.
struct granularity_analysis {
  std::optional<double> ticks;  // empty: too few differences, or no single quantum fits them
  bool advances_every_tick = false;
  std::size_t groups = 0;  // runs of difference values within 1 tick of the next
};

// The granularity rule. Differences within 1 tick of each other form a group (a fractional quantum
// of 20.96 shows as 20 and 21). When most differences lie in groups 4 or more ticks wide, every
// tick value appears across the range: the clock advances every tick (a quantum under 2 ticks
// shows this way too). Otherwise the groups holding a real share of the differences (strays from
// a clock correction are left out) must sit on multiples of one quantum, as a clock's value reads
// floor(k * quantum): the quantum is the spacing of adjacent groups refined over all of them
// (total ticks over total quanta); a single group with zeros beside it is one quantum. Groups off
// the lattice, a single group without zeros, or fewer than min_changes differences give none.
granularity_analysis analyse_differences(const difference_histogram& differences,
                                         std::uint64_t min_changes);

// How a step was found (analyse_step).
enum class step_rule {
  none,     // the clock did not move
  quantum,  // the smallest multiple of the clock's quantum seen often
  often,    // the smallest difference seen often (a clock without a quantum)
  seen,     // the smallest difference seen (a clock that moved too seldom to say more)
};

struct step_analysis {
  std::optional<std::uint64_t> ticks;  // empty: the clock did not move
  step_rule rule = step_rule::none;
};

// A difference (or a multiple of the quantum) is seen "often" when it is seen at least twice and
// in at least 1 pair for every kOftenShareOfCommonest of the commonest one's: a step a clock
// really takes recurs with the phase of the reads against its ticks, while what a host's
// correction or an interruption leaves is rarer by orders of magnitude.
inline constexpr std::uint64_t kOftenShareOfCommonest = 100;

// The step rule: the smallest amount by which back-to-back readings advance.
// - A clock with a quantum q (from `clock`, the granularity rule's answer) advances by whole
//   quanta, which read as floor(m * q) or one tick either side. Differences off that lattice, and
//   below one quantum (the 1-tick differences a host's corrections of a VM's TSC leave, in 1
//   change in a million on one host and 1 in 100 on another), are not steps of the clock. When
//   some back-to-back pairs read equal (they were shorter than a quantum), such a pair sees the
//   clock's smallest advance alone: the step is one quantum, rounded to a tick (21 for 20.96; 4 ms
//   for a coarse clock whose updates come late and lumped). Else every pair spanned a quantum or
//   more, and the step is the smallest multiple m seen often, as m * q rounded (26 for 25.96, 52
//   for a 24 ns read of 10 ns quanta).
// - A clock advancing every tick, or of unknown granularity: the smallest difference seen often.
// - Else (a clock that moved once or twice): the smallest difference seen.
step_analysis analyse_step(const difference_histogram& back_to_back,
                           const granularity_analysis& clock);

// The read cost rule: the mean difference between back-to-back readings, zeros included (on a
// quantized clock a 10-tick read of a 21-tick quantum reads 0 or 21, 10 on average: the mean is the
// time between the reads however coarse the quantum). Pairs an interruption split (more than
// kInterruptedFactor times the median non-zero difference or the quantum apart) are left out.
// Counted only when the granularity is known and at least kCountedChanges pairs saw the clock
// move, so the mean holds to a few percent; else empty (a 4 ms clock moves a dozen times).
inline constexpr double kInterruptedFactor = 16;
inline constexpr std::uint64_t kCountedChanges = 1'000;
std::optional<double> analyse_read_cost(const difference_histogram& back_to_back,
                                        std::optional<double> granularity_ticks);

// All three, from the histograms a clock's readings gave: the granularity from the differences
// around the spins (or, when those are too few, from the back-to-back ones), the step and read
// cost from the back-to-back ones.
struct clock_shape {
  step_analysis step;
  granularity_analysis granularity;
  std::optional<double> read_cost_ticks;
};
clock_shape analyse_clock_shape(const difference_histogram& back_to_back,
                                const difference_histogram& around_spins,
                                std::uint64_t min_changes);

// As `harness clocks --json` names it.
inline constexpr enum_table<step_rule, step_rule::seen> kStepRuleNames{{
    {step_rule::none, "none"},
    {step_rule::quantum, "quantum"},
    {step_rule::often, "often"},
    {step_rule::seen, "seen"},
}};
constexpr const auto& enum_names(step_rule) noexcept {
  return kStepRuleNames;
}

// Back-to-back readings of a clock: what read_back_to_back saw.
struct back_to_back_readings {
  difference_histogram differences;
  std::uint64_t reads = 0;
  double searched_seconds = 0;
};

// Reads the clock back to back until at least `enough_reads` readings showing `enough_changes`
// changes were taken, or `budget_seconds` of reference time passed. The readings go to a buffer
// and are counted once it is full, so that nothing but a store runs between two reads; the pair
// spanning two buffers (the counting ran between them) is left out.
template <class Read, class ReferenceNs>
back_to_back_readings read_back_to_back(Read&& read, ReferenceNs&& reference_ns,
                                        const step_settings& settings) {
  // 1,024 readings (8 KiB): about 12 us of a TSC, 1.6 ms of a system-call clock, between checks
  // of the reference.
  constexpr std::size_t kBuffer = 1'024;
  std::array<std::uint64_t, kBuffer> values{};
  back_to_back_readings result;
  const std::uint64_t begin = reference_ns();
  const auto budget_ns = static_cast<std::uint64_t>(settings.budget_seconds * 1e9);
  std::uint64_t spent = 0;
  do {
    for (std::uint64_t& value : values)
      value = read();
    result.reads += kBuffer;
    for (std::size_t i = 1; i < kBuffer; ++i)
      result.differences.add_pair(values[i - 1], values[i]);
    spent = reference_ns() - begin;
  } while ((result.reads < settings.enough_reads ||
            result.differences.changes() < settings.enough_changes) &&
           spent < budget_ns);
  result.searched_seconds = static_cast<double>(spent) / 1e9;
  return result;
}

// Readings around spins: what read_around_spins saw.
struct spin_readings {
  difference_histogram differences;
  std::uint64_t reads = 0;
  std::uint64_t sweeps = 0;  // complete 0..max_spin sweeps
  double searched_seconds = 0;
};

// Reads the clock around spin(n) for n in 0..max_spin, sweep after sweep, until enough non-zero
// differences were seen (and min_sweeps sweeps ran) or the budget is spent.
template <class Read, class ReferenceNs, class Spin = survey_detail::fine_spin>
spin_readings read_around_spins(Read&& read, ReferenceNs&& reference_ns,
                                const granularity_settings& settings, Spin&& spin = {}) {
  // The reference is read once per this many pairs: often enough to stop a slow clock in time.
  constexpr int kPairsPerDeadlineCheck = 64;
  spin_readings result;
  const std::uint64_t begin = reference_ns();
  const auto budget_ns = static_cast<std::uint64_t>(settings.budget_seconds * 1e9);
  const auto spent_ns = [&] { return reference_ns() - begin; };
  bool out_of_time = false;
  while (!out_of_time) {
    for (int n = 0; n <= settings.max_spin; ++n) {
      const std::uint64_t start = read();
      spin(n);
      const std::uint64_t stop = read();
      result.reads += 2;
      result.differences.add_pair(start, stop);
      if ((n + 1) % kPairsPerDeadlineCheck == 0 && spent_ns() >= budget_ns) {
        out_of_time = n < settings.max_spin;
        break;
      }
    }
    if (!out_of_time) ++result.sweeps;
    if (result.differences.changes() >= settings.enough_changes &&
        result.sweeps >= settings.min_sweeps) {
      break;
    }
    if (spent_ns() >= budget_ns) break;
  }
  result.searched_seconds = static_cast<double>(spent_ns()) / 1e9;
  return result;
}

struct step_estimate {
  // The step (analyse_step); empty: none seen.
  std::optional<std::uint64_t> ticks;
  step_rule rule = step_rule::none;
  std::uint64_t reads = 0;    // readings taken
  std::uint64_t changes = 0;  // pairs of back-to-back readings that differed
  double searched_seconds = 0;
};

struct granularity_estimate {
  // The smallest amount the clock's value advances by, in ticks: 1 when it advances every tick,
  // else the mean spacing of the groups of differences (a quantum of 20.96 ticks, seen as
  // differences of 20 or 21, 41 or 42..., gives ~20.96, not 21). Empty: none seen (fewer than
  // min_changes differences, or no single quantum fits them).
  std::optional<double> ticks;
  bool advances_every_tick = false;
  // Ticks between two back-to-back reads (analyse_read_cost); empty when not counted.
  std::optional<double> read_cost_ticks;
  std::uint64_t reads = 0;      // readings taken around the spins
  std::uint64_t changes = 0;    // non-zero forward differences around the spins
  std::uint64_t zeros = 0;      // differences of zero around the spins
  std::size_t groups = 0;       // groups of differences (within 1 tick of each other)
  std::uint64_t sweeps = 0;     // complete 0..max_spin sweeps
  double searched_seconds = 0;  // reference time spent around the spins
};

// Both readings of a clock and what analyse_clock_shape makes of them.
struct shape_estimate {
  step_estimate step;
  granularity_estimate granularity;
  back_to_back_readings back_to_back;  // the histograms, for a tool that prints them
  spin_readings around_spins;
};

template <class Read, class ReferenceNs, class Spin = survey_detail::fine_spin>
shape_estimate measure_shape(Read&& read, ReferenceNs&& reference_ns, const step_settings& step,
                             const granularity_settings& granularity, Spin&& spin = {}) {
  shape_estimate estimate;
  estimate.back_to_back = read_back_to_back(read, reference_ns, step);
  estimate.around_spins = read_around_spins(read, reference_ns, granularity, spin);
  const clock_shape shape =
      analyse_clock_shape(estimate.back_to_back.differences, estimate.around_spins.differences,
                          granularity.min_changes);
  estimate.step = {.ticks = shape.step.ticks,
                   .rule = shape.step.rule,
                   .reads = estimate.back_to_back.reads,
                   .changes = estimate.back_to_back.differences.changes(),
                   .searched_seconds = estimate.back_to_back.searched_seconds};
  const spin_readings& spins = estimate.around_spins;
  estimate.granularity = {.ticks = shape.granularity.ticks,
                          .advances_every_tick = shape.granularity.advances_every_tick,
                          .read_cost_ticks = shape.read_cost_ticks,
                          .reads = spins.reads,
                          .changes = spins.differences.changes(),
                          .zeros = spins.differences.zeros(),
                          .groups = shape.granularity.groups,
                          .sweeps = spins.sweeps,
                          .searched_seconds = spins.searched_seconds};
  return estimate;
}

// The step from back-to-back readings alone (their own quantum, when they show one): for a quick
// probe that reads no spins (the default clock's choice).
template <class Read, class ReferenceNs>
step_estimate measure_step(Read&& read, ReferenceNs&& reference_ns, const step_settings& settings) {
  const back_to_back_readings readings = read_back_to_back(read, reference_ns, settings);
  const difference_histogram none;
  const clock_shape shape =
      analyse_clock_shape(readings.differences, none, granularity_settings{}.min_changes);
  return {.ticks = shape.step.ticks,
          .rule = shape.step.rule,
          .reads = readings.reads,
          .changes = readings.differences.changes(),
          .searched_seconds = readings.searched_seconds};
}

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

// The shape of a real clock source, for the runner and the survey.
struct clock_granularity {
  // The smallest amount the value advances by, in ticks (1 when it advances every tick); empty
  // when none was seen in the budget (a coarse clock), and the caller falls back to the step.
  std::optional<double> granularity_ticks;
  // Ticks one read costs: counted between back-to-back reads (read_cost_counted), or, when the
  // clock moved too seldom to count them, the call cost (ns a call over 1,000 pairs) x ticks/s.
  double read_cost_ticks = 0;
  bool read_cost_counted = false;
  bool advances_every_tick = false;
  std::uint64_t reads = 0;      // readings the granularity search took around its spins
  std::uint64_t changes = 0;    // non-zero differences it saw around its spins
  std::uint64_t sweeps = 0;     // complete spin sweeps
  double searched_seconds = 0;  // steady_clock time of the search, the timed call cost excluded
};

struct clock_shape_measurement {
  step_estimate step;
  clock_granularity granularity;
};

// measure_shape over `clock` (read through its virtual now(), as the sampler reads it), timed
// against std::chrono::steady_clock; all empty for an unavailable source. About 2 ms on a TSC or
// vDSO clock, at most the two budgets (+ ~2 ms) on a coarse one.
clock_shape_measurement measure_clock_shape(const clock_source& clock,
                                            const step_settings& step = {},
                                            const granularity_settings& granularity = {});

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
