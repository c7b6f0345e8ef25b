// Every sample of a phase, one line each (the Stopwatch seed's listing, `--detail`): ticks per
// call, milliseconds, the raw reading, the lowest and highest marked, the block each begins and
// what disturbed it.
#include <fmt/format.h>
#include <fmt/ostream.h>

#include <cstddef>
#include <ostream>
#include <string>

#include "base/numbers.hpp"
#include "harness/report.hpp"
#include "report/summary.hpp"

namespace harness {

using report_detail::ticks_text;
using report_detail::to_ms;

void print_samples(std::ostream& out, const phase_analysis& analysis, const clock_source& clock) {
  const phase_result& phase = *analysis.phase;
  if (phase.values.empty()) return;
  const auto lo = static_cast<std::ptrdiff_t>(analysis.lowest_index.value());
  const auto hi = static_cast<std::ptrdiff_t>(analysis.highest_index.value());
  const int width = static_cast<int>(fmt::formatted_size("{}", phase.values.size()));
  for (std::size_t i = 0; i < phase.values.size(); ++i) {
    if (phase.blocks.size() > 1) {
      const std::size_t b = phase.block_of(i);
      if (b < phase.blocks.size() && phase.blocks[b].first == i) {
        fmt::print(out, "    block {}, from {} s:\n", b + 1,
                   fixed_text(phase.blocks[b].start_seconds, 3));
      }
    }
    const auto idx = static_cast<std::ptrdiff_t>(i);
    const char* mark = lo == hi    ? ""
                       : idx == hi ? "  <-- highest"
                       : idx == lo ? "  <-- lowest"
                                   : "";
    std::string flags;
    if (phase.host_slowdown[i]) flags += "  [host slow-down]";
    if (!phase.context_switch.empty() && phase.context_switch[i]) flags += "  [context switch]";
    fmt::print(out, "    {:>{}}. ticks: {:>14}  ms: {:>12}  (raw {}){}{}\n", i + 1, width,
               ticks_text(phase.values[i], phase.batch),
               fixed_text(to_ms(phase.values[i], clock), 6), phase.raw(i), mark, flags);
  }
}

}  // namespace harness
