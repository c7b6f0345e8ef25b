// How `harness compare` writes a figure and a floor interval: whole ticks when every report used
// one clock and one call per sample, two decimals otherwise. Internal header of compare/.
#pragma once

#include <fmt/format.h>

#include <string>

#include "harness/compare.hpp"

namespace harness::compare::detail {

inline std::string figure(double v, bool integral) {
  return integral ? fmt::format("{:.0f}", v) : fmt::format("{:.2f}", v);
}

inline std::string interval_text(const floor_interval& i, bool integral) {
  return integral ? fmt::format("[{:.0f}, {:.0f}]", i.lower, i.upper)
                  : fmt::format("[{:.2f}, {:.2f}]", i.lower, i.upper);
}

}  // namespace harness::compare::detail
