// `harness run` (also `harness` alone): the experiment for each selected workload, and its
// report: on stdout (console, or --format, or one --line per phase) and in the file -o names.
#include <fmt/format.h>
#include <fmt/ostream.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <charconv>
#include <csignal>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>

#include "cli.hpp"
#include "harness/clock.hpp"
#include "harness/doctor.hpp"
#include "harness/duration.hpp"
#include "harness/errors.hpp"
#include "harness/log.hpp"
#include "harness/platform.hpp"
#include "harness/report.hpp"
#include "harness/report_line.hpp"
#include "harness/runner.hpp"
#include "harness/workload.hpp"
#include "output_file.hpp"
#include "report_progress.hpp"

namespace harness::cli {
namespace {

struct run_flags {
  std::vector<std::string> workloads;
  std::string samples = "20";
  std::string warmup = "1200ms";
  int cpu = -1;
  CLI::Option* cpu_option = nullptr;
  bool no_pin = false;
  std::string priority = "high";
  bool no_baseline = false;
  bool detail = false;
  std::string log_level = "warn";
  std::string clock;
  std::string target = "0.1%";
  std::string max_time = "10s";
  std::string batch;
  std::string min_sample_time;
  bool lock_memory = false;
  std::string max_hold = "2s";
  std::string format;  // empty: console on stdout, or the file's extension with -o
  std::string output;
  std::string line;
  CLI::Option* line_option = nullptr;
};

// Lists every sample when one workload runs with at most this many; beyond, only with --detail.
constexpr std::size_t kMaxListedSamples = 100;

constexpr const char* kExamples = R"(Examples:
  harness                                  xor_loop: first call, 20 unprepared, 20 prepared samples
  harness -w xor_loop/1000000 -n 50        one workload with its argument, 50 samples per phase
  harness -w 'sort*' -n 5 --warmup 50ms    every workload whose name starts with "sort"
  harness -o result.json                   console report on stdout, Google Benchmark JSON in a file
  harness --line '{workload} {phase}: min {min}, median {median}'
                                           one line per workload and phase
  harness --cpu 1 --priority realtime      pin to CPU 1 and use SCHED_FIFO (needs root)
  harness list                             the registered workloads
)";

std::uint64_t parse_positive(const std::string& text, std::string_view option,
                             std::string_view accepted) {
  std::int64_t n = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (text.empty() || ec != std::errc{} || end != text.data() + text.size() || n <= 0) {
    throw usage_error(fmt::format("{}: invalid value '{}': expected {}", option, text, accepted));
  }
  return static_cast<std::uint64_t>(n);
}

// "0.1%" or "0.1" (percent either way) -> 0.001.
double parse_target(const std::string& text) {
  std::string_view digits = text;
  if (!digits.empty() && digits.back() == '%') digits.remove_suffix(1);
  double percent = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), percent);
  if (digits.empty() || ec != std::errc{} || end != digits.data() + digits.size() ||
      !(percent > 0) || percent >= 100) {
    throw usage_error(fmt::format(
        "--target: invalid value '{}': expected a percentage of the minimum above 0 and below "
        "100, such as 0.1%",
        text));
  }
  return percent / 100;
}

platform::priority_level parse_priority(const std::string& text) {
  if (text == "normal") return platform::priority_level::normal;
  if (text == "high") return platform::priority_level::high;
  if (text == "realtime") return platform::priority_level::realtime;
  throw usage_error(
      fmt::format("--priority: invalid value '{}': expected normal, high or realtime", text));
}

// The CPU to pin to: --cpu when given (it must be one the process may run on), else the doctor's
// choice (the least-loaded allowed CPU, preferring one other than CPU 0).
void check_cpu(const run_flags& flags, const platform::cpu_list& allowed) {
  if (flags.no_pin && flags.cpu_option->count() > 0) {
    throw usage_error("--cpu and --no-pin contradict each other: give one of them");
  }
  if (allowed.empty()) throw usage_error("this process may run on no CPU at all");
  if (flags.cpu_option->count() > 0 &&
      std::find(allowed.begin(), allowed.end(), flags.cpu) == allowed.end()) {
    throw usage_error(
        fmt::format("--cpu: CPU {} is not one this process may run on; allowed CPUs: {}", flags.cpu,
                    platform::format_cpu_list(allowed)));
  }
}

