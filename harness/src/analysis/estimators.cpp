// The estimators over one phase's samples, and summarize(), which gathers them (statistics.hpp; the
// verdict, the auto-stop rule and the special functions have files of their own).
//
// summarize() never copies the values: it sorts a permutation of 32-bit indices by value, and
// every order-based estimator reads the sorted order through that permutation. The same code
// serves the public *_sorted functions, which read a sorted span directly: the estimators are
// templates over a "sorted view" (size() and operator[]). Spearman's rho needs each value's rank
// and its position in time; the permutation holds both, so it costs no more memory.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>

#include "base/check.hpp"
#include "harness/statistics.hpp"

namespace harness::stats {

namespace {

constexpr std::string_view kMedianCiMethod = "order statistics, binomial (distribution-free)";
constexpr std::string_view kMinimumCiMethod = "Robson-Whitlock (1964) endpoint, one-sided";

// A view of values in ascending order through a permutation of positions of a time-ordered view.
template <class TimeView>
struct permuted_view {
  std::span<const std::uint32_t> perm;
  const TimeView& time;

  std::size_t size() const { return perm.size(); }
  double operator[](std::size_t k) const { return time[perm[k]]; }
};

// The kept values of a filtered phase, in sampling order.
struct kept_view {
  std::span<const double> values;
  std::span<const std::uint32_t> kept;

