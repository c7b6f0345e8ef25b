// A phase's CPU counters per call, at its floor sample and at its median sample (analysis.hpp).
#include <algorithm>
#include <cmath>
#include <numeric>

#include "harness/analysis.hpp"

namespace harness {

const counter_figure* phase_counters::find(cpu_counter c) const noexcept {
  for (const counter_figure& f : figures) {
    if (f.counter == c) return &f;
  }
  return nullptr;
}

phase_counters counters_of(const phase_result& phase, std::optional<std::size_t> lowest) {
  phase_counters result;
  if (phase.counters.empty()) return result;
  const std::size_t n = phase.values.size();
  if (n > 0) {
    // The sample at the median's rank: stable, so equal samples keep their sampling order.
    std::vector<std::size_t> order(n);
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      return phase.values[a] < phase.values[b];
    });
    result.median_index = order[(n - 1) / 2];
  }
  const auto batch = static_cast<double>(phase.batch);
  const auto per_call = [&](const counter_series& s, std::optional<std::size_t> i,
                            bool& scaled) -> std::optional<double> {
    if (!i || *i >= s.counts.size() || std::isnan(s.counts[*i])) return std::nullopt;
    scaled = s.scaled[*i];
    return s.counts[*i] / batch;
  };
  for (const counter_series& s : phase.counters) {
    counter_figure f;
    f.counter = s.counter;
    f.at_floor = per_call(s, lowest, f.scaled_at_floor);
    f.at_median = per_call(s, result.median_index, f.scaled_at_median);
    f.scaled_samples = static_cast<std::size_t>(std::count(s.scaled.begin(), s.scaled.end(), true));
    f.phase_total = s.phase_total;
    f.phase_total_scaled = s.phase_total_scaled;
    result.figures.push_back(f);
  }
  std::sort(result.figures.begin(), result.figures.end(),
            [](const counter_figure& a, const counter_figure& b) { return a.counter < b.counter; });
  const counter_figure* cycles = result.find(cpu_counter::cycles);
  const counter_figure* instructions = result.find(cpu_counter::instructions);
  if (cycles != nullptr && instructions != nullptr) {
    const auto ipc = [](const std::optional<double>& i,
                        const std::optional<double>& c) -> std::optional<double> {
      if (!i || !c || !(*c > 0)) return std::nullopt;
      return *i / *c;
    };
    result.ipc_at_floor = ipc(instructions->at_floor, cycles->at_floor);
    result.ipc_at_median = ipc(instructions->at_median, cycles->at_median);
  }
  return result;
}

}  // namespace harness
