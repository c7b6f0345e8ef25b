// Calibration: what the sampler must know before it samples. The clock's step and granularity, the
// timer overhead of the sampling path, and how many calls make one sample of a short workload.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>

#include "experiment/sampler.hpp"
#include "harness/clock_survey.hpp"

namespace harness {
namespace detail {

// Finds how many calls make a sample of at least `min_ticks`: grows the batch until the fastest
// of three samples reaches it. Runs the workload a few times before the baseline, which the
// report says; long workloads need no calibration at all.
std::uint64_t calibrate_batch(workload_session& workload, const clock_source& clock,
                              std::uint64_t overhead, std::uint64_t min_ticks) {
  constexpr int kTries = 3;
  constexpr std::uint64_t kMaxBatch = std::uint64_t{1} << 32;
  std::uint64_t batch = 1;
  std::uint64_t iterations = 0;
  while (batch < kMaxBatch && stop_signal() == 0) {
    std::uint64_t best = std::numeric_limits<std::uint64_t>::max();
    for (int t = 0; t < kTries; ++t)
      best = std::min(best, timed_sample(workload, clock, batch, iterations));
    const std::uint64_t net = best > overhead ? best - overhead : 0;
    if (net >= min_ticks) break;
    // Aim 20% past the goal so one more round is rarely needed; never grow more than 10x at once,
    // since a tiny first measurement says little.
    const double wanted =
        net == 0 ? static_cast<double>(batch) * 10
                 : std::ceil(static_cast<double>(batch) * 1.2 * static_cast<double>(min_ticks) /
                             static_cast<double>(net));
    batch = std::min<std::uint64_t>(
        kMaxBatch,
        std::clamp<std::uint64_t>(static_cast<std::uint64_t>(wanted), batch + 1, batch * 10));
  }
  return batch;
}

}  // namespace detail

clock_facts measure_clock_facts(const clock_source& clock) {
  clock_facts facts;
  facts.clock = &clock;
  // The survey's settings (clock_survey.hpp): ~2 ms on a TSC or vDSO clock.
  const clock_shape_measurement shape = measure_clock_shape(clock);
  if (shape.step.ticks) {
    facts.step = *shape.step.ticks;
    facts.step_measured = true;
  }
  facts.granularity = shape.granularity.granularity_ticks.value_or(0);
  facts.read_cost = shape.granularity.read_cost_ticks;
  return facts;
}

std::uint64_t measure_overhead(const clock_source& clock, std::size_t samples) {
  // An empty workload through the same registry call the samples make.
  static const workload empty_workload("(overhead)", detail::make_invoker([] {}), false, false);
  const std::unique_ptr<workload_session> empty = empty_workload.start(0);
  std::uint64_t best = std::numeric_limits<std::uint64_t>::max();
  std::uint64_t iterations = 0;
  for (std::size_t i = 0; i < samples; ++i) {
    best = std::min(best, detail::timed_sample(*empty, clock, 1, iterations));
  }
  return samples == 0 ? 0 : best;
}

}  // namespace harness
