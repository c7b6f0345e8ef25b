// What the sampler itself costs: the path of one sample (two clock reads and one call through the
// registry), and a whole phase per sample with its side checks (reference loop, disturbance flags),
// on the default clock with the empty workload. The difference between the two is what the
// harness adds between samples; neither is inside a sample except the first, which the timer
// overhead subtraction removes.
#include <benchmark/benchmark.h>

#include "harness/clock.hpp"
#include "harness/platform.hpp"
#include "harness/runner.hpp"
#include "harness/workload.hpp"

namespace {

const harness::workload& empty_workload() {
  static const harness::workload w("empty", harness::detail::make_invoker([] {}), false, false);
  return w;
}

// One timed empty sample through the sampling path (the timer overhead's own loop).
void bm_timed_empty_sample(benchmark::State& state) {
  const harness::clock_source& clock = harness::default_clock();
  for (auto _ : state)
    benchmark::DoNotOptimize(harness::measure_overhead(clock, 1000));
  state.SetItemsProcessed(state.iterations() * 1000);
}
BENCHMARK(bm_timed_empty_sample);

// A whole prepared phase of N samples (no pinning, no priority change, no warmup, no baseline),
// per sample: the sampler's cost including its side checks and storage; the second argument 0
// reads no CPU counters (--counters none), 1 the default ones around every sample (issue 30).
void bm_sampling_phase(benchmark::State& state) {
  const harness::clock_facts facts = harness::measure_clock_facts(harness::default_clock());
  auto os = harness::platform::make_native_os();
  harness::run_options options;
  options.samples = static_cast<std::size_t>(state.range(0));
  options.warmup = std::chrono::nanoseconds(0);
  options.baseline = false;
  options.batch = 1;
  options.priority = harness::platform::priority_level::normal;
  // One block: the sampler's own cost, without the 50 ms gaps of the reference loop that spread
  // blocks out in time (a fixed 0.2 s a phase by default, docs/floor.md).
  options.blocks = 1;
  if (state.range(1) == 0) options.counters.clear();
  const harness::workload_instance w{&empty_workload(), std::nullopt};
  for (auto _ : state) {
    auto result = harness::run_workload(w, options, facts, *os);
    benchmark::DoNotOptimize(result.prepared->values.data());
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(bm_sampling_phase)
    ->ArgsProduct({{1000, 100'000, 1'000'000}, {0, 1}})
    ->Unit(benchmark::kMillisecond);

}  // namespace
