// The picture of the samples (picture.hpp).
#include "report/picture.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <ostream>
#include <string_view>
#include <vector>

#include "report/summary.hpp"

namespace harness::report_detail {
namespace {

// Pictures of the samples: how many columns at most, and the fewest worth drawing (below that a
// narrow terminal gets no picture rather than an unreadable one).
constexpr std::size_t kPictureColumns = 40;
constexpr std::size_t kPictureMinColumns = 12;
// Room a picture line needs beside its strip: indent, phase name, frame, "N above" note.
constexpr std::size_t kPictureMargin = 30;

}  // namespace

// One strip per sampled phase, all on the scale [lowest minimum, highest 95th percentile]: the
// 95th percentile rather than the maximum, so one stall does not squeeze every other sample into
// the first column; the samples beyond it are counted instead.
void print_pictures(std::ostream& out, const workload_analysis& w, const console_style& style) {
  std::vector<const phase_analysis*> shown;
  for (const phase_analysis& a : w.phases) {
    if (a.phase->kind != phase_kind::first && !a.phase->values.empty()) shown.push_back(&a);
  }
  if (shown.empty()) return;
  std::size_t columns = kPictureColumns;
  if (style.width > 0) {
    if (style.width < kPictureMargin + kPictureMinColumns) return;
    columns = std::min(columns, style.width - kPictureMargin);
  }
  double lo = *shown[0]->all.min;
  double hi = *shown[0]->all.p95;
  double top = *shown[0]->all.max;
  for (const phase_analysis* a : shown) {
    lo = std::min(lo, *a->all.min);
    hi = std::max(hi, *a->all.p95);
    top = std::max(top, *a->all.max);
  }
  if (hi <= lo) hi = top;
  const std::uint64_t batch = shown[0]->phase->batch;
  // Eight heights of block; a column with no sample stays blank.
  static constexpr std::array<std::string_view, 9> kBlocks{" ", "▁", "▂", "▃", "▄",
                                                           "▅", "▆", "▇", "█"};
  static constexpr std::array<std::string_view, 9> kAscii{" ", ".", ":", "-", "=",
                                                          "+", "*", "#", "@"};
  const auto& ramp = style.unicode ? kBlocks : kAscii;
  const std::string_view frame = style.unicode ? "│" : "|";
  fmt::print(out,
             "  samples at a glance (ticks per call, one scale for the phases: {} to {}; a "
             "column's height is the share of the phase's samples in its range):\n",
             ticks_text(lo, batch), ticks_text(hi, batch));
  for (const phase_analysis* a : shown) {
    const phase_result& p = *a->phase;
    // The one way values are counted into bars (analysis); the scale is the model's figures.
    const stats::bin_counts bars = stats::count_bins(p.values, lo, hi, columns);
    const std::vector<std::size_t>& counts = bars.counts;
    const std::size_t above = bars.above;
    const std::size_t most = *std::max_element(counts.begin(), counts.end());
    std::string strip;
    for (const std::size_t n : counts) {
      const std::size_t level =
          n == 0 ? 0
                 : static_cast<std::size_t>(
                       std::ceil(8.0 * static_cast<double>(n) / static_cast<double>(most)));
      strip += ramp[std::clamp<std::size_t>(level, n == 0 ? 0 : 1, 8)];
    }
    fmt::print(out, "    {:<9}{}{}{}{}\n", to_string(p.kind), frame, strip, frame,
               above > 0 ? fmt::format(" {} above", above) : std::string());
  }
}

}  // namespace harness::report_detail
