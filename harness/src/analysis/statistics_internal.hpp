// What the statistics' files share (internal).
//
//   estimators.cpp         the estimators over sorted views, summarize()
//   special_functions.cpp  the binomial(n, 1/2) cdf, Student's t p-value and quantile (Boost.Math)
//   verdict.cpp            floor_estimate(), judge() and the words of its verdicts
//   auto_stop.cpp          `--samples auto`: may sampling stop now
#pragma once

#include <string>

#include "base/numbers.hpp"

namespace harness::stats::detail {

// A fraction as a percentage with three significant digits: 0.00123 -> "0.123%".
inline std::string percent(double fraction) {
  return percent_significant_text(fraction, 3);
}

}  // namespace harness::stats::detail
