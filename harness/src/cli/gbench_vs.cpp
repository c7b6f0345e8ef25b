// `harness gbench --vs OLD [options] -- NEW [ARGS...]`: two builds of a Google Benchmark suite,
// each benchmark in paired rounds of one invocation of each binary (gbench/vs.hpp), reported as
// `harness ab` reports (ab_report.hpp).
#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <system_error>

#include "ab_command.hpp"
#include "base/numbers.hpp"
#include "cli.hpp"
#include "gbench/gbench.hpp"
#include "gbench/vs.hpp"
#include "gbench_command.hpp"
#include "harness/ab_report.hpp"
#include "harness/doctor.hpp"
#include "harness/duration.hpp"
#include "harness/errors.hpp"
#include "platform/child_process.hpp"
#include "run_command.hpp"
#include "run_flags.hpp"
#include "scratch_folder.hpp"

namespace harness::cli {
namespace {

// --vs: what was typed checked into vs_settings, and where the report goes; throws usage_error.
gbench::vs_settings vs_settings_from(const gbench_flags& f, ab_flags& af) {
  if (f.vs.empty())
    throw usage_error("--vs: the path is empty; give the old Google Benchmark binary");
  const auto refuse = [](bool given, std::string_view flag, std::string_view why) {
    if (given) throw usage_error(fmt::format("{}: not with --vs: {}; drop it", flag, why));
  };
  refuse(f.run.no_baseline, "--no-baseline",
         "--vs runs no baseline, every invocation of both binaries is prepared");
  refuse(f.blocks_option->count() > 0, "--blocks",
         "with --vs every invocation is a round's half, and rounds run until --target or "
         "--max-time");
  refuse(f.run.history_option->count() > 0, "--history",
         "--vs compares the two binaries within the run and keeps no floors");
  refuse(f.run.detail, "--detail", "--format csv lists every round of every benchmark");
  refuse(f.lock_memory, "--lock-memory",
         "mlockall locks only the process that calls it and does not survive exec");
  if (f.command.empty()) {
    throw usage_error(
        "gbench --vs OLD: give the new Google Benchmark binary after --: harness gbench --vs "
        "./old_benchmarks -- ./new_benchmarks [--benchmark_filter=...]");
  }
  gbench::vs_settings s;
  s.old_binary = f.vs;
  s.new_binary = f.command.front();
  s.args.assign(f.command.begin() + 1, f.command.end());
  gbench::check_binary_args(s.args);
  check_executable(s.old_binary, "--vs");
  check_executable(s.new_binary, "gbench");
  if (f.samples_option->count() > 0) {
    s.repetitions = parse_positive(f.run.samples, "--samples",
                                   "a positive number of repetitions per invocation, such as 20");
  }
  if (f.min_time_option->count() > 0) {
    s.min_time = positive_duration(f.min_time, "--min-time",
                                   "a repetition needs some time; give e.g. 500us");
  }
  if (f.warmup_option->count() > 0) s.warmup = parse_duration(f.run.warmup, "--warmup");

  // `harness ab`'s own checks and messages for what the two share.
  af.warmup = "0";
  af.max_time = f.max_time;
  af.target = f.target;
  af.threshold = f.threshold;
  af.fail_if_slower = f.fail_if_slower;
  af.cpu = f.run.cpu;
  af.cpu_option = f.run.cpu_option;
  af.no_pin = f.run.no_pin;
  af.priority = f.run.priority;
  af.format = f.run.format;
  af.output = f.run.output;
  af.output_option = f.run.output_option;
  af.line = f.run.line;
  af.line_option = f.run.line_option;
  af.log_level = f.run.log_level;
  const ab_options typed = ab_options_from(af);
  s.options.max_time = typed.max_time;
  s.options.target = typed.target;
  s.options.threshold = typed.threshold;
  s.options.fail_if_slower = typed.fail_if_slower;
  s.options.priority = typed.priority;
  return s;
}

}  // namespace

int gbench_vs_action(const gbench_flags& f, context& ctx) {
  ab_flags af;
  gbench::vs_settings s = vs_settings_from(f, af);
  af.store = f.run.store;
  const ab_output_plan plan = plan_ab_output(af, ctx);
  auto os = ctx.host.os();
  const platform::cpu_list allowed = os->affinity();
  check_cpu(f.run, allowed);
  const auto progress = configure_logging(f.run.log_level, ctx);
  const std::unique_ptr<platform::process_launcher> launcher = ctx.host.launcher();

  const doctor::doctor_report health = checkup_of(f.run.cpu_option, f.run.cpu, allowed, ctx);
  if (!f.run.no_pin) s.options.cpu = health.cpu;
  if (progress->enabled()) s.progress = [progress](std::string_view text) { progress->show(text); };

  // SIGINT and SIGTERM are passed on to the binaries and stop the rounds; the handlers stay until
  // the files are written: a signal there ends the command after them, not the process in the
  // middle of a write, leaving its temporary file (found by bench/soak.sh in `ab`).
  const stop_signals_guard signals;
  gbench::vs_outcome outcome;
  {
    const scratch_folder folder("gbench-vs");
    s.work_dir = folder.path();
    outcome = gbench::run_vs(s, *launcher);
  }
  progress->clear();

  ab_report report;
  report.mode = ab_mode::gbench;
  report.options = s.options;
  report.clock = std::string(gbench::reported_nanoseconds().name());
  report.ticks_per_second = 1e9;
  report.clock_reason =
      "harness gbench --vs: the figures are the binaries' own, as Google Benchmark reported them";
  report.context = ctx.host.context(doctor::summarize(health));
  std::error_code ec;
  report.context.executable = std::filesystem::absolute(s.new_binary, ec).string();
  report.build_a = s.old_binary.string();
  report.build_b = s.new_binary.string();
  // As vs_invocation_args gives them: the user's, the harness's, its filter last.
  std::string flags = fmt::format("--benchmark_repetitions={} --benchmark_min_time={}",
                                  s.repetitions, gbench::seconds_flag(s.min_time));
  if (s.warmup.count() > 0)
    flags += " --benchmark_min_warmup_time=" + gbench::seconds_flag(s.warmup);
  flags += " --benchmark_filter=^NAME$";
  report.plan = fmt::format(
      "each invocation {}{}; a round: one invocation of each binary, ABBA; per benchmark until "
      "the interval's half-width is under {} or {} passes; pin: {}; priority: {}",
      s.args.empty() ? "" : quoted_command(s.args) + " ", flags,
      percent_significant_text(s.options.target, 3),
      format_duration(s.options.max_time, micro_spelling::ascii),
      s.options.cpu ? fmt::format("CPU {}", *s.options.cpu) : std::string("off"),
      platform::to_string(s.options.priority));
  report.benchmarks = std::move(outcome.benchmarks);
  report.only_in_a = std::move(outcome.only_in_old);
  report.only_in_b = std::move(outcome.only_in_new);
  if (outcome.preparation) report.preparations.push_back(*outcome.preparation);
  report.interrupted = outcome.stop_signal != 0;
  conclude(report);
  if (outcome.debug_library) {
    fmt::print(ctx.err,
               "harness: warning: a binary's Google Benchmark library says it was built as debug "
               "(library_build_type in its JSON context); Google Benchmark warns that its timings "
               "may be affected\n");
  }
  const int code = finish_ab(report, plan, ctx);
  if (outcome.failure) fmt::print(ctx.err, "{}: gbench: {}\n", ctx.program, *outcome.failure);
  // An interruption wins, then a report that could not be written; then a binary's failure, a
  // benchmark's error, and last the gate (finish_ab's 4).
  if (code != exit_ok && code != exit_slower) return code;
  if (outcome.failure) return exit_binary_failed;
  const bool errors = std::any_of(report.benchmarks.begin(), report.benchmarks.end(),
                                  [](const ab_benchmark& b) { return b.error.has_value(); });
  if (errors) return exit_workload_failed;
  return code;
}

}  // namespace harness::cli
