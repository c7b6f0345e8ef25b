// The loops of bench/ab_sensitivity.sh as a Google Benchmark binary, so that Google Benchmark's
// own comparison (compare.py over repetitions, all of A and then all of B) is measured on the
// same work as `harness ab`: xor_loop's body (workloads/builtin.cpp) over 1,000,000 and 1,010,000
// iterations (+1% of work), and a memcpy of 16 MiB.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstring>
#include <vector>

namespace {

void BM_xor(benchmark::State& state) {
  const std::int64_t count = state.range(0);
  for (auto _ : state) {
    std::int64_t seed = 0x5eed;
    benchmark::DoNotOptimize(seed);
    std::int64_t result = seed;
    for (std::int64_t i = 0; i < count; ++i)
      result ^= i ^ seed;
    benchmark::DoNotOptimize(result);
  }
}
BENCHMARK(BM_xor)->Arg(1'000'000)->Arg(1'010'000);

void BM_memcpy(benchmark::State& state) {
  const auto bytes = static_cast<std::size_t>(state.range(0));
  std::vector<char> from(bytes, 1);
  std::vector<char> to(bytes);
  for (auto _ : state) {
    std::memcpy(to.data(), from.data(), bytes);
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) *
                          static_cast<std::int64_t>(bytes));
}
BENCHMARK(BM_memcpy)->Arg(16 << 20);

}  // namespace

BENCHMARK_MAIN();
