// Two builds of one source for bench/ab_builds.sh, which measures `harness ab --a BIN --b BIN`:
// compiled with -DWORK_PERMILLE=1000 (as is) and 1010 (1% more work a call), each linked with
// harness::main, so the +1% is a different build, not a workload argument. xor_work is
// compute-bound (the loop of xor_loop), memcpy_work memory-bound (16 MiB a call by default, past
// the caches this host's L2 holds).
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "harness/workload.hpp"

#ifndef WORK_PERMILLE
#define WORK_PERMILLE 1000
#endif

namespace {
std::int64_t xor_work(std::int64_t count) {
  const std::int64_t n = count * WORK_PERMILLE / 1000;
  std::int64_t seed = 0x2545F491;
  benchmark::DoNotOptimize(seed);
  std::int64_t result = seed;
  for (std::int64_t i = 0; i < n; ++i)
    result ^= i ^ seed;
  benchmark::DoNotOptimize(result);
  return count;
}
std::int64_t memcpy_work(std::int64_t bytes) {
  const auto n = static_cast<std::size_t>(bytes * WORK_PERMILLE / 1000);
  static std::vector<char> from, to;
  if (from.size() != n) {
    from.assign(n, 'x');
    to.assign(n, 0);
  }
  benchmark::DoNotOptimize(from.data());
  std::memcpy(to.data(), from.data(), n);
  benchmark::ClobberMemory();
  return bytes;
}
}  // namespace
HARNESS_WORKLOAD(xor_work).default_arg(1'000'000).min_arg(0);
HARNESS_WORKLOAD(memcpy_work).default_arg(16'777'216).min_arg(0);
