// Reports of a run, made from the runner's results: console, JSON, CSV and Markdown.
//
// The console report follows the Stopwatch article: every sample in ticks and ms with the lowest
// and highest marked, then the statistics and a verdict per phase, a picture of each phase's
// samples on one scale, and a summary per workload comparing baseline and prepared. The other
// formats are for tools: JSON in Google Benchmark's schema (docs/output.md), CSV with one row per
// sample, and the summary table in Markdown for a pull request.
//
// Caveats:
// - Every writer is a pure function of the run_report: nothing here reads a clock or the machine
//   except collect_run_context() and detect_console_style(), so tests feed synthetic results.
// - Figures are in ticks of the sampling clock, per call; nanoseconds are derived with the clock's
//   ticks_per_second(), a calibrated estimate for the TSC.
#pragma once

#include <cstddef>
#include <filesystem>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "harness/clock.hpp"
#include "harness/doctor.hpp"
#include "harness/runner.hpp"
#include "harness/statistics.hpp"

namespace harness {

// Version of the JSON report's `harness` block and harness fields (docs/output.md). Raised when a
// field changes meaning or goes away; adding a field keeps it.
inline constexpr int kReportSchemaVersion = 1;

// The machine and program a run happened on, as Google Benchmark's JSON context has it.
struct run_context {
  std::string date;        // local time, ISO 8601 with offset: "2024-05-01T12:00:00+02:00"
  std::string host_name;   // empty when unknown
  std::string executable;  // path of the running program; empty when unknown
  int num_cpus = 0;
  double mhz_per_cpu = 0;  // as Google Benchmark's CPUInfo reads it; 0 when unknown
  bool cpu_scaling_enabled = false;
  struct cache {
    std::string type;  // "Data", "Instruction", "Unified"
    int level = 0;
    long long size = 0;  // bytes
    int num_sharing = 0;
  };
  std::vector<cache> caches;
  std::vector<double> load_avg;    // 1, 5 and 15 minutes; empty when unknown
  std::string library_build_type;  // "release" or "debug": how the harness library was built
  std::string harness_version;
  std::optional<doctor::doctor_summary> doctor;  // nullopt when the doctor did not run
};

// Reads the context of this process and machine now (Google Benchmark's CPUInfo and SystemInfo,
// the clock of the system). Takes the doctor's summary as given.
run_context collect_run_context(std::optional<doctor::doctor_summary> doctor);

// The history a run read (history.hpp).
struct history_use {
  std::string path;     // empty: none (--no-history, or no place for one)
  std::string machine;  // the key of this machine and clock
  std::string build;    // the executable's fingerprint; empty when unreadable (no floors kept)
  std::optional<std::uint64_t> fastest_reference;  // remembered at the start, ticks
};

struct run_report {
  clock_facts clock;
  std::string clock_reason;  // why this clock samples (default choice or --clock)
  run_options options;
  history_use history;
  std::vector<workload_result> results;
  bool show_samples = false;  // list every sample (one workload with few samples, or --detail)
  std::vector<std::string> environment;  // lines about the machine (doctor summary)
  run_context context;
};

// Statistics of one phase over all samples and over its undisturbed ones, and the verdict.
struct phase_analysis {
  stats::phase_statistics all;
  std::optional<stats::phase_statistics> clean;  // only when some samples were disturbed
  stats::verdict verdict;
};
phase_analysis analyze(const phase_result& phase, const clock_facts& clock);

// How the prepared spread compares with the baseline's, both in % of their minimum.
struct spread_change {
  double baseline_percent = 0;
  double prepared_percent = 0;
  // baseline spread % / prepared spread %; nullopt when either spread is 0 (no ratio).
  std::optional<double> factor;
};
// nullopt when either spread % is undefined (a minimum at or below 0 ticks).
std::optional<spread_change> compare_spread(const stats::phase_statistics& baseline,
                                            const stats::phase_statistics& prepared);

// How fast the CPU ran the reference loop in the baseline and in the prepared phase. A host that
// ran the guest slower (or a lower clock) for a whole phase leaves no faster sample within that
// phase to flag, but shows against the other phase.
struct host_speed_change {
  std::uint64_t baseline_best = 0;  // fastest reference run, ticks
  std::uint64_t prepared_best = 0;
  double ratio = 1;              // the slower phase's best / the faster phase's best, >= 1
  bool baseline_slower = false;  // which phase was the slower one
};
// nullopt when either phase ran no reference loop.
std::optional<host_speed_change> compare_host_speed(const phase_result& baseline,
                                                    const phase_result& prepared);

// The phase's name in machine-readable reports (JSON, CSV, --line): "first", "baseline",
// "prepared". (to_string(phase_kind) is for people: "first call".)
std::string_view phase_id(phase_kind kind) noexcept;

// The phases of a workload in report order: first, baseline, prepared (those that ran).
std::vector<const phase_result*> phases_of(const workload_result& result);

// ---- formats ---------------------------------------------------------------------------------

enum class report_format { console, json, csv, markdown };
std::string_view to_string(report_format format) noexcept;

// "console", "json", "csv" or "markdown"; anything else throws usage_error naming it.
report_format parse_report_format(std::string_view text);
// The format a file's extension asks for (.json, .csv, .md or .markdown, .txt for console), or
// nullopt for any other extension.
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
// For a stream on file descriptor `fd` (1 for stdout): colour only on a terminal and never when
// NO_COLOR is set to anything; the width of the terminal (or $COLUMNS), no limit when not a
// terminal; Unicode unless the locale names another character set.
console_style detect_console_style(int fd);

void print_console_report(std::ostream& out, const run_report& report,
                          const console_style& style = {});

// The per-sample listing of one phase ("  3. ticks: 1110543  ms: 402.000  <-- highest").
void print_samples(std::ostream& out, const phase_result& phase, const clock_source& clock);

// Google Benchmark's JSON schema plus the harness block and fields, documented in docs/output.md.
void write_json_report(std::ostream& out, const run_report& report);
// One row per sample: workload,phase,index,ticks,ns,disturbed,raw_ticks,batch,...
void write_csv_report(std::ostream& out, const run_report& report);
// The summary table as GitHub-flavoured Markdown.
void write_markdown_report(std::ostream& out, const run_report& report);

void write_report(std::ostream& out, const run_report& report, report_format format,
                  const console_style& style = {});

}  // namespace harness
