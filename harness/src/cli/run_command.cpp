// `harness run` (also `harness` alone): the experiment for each selected workload, and its
// report: on stdout (console, or --format, or one --line per phase) and in the file -o names.
#include <fmt/format.h>
#include <fmt/ostream.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <stdexcept>

#include "cli.hpp"
#include "cli/history_file.hpp"
#include "cli/output_file.hpp"
#include "harness/clock.hpp"
#include "harness/doctor.hpp"
#include "harness/errors.hpp"
#include "harness/log.hpp"
#include "harness/platform.hpp"
#include "harness/report.hpp"
#include "harness/report_line.hpp"
#include "harness/runner.hpp"
#include "harness/workload.hpp"
#include "instructions.hpp"
#include "report/progress.hpp"
#include "run_command.hpp"
#include "run_flags.hpp"
#include "run_history.hpp"

namespace harness::cli {

void on_stop_signal(int sig) {
  harness::request_stop(sig);
  // A second signal ends the process at once: nothing is left to restore that exit would not.
  std::signal(sig, SIG_DFL);
}

// Logs go to the context's error stream; colour only when that is the process's stderr. In front
// of them, the progress line, shown only when that stream is a terminal.
std::shared_ptr<progress_sink> configure_logging(const std::string& level, const context& ctx) {
  std::ostream& err = ctx.err;
  spdlog::sink_ptr sink;
  const bool is_stderr = &err == &std::cerr;
  if (is_stderr) {
    sink = std::make_shared<spdlog::sinks::stderr_color_sink_mt>();
  } else {
    sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(err);
  }
  sink->set_pattern("harness: %l: %v");
  const auto wanted = spdlog::level::from_str(level);
  const console_style terminal = is_stderr ? console_style_of(ctx.host, 2) : console_style{};
  auto progress = std::make_shared<progress_sink>(sink, err, terminal.terminal, terminal.width);
  auto log = std::make_shared<spdlog::logger>("harness", progress);
  log->set_level(wanted);
  set_logger(log);
  return progress;
}

report_plan plan_outputs(const std::string& format, bool line_given, const std::string& line,
                         const std::string& output,
                         format_template (*parse_line)(std::string_view text),
                         std::string_view example) {
  report_plan plan;
  std::optional<report_format> chosen;
  if (!format.empty()) chosen = parse_report_format(format);
  if (line_given) {
    if (line.empty())
      throw usage_error(fmt::format("--line: the template is empty; give e.g. '{}'", example));
    if (chosen && output.empty()) {
      throw usage_error(fmt::format(
          "--line and --format {} both say what stdout gets: give one of them, or add -o FILE "
          "for the --format report",
          format));
    }
    try {
      plan.line = parse_line(line);
    } catch (const usage_error& e) {
      throw usage_error(fmt::format("--line: {}", e.what()));
    }
  } else {
    // With a file, stdout keeps the console report and --format applies to the file.
    plan.stdout_format = output.empty() && chosen ? *chosen : report_format::console;
  }
  if (!output.empty()) {
    plan.file = std::filesystem::path(output);
    // A file that cannot be written is found before the run, not after it: a user's mistake in
    // the path they typed (a folder, a missing folder, no permission), exit 2. What is at the path
    // is looked at before its format is taken (a folder has no extension to tell one from); the
    // probe file that shows the folder takes a new file is made later (check_report_file), after
    // every other check, so a bad command line touches nothing.
    try {
      check_output_path(*plan.file);
    } catch (const output_error& e) {
      throw usage_error(fmt::format("--output: {}", e.what()));
    }
    plan.file_format = format_for_file(*plan.file, chosen);
  }
  return plan;
}

report_plan plan_report(const run_flags& flags) {
  return plan_outputs(flags.format, flags.line_option->count() > 0, flags.line, flags.output,
                      parse_line_template, "{workload} {phase}: {min}");
}

void check_report_file(const report_plan& plan) {
  if (!plan.file) return;
  try {
    check_writable(*plan.file);
  } catch (const output_error& e) {
    throw usage_error(fmt::format("--output: {}", e.what()));
  }
}

std::string render(const report_model& model, report_format format) {
  std::ostringstream text;
  write_report(text, model, format);
  return text.str();
}

namespace {

int run(const run_flags& flags, context& ctx) {
  // Everything the user typed is checked before the first sample is taken.
  run_options options = options_from(flags);
  const auto& registry = ctx.host.workloads();
  std::vector<std::string> repeated;
  const std::vector<workload_instance> selected = flags.workloads.empty()
                                                      ? registry.default_selection()
                                                      : registry.select(flags.workloads, &repeated);
  if (selected.empty()) throw usage_error("no workload is registered");
  for (const std::string& name : repeated) {
    fmt::print(ctx.err, "{}: warning: --workload: {} is selected more than once; it runs once\n",
               ctx.program, name);
  }
  auto os = ctx.host.os();
  const platform::cpu_list allowed = os->affinity();
  check_cpu(flags, allowed);
  const clock_source& clock = ctx.host.clock(flags.clock);
  report_plan plan = plan_report(flags);
  const std::shared_ptr<history_plan> history =
      plan_history(history_request_of(flags, plan), ctx.host.environment,
                   ctx.host.executable_path(), clock, options.tuning, allowed, ctx.err);
  check_report_file(plan);
  plan.save = plan_save(flags.store, ctx.host.environment, history && history->in_store);
  if (flags.instructions) check_valgrind(ctx.host);
  const auto progress = configure_logging(flags.log_level, ctx);
  if (progress->enabled()) {
    options.progress = [progress](const sampling_progress& p) { progress->show(progress_text(p)); };
  }

  // The doctor reads the machine (about 0.2 s, mostly a load sample) and chooses the CPU.
  const doctor::doctor_report health = checkup_of(flags.cpu_option, flags.cpu, allowed, ctx);
  if (!flags.no_pin) options.cpu = health.cpu;
  // Floors are remembered per CPU (history.hpp's floor_key): this run's are those of its CPU.
  if (history) history->cpu = options.cpu;
  options.memory = memory_of(history);

  run_report report;
  // The clock's step and granularity are read on one CPU, the one the prepared phase will use:
  // two reads on different CPUs (the process migrated between them) can differ by less than a
  // quantum of either CPU's clock (a 1-tick step of a TSC with 21-tick quanta was seen here), and
  // the step sets how long a sample must be. Unpinned again at once: the baseline runs unpinned.
  {
    // A signal while pinned here stops the run (after the first workload starts, it reports
    // nothing measured) instead of ending the process pinned (found by bench/soak.sh).
    const stop_signals_guard signals;
    const bool facts_pinned =
        options.cpu && os->set_affinity(platform::cpu_list{*options.cpu}).applied;
    report.clock = ctx.host.measure_clock(clock);
    if (facts_pinned) os->set_affinity(allowed);
  }
  report.clock_reason =
      flags.clock.empty() ? ctx.host.default_clock_reason() : "chosen with --clock";
  report.options = options;
  report.history = use_of(history, options.memory);
  report.calibration = ctx.host.calibration();
  report.context = ctx.host.context(doctor::summarize(health));
  report.detail = flags.detail;
  report.program = ctx.program;
  report.show_samples = flags.detail || (selected.size() == 1 && !options.auto_samples &&
                                         options.samples <= kMaxListedSamples);
  // SIGINT and SIGTERM end sampling after the current sample; the guard in run_workload restores
  // affinity and priority, and what was gathered is reported. The handlers stay until the files
  // are written: a signal there ends the command after them (exit 130 or 143), not the process
  // in the middle of a write, leaving its temporary file (found by bench/soak.sh).
  const stop_signals_guard signals;
  for (std::size_t i = 0; i < selected.size(); ++i) {
    progress->set_position(i + 1, selected.size());
    report.results.push_back(run_workload(selected[i], options, report.clock, *os));
    // The next workload's floor is checked against the fastest speed seen so far.
    if (const std::uint64_t best = fastest_reference_of(report.results.back());
        best > 0 &&
        (!options.memory.fastest_reference || best < *options.memory.fastest_reference)) {
      options.memory.fastest_reference = best;
      options.memory.fastest_reference_remembered = false;
    }
    if (stop_signal() != 0) break;
  }
  progress->clear();
  // Valgrind failing to count one workload is said, and the timed report is still given.
  bool counted = true;
  if (flags.instructions && stop_signal() == 0) {
    for (workload_result& r : report.results) {
      if (r.failed() || r.interrupted || stop_signal() != 0) continue;
      try {
        r.instructions = count_instructions(ctx.host, ctx.host.executable_path(), r.name,
                                            kInstructionCalls, flags.cache_sim);
      } catch (const usage_error&) {
        throw;
      } catch (const std::runtime_error& e) {
        fmt::print(ctx.err, "{}: {}\n", ctx.program, e.what());
        counted = false;
      }
    }
  }
  // One analysis, whatever the number of outputs.
  const report_model model = analyze_run(report);
  const bool written = emit_run_report(ctx, plan, model, report, history.get());
  const bool saved =
      !plan.save || save_run(*plan.save, this_machine(ctx.host, report.context),
                             file_fingerprint(ctx.host.executable_path()),
                             render(model, report_format::json), stop_signal() != 0, ctx.err);
  // An interruption is what the user asked for and wins; then a report that could not be
  // written or saved; then a workload that failed.
  if (const int sig = stop_signal(); sig != 0) {
    clear_stop();
    return sig == SIGTERM ? exit_sigterm : exit_sigint;
  }
  if (!written || !saved || !counted) return exit_failure;
  return workloads_exit_code(report);
}

}  // namespace

bool emit_run_report(context& ctx, const report_plan& plan, const report_model& model,
                     const run_report& report, history_plan* history) {
  if (plan.line) {
    print_lines(ctx.out, model, *plan.line);
  } else {
    write_report(ctx.out, model, *plan.stdout_format, out_style(ctx));
  }
  ctx.out.flush();
  if (history) save_history(*history, report, ctx.err);
  return write_report_file(plan, model, ctx.err);
}

bool write_report_file(const report_plan& plan, const report_model& model, std::ostream& err) {
  if (!plan.file) return true;
  try {
    const std::string kept = write_output_file(*plan.file, render(model, plan.file_format));
    if (!kept.empty()) fmt::print(err, "harness: warning: --output: {}\n", kept);
    return true;
  } catch (const output_error& e) {
    fmt::print(err, "harness: --output: {}\n", e.what());
    return false;
  }
}

int workloads_exit_code(const run_report& report) {
  const bool any_failed = std::any_of(report.results.begin(), report.results.end(),
                                      [](const workload_result& r) { return r.failed(); });
  return any_failed ? exit_workload_failed : exit_ok;
}

void add_run_command(CLI::App& root, context& ctx) {
  // The options live on the root app so that `harness -w x` works without `run`; `run` falls
  // through to them.
  auto flags = std::make_shared<run_flags>();
  add_run_options(root, *flags, ctx.program);
  root.footer(examples(ctx.program, ctx.host.workloads()));
  CLI::App* run_app =
      root.add_subcommand("run", "Run the experiment (the default when no subcommand is given)");
  run_app->fallthrough();
  ctx.action = [flags, &ctx] { return run(*flags, ctx); };
  run_app->callback([flags, &ctx] { ctx.action = [flags, &ctx] { return run(*flags, ctx); }; });
}

}  // namespace harness::cli
