// Durations given by people on the command line: "1200ms", "1.5s", "250us", "0".
#pragma once

#include <chrono>
#include <string>
#include <string_view>

namespace harness {

// Parses a non-negative duration with a unit (ns, us, ms, s). A bare "0" is accepted and means zero
// (it disables what it sets). Throws usage_error naming the text and what is accepted otherwise.
// `what` names the option in the message, e.g. "--warmup".
std::chrono::nanoseconds parse_duration(std::string_view text, std::string_view what);

// "1200 ms", "1.5 s", "250 us", "0 s": the largest unit that keeps the value readable.
std::string format_duration(std::chrono::nanoseconds d);

}  // namespace harness
