// A deliberate include of Google Benchmark's header, through workload.hpp, compiled as a file of
// the layers that must not see it (analysis/, report/, model/, compare/) is: the stand-in
// cmake/no_benchmark/benchmark/benchmark.h first on its include path. Built only by the test
// layers.benchmark_header_refused, which expects the stand-in's #error.
#include "harness/workload.hpp"

namespace harness {

int benchmark_include_probe() {
  return 0;
}

}  // namespace harness
