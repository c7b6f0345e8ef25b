// `harness gbench [options] -- BINARY [ARGS...]`: an existing Google Benchmark binary run
// unprepared and prepared (gbench/gbench.hpp), reported as `harness run` reports its workloads.
#include <fmt/format.h>
#include <fmt/ostream.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <memory>
#include <system_error>

#include "cli.hpp"
#include "gbench/gbench.hpp"
#include "harness/analysis.hpp"
#include "harness/doctor.hpp"
#include "harness/duration.hpp"
#include "harness/errors.hpp"
#include "harness/report.hpp"
#include "harness/report_line.hpp"
#include "output_file.hpp"
#include "platform/child_process.hpp"
#include "run_command.hpp"
#include "run_flags.hpp"
#include "run_history.hpp"
#include "scratch_folder.hpp"

namespace harness::cli {
namespace {

struct gbench_flags {
  run_flags run;
  std::string min_time = "50ms";
  bool lock_memory = false;
  std::vector<std::string> command;  // BINARY [ARGS...]
};

std::string quoted_command(const std::vector<std::string>& words) {
  std::vector<std::string> out;
  for (const std::string& w : words) {
    const bool plain = !w.empty() && w.find_first_of(" \t'\"\\$`*?") == std::string::npos;
    out.push_back(plain ? w : "'" + w + "'");
  }
  return fmt::format("{}", fmt::join(out, " "));
}

// Checks everything typed; throws usage_error. Nothing runs before it returns.
gbench::settings settings_from(const gbench_flags& f, run_options& options) {
  if (f.command.empty()) {
    throw usage_error(
        "gbench: give the Google Benchmark binary to run after --: harness gbench [options] -- "
        "./my_benchmarks [--benchmark_filter=...]");
  }
  if (f.run.samples == "auto") {
    throw usage_error(
        "--samples: invalid value 'auto': harness gbench takes a fixed number of repetitions "
        "per phase, such as 20");
  }
  if (f.lock_memory) {
    throw usage_error(
        "--lock-memory: not possible for a Google Benchmark binary: mlockall locks only the "
        "process that calls it and does not survive exec, so the harness cannot lock the "
        "child's memory; drop --lock-memory");
  }
  options = options_from(f.run);
  gbench::settings s;
  s.min_time = parse_duration(f.min_time, "--min-time");
  if (s.min_time.count() == 0) {
    throw usage_error(
        fmt::format("--min-time: invalid value '{}': a repetition needs some time; give e.g. 50ms",
                    f.min_time));
  }
  s.binary = f.command.front();
  s.args.assign(f.command.begin() + 1, f.command.end());
  gbench::check_binary_args(s.args);
  if (const std::string why = platform::cannot_execute(s.binary); !why.empty()) {
    throw usage_error(fmt::format(
        "gbench: cannot run '{}': {}; give the path of a Google Benchmark binary{}",
        s.binary.string(), why,
        // No PATH search: a bare name is a file in the current folder.
        s.binary.has_parent_path() ? ""
                                   : " (the PATH is not searched: give ./NAME or its full path)"));
  }
  s.repetitions = options.samples;
  s.blocks = options.blocks;
  s.warmup = options.warmup;
  s.baseline = options.baseline;
  s.priority = options.priority;
  return s;
}

int gbench_action(const gbench_flags& f, context& ctx) {
  run_options options;
  gbench::settings s = settings_from(f, options);
  auto os = ctx.host.os();
  const platform::cpu_list allowed = os->affinity();
  check_cpu(f.run, allowed);
  const report_plan plan = plan_report(f.run);
  // Keyed by the binary's bytes, the repetition length and the binary's own arguments: a rebuild
  // of the suite, or a run that times it otherwise, is a new build.
  const std::shared_ptr<history_plan> history = plan_gbench_history(
      f.run.no_history,
      f.run.history_option->count() > 0 ? std::optional<std::string>(f.run.history) : std::nullopt,
      s.binary,
      fmt::format("--min-time {}{}{}", format_duration(s.min_time), s.args.empty() ? "" : " -- ",
                  quoted_command(s.args)));
  s.memory = memory_of(history);
  const auto progress = configure_logging(f.run.log_level, ctx.err);
  // Windows: refuses here, before anything runs (not supported there yet).
  const std::unique_ptr<platform::process_launcher> launcher = platform::make_native_launcher();

  doctor::doctor_options checkup;
  checkup.allowed = allowed;
  if (f.run.cpu_option->count() > 0) checkup.cpu = f.run.cpu;
  const doctor::doctor_report health = ctx.host.doctor(checkup);
  if (!f.run.no_pin) options.cpu = health.cpu;
  s.cpu = options.cpu;
  if (progress->enabled()) s.progress = [progress](std::string_view text) { progress->show(text); };

  gbench::outcome outcome;
  {
    const scratch_folder folder("gbench");
    s.work_dir = folder.path();
    const stop_signals_guard signals;
    outcome = gbench::run(s, *launcher);
  }

  run_report report;
  report.clock.clock = &gbench::reported_nanoseconds();
  report.clock_reason =
      "harness gbench: the figures are the binary's own, as Google Benchmark reported them";
  report.options = options;
  report.history = use_of(history, s.memory);
  report.context = ctx.host.context(doctor::summarize(health));
  std::error_code ec;
  report.context.executable = std::filesystem::absolute(s.binary, ec).string();
  const std::size_t per_block = gbench::block_sizes(s.repetitions, s.blocks).size();
  report.source = sample_source{
      "Google Benchmark", quoted_command(f.command),
      "one sample = one repetition: Google Benchmark's real_time per iteration, the mean over "
      "that repetition's iterations, in ns (1 tick = 1 ns)",
      fmt::format("repetitions per phase: {} in {} invocations of the binary (a block each, a new "
                  "process each), each repetition at least {} (--benchmark_min_time); priority: "
                  "{}; pin: {}",
                  s.repetitions, per_block, format_duration(s.min_time),
                  platform::to_string(s.priority),
                  s.cpu ? fmt::format("CPU {}", *s.cpu) : std::string("off")),
      s.warmup.count() == 0
          ? std::string("disabled")
          : fmt::format("--benchmark_min_warmup_time={} in each of the {} prepared invocations "
                        "({} per benchmark in all); Google Benchmark does not report what it ran",
                        format_duration(s.warmup / static_cast<std::int64_t>(per_block)), per_block,
                        format_duration(s.warmup))};
  report.results = std::move(outcome.results);
  report.show_samples =
      f.run.detail || (report.results.size() == 1 && s.repetitions <= kMaxListedSamples);
  progress->clear();
  if (outcome.library_build_type == "debug") {
    fmt::print(ctx.err,
               "harness: warning: the binary's Google Benchmark library says it was built as "
               "debug (library_build_type in its JSON context); Google Benchmark warns that its "
               "timings may be affected\n");
  }

  bool written = true;
  if (!report.results.empty()) {
    const report_model model = analyze_run(report);
    if (plan.line) {
      print_lines(ctx.out, model, *plan.line);
    } else {
      const console_style style =
          &ctx.out == &std::cout ? detect_console_style(1) : console_style{};
      write_report(ctx.out, model, *plan.stdout_format, style);
    }
    ctx.out.flush();
    if (history) save_history(*history, report, ctx.err);
    written = write_report_file(plan, model, ctx.err);
  }
  if (outcome.failure) {
    fmt::print(ctx.err, "{}: gbench: {}\n", ctx.program, *outcome.failure);
    if (!report.results.empty()) {
      fmt::print(ctx.err, "{}: gbench: the report above holds what the binary gave before\n",
                 ctx.program);
    }
  }
  // As `harness run`: an interruption wins, then a report that could not be written; then the
  // binary's own failure, then a benchmark's.
  if (outcome.stop_signal != 0) {
    clear_stop();
    fmt::print(ctx.err, "{}: gbench: interrupted{}\n", ctx.program,
               report.results.empty() ? " before the binary reported anything" : "");
    return outcome.stop_signal == SIGTERM ? exit_sigterm : exit_sigint;
  }
  if (!written) return exit_failure;
  if (outcome.failure) return exit_binary_failed;
  return workloads_exit_code(report);
}

}  // namespace

void add_gbench_command(CLI::App& root, context& ctx) {
  auto flags = std::make_shared<gbench_flags>();
  CLI::App* cmd = root.add_subcommand(
      "gbench",
      "Run an existing Google Benchmark binary unprepared (as you run it), then prepared "
      "(pinned, priority raised, warmed up), and report both as `run` does: gbench [options] -- "
      "BINARY [ITS ARGS...]");
  cmd->add_option("-n,--samples", flags->run.samples,
                  "Repetitions per phase (--benchmark_repetitions in all); each repetition is one "
                  "sample: Google Benchmark's mean real_time over its iterations")
      ->capture_default_str();
  cmd->add_option("--blocks", flags->run.blocks,
                  "Spread each phase's repetitions over this many invocations of the binary (a "
                  "new process each, one block of the floor each)")
      ->capture_default_str();
  cmd->add_option("--min-time", flags->min_time,
                  "Shortest repetition (--benchmark_min_time): Google Benchmark's own default is "
                  "0.5 s; 50 ms keeps a suite of 20 repetitions per phase at about 2 s per "
                  "benchmark and still averages thousands of iterations of a microsecond loop")
      ->capture_default_str();
  cmd->add_flag("--lock-memory", flags->lock_memory,
                "Refused: a child's memory cannot be locked from outside (mlockall does not "
                "survive exec)");
  add_history_options(*cmd, flags->run);
  add_preparation_options(*cmd, flags->run);
  add_phase_and_report_options(*cmd, flags->run);
  cmd->add_option("BINARY", flags->command,
                  "After --: the Google Benchmark binary and its own arguments "
                  "(--benchmark_filter=... and others pass through)");
  cmd->footer(
      "The harness sets --benchmark_repetitions, --benchmark_out, --benchmark_out_format, "
      "--benchmark_min_time and --benchmark_min_warmup_time itself; those, --benchmark_format, "
      "--benchmark_report_aggregates_only, --benchmark_list_tests and --benchmark_dry_run are "
      "refused. The binary is run as given: the PATH is not searched.\n"
      "Exit codes: 0 ok; 2 bad input (also a BINARY that does not exist or is not executable); "
      "3 a benchmark reported an error (SkipWithError); 5 the binary failed (could not start, "
      "crashed, exited non-zero, wrote no Google Benchmark JSON); 130/143 interrupted.\n"
      "Examples:\n"
      "  harness gbench -- ./my_benchmarks\n"
      "  harness gbench -n 10 --cpu 2 -o report.json -- ./my_benchmarks "
      "--benchmark_filter=BM_sort\n");
  cmd->callback(
      [&ctx, flags] { ctx.action = [&ctx, flags] { return gbench_action(*flags, ctx); }; });
}

}  // namespace harness::cli
