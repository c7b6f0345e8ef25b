// libFuzzer target: the worker protocol of `harness ab --a BIN --b BIN`, both directions. A line
// off the protocol must end in protocol_error; a line it reads must format back to a line that
// reads the same (parse(format(parse(x))) formats as format(parse(x))).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "ab/worker_protocol.hpp"

namespace wp = harness::worker_protocol;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view line(reinterpret_cast<const char*>(data), size);
  try {
    const std::string once = wp::format(wp::parse_command(line));
    if (wp::format(wp::parse_command(once)) != once) std::abort();
  } catch (const wp::protocol_error&) {
  }
  try {
    const std::string once = wp::format(wp::parse_reply(line));
    if (wp::format(wp::parse_reply(once)) != once) std::abort();
  } catch (const wp::protocol_error&) {
  }
  (void)wp::truncated(line);
  return 0;
}