  std::size_t size() const { return kept.size(); }
  double operator[](std::size_t j) const { return values[kept[j]]; }
};

// First k in [0, n) with pred(k) true, n if none; pred must be false then true along k.
template <class Pred>
std::size_t partition_point(std::size_t n, Pred pred) {
  std::size_t lo = 0;
  std::size_t hi = n;
  while (lo < hi) {
    const std::size_t mid = lo + (hi - lo) / 2;
    if (pred(mid)) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  return lo;
}

template <class Sorted>
double quantile_of(const Sorted& s, double p) {
  const std::size_t n = s.size();
  const double h = static_cast<double>(n - 1) * p;
  const auto lo = static_cast<std::size_t>(std::floor(h));
  const std::size_t hi = std::min(lo + 1, n - 1);
  const double a = s[lo];
  const double b = s[hi];
  return a + (h - static_cast<double>(lo)) * (b - a);
}

template <class Sorted>
double mad_of(const Sorted& s) {
  const std::size_t n = s.size();
  const double m = quantile_of(s, 0.5);
  // The deviations below the median, read from the median downwards, and those above it, read
  // upwards, are two ascending runs: merging them finds the median deviation without a buffer.
  std::size_t right = partition_point(n, [&](std::size_t k) { return s[k] >= m; });
  std::size_t left = right;  // one past the next value below the median
  const std::size_t want_lo = (n - 1) / 2;
  const std::size_t want_hi = n / 2;
  double at_lo = 0;
  double at_hi = 0;
  for (std::size_t t = 0; t <= want_hi; ++t) {
    double next;
    if (left > 0 && (right == n || m - s[left - 1] <= s[right] - m)) {
      next = m - s[--left];
    } else {
      next = s[right++] - m;
    }
    if (t == want_lo) at_lo = next;
    if (t == want_hi) at_hi = next;
  }
  return (at_lo + at_hi) / 2;
}

template <class Sorted>
std::optional<estimate> median_ci_of(const Sorted& s, double level) {
  const std::size_t n = s.size();
  const double tail = (1 - level) / 2;
  if (n == 0 || binomial_half_cdf(n, 0) > tail) return std::nullopt;
  // Largest k = l - 1 with P(B <= k) <= tail; the cdf grows with k, and at n/2 it is >= 1/2.
  const std::size_t k =
      partition_point(n / 2 + 1, [&](std::size_t j) { return binomial_half_cdf(n, j) > tail; }) - 1;
  estimate e;
  e.point = quantile_of(s, 0.5);
  e.lower = s[k];
  e.upper = s[n - 1 - k];
  e.confidence_level = 1 - 2 * binomial_half_cdf(n, k);
  e.method = kMedianCiMethod;
  return e;
}

template <class Sorted>
std::optional<estimate> minimum_ci_of(const Sorted& s, double level) {
  if (s.size() < 2) return std::nullopt;
  // Near the floor, samples arrive like a Poisson process of constant rate, so the distance from
  // the floor to x(1) and the gap x(2) - x(1) are i.i.d. exponential: P(x(1) - floor <= c gap) =
  // c / (1 + c); setting it to `level` gives c = level / (1 - level), 19 at 95%.
  const double x1 = s[0];
  const double gap = s[1] - x1;
  estimate e;
  e.point = x1;
  // The values are durations: when the fastest lies above zero the floor is not below it, and
  // the interval is cut there (a far second-fastest sample puts Robson-Whitlock's bound below
  // zero, which reads as nonsense and says no more than zero does); intersecting with what is
  // known keeps the coverage. A minimum at or below zero (an overhead subtracted from an empty
  // call) is left as it is: cut, [0, 0] would claim a floor known exactly.
  const double lower = x1 - gap * level / (1 - level);
  e.lower = x1 > 0 ? std::max(0.0, lower) : lower;
  e.upper = x1;
  e.confidence_level = level;
  e.method = kMinimumCiMethod;
  return e;
}

template <class Sorted>
outlier_counts tukey_of(const Sorted& s) {
  outlier_counts c;
  const std::size_t n = s.size();
  if (n == 0) return c;
  const double q1 = quantile_of(s, 0.25);
  const double q3 = quantile_of(s, 0.75);
  const double iqr = q3 - q1;
  const auto below = [&](double fence) {
    return partition_point(n, [&](std::size_t k) { return s[k] >= fence; });
  };
  const auto above = [&](double fence) {
    return n - partition_point(n, [&](std::size_t k) { return s[k] > fence; });
  };
  c.low_severe = below(q1 - kTukeySevereFence * iqr);
  c.low_mild = below(q1 - kTukeyMildFence * iqr) - c.low_severe;
  c.high_severe = above(q3 + kTukeySevereFence * iqr);
  c.high_mild = above(q3 + kTukeyMildFence * iqr) - c.high_severe;
  return c;
}

// Spearman's rho of the values with their positions in time. perm lists positions in ascending
// order of value; equal values share their average rank.
template <class TimeView>
std::optional<drift_test> drift_of(std::span<const std::uint32_t> perm, const TimeView& time) {
  const std::size_t n = perm.size();
  if (n < 3) return std::nullopt;
  const double nd = static_cast<double>(n);
  const double centre = (nd + 1) / 2;
  double sum_rt = 0;
  double sum_rr = 0;
  for (std::size_t k = 0; k < n;) {
    const double v = time[perm[k]];
    std::size_t end = k + 1;
    while (end < n && time[perm[end]] == v)
      ++end;
    const double rank = static_cast<double>(k + end + 1) / 2;  // mean of ranks k+1 .. end
    const double dr = rank - centre;
    for (std::size_t j = k; j < end; ++j) {
      sum_rt += dr * (static_cast<double>(perm[j]) + 1 - centre);
    }
    sum_rr += dr * dr * static_cast<double>(end - k);
    k = end;
  }
  if (sum_rr <= 0) return std::nullopt;
  const double sum_tt = nd * (nd * nd - 1) / 12;
  drift_test d;
  d.spearman_rho = std::clamp(sum_rt / std::sqrt(sum_rr * sum_tt), -1.0, 1.0);
  if (n >= kMinSamplesForDriftTest) {
    const double dof = nd - 2;
    const double one_minus_r2 = (1 - d.spearman_rho) * (1 + d.spearman_rho);
    d.p_value = one_minus_r2 <= 0
                    ? 0.0
                    : student_t_two_sided_p(d.spearman_rho * std::sqrt(dof / one_minus_r2), dof);
    d.significant = *d.p_value < kDriftSignificance;
  }
  return d;
}

template <class TimeView>
std::vector<std::uint32_t> sorting_permutation(const TimeView& time) {
  std::vector<std::uint32_t> perm(time.size());
  std::iota(perm.begin(), perm.end(), std::uint32_t{0});
  std::sort(perm.begin(), perm.end(),
            [&](std::uint32_t a, std::uint32_t b) { return time[a] < time[b]; });
  return perm;
}

void check_size(std::size_t n) {
  if (n > std::numeric_limits<std::uint32_t>::max()) {
    throw std::length_error(
        fmt::format("statistics over {} samples: at most {} are supported (32-bit indices)", n,
                    std::numeric_limits<std::uint32_t>::max()));
  }
}

// Neumaier's compensated sum: a million values of very different sizes lose nothing.
template <class TimeView>
double compensated_sum(const TimeView& time) {
  double sum = 0;
  double compensation = 0;
  for (std::size_t i = 0; i < time.size(); ++i) {
    const double x = time[i];
    const double t = sum + x;
    compensation += std::fabs(sum) >= std::fabs(x) ? (sum - t) + x : (x - t) + sum;
    sum = t;
  }
  return sum + compensation;
}

template <class TimeView>
double sum_of_squared_deviations(const TimeView& time, double centre) {
  double ss = 0;
  for (std::size_t i = 0; i < time.size(); ++i) {
    const double d = time[i] - centre;
    ss += d * d;
  }
  return ss;
}

template <class TimeView>
phase_statistics summarize_view(const TimeView& time, std::span<const std::uint32_t> kept) {
  phase_statistics s;
  const std::size_t n = time.size();
  s.n = n;
  if (n == 0) return s;
  for (std::size_t i = 0; i < n; ++i) {
    // Samples are what the sampler measured, finite by construction, or what a reader of a report
    // file checked at its edge: a NaN or an infinity here is a bug upstream.
    HARNESS_CHECK(std::isfinite(time[i]), "statistics: sample {} is {}; samples must be finite",
                  kept.empty() ? i : kept[i], time[i]);
  }
  const std::vector<std::uint32_t> perm = sorting_permutation(time);
  const permuted_view<TimeView> sorted{perm, time};

  s.min = sorted[0];
  s.max = sorted[n - 1];
  s.spread = *s.max - *s.min;
  if (*s.min > 0) s.spread_percent = 100 * *s.spread / *s.min;
  s.median = quantile_of(sorted, 0.5);
  s.mean = compensated_sum(time) / static_cast<double>(n);
  if (n >= 2) {
    s.stddev = std::sqrt(sum_of_squared_deviations(time, *s.mean) / static_cast<double>(n - 1));
    if (*s.min > 0) s.cv_percent = 100 * *s.stddev / *s.mean;
  }
  s.mad = mad_of(sorted);
  s.p5 = quantile_of(sorted, 0.05);
  s.p90 = quantile_of(sorted, 0.90);
  s.p95 = quantile_of(sorted, 0.95);
  s.median_ci = median_ci_of(sorted, kConfidenceLevel);
  s.min_ci = minimum_ci_of(sorted, kConfidenceLevel);
  if (n >= 2) s.min_gap = sorted[1] - sorted[0];
  s.outliers = tukey_of(sorted);
  s.drift = drift_of(perm, time);
  return s;
}

}  // namespace

std::optional<double> estimate::relative_width() const noexcept {
  if (point == 0) return std::nullopt;
  return width() / std::fabs(point);
}

std::optional<double> mean(std::span<const double> values) {
  if (values.empty()) return std::nullopt;
  return compensated_sum(values) / static_cast<double>(values.size());
}

std::optional<double> standard_deviation(std::span<const double> values) {
  if (values.size() < 2) return std::nullopt;
  const double m = *mean(values);
  return std::sqrt(sum_of_squared_deviations(values, m) / static_cast<double>(values.size() - 1));
}

std::optional<double> quantile_sorted(std::span<const double> sorted, double p) {
  if (!(p >= 0 && p <= 1)) {
    throw std::invalid_argument(fmt::format("quantile: p = {} is outside [0, 1]", p));
  }
  if (sorted.empty()) return std::nullopt;
  return quantile_of(sorted, p);
}

std::optional<double> median_sorted(std::span<const double> sorted) {
  return quantile_sorted(sorted, 0.5);
}

std::optional<double> mad_sorted(std::span<const double> sorted) {
  if (sorted.empty()) return std::nullopt;
  return mad_of(sorted);
}

std::optional<estimate> median_ci_sorted(std::span<const double> sorted, double level) {
  if (!(level > 0 && level < 1)) {
    throw std::invalid_argument(fmt::format("median interval: level {} is outside (0, 1)", level));
  }
  return median_ci_of(sorted, level);
}

std::optional<estimate> minimum_ci_sorted(std::span<const double> sorted, double level) {
  if (!(level > 0 && level < 1)) {
    throw std::invalid_argument(fmt::format("minimum interval: level {} is outside (0, 1)", level));
  }
  return minimum_ci_of(sorted, level);
}

outlier_counts tukey_outliers_sorted(std::span<const double> sorted) {
  return tukey_of(sorted);
}

std::optional<drift_test> order_drift(std::span<const double> values_in_sampling_order) {
  check_size(values_in_sampling_order.size());
  const auto perm = sorting_permutation(values_in_sampling_order);
  return drift_of(perm, values_in_sampling_order);
}

phase_statistics summarize(std::span<const double> values_in_sampling_order) {
  check_size(values_in_sampling_order.size());
  return summarize_view(values_in_sampling_order, {});
}

phase_statistics summarize(std::span<const double> values_in_sampling_order,
                           const std::function<bool(std::size_t index)>& keep) {
  check_size(values_in_sampling_order.size());
  // Counting first sizes the index list exactly: growing it by doubling would peak at 1.5 times
  // its final size, beyond the memory budget of a million-sample phase.
  const std::size_t n = values_in_sampling_order.size();
  std::size_t n_kept = 0;
  for (std::size_t i = 0; i < n; ++i)
    n_kept += keep(i) ? 1 : 0;
  std::vector<std::uint32_t> kept;
  kept.reserve(n_kept);
  for (std::size_t i = 0; i < n && kept.size() < n_kept; ++i) {
    if (keep(i)) kept.push_back(static_cast<std::uint32_t>(i));
  }
  const kept_view view{values_in_sampling_order, kept};
  return summarize_view(view, kept);
}

std::optional<shift_estimate> log_shift(std::span<const double> a, std::span<const double> b) {
  // z for a two-sided 95% interval: the level is the harness's one (kConfidenceLevel).
  static_assert(kConfidenceLevel == 0.95);
  constexpr double kZ = 1.959963984540054;
  const auto logs = [](std::span<const double> values) -> std::optional<std::vector<double>> {
    std::vector<double> out;
    out.reserve(values.size());
    for (const double v : values) {
      if (!(v > 0) || !std::isfinite(v)) return std::nullopt;
      out.push_back(std::log(v));
    }
    std::sort(out.begin(), out.end());
    return out;
  };
  auto la = logs(a);
  auto lb = logs(b);
  if (!la || !lb || la->size() < 2 || lb->size() < 2) return std::nullopt;
  shift_estimate e;
  // Evenly spaced order statistics of a sorted side, at most `keep` of them.
  const auto thin = [](std::vector<double>& sorted, std::size_t keep) {
    if (sorted.size() <= keep) return false;
    std::vector<double> kept(keep);
    for (std::size_t k = 0; k < keep; ++k) {
      kept[k] = sorted[k * (sorted.size() - 1) / (keep - 1)];
    }
    sorted = std::move(kept);
    return true;
  };
  if (la->size() * lb->size() > kShiftMaxPairs) {
    const auto side = static_cast<std::size_t>(std::sqrt(static_cast<double>(kShiftMaxPairs)));
    // Both sides thinned, whichever needed it (no short circuit).
    const bool thinned_a = thin(*la, side);
    const bool thinned_b = thin(*lb, side);
    e.thinned = thinned_a || thinned_b;
  }
  const std::size_t n = la->size();
  const std::size_t m = lb->size();
  std::vector<double> d;
  d.reserve(n * m);
  for (const double y : *lb) {
    for (const double x : *la)
      d.push_back(y - x);
  }
  std::sort(d.begin(), d.end());
  const double nm = static_cast<double>(n * m);
  const double median =
      d.size() % 2 == 1 ? d[d.size() / 2] : (d[d.size() / 2 - 1] + d[d.size() / 2]) / 2;
  const double half = kZ * std::sqrt(nm * static_cast<double>(n + m + 1) / 12.0);
  // The 1-based rank C of the lower bound; the upper is the C-th from the top.
  const auto c = static_cast<std::size_t>(std::max(1.0, std::floor(nm / 2 - half)));
  e.ratio = std::exp(median);
  e.lower = std::exp(d[c - 1]);
  e.upper = std::exp(d[d.size() - c]);
  e.confidence_level = kConfidenceLevel;
  e.a_values = n;
  e.b_values = m;
  e.method = "Hodges-Lehmann shift of the logarithms, Mann-Whitney interval";
  return e;
}

}  // namespace harness::stats
