// The summary table shared by the console and Markdown reports: one row of text cells per workload
// and phase, and the sentence comparing the baseline's spread with the prepared one's.
//
// Internal header. Cells are plain text; the console pads, colours and drops columns, Markdown
// escapes. A column's `importance` orders what a narrow terminal drops first.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "harness/report.hpp"

namespace harness::report_detail {

enum class align { left, right };

struct summary_column {
  const char* header;
  align alignment;
  // 0 is never dropped; higher numbers go first when the terminal is too narrow.
  int importance;
};

// Index of each column in summary_columns() and in a row's cells.
namespace col {
inline constexpr std::size_t workload = 0;
inline constexpr std::size_t phase = 1;
inline constexpr std::size_t samples = 2;
inline constexpr std::size_t min = 3;
inline constexpr std::size_t median = 4;
inline constexpr std::size_t max = 5;
inline constexpr std::size_t spread = 6;
inline constexpr std::size_t spread_percent = 7;
inline constexpr std::size_t min_time = 8;
inline constexpr std::size_t disturbed = 9;
inline constexpr std::size_t verdict = 10;
inline constexpr std::size_t floor = 11;
inline constexpr std::size_t count = 12;
}  // namespace col

const std::vector<summary_column>& summary_columns();

struct summary_row {
  std::vector<std::string> cells;  // col::count cells
  const phase_result* phase = nullptr;
  bool has_verdict = false;  // the first call has none
  stats::stability level = stats::stability::unstable;
};

struct workload_summary {
  const workload_result* result = nullptr;
  std::vector<summary_row> rows;
  std::vector<phase_analysis> analyses;  // parallel to rows
  // The spread comparison, with a warning when one whole phase ran slower; empty unless both
  // baseline and prepared ran.
  std::string spread_sentence;
};

// Analyses every phase of every workload once.
std::vector<workload_summary> summarize_report(const run_report& report, bool unicode);

// Ticks per call: whole ticks for single calls, two decimals when batched (a fraction of a tick
// per call is measured: the sample's ticks divided by the batch).
std::string ticks_text(double ticks, std::uint64_t batch);
// A time in the unit that puts it in [1, 1000): "402.000 ms", "12.346 µs" ("us" without Unicode).
std::string time_text(double seconds, bool unicode);

}  // namespace harness::report_detail
