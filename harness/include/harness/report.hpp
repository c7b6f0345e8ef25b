// The writers of a run's report: console, JSON, CSV, Markdown and HTML, each a pure function of
// the report model (analysis.hpp).
//
// The console report follows the Stopwatch article: every sample in ticks and ms with the lowest
// and highest marked, then the statistics and a verdict per phase, a picture of each phase's
// samples on one scale, and a summary per workload comparing baseline and prepared. The other
// formats are for tools: JSON in Google Benchmark's schema (docs/output.md), CSV with one row per
// sample, and the summary table in Markdown for a pull request.
//
// Caveats:
// - Writers only format: nothing here computes a statistic, reads a clock or the machine
//   (collect_run_context() excepted), so tests feed synthetic runs.
// - Figures are in ticks of the sampling clock, per call; nanoseconds are derived with the clock's
//   ticks_per_second(), a calibrated estimate for the TSC.
#pragma once

#include <cstddef>
#include <filesystem>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>

#include "harness/analysis.hpp"
#include "harness/enum_names.hpp"
#include "harness/run_report.hpp"

namespace harness {

// ---- formats ---------------------------------------------------------------------------------

enum class report_format { console, json, csv, markdown, html };
// Names as --format takes them.
inline constexpr enum_table<report_format, report_format::html> kReportFormatNames{{
    {report_format::console, "console"},
    {report_format::json, "json"},
    {report_format::csv, "csv"},
    {report_format::markdown, "markdown"},
    {report_format::html, "html"},
}};
constexpr const auto& enum_names(report_format) noexcept {
  return kReportFormatNames;
}

// "console", "json", "csv", "markdown" or "html"; anything else throws usage_error naming it.
report_format parse_report_format(std::string_view text);
// The format a file's extension asks for (.json, .csv, .md or .markdown, .txt for console, .html
// or .htm), or nullopt for any other extension.
std::optional<report_format> format_for_extension(const std::filesystem::path& path);
// The format to write `path` in: `chosen` when given, else by extension; throws usage_error
// naming the extension and the accepted ones when there is neither.
report_format format_for_file(const std::filesystem::path& path,
                              std::optional<report_format> chosen);

// How the console report may dress its text.
struct console_style {
  bool terminal = false;  // the stream is a terminal (progress may be shown on it)
  bool color = false;     // ANSI colours
  std::size_t width = 0;  // columns to fit the summary into; 0: no limit
  bool unicode = true;    // block characters for the pictures; ASCII when false
};
// What the console report is told of where it prints. The command line reads it from the machine
// it runs on (cli::machine: the terminal and the environment); the writers do no I/O.
struct terminal_facts {
  bool terminal = false;                   // the stream is a terminal
  std::optional<std::size_t> columns;      // the terminal's width, when the system says it
  std::optional<std::string> columns_env;  // $COLUMNS
  std::optional<std::string> no_color;     // $NO_COLOR
  std::optional<std::string> lc_all;       // $LC_ALL
  std::optional<std::string> lc_ctype;     // $LC_CTYPE
  std::optional<std::string> lang;         // $LANG
};
// The style for those facts: colour only on a terminal and never when NO_COLOR is set to anything
// but the empty string; the width of the terminal (or $COLUMNS), no limit when there is neither;
// Unicode unless the locale (the first of LC_ALL, LC_CTYPE and LANG that is set) names another
// character set.
console_style console_style_for(const terminal_facts& facts);

void print_console_report(std::ostream& out, const report_model& model,
                          const console_style& style = {});

// The per-sample listing of one phase ("  3. ticks: 1110543  ms: 402.000  <-- highest"), the
// lowest and highest marked where the analysis found them.
void print_samples(std::ostream& out, const phase_analysis& analysis, const clock_source& clock);

// Google Benchmark's JSON schema plus the harness block and fields, documented in docs/output.md.
void write_json_report(std::ostream& out, const report_model& model);
// One row per sample: workload,phase,index,ticks,ns,disturbed,raw_ticks,batch,...
void write_csv_report(std::ostream& out, const report_model& model);
// The summary table as GitHub-flavoured Markdown.
void write_markdown_report(std::ostream& out, const report_model& model);

// One self-contained page (docs/output.md, "HTML"): Chart.js and the page's script inline, no
// network address anywhere. It carries the JSON report without its per-sample rows, and per phase
// the samples to draw (all, or the lowest and highest of each stretch of consecutive samples when
// there are more than kHtmlMaxDrawn, said on the page) and a histogram counted over all samples.
inline constexpr std::size_t kHtmlMaxDrawn = 4000;
void write_html_report(std::ostream& out, const report_model& model);
// The same page from a JSON report the harness wrote (`harness report FILE.json`); from the report
// of `harness ab` or `gbench --vs`, the page they draw (write_ab_html). Throws usage_error naming
// `source` when the text is not JSON or not a harness report this build reads.
void write_html_from_json(std::ostream& out, std::istream& json_text, const std::string& source);

void write_report(std::ostream& out, const report_model& model, report_format format,
                  const console_style& style = {});

}  // namespace harness
