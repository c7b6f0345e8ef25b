// How `harness compare` writes a figure and a floor interval: whole ticks when every report used
// one clock and one call per sample, two decimals otherwise. Internal header of compare/.
#pragma once

#include <fmt/format.h>

#include <string>

#include "base/numbers.hpp"
#include "harness/compare.hpp"

namespace harness::compare::detail {

inline std::string figure(double v, bool integral) {
  return fixed_text(v, integral ? 0 : 2);
}

inline std::string interval_text(const floor_interval& i, bool integral) {
  return fmt::format("[{}, {}]", figure(i.lower, integral), figure(i.upper, integral));
}

}  // namespace harness::compare::detail