std::vector<std::string> indented_lines(const std::string& text, std::string_view prefix) {
  std::vector<std::string> lines;
  std::size_t begin = 0;
  while (begin < text.size()) {
    std::size_t end = text.find('\n', begin);
    if (end == std::string::npos) end = text.size();
    if (end > begin) lines.push_back(std::string(prefix) + text.substr(begin, end - begin));
    begin = end + 1;
  }
  return lines;
}

void on_stop_signal(int sig) {
  harness::request_stop(sig);
  // A second signal ends the process at once: nothing is left to restore that exit would not.
  std::signal(sig, SIG_DFL);
}

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

// Logs go to the context's error stream; colour only when that is the process's stderr. In front
// of them, the progress line, shown only when that stream is a terminal.
std::shared_ptr<progress_sink> configure_logging(const std::string& level, std::ostream& err) {
  spdlog::sink_ptr sink;
  const bool is_stderr = &err == &std::cerr;
  if (is_stderr) {
    sink = std::make_shared<spdlog::sinks::stderr_color_sink_mt>();
  } else {
    sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(err);
  }
  sink->set_pattern("harness: %l: %v");
  const auto wanted = spdlog::level::from_str(level);
  const console_style terminal = is_stderr ? detect_console_style(2) : console_style{};
  auto progress =
      std::make_shared<progress_sink>(sink, wanted, err, terminal.terminal, terminal.width);
  auto log = std::make_shared<spdlog::logger>("harness", progress);
  // The runner announces each phase at level info: the progress line needs those messages.
  log->set_level(terminal.terminal ? std::min(wanted, spdlog::level::info) : wanted);
  set_logger(log);
  return progress;
}

// Where the report goes, decided before the first sample is taken.
struct report_plan {
  std::optional<report_format> stdout_format;  // nullopt with --line
  std::optional<format_template> line;
  std::optional<std::filesystem::path> file;
  report_format file_format = report_format::json;
};

report_plan plan_report(const run_flags& flags) {
  report_plan plan;
  std::optional<report_format> chosen;
  if (!flags.format.empty()) chosen = parse_report_format(flags.format);
  if (flags.line_option->count() > 0) {
    if (flags.line.empty())
      throw usage_error("--line: the template is empty; give e.g. '{workload} {phase}: {min}'");
    if (chosen && flags.output.empty()) {
      throw usage_error(fmt::format(
          "--line and --format {} both say what stdout gets: give one of them, or add -o FILE "
          "for the --format report",
          flags.format));
    }
    plan.line = parse_line_template(flags.line);
  } else {
    // With a file, stdout keeps the console report and --format applies to the file.
    plan.stdout_format = flags.output.empty() && chosen ? *chosen : report_format::console;
  }
  if (!flags.output.empty()) {
    plan.file = std::filesystem::path(flags.output);
    plan.file_format = format_for_file(*plan.file, chosen);
  }
  return plan;
}

std::string render(const run_report& report, report_format format) {
  std::ostringstream text;
  write_report(text, report, format);
  return text.str();
}

