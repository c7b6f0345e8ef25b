// A small Google Benchmark binary for `harness gbench`'s tests (tests/e2e/gbench_e2e.sh): three
// benchmarks, one with bytes and items processed and a counter, one that calls SkipWithError.
// Its environment makes it misbehave the ways a real binary can, so the harness's handling of each
// is tested end to end:
//   GBENCH_FIXTURE_CRASH=1   aborts inside a benchmark (killed by SIGABRT)
//   GBENCH_FIXTURE_EXIT=N    writes a line to stderr and exits with status N before running
//   GBENCH_FIXTURE_SLEEP_MS  each iteration of BM_sleep sleeps this long (default 1 ms)
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <thread>
#include <vector>

namespace {

void BM_sum(benchmark::State& state) {
  std::vector<int> v(static_cast<std::size_t>(state.range(0)), 1);
  for (auto _ : state) {
    benchmark::DoNotOptimize(v.data());
    int s = std::accumulate(v.begin(), v.end(), 0);
    benchmark::DoNotOptimize(s);
  }
  if (std::getenv("GBENCH_FIXTURE_CRASH") != nullptr) std::abort();
}
BENCHMARK(BM_sum)->Arg(256);

void BM_copy(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  std::vector<char> from(n, 'x');
  std::vector<char> to(n);
  for (auto _ : state) {
    std::copy(from.begin(), from.end(), to.begin());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * state.range(0));
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
  state.counters["buffers"] = 2;
}
BENCHMARK(BM_copy)->Arg(4096);

void BM_skipped(benchmark::State& state) {
  for (auto _ : state) {
    state.SkipWithError("the fixture skips this one");
    break;
  }
}
BENCHMARK(BM_skipped);

void BM_sleep(benchmark::State& state) {
  const char* ms = std::getenv("GBENCH_FIXTURE_SLEEP_MS");
  const auto pause = std::chrono::milliseconds(ms != nullptr ? std::atoi(ms) : 1);
  for (auto _ : state)
    std::this_thread::sleep_for(pause);
}
BENCHMARK(BM_sleep)->UseRealTime();

}  // namespace

int main(int argc, char** argv) {
  if (const char* code = std::getenv("GBENCH_FIXTURE_EXIT")) {
    std::fprintf(stderr, "gbench_fixture: told to exit with status %s\n", code);
    return std::atoi(code);
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
