// The survey of real clock sources: the estimators of clock_survey.hpp applied to each source,
// timed against std::chrono::steady_clock, and the cost of each compared with the cheapest; the
// rules that turn histograms of differences into a granularity, a step and a read cost, and the
// runner's entry point to them.
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
double lattice_tolerance(double quantum) {
  return std::min(kLatticeToleranceTicks, kLatticeToleranceShare * quantum);
}
// Share of the held differences that must sit on the lattice (the rest: clock corrections).
constexpr double kOnLatticeShare = 0.95;
// A measured quantum under this is a clock advancing every tick (or every other one: a quantum of
// 1.5 ticks shows as 1, 2, 3... as well).
constexpr double kEveryTickQuantum = 1.5;
// The timed read cost's pairs, when the clock is too coarse to count one: 1,000 pairs of a 1 us
// system call take 4 ms over both passes.
constexpr std::uint64_t kTimedCostPairs = 1'000;

}  // namespace

granularity_analysis analyse_differences(const difference_histogram& differences,
                                         std::uint64_t min_changes) {
  granularity_analysis result;
  const std::uint64_t changes = differences.changes();
  if (changes == 0 || changes < min_changes) return result;
  std::vector<difference_group> groups;
  for (const auto& [d, n] : differences.counts()) {
    if (groups.empty() || d > groups.back().hi + 1) groups.push_back({d, d, 0, 0});
    difference_group& g = groups.back();
    g.hi = d;
    g.count += n;
    g.sum += static_cast<double>(d) * static_cast<double>(n);
  }
  result.groups = groups.size();

  // Every tick value appears across the range: most differences lie in wide groups (a sparse
  // sampling leaves a few gaps, so one continuous run is not required).
  std::uint64_t in_wide = 0;
  for (const auto& g : groups) {
    if (g.hi - g.lo >= kWideGroupTicks) in_wide += g.count;
  }
  if (2 * in_wide >= changes) {
    result.ticks = 1.0;
    result.advances_every_tick = true;
    return result;
  }

  // The groups holding a real share: at least a quarter of an average group's, and two.
  std::vector<difference_group> held;
  for (const auto& g : groups) {
    if (g.count >= 2 && g.count * 4 * groups.size() >= changes) held.push_back(g);
  }
  if (held.empty()) return result;

  // The multiple of the quantum each held group is.
  std::vector<std::uint64_t> multiple(held.size(), 1);
  if (held.size() == 1) {
    // One quantum when zeros show that the pairs also spanned less than one; without zeros it
    // could be any multiple, unless it is 1 tick (no quantum is smaller).
    if (differences.zeros() == 0 && held[0].mean() >= kEveryTickQuantum) return result;
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
  const double tolerance = lattice_tolerance(quantum);
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

step_analysis analyse_step(const difference_histogram& back_to_back,
                           const granularity_analysis& clock) {
  step_analysis result;
  if (back_to_back.changes() == 0) return result;
  // The first (smallest) key whose count is seen often, else the first: keys ascending.
  const auto smallest_often = [](const std::map<std::uint64_t, std::uint64_t>& counts) {
    std::uint64_t commonest = 0;
    for (const auto& entry : counts)
      commonest = std::max(commonest, entry.second);
    const std::uint64_t often = std::max<std::uint64_t>(
        2, (commonest + kOftenShareOfCommonest - 1) / kOftenShareOfCommonest);
    for (const auto& [key, count] : counts) {
      if (count >= often) return std::pair{key, true};
    }
    return std::pair{counts.begin()->first, false};
  };
  if (clock.ticks && !clock.advances_every_tick) {
    const double quantum = *clock.ticks;
    const double tolerance = lattice_tolerance(quantum);
    std::map<std::uint64_t, std::uint64_t> by_multiple;
    for (const auto& [d, n] : back_to_back.counts()) {
      const double value = static_cast<double>(d);
      const long long m = std::llround(value / quantum);
      if (m >= 1 && std::abs(value - static_cast<double>(m) * quantum) <= tolerance) {
        by_multiple[static_cast<std::uint64_t>(m)] += n;
      }
    }
    if (!by_multiple.empty() && back_to_back.zeros() > 0) {
      // Some pairs were shorter than a quantum: such a pair sees the clock's smallest advance
      // alone, and that is one quantum, however seldom (or lumped) the advances came.
      result.ticks = static_cast<std::uint64_t>(std::llround(quantum));
      result.rule = step_rule::quantum;
      return result;
    }
    if (!by_multiple.empty()) {
      const auto [m, often] = smallest_often(by_multiple);
      result.ticks = static_cast<std::uint64_t>(std::llround(static_cast<double>(m) * quantum));
      result.rule = often ? step_rule::quantum : step_rule::seen;
      return result;
    }
  }
  const auto [d, often] = smallest_often(back_to_back.counts());
  result.ticks = d;
  result.rule = often ? step_rule::often : step_rule::seen;
  return result;
}

std::optional<double> analyse_read_cost(const difference_histogram& back_to_back,
                                        std::optional<double> granularity_ticks) {
  if (!granularity_ticks || back_to_back.changes() < kCountedChanges) return std::nullopt;
  // The median non-zero difference: the count passes half the changes.
  std::uint64_t seen = 0;
  double median = 0;
  for (const auto& [d, n] : back_to_back.counts()) {
    seen += n;
    if (2 * seen >= back_to_back.changes()) {
      median = static_cast<double>(d);
      break;
    }
  }
  const double cut = kInterruptedFactor * std::max(median, *granularity_ticks);
  double ticks = 0;
  std::uint64_t pairs = back_to_back.zeros();
  for (const auto& [d, n] : back_to_back.counts()) {
    if (static_cast<double>(d) > cut) break;
    ticks += static_cast<double>(d) * static_cast<double>(n);
    pairs += n;
  }
  return ticks / static_cast<double>(pairs);
}

clock_shape analyse_clock_shape(const difference_histogram& back_to_back,
                                const difference_histogram& around_spins,
                                std::uint64_t min_changes) {
  clock_shape shape;
  shape.granularity = analyse_differences(
      around_spins.changes() >= min_changes ? around_spins : back_to_back, min_changes);
  shape.step = analyse_step(back_to_back, shape.granularity);
  shape.read_cost_ticks = analyse_read_cost(back_to_back, shape.granularity.ticks);
  return shape;
}

clock_shape_measurement measure_clock_shape(const clock_source& clock, const step_settings& step,
                                            const granularity_settings& granularity) {
  clock_shape_measurement result;
  if (!clock.available()) return result;
  const auto read = [&clock] { return clock.now(); };
  const shape_estimate estimate = measure_shape(read, steady_now_ns, step, granularity);
  result.step = estimate.step;
  clock_granularity& g = result.granularity;
  g.granularity_ticks = estimate.granularity.ticks;
  g.advances_every_tick = estimate.granularity.advances_every_tick;
  g.reads = estimate.granularity.reads;
  g.changes = estimate.granularity.changes;
  g.sweeps = estimate.granularity.sweeps;
  g.searched_seconds = estimate.granularity.searched_seconds;
  if (estimate.granularity.read_cost_ticks) {
    g.read_cost_ticks = *estimate.granularity.read_cost_ticks;
    g.read_cost_counted = true;
  } else {
    const call_cost_estimate cost = measure_call_cost(read, steady_now_ns, kTimedCostPairs);
    g.read_cost_ticks = cost.ns_per_call * 1e-9 * clock.ticks_per_second();
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
  const clock_shape_measurement shape =
      measure_clock_shape(source, settings.step, settings.granularity);
  row.step = shape.step;
  row.granularity = shape.granularity;
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
