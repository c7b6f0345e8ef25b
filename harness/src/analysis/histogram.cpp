// The histograms (statistics.hpp): one way of counting values into bars, and the run page's
// scale over a workload's sampled phases.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "harness/statistics.hpp"

namespace harness::stats {
namespace {

// The type-7 quantile of unsorted values, in O(n): the order statistic at floor((n - 1) p) and the
// next one above it, interpolated as quantile_sorted() does.
double quantile_unsorted(std::span<const double> values, double p) {
  std::vector<double> v(values.begin(), values.end());
  const double h = static_cast<double>(v.size() - 1) * p;
  const auto lo = static_cast<std::size_t>(std::floor(h));
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(lo), v.end());
  const double a = v[lo];
  const double b = lo + 1 < v.size()
                       ? *std::min_element(v.begin() + static_cast<std::ptrdiff_t>(lo) + 1, v.end())
                       : a;
  return a + (h - static_cast<double>(lo)) * (b - a);
}

}  // namespace

bin_counts count_bins(std::span<const double> values, double low, double top, std::size_t bins) {
  bin_counts c;
  c.counts.assign(bins, 0);
  if (bins == 0) return c;
  for (const double v : values) {
    if (v < low) {
      ++c.below;
      continue;
    }
    if (v > top) {
      ++c.above;
      continue;
    }
    const double position = top > low ? (v - low) / (top - low) : 0.0;
    ++c.counts[std::min(bins - 1, static_cast<std::size_t>(position * static_cast<double>(bins)))];
  }
  return c;
}

std::optional<phases_histogram> histogram_of(std::span<const std::span<const double>> phases) {
  double low = std::numeric_limits<double>::infinity();
  double high = -std::numeric_limits<double>::infinity();
  double top = -std::numeric_limits<double>::infinity();
  for (const std::span<const double> values : phases) {
    if (values.empty()) continue;
    const auto [min, max] = std::minmax_element(values.begin(), values.end());
    low = std::min(low, *min);
    high = std::max(high, *max);
    const double q75 = quantile_unsorted(values, 0.75);
    top = std::max(top, q75 + kHistogramFenceSpan * (q75 - *min));
  }
  if (!std::isfinite(low) || !std::isfinite(top)) return std::nullopt;
  phases_histogram h;
  h.low = low;
  h.high = high;
  h.top = std::min(top, high);
  if (!(h.top > low)) h.top = low + std::max(std::fabs(low) * 0.01, 1e-9);
  h.width = (h.top - low) / static_cast<double>(h.bins);
  for (const std::span<const double> values : phases)
    h.phases.push_back(count_bins(values, h.low, h.top, h.bins));
  return h;
}

}  // namespace harness::stats
