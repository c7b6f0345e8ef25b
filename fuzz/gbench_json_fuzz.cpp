// libFuzzer target: the reader of Google Benchmark's JSON output (`harness gbench`). A file that
// is not what a benchmark binary writes must end in gbench_output_error; any other exception, a
// crash or a sanitizer finding is a bug.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "gbench/gbench.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    (void)harness::gbench::parse_output(
        std::string_view(reinterpret_cast<const char*>(data), size));
  } catch (const harness::gbench::gbench_output_error&) {
  }
  return 0;
}
