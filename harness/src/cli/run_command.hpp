// What `harness run` shares with the commands that report as it does (`harness gbench`): the stop
// signals, logging with its progress line, and where the report goes. Internal header of cli/.
#pragma once

#include <csignal>
#include <filesystem>
#include <memory>
#include <optional>
#include <ostream>
#include <string>

#include "cli.hpp"
#include "harness/analysis.hpp"
#include "harness/report.hpp"
#include "harness/report_line.hpp"
#include "report/progress.hpp"
#include "run_flags.hpp"
#include "store_options.hpp"

namespace harness::cli {

// SIGINT and SIGTERM request a stop (runner.hpp's request_stop); a second one ends the process.
void on_stop_signal(int sig);

// Installs on_stop_signal for SIGINT and SIGTERM while it lives.
class stop_signals_guard {
 public:
  stop_signals_guard()
      : old_int_(std::signal(SIGINT, on_stop_signal)),
        old_term_(std::signal(SIGTERM, on_stop_signal)) {}
  ~stop_signals_guard() {
    std::signal(SIGINT, old_int_);
    std::signal(SIGTERM, old_term_);
  }
  stop_signals_guard(const stop_signals_guard&) = delete;
  stop_signals_guard& operator=(const stop_signals_guard&) = delete;

 private:
  void (*old_int_)(int);
  void (*old_term_)(int);
};

// Logs go to ctx.err, with the progress line in front of them when it is a terminal (the
// machine's, console_style_of).
std::shared_ptr<progress_sink> configure_logging(const std::string& level, const context& ctx);

// Where the report goes, decided before the first sample is taken.
struct report_plan {
  std::optional<report_format> stdout_format;  // nullopt with --line
  std::optional<format_template> line;
  std::optional<std::filesystem::path> file;
  report_format file_format = report_format::json;
  // --save: the store the run goes into, opened before the run (store_options.hpp); nullptr
  // without --save.
  std::shared_ptr<save_plan> save;
};
// Checks --format, --line and -o (what is at its path) as `run` and `ab` take them: `parse_line`
// reads the --line template, `example` is one to suggest for an empty one. Throws usage_error.
// Nothing is made.
report_plan plan_outputs(const std::string& format, bool line_given, const std::string& line,
                         const std::string& output,
                         format_template (*parse_line)(std::string_view text),
                         std::string_view example);
// plan_outputs with run's flags and --line template.
report_plan plan_report(const run_flags& flags);
// Checks that the plan's file can be written: its folder takes a new file (one is made and
// removed), a device may be written. Last of the checks, so that a usage error found by another
// leaves the folder untouched. Throws usage_error.
void check_report_file(const report_plan& plan);

// The report in `format`, as text.
std::string render(const report_model& model, report_format format);

struct history_plan;  // run_history.hpp

// The run's outputs, as run and gbench give them: the report on ctx.out (the plan's --line tokens,
// or its stdout format), the history saved, the plan's file written (write_report_file). False
// when the file could not be written.
bool emit_run_report(context& ctx, const report_plan& plan, const report_model& model,
                     const run_report& report, history_plan* history);

// Writes the report to the plan's file, if it has one (output_file.hpp: whole or not at all);
// says on `err` what went wrong or what was kept. False when it could not be written.
bool write_report_file(const report_plan& plan, const report_model& model, std::ostream& err);

// exit_workload_failed when a workload of the run failed, else exit_ok.
int workloads_exit_code(const run_report& report);

}  // namespace harness::cli
