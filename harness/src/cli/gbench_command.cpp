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

#include "ab_command.hpp"
#include "base/numbers.hpp"
#include "cli.hpp"
#include "cli/history_file.hpp"
#include "cli/output_file.hpp"
#include "gbench/gbench.hpp"
#include "gbench/vs.hpp"
#include "gbench_command.hpp"
#include "harness/ab_report.hpp"
#include "harness/analysis.hpp"
#include "harness/doctor.hpp"
#include "harness/duration.hpp"
#include "harness/errors.hpp"
#include "harness/report.hpp"
#include "harness/report_line.hpp"
#include "platform/child_process.hpp"
#include "run_command.hpp"
#include "run_flags.hpp"
#include "run_history.hpp"
#include "scratch_folder.hpp"

namespace harness::cli {

std::string quoted_command(const std::vector<std::string>& words) {
  std::vector<std::string> out;
  for (const std::string& w : words)
    out.push_back(shell_word(w));
  return fmt::format("{}", fmt::join(out, " "));
}

void check_executable(const std::filesystem::path& binary, std::string_view what) {
  if (const std::string why = platform::cannot_execute(binary); !why.empty()) {
    throw usage_error(fmt::format(
        "{}: cannot run '{}': {}; give the path of a Google Benchmark binary{}", what,
        binary.string(), why,
        // No PATH search: a bare name is a file in the current folder.
        binary.has_parent_path() ? ""
                                 : " (the PATH is not searched: give ./NAME or its full path)"));
  }
}

namespace {

// Checks everything typed; throws usage_error. Nothing runs before it returns.
gbench::settings settings_from(const gbench_flags& f, run_options& options) {
  for (const CLI::Option* o : f.vs_only) {
    if (o->count() > 0) {
      throw usage_error(fmt::format(
          "{}: only with --vs OLD, which compares two binaries; harness gbench without it reports "
          "one binary, unprepared against prepared",
          o->get_name()));
    }
  }
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
  s.min_time =
      positive_duration(f.min_time, "--min-time", "a repetition needs some time; give e.g. 50ms");
  s.binary = f.command.front();
  s.args.assign(f.command.begin() + 1, f.command.end());
  gbench::check_binary_args(s.args);
  check_executable(s.binary, "gbench");
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
  report_plan plan = plan_report(f.run);
  // Keyed by the binary's bytes, the repetition length and the binary's own arguments: a rebuild
  // of the suite, or a run that times it otherwise, is a new build.
  const std::shared_ptr<history_plan> history = plan_gbench_history(
      history_request_of(f.run, plan), ctx.host.environment, s.binary,
      fmt::format("--min-time {}{}{}", format_duration(s.min_time, micro_spelling::ascii),
                  s.args.empty() ? "" : " -- ", quoted_command(s.args)),
      allowed, ctx.err);
  check_report_file(plan);
  plan.save = plan_save(f.run.store, ctx.host.environment, history && history->in_store);
  const auto progress = configure_logging(f.run.log_level, ctx);
  // Windows: refuses here, before anything runs (not supported there yet).
  const std::unique_ptr<platform::process_launcher> launcher = ctx.host.launcher();

  const doctor::doctor_report health = checkup_of(f.run.cpu_option, f.run.cpu, allowed, ctx);
  if (!f.run.no_pin) options.cpu = health.cpu;
  s.cpu = options.cpu;
  // Floors are remembered per CPU (history.hpp's floor_key): this run's are those of its CPU.
  if (history) history->cpu = options.cpu;
  s.memory = memory_of(history);
  if (progress->enabled()) s.progress = [progress](std::string_view text) { progress->show(text); };

  // SIGINT and SIGTERM are passed on to the binary and stop the invocations; the handlers stay
  // until the files are written: a signal there ends the command after them, not the process in
  // the middle of a write, leaving its temporary file (found by bench/soak.sh).
  const stop_signals_guard signals;
  gbench::outcome outcome;
  {
    const scratch_folder folder("gbench");
    s.work_dir = folder.path();
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
                  s.repetitions, per_block, format_duration(s.min_time, micro_spelling::ascii),
                  platform::to_string(s.priority),
                  s.cpu ? fmt::format("CPU {}", *s.cpu) : std::string("off")),
      s.warmup.count() == 0
          ? std::string("disabled")
          : fmt::format("--benchmark_min_warmup_time={} in each of the {} prepared invocations "
                        "({} per benchmark in all); Google Benchmark does not report what it ran",
                        format_duration(s.warmup / static_cast<std::int64_t>(per_block),
                                        micro_spelling::ascii),
                        per_block, format_duration(s.warmup, micro_spelling::ascii))};
  report.results = std::move(outcome.results);
  report.detail = f.run.detail;
  report.program = ctx.program;
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
  bool saved = true;
  if (!report.results.empty()) {
    const report_model model = analyze_run(report);
    written = emit_run_report(ctx, plan, model, report, history.get());
    // A suite the binary did not finish is not saved, as an interrupted one.
    if (plan.save && outcome.failure) {
      fmt::print(ctx.err, "{}: --save: the binary failed; nothing was saved into {}\n", ctx.program,
                 plan.save->store->where());
    } else if (plan.save) {
      saved =
          save_run(*plan.save, this_machine(ctx.host, report.context),
                   report.history.build.empty() ? file_fingerprint(s.binary) : report.history.build,
                   render(model, report_format::json), outcome.stop_signal != 0, ctx.err);
    }
  }
  if (outcome.failure) {
    fmt::print(ctx.err, "{}: gbench: {}\n", ctx.program, *outcome.failure);
    if (!report.results.empty()) {
      fmt::print(ctx.err, "{}: gbench: the report above holds what the binary gave before\n",
                 ctx.program);
    }
  }
  // As `harness run`: an interruption wins (one while the files were written too), then a report
  // that could not be written; then the binary's own failure, then a benchmark's.
  if (const int sig = outcome.stop_signal != 0 ? outcome.stop_signal : stop_signal(); sig != 0) {
    clear_stop();
    fmt::print(ctx.err, "{}: gbench: interrupted{}\n", ctx.program,
               report.results.empty() ? " before the binary reported anything" : "");
    return sig == SIGTERM ? exit_sigterm : exit_sigint;
  }
  if (!written || !saved) return exit_failure;
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
  flags->samples_option =
      cmd->add_option("-n,--samples", flags->run.samples,
                      "Repetitions per phase (--benchmark_repetitions in all); each repetition is "
                      "one sample: Google Benchmark's mean real_time over its iterations. With "
                      "--vs: repetitions per invocation (default 20)")
          ->capture_default_str();
  flags->blocks_option =
      cmd->add_option("--blocks", flags->run.blocks,
                      "Spread each phase's repetitions over this many invocations of the binary "
                      "(a new process each, one block of the floor each)")
          ->capture_default_str();
  flags->min_time_option =
      cmd->add_option("--min-time", flags->min_time,
                      "Shortest repetition (--benchmark_min_time): Google Benchmark's own default "
                      "is 0.5 s; 50 ms keeps a suite of 20 repetitions per phase at about 2 s per "
                      "benchmark and still averages thousands of iterations of a microsecond loop. "
                      "With --vs: default 0.5 ms")
          ->capture_default_str();
  flags->vs_option = cmd->add_option(
      "--vs", flags->vs,
      fmt::format("OLD: compare this Google Benchmark binary (A) with the one after -- (B), "
                  "benchmark by benchmark, in rounds of one new invocation of each (ABBA order); "
                  "the answer per benchmark is `{} ab`'s: B/A with its 95% interval and a verdict",
                  ctx.program));
  flags->vs_only = {
      cmd->add_option("--max-time", flags->max_time,
                      "With --vs: the longest the rounds of one benchmark may take")
          ->capture_default_str(),
      cmd->add_option("--target", flags->target,
                      "With --vs: a benchmark's rounds stop when the interval's half-width is "
                      "under this, relative to the ratio, at two checks in a row")
          ->capture_default_str(),
      cmd->add_option("--threshold", flags->threshold,
                      "With --vs: B and A are the same when the whole interval lies within "
                      "+-this; faster or slower when it lies wholly beyond")
          ->capture_default_str(),
      cmd->add_option("--fail-if-slower", flags->fail_if_slower,
                      "With --vs: exit 4 when B is slower than A by more than this percentage "
                      "with 95% confidence in any benchmark")};
  cmd->add_flag("--lock-memory", flags->lock_memory,
                "Refused: a child's memory cannot be locked from outside (mlockall does not "
                "survive exec)");
  add_history_options(*cmd, flags->run);
  add_store_options(*cmd, flags->run.store);
  add_preparation_options(*cmd, flags->run);
  flags->warmup_option = cmd->get_option("--warmup");
  add_phase_and_report_options(*cmd, flags->run);
  cmd->add_option("BINARY", flags->command,
                  "After --: the Google Benchmark binary and its own arguments "
                  "(--benchmark_filter=... and others pass through)");
  cmd->footer(fmt::format(
      "{0} sets --benchmark_repetitions, --benchmark_out, --benchmark_out_format, "
      "--benchmark_min_time and --benchmark_min_warmup_time itself; those, --benchmark_format, "
      "--benchmark_report_aggregates_only, --benchmark_list_tests and --benchmark_dry_run are "
      "refused. The binary is run as given: the PATH is not searched.\n"
      "Exit codes: 0 ok; 2 bad input (also a BINARY that does not exist or is not executable); "
      "3 a benchmark reported an error (SkipWithError); 5 the binary failed (could not start, "
      "crashed, exited non-zero, wrote no Google Benchmark JSON); 130/143 interrupted.\n"
      "Examples:\n"
      "  {0} gbench -- ./my_benchmarks\n"
      "  {0} gbench -n 10 --cpu 2 -o report.json -- ./my_benchmarks "
      "--benchmark_filter=BM_sort\n"
      "  {0} gbench --vs ./old_benchmarks -- ./new_benchmarks --benchmark_filter=BM_sort\n"
      "With --vs, exit codes: 0 answered; 4 B slower beyond --fail-if-slower in a benchmark; 2 "
      "bad input (also an OLD or BINARY that is not executable); 3 a benchmark reported an error; "
      "5 a binary failed; 130/143 interrupted.\n",
      ctx.program));
  cmd->callback([&ctx, flags] {
    ctx.action = [&ctx, flags] {
      return flags->vs_option->count() > 0 ? gbench_vs_action(*flags, ctx)
                                           : gbench_action(*flags, ctx);
    };
  });
}

}  // namespace harness::cli
