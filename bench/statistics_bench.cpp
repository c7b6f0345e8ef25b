// Benchmark of summarize(): time and peak extra memory per sample at 1e3, 1e5 and 1e6 samples.
//
// The peak is counted by replacing the global operator new/delete of this executable, so it
// includes every allocation summarize() makes (the sort itself allocates nothing). The data are
// seeded, so every run summarizes the same values. Two shapes: "distinct" (log-normal, no ties:
// the sort's worst case) and "quantized" (three adjacent clock quanta, as a 10 us workload gives on
// the TSC here: many ties). Figures vary with the host's load; compare ratios between sizes.
#include <benchmark/benchmark.h>

#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <new>
#include <random>
#include <vector>

#include "harness/statistics.hpp"

namespace {

std::atomic<std::size_t> g_live_bytes{0};
std::atomic<std::size_t> g_peak_bytes{0};

// Each block carries its size in a header as wide as the strictest fundamental alignment.
constexpr std::size_t kHeader = alignof(std::max_align_t);

void* counted_alloc(std::size_t size) {
  void* block = std::malloc(size + kHeader);
  if (block == nullptr) throw std::bad_alloc();
  *static_cast<std::size_t*>(block) = size;
  const std::size_t live = g_live_bytes.fetch_add(size) + size;
  std::size_t peak = g_peak_bytes.load();
  while (live > peak && !g_peak_bytes.compare_exchange_weak(peak, live)) {
  }
  return static_cast<char*>(block) + kHeader;
}

void counted_free(void* p) noexcept {
  if (p == nullptr) return;
  void* block = static_cast<char*>(p) - kHeader;
  g_live_bytes.fetch_sub(*static_cast<std::size_t*>(block));
  std::free(block);
}

std::vector<double> make_samples(std::size_t n, bool quantized) {
  std::mt19937_64 rng(20240601);
  std::vector<double> v(n);
  if (quantized) {
    std::uniform_int_distribution<int> quantum(0, 2);
    for (double& x : v)
      x = 26000 + 26 * quantum(rng);
  } else {
    std::lognormal_distribution<double> d(10, 0.3);
    for (double& x : v)
      x = d(rng);
  }
  return v;
}

// Bytes allocated at the peak of one summarize(), beyond what was live before it, per sample.
template <class Summarize>
double peak_extra_bytes_per_sample(std::size_t n, Summarize&& summarize_once) {
  const std::size_t before = g_live_bytes.load();
  g_peak_bytes.store(before);
  summarize_once();
  return static_cast<double>(g_peak_bytes.load() - before) / static_cast<double>(n);
}

void bm_summarize(benchmark::State& state, bool quantized) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const std::vector<double> values = make_samples(n, quantized);
  for (auto _ : state) {
    benchmark::DoNotOptimize(harness::stats::summarize(values));
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * state.range(0));
  state.counters["peak_bytes_per_sample"] = peak_extra_bytes_per_sample(
      n, [&] { benchmark::DoNotOptimize(harness::stats::summarize(values)); });
}

// The clean-samples summary: every third sample rejected by the filter.
void bm_summarize_kept(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const std::vector<double> values = make_samples(n, false);
  const auto keep = [](std::size_t i) { return i % 3 != 0; };
  for (auto _ : state) {
    benchmark::DoNotOptimize(harness::stats::summarize(values, keep));
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * state.range(0));
  state.counters["peak_bytes_per_sample"] = peak_extra_bytes_per_sample(
      n, [&] { benchmark::DoNotOptimize(harness::stats::summarize(values, keep)); });
}

BENCHMARK_CAPTURE(bm_summarize, distinct, false)
    ->Arg(1000)
    ->Arg(100000)
    ->Arg(1000000)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(bm_summarize, quantized, true)
    ->Arg(1000)
    ->Arg(100000)
    ->Arg(1000000)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(bm_summarize_kept)->Arg(1000000)->Unit(benchmark::kMillisecond);

}  // namespace

void* operator new(std::size_t size) {
  return counted_alloc(size);
}
void operator delete(void* p) noexcept {
  counted_free(p);
}
void operator delete(void* p, std::size_t) noexcept {
  counted_free(p);
}
