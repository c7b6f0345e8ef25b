// Numbers printed for people (numbers.hpp): fmt's own rounding, one spelling per kind.
#include "base/numbers.hpp"

#include <fmt/format.h>

#include <cmath>
#include <string>

namespace harness {

std::string fixed_text(double value, int decimals) {
  return fmt::format("{:.{}f}", value, decimals);
}

std::string significant_text(double value, int digits) {
  return fmt::format("{:.{}g}", value, digits);
}

std::string signed_fixed_text(double value, int decimals) {
  return fmt::format("{:+.{}f}", value, decimals);
}

std::string percent_text(double fraction, int decimals) {
  return fixed_text(fraction * 100, decimals) + "%";
}

std::string percent_significant_text(double fraction, int digits) {
  return significant_text(fraction * 100, digits) + "%";
}

std::string factor_text(double ratio) {
  return fixed_text(ratio, 2) + "x";
}

std::string change_percent_text(double percent) {
  return fixed_text(percent, std::fabs(percent) < 0.1 ? 3 : 2);
}

std::string signed_change_percent_text(double percent) {
  // fmt, not "+" + change_percent_text(...): GCC 12's -Wrestrict misreads the latter at -O3.
  return fmt::format("{}{}%", std::signbit(percent) ? "" : "+", change_percent_text(percent));
}

std::string amount_text(double value) {
  return value == std::floor(value) && std::fabs(value) < 1e15 ? fixed_text(value, 0)
                                                               : significant_text(value, 6);
}

std::string frequency_text(double hz) {
  if (hz >= 1e9) return significant_text(hz / 1e9, 6) + " GHz";
  if (hz >= 1e6) return significant_text(hz / 1e6, 7) + " MHz";
  if (hz >= 1e3) return significant_text(hz / 1e3, 6) + " kHz";
  return significant_text(hz, 6) + " Hz";
}

}  // namespace harness
