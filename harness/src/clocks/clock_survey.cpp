// The survey of real clock sources: the estimators of clock_survey.hpp applied to each source,
// timed against std::chrono::steady_clock, and the cost of each compared with the cheapest; the
// rule that turns differences into a granularity, and the runner's granularity entry point.
#include "harness/clock_survey.hpp"

#include <chrono>
#include <cmath>
#include <limits>

namespace harness {

namespace {

// A run of differences whose values lie within 1 tick of the next.
struct difference_group {
  std::uint64_t lo = 0;
  std::uint64_t hi = 0;
  std::uint64_t count = 0;
  double sum = 0;
  double mean() const { return sum / static_cast<double>(count); }
};

// A group this wide (4 or more tick values side by side) is no quantum's: a quantum q shows as
// floor(m*q) and ceil(m*q), one tick apart, and a clock converting a quantized count to its own
// unit (the vDSO's ns from a 20.96-tick TSC quantum: 9, 10 or 11 ns) adds one more tick.
constexpr std::uint64_t kWideGroupTicks = 3;
// A group's mean sits within this many ticks of a multiple of the quantum: within 1 for a
// fractional quantum, plus the conversion's tick above; and within this share of a small quantum,
// so that the check still tells multiples of 3 ticks from numbers 1.5 ticks off them.
constexpr double kLatticeToleranceTicks = 1.5;
constexpr double kLatticeToleranceShare = 0.25;
// Share of the held differences that must sit on the lattice (the rest: clock corrections).
constexpr double kOnLatticeShare = 0.95;
// A measured quantum under this is a clock advancing every tick (or every other one: a quantum of
// 1.5 ticks shows as 1, 2, 3... as well).
constexpr double kEveryTickQuantum = 1.5;
// The timed read cost's pairs, when the clock is too coarse to count one: 1,000 pairs of a 1 us
// system call take 4 ms over both passes.
constexpr std::uint64_t kTimedCostPairs = 1'000;

}  // namespace

granularity_analysis analyse_differences(std::vector<std::uint64_t> non_zero, std::uint64_t zeros,
                                         std::uint64_t min_changes) {
  granularity_analysis result;
  if (non_zero.empty() || non_zero.size() < min_changes) return result;
  std::sort(non_zero.begin(), non_zero.end());
  std::vector<difference_group> groups;
  for (const std::uint64_t d : non_zero) {
    if (groups.empty() || d > groups.back().hi + 1) groups.push_back({d, d, 0, 0});
    difference_group& g = groups.back();
    g.hi = d;
    ++g.count;
    g.sum += static_cast<double>(d);
  }
  result.groups = groups.size();

  // Every tick value appears across the range: most differences lie in wide groups (a sparse
  // sampling leaves a few gaps, so one continuous run is not required).
  std::uint64_t in_wide = 0;
  for (const auto& g : groups) {
    if (g.hi - g.lo >= kWideGroupTicks) in_wide += g.count;
  }
  if (2 * in_wide >= non_zero.size()) {
    result.ticks = 1.0;
    result.advances_every_tick = true;
    return result;
  }

  // The groups holding a real share: at least a quarter of an average group's, and two.
  std::vector<difference_group> held;
  for (const auto& g : groups) {
    if (g.count >= 2 && g.count * 4 * groups.size() >= non_zero.size()) held.push_back(g);
  }
  if (held.empty()) return result;

  // The multiple of the quantum each held group is.
  std::vector<std::uint64_t> multiple(held.size(), 1);
  if (held.size() == 1) {
    // One quantum when zeros show that the pairs also spanned less than one; without zeros it
    // could be any multiple, unless it is 1 tick (no quantum is smaller).
    if (zeros == 0 && held[0].mean() >= kEveryTickQuantum) return result;
  } else {
    // Adjacent groups are mostly one quantum apart: the closest spacing is a first estimate, which
    // counts the quanta between every adjacent pair; the span over all of them is a better one.
    double closest = std::numeric_limits<double>::infinity();
    for (std::size_t i = 0; i + 1 < held.size(); ++i) {
      closest = std::min(closest, held[i + 1].mean() - held[i].mean());
    }
    std::vector<std::uint64_t> quanta_between(held.size() - 1);
    std::uint64_t total_between = 0;
    for (std::size_t i = 0; i + 1 < held.size(); ++i) {
      const double spacing = held[i + 1].mean() - held[i].mean();
      quanta_between[i] = std::max<std::uint64_t>(1, std::llround(spacing / closest));
      total_between += quanta_between[i];
    }
    const double spanned =
        (held.back().mean() - held.front().mean()) / static_cast<double>(total_between);
    multiple[0] = std::max<std::uint64_t>(1, std::llround(held.front().mean() / spanned));
    for (std::size_t i = 1; i < held.size(); ++i) {
      multiple[i] = multiple[i - 1] + quanta_between[i - 1];
    }
  }
  // Each group's mean is its multiple of the quantum (over the readings' phases, floor(k*q) moves
  // by m*q on average), so the quantum is the ticks of all the held differences over their quanta.
  double ticks = 0;
  double quanta = 0;
  std::uint64_t held_count = 0;
  for (std::size_t i = 0; i < held.size(); ++i) {
    ticks += held[i].sum;
    quanta += static_cast<double>(multiple[i] * held[i].count);
    held_count += held[i].count;
  }
  const double quantum = ticks / quanta;
  const double tolerance = std::min(kLatticeToleranceTicks, kLatticeToleranceShare * quantum);
  std::uint64_t on_lattice = 0;
  for (std::size_t i = 0; i < held.size(); ++i) {
    if (std::abs(held[i].mean() - static_cast<double>(multiple[i]) * quantum) <= tolerance) {
      on_lattice += held[i].count;
    }
  }
  if (static_cast<double>(on_lattice) < kOnLatticeShare * static_cast<double>(held_count)) {
    return result;
  }
  if (quantum < kEveryTickQuantum) {
    result.ticks = 1.0;
    result.advances_every_tick = true;
  } else {
    result.ticks = quantum;
  }
  return result;
}

clock_granularity measure_clock_granularity(const clock_source& clock,
                                            const granularity_settings& settings) {
  clock_granularity result;
  if (!clock.available()) return result;
  const auto read = [&clock] { return clock.now(); };
  const granularity_estimate estimate = measure_granularity(read, steady_now_ns, settings);
  result.granularity_ticks = estimate.ticks;
  result.advances_every_tick = estimate.advances_every_tick;
  result.reads = estimate.reads;
  result.changes = estimate.changes;
  result.sweeps = estimate.sweeps;
  result.searched_seconds = estimate.searched_seconds;
  if (estimate.read_cost_ticks) {
    result.read_cost_ticks = *estimate.read_cost_ticks;
    result.read_cost_counted = true;
  } else {
    const call_cost_estimate cost = measure_call_cost(read, steady_now_ns, kTimedCostPairs);
    result.read_cost_ticks = cost.ns_per_call * 1e-9 * clock.ticks_per_second();
  }
  return result;
}

clock_survey_row survey_clock(const clock_source& source, const survey_settings& settings) {
  clock_survey_row row;
  row.source = &source;
  if (!source.available()) return row;
  const auto read = [&source] { return source.now(); };
  row.cost = measure_call_cost_bounded(read, steady_now_ns, settings);
  row.resolution =
      measure_resolution(read, steady_now_ns, settings.resolution_max_inner,
                         settings.resolution_enough_intervals, settings.resolution_budget_seconds);
  row.step = measure_step(read, steady_now_ns, settings.step_enough_reads,
                          settings.step_enough_changes, settings.step_budget_seconds);
  row.granularity = measure_clock_granularity(source, settings.granularity);
  return row;
}

std::vector<clock_survey_row> survey_clocks(std::span<const clock_source* const> sources,
                                            const survey_settings& settings) {
  std::vector<clock_survey_row> rows;
  rows.reserve(sources.size());
  std::optional<double> cheapest;
  for (const clock_source* source : sources) {
    rows.push_back(survey_clock(*source, settings));
    const auto& cost = rows.back().cost;
    if (cost && cost->ns_per_call > 0 && (!cheapest || cost->ns_per_call < *cheapest)) {
      cheapest = cost->ns_per_call;
    }
  }
  for (auto& row : rows) {
    if (row.cost && cheapest) row.percent_of_cheapest = row.cost->ns_per_call / *cheapest * 100.0;
  }
  return rows;
}

std::uint64_t steady_now_ns() noexcept {
  return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                        std::chrono::steady_clock::now().time_since_epoch())
                                        .count());
}

}  // namespace harness
