// Parsing and printing of human durations.
#include "harness/duration.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <limits>
#include <string>
#include <utility>

#include "harness/errors.hpp"

namespace harness {
namespace {

struct unit {
  std::string_view suffix;
  double nanoseconds;
};

constexpr std::array<unit, 4> kUnits{{{"ns", 1.0}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}}};

[[noreturn]] void reject(std::string_view text, std::string_view what, bool zero_disables,
                         std::string_view why) {
  throw usage_error(fmt::format(
      "{}: invalid duration '{}': {}; expected a {} number with a unit ns, us, ms or s (e.g. "
      "1200ms, 1.5s){}",
      what, text, why, zero_disables ? "non-negative" : "positive",
      zero_disables ? ", or 0 to disable" : ""));
}

}  // namespace

std::chrono::nanoseconds parse_duration(std::string_view text, std::string_view what,
                                        bool zero_disables) {
  if (text.empty()) reject(text, what, zero_disables, "it is empty");
  if (text == "0") return std::chrono::nanoseconds{0};
  if (text.front() == '-') reject(text, what, zero_disables, "it is negative");

  std::size_t digits_end = 0;
  while (digits_end < text.size() &&
         ((text[digits_end] >= '0' && text[digits_end] <= '9') || text[digits_end] == '.')) {
    ++digits_end;
  }
  const std::string_view number = text.substr(0, digits_end);
  const std::string_view suffix = text.substr(digits_end);
  if (number.empty()) reject(text, what, zero_disables, "it does not start with a number");

  double value = 0;
  const auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), value);
  if (ec != std::errc{} || end != number.data() + number.size()) {
    reject(text, what, zero_disables, "the number is malformed");
  }
  if (suffix.empty()) reject(text, what, zero_disables, "the unit is missing");
  for (const unit& u : kUnits) {
    if (suffix == u.suffix) {
      const double ns = value * u.nanoseconds;
      // The int64 maximum, 2^63 - 1, is 2^63 as a double: a count that reaches it does not fit.
      if (!std::isfinite(ns) ||
          ns >= static_cast<double>(std::numeric_limits<std::int64_t>::max())) {
        reject(text, what, zero_disables, "it is too large");
      }
      return std::chrono::nanoseconds{static_cast<std::int64_t>(std::llround(ns))};
    }
  }
  reject(text, what, zero_disables, fmt::format("the unit '{}' is unknown", suffix));
}

namespace {

struct duration_unit {
  double per_second;  // a whole number, so seconds * per_second rounds once, as in common.js
  std::string_view name;
};

// `value` in fixed notation with `decimals` decimals, as fmt rounds it (to the nearest, ties to
// even, from the double's exact value).
std::string fixed_decimals(double value, int decimals) {
  return fmt::format("{:.{}f}", value, decimals);
}

// What fixed_decimals printed, read back (from_chars: no locale's decimal comma).
double printed_value(std::string_view text) {
  double value = 0;
  std::from_chars(text.data(), text.data() + text.size(), value);
  return value;
}

// How many decimals `value` gets (common.js counts the integer digits with the same divisions).
int duration_decimals(double value, const duration_format& f, bool in_ns) {
  if (f.kind == duration_format::digits_kind::decimals) {
    return in_ns && std::fabs(value) < 1 && value != 0 ? f.digits + 1 : f.digits;
  }
  int integer_digits = 1;
  for (double m = std::fabs(value); m >= 10 && integer_digits < 400; m /= 10)
    ++integer_digits;
  return std::max(0, f.digits - integer_digits);
}

// `value` printed with its decimals, redone when the rounding reached another power of ten
// ("9.996" at three significant digits prints "10.0", not "10.00").
std::string rounded_text(double value, const duration_format& f, bool in_ns) {
  const int decimals = duration_decimals(value, f, in_ns);
  std::string text = fixed_decimals(value, decimals);
  const int again = duration_decimals(printed_value(text), f, in_ns);
  if (again != decimals && f.kind == duration_format::digits_kind::significant) {
    text = fixed_decimals(value, again);
  }
  return text;
}

void trim_zeros(std::string& text) {
  if (text.find('.') == std::string::npos) return;
  while (text.back() == '0')
    text.pop_back();
  if (text.back() == '.') text.pop_back();
}

}  // namespace

std::string format_seconds(double seconds, const duration_format& format) {
  if (!std::isfinite(seconds)) return "n/a";
  const std::array<duration_unit, 4> units{
      {{1.0, "s"},
       {1e3, "ms"},
       {1e6, format.micro == micro_spelling::unicode ? "µs" : "us"},
       {1e9, "ns"}}};
  // The largest unit the value reaches, or the next larger one when the rounding reached 1000 of
  // it (999.96 us at three digits is "1.00 ms").
  std::size_t u = 0;
  while (u + 1 < units.size() && std::fabs(seconds * units[u].per_second) < 1)
    ++u;
  std::string text = rounded_text(seconds * units[u].per_second, format, u + 1 == units.size());
  if (u > 0 && std::fabs(printed_value(text)) >= 1000) {
    --u;
    text = rounded_text(seconds * units[u].per_second, format, false);
  }
  if (format.trim_zeros) trim_zeros(text);
  return fmt::format("{} {}", text, units[u].name);
}

std::string format_duration(std::chrono::nanoseconds d, micro_spelling micro) {
  // A whole number of a unit prints as typed ("1200 ms"); a measured duration prints in the
  // largest unit it reaches, with three decimals ("1.200 s").
  const auto ns = d.count();
  if (ns == 0) return "0 s";
  const std::array<std::pair<std::int64_t, std::string_view>, 3> exact{
      {{1'000'000'000, "s"},
       {1'000'000, "ms"},
       {1'000, micro == micro_spelling::unicode ? "µs" : "us"}}};
  for (const auto& [per, name] : exact) {
    if (ns % per == 0) return fmt::format("{} {}", ns / per, name);
  }
  if (ns > -1000 && ns < 1000) return fmt::format("{} ns", ns);
  return format_seconds(static_cast<double>(ns) / 1e9,
                        {duration_format::digits_kind::decimals, 3, false, micro});
}

}  // namespace harness
