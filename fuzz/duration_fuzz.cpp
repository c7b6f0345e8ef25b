// libFuzzer target: the duration parser (--warmup, --max-time, --min-time, ...). Text it refuses
// must end in usage_error; a duration it reads must not be negative, and what format_duration
// writes of it must read back as the same count of nanoseconds where the text is exact.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "harness/duration.hpp"
#include "harness/errors.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const std::chrono::nanoseconds d = harness::parse_duration(text, "--fuzz");
    if (d.count() < 0) std::abort();
    (void)harness::format_duration(d, harness::micro_spelling_for(true));
    // A whole count of a unit prints as "N unit"; typed back without the space, it is d again.
    // (A duration printed with decimals, "1.200 s", is rounded: not read back.)
    std::string printed = harness::format_duration(d, harness::micro_spelling_for(false));
    if (printed.find('.') == std::string::npos) {
      printed.erase(printed.find(' '), 1);
      if (harness::parse_duration(printed, "--fuzz") != d) std::abort();
    }
  } catch (const harness::usage_error&) {
  }
  return 0;
}
