// The console's picture of a workload's samples: one strip of block characters per sampled phase,
// all on one scale. Internal header of report/.
#pragma once

#include <iosfwd>

#include "harness/report.hpp"

namespace harness::report_detail {

// Nothing when no phase has samples, or the terminal is too narrow for a readable strip.
void print_pictures(std::ostream& out, const workload_analysis& w, const console_style& style);

}  // namespace harness::report_detail
