// Durations: given by people on the command line ("1200ms", "1.5s", "250us", "0"), and printed for
// people by every writer through one formatter (format_seconds). The HTML page's script mirrors
// format_seconds exactly (durationText in report/html/common.js); tests/data/duration_cases.json
// holds the values both are checked against.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

namespace harness {

// Parses a non-negative duration with a unit (ns, us, ms, s). A bare "0" is accepted and means zero
// (it disables what it sets). Throws usage_error naming the text and what is accepted otherwise.
// `what` names the option in the message, e.g. "--warmup"; zero_disables false: the message asks
// for a positive duration (the caller refuses 0 itself).
std::chrono::nanoseconds parse_duration(std::string_view text, std::string_view what,
                                        bool zero_disables = true);

// How a microsecond is spelled: "µs", or "us" where µ cannot be shown (a terminal whose locale is
// not UTF-8) or the text must read as the options accept it ("--min-time 250 us", a history key).
enum class micro_spelling : std::uint8_t { unicode, ascii };
constexpr micro_spelling micro_spelling_for(bool unicode) noexcept {
  return unicode ? micro_spelling::unicode : micro_spelling::ascii;
}

// How format_seconds prints a duration. The unit is the largest of s, ms, µs and ns in which the
// figure is 1 or more, or the next larger one when the figure rounded as printed reaches 1000
// (999.96 µs at three significant digits is "1.00 ms"; 999 ns stays "999 ns").
struct duration_format {
  enum class digits_kind : std::uint8_t {
    decimals,     // `digits` decimals ("500.000 ns"), one more below 1 ns ("0.5000 ns")
    significant,  // about `digits` significant digits: `digits` less the integer part's digits
                  // (at least one, so 0.25 ns at three is "0.25"), never fewer than none
  };
  digits_kind kind = digits_kind::significant;
  int digits = 3;
  bool trim_zeros = false;  // drop trailing zeros and a bare point: "1.5 ms", not "1.50 ms"
  micro_spelling micro = micro_spelling::unicode;
};

// How a span of wall time prints where no terminal's spelling is known (progress lines, the
// doctor's facts, a floor's reason): three significant digits, "300 ms", "1.50 s", "12.3 s", and
// "us" for microseconds, as the options accept it.
inline constexpr duration_format kSpanFormat{duration_format::digits_kind::significant, 3, false,
                                             micro_spelling::ascii};

// "2.500 µs", "12.3 ms", "1.5 s": a duration in seconds for people; "n/a" when not finite.
std::string format_seconds(double seconds, const duration_format& format);

// A whole number of a unit as typed ("1200 ms", "10 s", "0 s"); any other duration in the largest
// unit it reaches with three decimals ("1.500 ms"). For settings and what was asked for.
std::string format_duration(std::chrono::nanoseconds d, micro_spelling micro);

}  // namespace harness
