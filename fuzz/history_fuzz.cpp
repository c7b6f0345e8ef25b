// libFuzzer target: the floor history's reader (~/.local/state/harness/history.json). A file
// that is not a history this build reads must end in usage_error; one it reads must survive its
// own round trip: what to_json() writes parses again to the same text.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "harness/errors.hpp"
#include "harness/history.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::string written;
  try {
    written = harness::run_history::parse(text, "fuzz.json").to_json();
  } catch (const harness::usage_error&) {
    return 0;
  }
  // What the harness wrote itself it must read back unchanged.
  if (harness::run_history::parse(written, "written.json").to_json() != written) std::abort();
  return 0;
}
