// libFuzzer target: the -w parser (names, NAME/ARG, lists and ranges, globs) over a registry of a
// few workloads like the built-ins'. Patterns it refuses must end in usage_error; any other
// exception, a crash or a sanitizer finding is a bug.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "harness/errors.hpp"
#include "harness/workload.hpp"

namespace {

void fuzz_loop(std::int64_t n) {
  std::int64_t r = 0;
  for (std::int64_t i = 0; i < n; ++i)
    r ^= i;
  benchmark::DoNotOptimize(r);
}
void fuzz_empty() {}

}  // namespace

HARNESS_WORKLOAD(fuzz_loop).default_arg(1000).min_arg(0).max_arg(1'000'000);
HARNESS_WORKLOAD(fuzz_empty);
HARNESS_WORKLOAD_NAMED("fuzz_sweep", fuzz_loop).args({1, 10, 100}).min_arg(1);

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // One pattern per line, as several -w options give them.
  std::vector<std::string> patterns(1);
  for (std::size_t i = 0; i < size; ++i) {
    if (data[i] == '\n') {
      patterns.emplace_back();
    } else {
      patterns.back().push_back(static_cast<char>(data[i]));
    }
  }
  try {
    (void)harness::global_registry().select(patterns);
  } catch (const harness::usage_error&) {
  }
  return 0;
}
