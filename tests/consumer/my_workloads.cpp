// The user's file: one workload, registered as the README shows.
#include <harness/workload.hpp>

#include <cstdint>

static std::uint64_t consumer_sum(std::int64_t n) {
  std::uint64_t sum = 0;
  for (std::int64_t i = 0; i < n; ++i)
    sum += static_cast<std::uint64_t>(i) ^ sum;
  benchmark::DoNotOptimize(sum);
  return static_cast<std::uint64_t>(n);
}
HARNESS_WORKLOAD(consumer_sum).description("xor-sums N integers").default_arg(10000).min_arg(0);
