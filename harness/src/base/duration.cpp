// Parsing and printing of human durations.
#include "harness/duration.hpp"

#include <fmt/format.h>

#include <array>
#include <charconv>
#include <cmath>
#include <limits>
#include <utility>

#include "harness/errors.hpp"

namespace harness {
namespace {

struct unit {
  std::string_view suffix;
  double nanoseconds;
};

constexpr std::array<unit, 4> kUnits{{{"ns", 1.0}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}}};

[[noreturn]] void reject(std::string_view text, std::string_view what, std::string_view why) {
  throw usage_error(fmt::format(
      "{}: invalid duration '{}': {}; expected a non-negative number with a unit ns, us, ms or s "
      "(e.g. 1200ms, 1.5s), or 0 to disable",
      what, text, why));
}

}  // namespace

std::chrono::nanoseconds parse_duration(std::string_view text, std::string_view what) {
  if (text.empty()) reject(text, what, "it is empty");
  if (text == "0") return std::chrono::nanoseconds{0};
  if (text.front() == '-') reject(text, what, "it is negative");

  std::size_t digits_end = 0;
  while (digits_end < text.size() &&
         ((text[digits_end] >= '0' && text[digits_end] <= '9') || text[digits_end] == '.')) {
    ++digits_end;
  }
  const std::string_view number = text.substr(0, digits_end);
  const std::string_view suffix = text.substr(digits_end);
  if (number.empty()) reject(text, what, "it does not start with a number");

  double value = 0;
  const auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), value);
  if (ec != std::errc{} || end != number.data() + number.size()) {
    reject(text, what, "the number is malformed");
  }
  if (suffix.empty()) reject(text, what, "the unit is missing");
  for (const unit& u : kUnits) {
    if (suffix == u.suffix) {
      const double ns = value * u.nanoseconds;
      if (!std::isfinite(ns) ||
          ns > static_cast<double>(std::numeric_limits<std::int64_t>::max())) {
        reject(text, what, "it is too large");
      }
      return std::chrono::nanoseconds{static_cast<std::int64_t>(std::llround(ns))};
    }
  }
  reject(text, what, fmt::format("the unit '{}' is unknown", suffix));
}

std::string format_duration(std::chrono::nanoseconds d) {
  // A whole number of a unit prints as typed ("1200 ms"); a measured duration prints in the
  // largest unit it reaches, to the nanosecond where that unit allows ("1.200345 s").
  const auto ns = d.count();
  if (ns == 0) return "0 s";
  constexpr std::array<std::pair<std::int64_t, std::string_view>, 3> kExact{
      {{1'000'000'000, "s"}, {1'000'000, "ms"}, {1'000, "us"}}};
  for (const auto& [per, name] : kExact) {
    if (ns % per == 0) return fmt::format("{} {}", ns / per, name);
  }
  for (const auto& [per, name] : kExact) {
    if (ns >= per)
      return fmt::format("{:.3f} {}", static_cast<double>(ns) / static_cast<double>(per), name);
  }
  return fmt::format("{} ns", ns);
}

}  // namespace harness