int run(const run_flags& flags, context& ctx) {
  // Everything the user typed is checked before the first sample is taken.
  run_options options;
  if (flags.samples == "auto") {
    options.auto_samples = true;
  } else {
    options.samples = parse_positive(flags.samples, "--samples", "a positive integer or auto");
  }
  options.target = parse_target(flags.target);
  options.max_time = parse_duration(flags.max_time, "--max-time");
  if (options.max_time.count() == 0) {
    throw usage_error("--max-time: invalid value '0': sampling needs some time; give e.g. 10s");
  }
  if (!flags.batch.empty()) {
    options.batch = parse_positive(flags.batch, "--batch", "a positive number of calls per sample");
  }
  if (!flags.min_sample_time.empty()) {
    options.min_sample_time = parse_duration(flags.min_sample_time, "--min-sample-time");
  }
  options.max_hold = parse_duration(flags.max_hold, "--max-hold");
  if (options.max_hold.count() == 0) {
    throw usage_error(
        "--max-hold: invalid value '0': give the longest time realtime sampling may "
        "hold the CPU, e.g. 2s");
  }
  options.lock_memory = flags.lock_memory;
  options.warmup = parse_duration(flags.warmup, "--warmup");
  options.priority = parse_priority(flags.priority);
  options.baseline = !flags.no_baseline;
  const auto& registry = global_registry();
  const std::vector<workload_instance> selected =
      flags.workloads.empty() ? registry.default_selection() : registry.select(flags.workloads);
  if (selected.empty()) throw usage_error("no workload is registered");
  auto os = platform::make_native_os();
  const platform::cpu_list allowed = os->affinity();
  check_cpu(flags, allowed);
  const clock_source& clock = flags.clock.empty() ? default_clock() : resolve_clock(flags.clock);
  const report_plan plan = plan_report(flags);
  if (plan.file) {
    // A file that cannot be written is found before the run, not after it.
    try {
      check_writable(*plan.file);
    } catch (const output_error& e) {
      fmt::print(ctx.err, "harness: --output: {}\n", e.what());
      return exit_failure;
    }
  }
  const auto progress = configure_logging(flags.log_level, ctx.err);
  if (progress->enabled()) {
    options.progress = [progress](const sampling_progress& p) { progress->show(progress_text(p)); };
  }

  // The doctor reads the machine (about 0.2 s, mostly a load sample) and chooses the CPU.
  doctor::doctor_options checkup;
  checkup.allowed = allowed;
  if (flags.cpu_option->count() > 0) checkup.cpu = flags.cpu;
  const doctor::doctor_report health = doctor::run_doctor(checkup);
  if (!flags.no_pin) options.cpu = health.cpu;

  run_report report;
  report.clock = measure_clock_facts(clock);
  report.clock_reason = flags.clock.empty() ? default_clock_reason() : "chosen with --clock";
  report.options = options;
  report.environment = indented_lines(doctor::format_summary(doctor::summarize(health)), "");
  report.context = collect_run_context(doctor::summarize(health));
  report.show_samples = flags.detail || (selected.size() == 1 && !options.auto_samples &&
                                         options.samples <= kMaxListedSamples);
  {
    // SIGINT and SIGTERM end sampling after the current sample; the guard in run_workload restores
    // affinity and priority, and what was gathered is reported.
    const stop_signals_guard signals;
    for (std::size_t i = 0; i < selected.size(); ++i) {
      progress->set_position(i + 1, selected.size());
      report.results.push_back(run_workload(selected[i], options, report.clock, *os));
      if (stop_signal() != 0) break;
    }
  }
  progress->clear();
  if (plan.line) {
    print_lines(ctx.out, report, *plan.line);
  } else {
    const console_style style = &ctx.out == &std::cout ? detect_console_style(1) : console_style{};
    write_report(ctx.out, report, *plan.stdout_format, style);
  }
  ctx.out.flush();
  bool written = true;
  if (plan.file) {
    try {
      write_file_atomically(*plan.file, render(report, plan.file_format));
    } catch (const output_error& e) {
      fmt::print(ctx.err, "harness: --output: {}\n", e.what());
      written = false;
    }
  }
  // An interruption is what the user asked for and wins; then a report that could not be
  // written; then a workload that failed.
  if (const int sig = stop_signal(); sig != 0) {
    clear_stop();
    return sig == SIGTERM ? exit_sigterm : exit_sigint;
  }
  if (!written) return exit_failure;
  const bool any_failed = std::any_of(report.results.begin(), report.results.end(),
                                      [](const workload_result& r) { return r.failed(); });
  return any_failed ? exit_workload_failed : exit_ok;
}

