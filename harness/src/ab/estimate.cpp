// The pure parts of `harness ab`: the schedule, the estimate over rounds and over pairs of
// processes, the stop rule and the verdict. No clock, no machine: tests give them numbers.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "base/check.hpp"
#include "base/numbers.hpp"
#include "harness/ab.hpp"
#include "harness/statistics.hpp"

namespace harness {

namespace {

// splitmix64 (Steele, Lea & Flood 2014): one 64-bit state step, the same on every platform.
std::uint64_t splitmix64(std::uint64_t x) noexcept {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

std::optional<ab_interval> median_interval(std::vector<double> ratios) {
  std::sort(ratios.begin(), ratios.end());
  const std::optional<double> median = stats::median_sorted(ratios);
  const std::optional<stats::estimate> ci = stats::median_ci_sorted(ratios);
  if (!median || !ci) return std::nullopt;
  return ab_interval{.ratio = *median,
                     .lower = ci->lower,
                     .upper = ci->upper,
                     .level = ci->confidence_level,
                     .count = ratios.size(),
                     .method = "median of the round ratios, order-statistic interval"};
}

// A round's B/A, or nullopt when A's minimum is not above 0 (a round that timed nothing).
std::optional<double> ratio_of(const ab_round& r) {
  if (!(r.a_min > 0)) return std::nullopt;
  const double ratio = r.ratio();
  HARNESS_CHECK(std::isfinite(ratio), "a round ratio is not finite");
  return ratio;
}

// "+1.00%", "-0.25%", "+0.004%": a ratio as the change of B's time against A's (as the report's
// ab_change_text spells it).
std::string change(double ratio) {
  return signed_change_percent_text((ratio - 1) * 100);
}

}  // namespace

bool a_goes_first(ab_order order, std::uint64_t seed, std::size_t index) noexcept {
  switch (order) {
    case ab_order::alternate:
      return index % 2 == 0;
    case ab_order::random:
      return (splitmix64(seed ^ splitmix64(index)) >> 63) == 0;
    case ab_order::balanced:
      break;
  }
  // A round of an even count of stretches ends with the side it started with: starting every
  // round with A keeps the sequence ABBA ABBA... unbroken across rounds.
  return true;
}

std::vector<std::size_t> ab_stretch_sizes(std::size_t samples_per_side, std::size_t stretch,
                                          ab_order order) {
  const std::size_t k = std::max<std::size_t>(samples_per_side, 1);
  const std::size_t s = std::max<std::size_t>(stretch, 1);
  std::size_t count = (k + s - 1) / s;
  if (order != ab_order::balanced) {
    std::vector<std::size_t> sizes(count, s);
    sizes.back() = k - (count - 1) * s;
    return sizes;
  }
  // A side's sample is one right after its own when it is not the first of its stretch, or when
  // its stretch follows one of its own: with an even count of stretches (AB BA AB BA...) and the
  // round starting with the side the last one ended with, each side has as many of those as the
  // other, whatever the stretches' sizes, as long as the two sides' stretches pair up in size.
  count += count % 2;
  const std::size_t total = std::max(k, count);
  std::vector<std::size_t> sizes(count, total / count);
  for (std::size_t j = 0; j < total % count; ++j)
    ++sizes[j];
  return sizes;
}

std::optional<double> ab_estimate::floor_ratio() const {
  if (!floor_a || !floor_b || !(*floor_a > 0)) return std::nullopt;
  return *floor_b / *floor_a;
}

bool ab_estimate::slowed_host() const noexcept {
  return (slow_a && *slow_a >= kAbSlowHost) || (slow_b && *slow_b >= kAbSlowHost);
}

double clock_resolution(const ab_steps& steps, double floor_a, double floor_b) noexcept {
  if (!(floor_a > 0) || !(floor_b > 0)) return 0;
  return steps.a / floor_a + steps.b / floor_b;
}

ab_interval widened_by_resolution(ab_interval interval, double resolution) {
  HARNESS_CHECK(resolution >= 0 && resolution < 1, "a clock resolution outside [0, 1)");
  interval.lower *= 1 - resolution;
  interval.upper /= 1 - resolution;
  interval.resolution = resolution;
  return interval;
}

std::optional<ab_order_split> split_by_order(std::span<const ab_round> rounds) {
  std::vector<double> a_first;
  std::vector<double> b_first;
  for (const ab_round& r : rounds) {
    if (const std::optional<double> ratio = ratio_of(r))
      (r.a_first ? a_first : b_first).push_back(*ratio);
  }
  std::sort(a_first.begin(), a_first.end());
  std::sort(b_first.begin(), b_first.end());
  const std::optional<double> a = stats::median_sorted(a_first);
  const std::optional<double> b = stats::median_sorted(b_first);
  if (!a || !b) return std::nullopt;
  return ab_order_split{.a_first = *a,
                        .b_first = *b,
                        .a_first_rounds = a_first.size(),
                        .b_first_rounds = b_first.size()};
}

ab_interval widened_by_order(ab_interval interval, const ab_order_split& split) {
  const double low = std::min(split.a_first, split.b_first);
  const double high = std::max(split.a_first, split.b_first);
  if (low < interval.lower || high > interval.upper) {
    interval.lower = std::min(interval.lower, low);
    interval.upper = std::max(interval.upper, high);
    interval.order = split;
  }
  return interval;
}

ab_estimate estimate_rounds(std::vector<ab_round>& rounds, double slowdown_factor,
                            std::optional<ab_steps> steps) {
  ab_estimate e;
  std::uint64_t fastest = 0;
  for (const ab_round& r : rounds) {
    if (r.reference > 0 && (fastest == 0 || r.reference < fastest)) fastest = r.reference;
  }
  const double limit = slowdown_factor * static_cast<double>(fastest);
  std::vector<double> all;
  std::vector<double> clean;
  std::vector<ab_round> clean_rounds;
  all.reserve(rounds.size());
  for (ab_round& r : rounds) {
    r.disturbed = r.switches > 0 || (fastest > 0 && static_cast<double>(r.reference) > limit);
    e.disturbed += r.disturbed ? 1 : 0;
    e.floor_a = e.floor_a ? std::min(*e.floor_a, r.a_min) : r.a_min;
    e.floor_b = e.floor_b ? std::min(*e.floor_b, r.b_min) : r.b_min;
    const std::optional<double> ratio = ratio_of(r);
    if (!ratio) continue;
    all.push_back(*ratio);
    if (!r.disturbed) {
      clean.push_back(*ratio);
      clean_rounds.push_back(r);
    }
  }
  // The median of the values above 0 over the lowest of them.
  const auto median_over_lowest = [&](auto value) -> std::optional<double> {
    std::vector<double> v;
    for (const ab_round& r : rounds) {
      const auto x = static_cast<double>(value(r));
      if (x > 0) v.push_back(x);
    }
    std::sort(v.begin(), v.end());
    const std::optional<double> median = stats::median_sorted(v);
    if (!median) return std::nullopt;
    return *median / v.front();
  };
  e.slow_a = median_over_lowest([](const ab_round& r) { return r.a_min; });
  e.slow_b = median_over_lowest([](const ab_round& r) { return r.b_min; });
  e.slow_reference = median_over_lowest([](const ab_round& r) { return r.reference; });
  e.rounds = median_interval(std::move(all));
  e.undisturbed = median_interval(std::move(clean));
  e.order_split = split_by_order(rounds);
  if (e.rounds && e.order_split) e.rounds = widened_by_order(*e.rounds, *e.order_split);
  if (e.undisturbed) {
    if (const std::optional<ab_order_split> split = split_by_order(clean_rounds))
      e.undisturbed = widened_by_order(*e.undisturbed, *split);
  }
  if (steps && e.floor_a && e.floor_b) {
    e.resolution = clock_resolution(*steps, *e.floor_a, *e.floor_b);
    for (std::optional<ab_interval>* i : {&e.rounds, &e.undisturbed}) {
      if (!*i) continue;
      if (e.resolution < 1) {
        **i = widened_by_resolution(**i, e.resolution);
      } else {
        i->reset();
      }
    }
  }
  return e;
}

std::optional<ab_interval> combine_pairs(std::span<const double> pair_ratios,
                                         const std::optional<ab_interval>& pooled) {
  const std::size_t n = pair_ratios.size();
  if (n < 2) return std::nullopt;
  std::vector<double> logs;
  logs.reserve(n);
  for (const double r : pair_ratios) {
    if (!(r > 0) || !std::isfinite(r)) return std::nullopt;
    logs.push_back(std::log(r));
  }
  const double m = *stats::mean(logs);
  const double sd = *stats::standard_deviation(logs);
  const double half =
      stats::student_t_two_sided_quantile(stats::kConfidenceLevel, static_cast<double>(n - 1)) *
      sd / std::sqrt(static_cast<double>(n));
  ab_interval combined{.ratio = std::exp(m),
                       .lower = std::exp(m - half),
                       .upper = std::exp(m + half),
                       .level = stats::kConfidenceLevel,
                       .count = n,
                       .method = "geometric mean of the pairs' ratios, Student's t over pairs"};
  if (pooled) {
    combined.lower = std::min(combined.lower, pooled->lower);
    combined.upper = std::max(combined.upper, pooled->upper);
  }
  return combined;
}

bool target_met(const ab_interval& interval, double target) noexcept {
  return interval.ratio > 0 && interval.relative_half_width() < target;
}

bool ab_stop_rule::target_reached(ab_pair& pair) {
  const std::size_t n = pair.rounds.size();
  if (n < tuning_.min_rounds || (n - tuning_.min_rounds) % tuning_.check_every != 0) return false;
  ++pair.checks;
  // Only the interval over every round's ratio, as estimate_rounds gives it in `rounds`: a check
  // runs between rounds on the pinned CPU, every check_every rounds, and the rest of the estimate
  // (the disturbed rounds, the host figures) waits for the end.
  std::vector<double> ratios;
  ratios.reserve(n);
  for (const ab_round& r : pair.rounds) {
    if (const std::optional<double> ratio = ratio_of(r)) ratios.push_back(*ratio);
  }
  if (const std::optional<ab_interval> interval = median_interval(std::move(ratios))) {
    pair.last_half_width = interval->relative_half_width();
    in_a_row_ = target_met(*interval, target_) ? in_a_row_ + 1 : 0;
  } else {
    in_a_row_ = 0;
  }
  return in_a_row_ >= tuning_.checks_in_a_row;
}

ab_decision decide(const ab_interval& interval, double threshold,
                   std::optional<double> fail_if_slower) {
  ab_decision d;
  const std::string bounds =
      fmt::format("[{}, {}]", change(interval.lower), change(interval.upper));
  const std::string limit = percent_text(threshold, 2);
  if (interval.lower > 1 + threshold) {
    d.verdict = ab_verdict::slower;
    d.reason = fmt::format("the interval {} lies above +{}, the threshold", bounds, limit);
  } else if (interval.upper < 1 - threshold) {
    d.verdict = ab_verdict::faster;
    d.reason = fmt::format("the interval {} lies below -{}, the threshold", bounds, limit);
  } else if (interval.lower >= 1 - threshold && interval.upper <= 1 + threshold) {
    d.verdict = ab_verdict::same;
    d.reason = fmt::format("the interval {} lies within +-{}, the threshold", bounds, limit);
  } else {
    d.verdict = ab_verdict::unsure;
    // When the clock's step widens the interval at least as much as the round ratios' own spread
    // does, more rounds cannot narrow it much: longer samples can.
    const double keep = 1 - interval.resolution;
    const double rounds_half = (interval.upper * keep - interval.lower / keep) / 2 / interval.ratio;
    const bool step_bound = interval.resolution > 0 && interval.resolution >= rounds_half;
    std::string remedy;
    if (interval.order) {
      // Running second may move the two sides unequally: a part more rounds do not cancel.
      remedy = fmt::format(
          "it reaches the medians of the rounds A ran first ({}) and of those B ran first ({}), "
          "and where running second moves the two sides unequally, more time does not cancel "
          "it",
          change(interval.order->a_first), change(interval.order->b_first));
    } else if (step_bound) {
      remedy = fmt::format(
          "+-{} of it is the clock's step, which longer samples (--min-sample-time, or a larger "
          "--batch) narrow and more time does not",
          percent_text(interval.resolution, 3));
    } else {
      remedy = "more time (--max-time) narrows it";
    }
    d.reason = fmt::format(
        "the interval {} reaches across {}{}, the threshold: {}, or a wider --threshold decides "
        "it",
        bounds, interval.upper > 1 + threshold ? "+" : "-", limit, remedy);
  }
  if (fail_if_slower && interval.lower > 1 + *fail_if_slower) {
    d.gate_failed = true;
    d.reason +=
        fmt::format("; B is slower than A by more than {} with 95% confidence (--fail-if-slower)",
                    percent_text(*fail_if_slower, 2));
  }
  return d;
}

bool verdict_settled(const ab_interval& interval, double threshold,
                     std::optional<double> fail_if_slower) {
  if (decide(interval, threshold, std::nullopt).verdict == ab_verdict::unsure) return false;
  if (!fail_if_slower) return true;
  // decide()'s gate fails on a lower bound above the limit; an interval reaching across it may
  // still go either way.
  const double limit = 1 + *fail_if_slower;
  return interval.lower > limit || interval.upper <= limit;
}

}  // namespace harness
