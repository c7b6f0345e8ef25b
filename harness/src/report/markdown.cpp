// The Markdown report: the summary table and the spread comparison, ready to paste into a pull
// request, with one line saying what the figures are and where they were measured.
#include <fmt/format.h>
#include <fmt/ostream.h>

#include <ostream>

#include "harness/report.hpp"
#include "report/summary.hpp"

namespace harness {
namespace {

// Characters that would end a cell or start markup inside one.
std::string md_cell(std::string_view text) {
  std::string escaped;
  for (const char c : text) {
    if (c == '|' || c == '\\' || c == '*' || c == '_' || c == '`') escaped += '\\';
    escaped += c;
  }
  return escaped;
}

}  // namespace

void write_markdown_report(std::ostream& out, const run_report& report) {
  const clock_source& clock = *report.clock.clock;
  const auto summaries = report_detail::summarize_report(report, true);
  const auto& columns = report_detail::summary_columns();
  const run_context& c = report.context;
  fmt::print(out, "### harness results\n\n");
  fmt::print(out,
             "Ticks of `{}` per call ({:.4g} ns a tick), timer overhead subtracted; spread = max "
             "- min, in % of min; disturbed = samples during host slow-downs or context "
             "switches.",
             clock.name(), 1e9 / clock.ticks_per_second());
  if (!c.harness_version.empty()) fmt::print(out, " harness {}", c.harness_version);
  if (!c.host_name.empty()) fmt::print(out, " on {}", md_cell(c.host_name));
  if (!c.date.empty()) fmt::print(out, ", {}", c.date);
  fmt::print(out, "\n\n|");
  for (const auto& col : columns)
    fmt::print(out, " {} |", col.header);
  fmt::print(out, "\n|");
  for (const auto& col : columns)
    fmt::print(out, "{}|", col.alignment == report_detail::align::right ? "---:" : "---");
  fmt::print(out, "\n");
  for (const auto& w : summaries) {
    for (const auto& row : w.rows) {
      fmt::print(out, "|");
      for (const auto& cell : row.cells)
        fmt::print(out, " {} |", md_cell(cell));
      fmt::print(out, "\n");
    }
  }
  bool any = false;
  for (const auto& w : summaries) {
    if (!w.spread_sentence.empty()) {
      fmt::print(out, "{}- {}\n", any ? "" : "\n", md_cell(w.spread_sentence));
      any = true;
    }
    if (w.result->failed()) {
      fmt::print(out, "{}- **{} failed**: {}\n", any ? "" : "\n", md_cell(w.result->name),
                 md_cell(w.result->error));
      any = true;
    }
    if (w.result->interrupted) {
      fmt::print(out, "{}- {}: interrupted, results so far\n", any ? "" : "\n",
                 md_cell(w.result->name));
      any = true;
    }
  }
}

}  // namespace harness