void add_run_options(CLI::App& app, run_flags& flags) {
  app.add_option("-w,--workload", flags.workloads,
                 "Workload to run: NAME, a glob (* and ?), or NAME/ARG; repeatable "
                 "(default: the default workload)");
  app.add_option("-n,--samples", flags.samples,
                 "Samples per phase: a positive integer, or auto (sample until the minimum's 95% "
                 "interval is within --target, or --max-time has passed)")
      ->capture_default_str();
  app.add_option("--target", flags.target,
                 "With --samples auto: the width of the minimum's 95% interval to reach, in % of "
                 "the minimum")
      ->capture_default_str();
  app.add_option("--max-time", flags.max_time,
                 "With --samples auto: the longest a phase may sample (a duration)")
      ->capture_default_str();
  app.add_option("--batch", flags.batch,
                 "Calls per sample (default: calibrated so a sample lasts --min-sample-time)");
  app.add_option("--min-sample-time", flags.min_sample_time,
                 "Shortest sample before batching kicks in (default: 1000 steps of the clock)");
  app.add_option("--clock", flags.clock,
                 "Clock to sample with (see `harness clocks`; default: the cheapest fine "
                 "monotonic wall clock)");
  app.add_flag("--lock-memory", flags.lock_memory,
               "Lock the process's memory (mlockall) for the prepared phase");
  app.add_option("--max-hold", flags.max_hold,
                 "With --priority realtime: the longest sampling holds the CPU before pausing "
                 "20 ms for the rest of the system")
      ->capture_default_str();
  app.add_option("--warmup", flags.warmup,
                 "Warmup before the prepared samples: a duration with unit ns, us, ms or s; 0 "
                 "disables")
      ->capture_default_str();
  flags.cpu_option = app.add_option(
      "--cpu", flags.cpu, "CPU to pin to (default: the highest-numbered CPU this process may use)");
  app.add_flag("--no-pin", flags.no_pin, "Do not pin the process for the prepared samples");
  app.add_option("--priority", flags.priority,
                 "Priority for the prepared samples: normal, high (nice -20) or realtime "
                 "(SCHED_FIFO)")
      ->capture_default_str();
  app.add_flag("--no-baseline", flags.no_baseline, "Skip the unprepared baseline");
  app.add_flag("--detail", flags.detail,
               "List every sample of every phase (always on when one workload runs)");
  app.add_option("--format", flags.format,
                 "Report format: console, json (Google Benchmark's schema), csv (one row per "
                 "sample) or markdown (the summary table). Without -o it is what stdout gets; "
                 "with -o it is the file's format (default: from the file's extension), and "
                 "stdout keeps the console report");
  app.add_option("-o,--output", flags.output,
                 "Also write the report to FILE, whole or not at all; the format comes from the "
                 "extension (.json, .csv, .md, .txt) unless --format is given");
  flags.line_option = app.add_option(
      "--line", flags.line,
      "Print one line per workload and phase in this template instead of the console report, "
      "e.g. '{workload} {phase}: min {min}, median {median}'. Tokens: {workload} {phase} "
      "{samples} {runs} {ticks} {time} {frequency} {ns_per_run} {per_run} {min} {median} {max} "
      "{spread} {verdict} {disturbed} {clock} {0} {1} {2}; specs as in fmt ({min:.3e}); {{ and "
      "}} for braces");
  app.add_option("--log-level", flags.log_level, "Log level on stderr")
      ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error", "off"}))
      ->capture_default_str();
}

}  // namespace

void add_run_command(CLI::App& root, context& ctx) {
  // The options live on the root app so that `harness -w x` works without `run`; `run` falls
  // through to them.
  auto flags = std::make_shared<run_flags>();
  add_run_options(root, *flags);
  root.footer(kExamples);
  CLI::App* run_app =
      root.add_subcommand("run", "Run the experiment (the default when no subcommand is given)");
  run_app->fallthrough();
  ctx.action = [flags, &ctx] { return run(*flags, ctx); };
  run_app->callback([flags, &ctx] { ctx.action = [flags, &ctx] { return run(*flags, ctx); }; });
}

}  // namespace harness::cli
