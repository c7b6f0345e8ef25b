// Two small Google Benchmark binaries of known ratio for `harness gbench --vs` (issue 26), built
// from this one file: gbench_pair_old (GBENCH_PAIR_NEW=0) and gbench_pair_new (=1). The work of
// each benchmark is a chain of dependent multiply-adds (an LCG step), whose time is its latency
// times its length on any x86 or ARM core, so the ratio of NEW's time to OLD's is the ratio of the
// lengths whatever the host's speed:
//   BM_plus1/10000    NEW's chain 1% longer (10100 steps): the figure issue 26 asks for
//   BM_plus25/2000/manual_time
//                     NEW's chain 25% longer, and its time declared (UseManualTime): 1 ns a step,
//                     so NEW/OLD is exactly 1.25 in every repetition, however loaded the host.
//                     The e2e's verdicts, gate and order checks rest on it, never on the host's
//                     noise (a measured +25% once read `unsure`, [-25.8%, +26.2%], in a sanitized
//                     build on a host that ran each invocation at one of two speeds 2x apart)
//   BM_old_only       only in OLD; BM_new_only only in NEW: reported, not compared
//   BM_fails          NEW calls SkipWithError: that benchmark's failure, the others go on
// GBENCH_PAIR_CRASH=old or =new makes that binary abort when it runs a benchmark (not when it
// lists them), to test a binary that fails mid-way.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>

#ifndef GBENCH_PAIR_NEW
#error "build with -DGBENCH_PAIR_NEW=0 (OLD) or 1 (NEW)"
#endif

namespace {

constexpr bool kNew = GBENCH_PAIR_NEW != 0;
constexpr const char* kSide = kNew ? "new" : "old";

void crash_if_told() {
  const char* side = std::getenv("GBENCH_PAIR_CRASH");
  if (side != nullptr && std::strcmp(side, kSide) == 0) std::abort();
}

// `steps` dependent multiply-adds: each waits on the one before, so no core overlaps them. Not
// inlined and aligned alike, so both binaries run the same machine code and only `steps` differs.
[[gnu::noinline, gnu::aligned(64)]] std::uint64_t chain(std::uint64_t x, std::int64_t steps) {
  for (std::int64_t i = 0; i < steps; ++i) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    // Keeps the compiler from folding steps together (x * a^2 + ..., fewer multiplies).
    benchmark::DoNotOptimize(x);
  }
  return x;
}

// The chain of `state.range(0)` steps, longer in NEW by `new_percent` percent. `declared`: each
// iteration's time is given as 1 ns a step (the benchmark is registered with UseManualTime).
void run_chain(benchmark::State& state, std::int64_t new_percent, bool declared = false) {
  crash_if_told();
  const std::int64_t steps = state.range(0) * (kNew ? 100 + new_percent : 100) / 100;
  std::uint64_t x = 1;
  for (auto _ : state) {
    benchmark::DoNotOptimize(x);
    x = chain(x, steps);
    if (declared) state.SetIterationTime(static_cast<double>(steps) * 1e-9);
  }
  benchmark::DoNotOptimize(x);
}

void BM_plus1(benchmark::State& state) {
  run_chain(state, 1);
}
BENCHMARK(BM_plus1)->Arg(10000);

void BM_plus25(benchmark::State& state) {
  run_chain(state, 25, true);
}
BENCHMARK(BM_plus25)->Arg(2000)->UseManualTime();

void BM_fails(benchmark::State& state) {
  for (auto _ : state) {
    if (kNew) {
      state.SkipWithError("the new binary fails this one");
      break;
    }
    benchmark::DoNotOptimize(chain(1, 100));
  }
}
BENCHMARK(BM_fails);

#if GBENCH_PAIR_NEW
void BM_new_only(benchmark::State& state) {
  run_chain(state, 0);
}
BENCHMARK(BM_new_only)->Arg(100);
#else
void BM_old_only(benchmark::State& state) {
  run_chain(state, 0);
}
BENCHMARK(BM_old_only)->Arg(100);
#endif

}  // namespace

BENCHMARK_MAIN();
