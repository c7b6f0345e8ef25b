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
#include "clocks/tsc.hpp"
#include "harness/clock.hpp"
#include "harness/doctor.hpp"
#include "harness/duration.hpp"
#include "harness/errors.hpp"
#include "harness/history.hpp"
#include "harness/log.hpp"
#include "harness/platform.hpp"
#include "harness/report.hpp"
#include "harness/report_line.hpp"
#include "harness/runner.hpp"
#include "harness/workload.hpp"
#include "output_file.hpp"
#include "report/progress.hpp"

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
  std::string max_time;  // empty: kAutoMaxTime with --samples auto, else kConfirmMaxTime
  std::string blocks = "5";
  std::string history;  // empty: default_history_path()
  CLI::Option* history_option = nullptr;
  bool no_history = false;
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

// --max-time's defaults. With --samples auto a phase samples until its target: 10 s bounds a
// 1 ms workload at 10,000 samples. Otherwise it bounds the extra blocks the prepared phase takes
// until its floor is confirmed: a default run of a workload under 1 ms then ends within about
// 4 s even when the host never lets the floor be confirmed (it takes 1.9 s when the planned
// blocks confirm it).
constexpr std::chrono::seconds kAutoMaxTime{10};
constexpr std::chrono::seconds kConfirmMaxTime{2};

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
  auto progress = std::make_shared<progress_sink>(sink, err, terminal.terminal, terminal.width);
  auto log = std::make_shared<spdlog::logger>("harness", progress);
  log->set_level(wanted);
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

// The history this run reads and then adds to (history.hpp), when it keeps one.
struct history_plan {
  std::filesystem::path path;
  bool named = false;  // --history named it (else the default place)
  run_history records;
  std::string machine;
  std::string build;  // the executable's fingerprint; empty when it could not be read
  run_history::moment at;
};

std::shared_ptr<history_plan> plan_history(const run_flags& flags, const clock_source& clock,
                                           const sampler_settings& tuning) {
  if (flags.no_history && flags.history_option->count() > 0) {
    throw usage_error("--history and --no-history contradict each other: give one of them");
  }
  if (flags.no_history) return nullptr;
  auto plan = std::make_shared<history_plan>();
  plan->named = flags.history_option->count() > 0;
  if (plan->named && flags.history.empty()) {
    throw usage_error("--history: the path is empty; give a file, or --no-history");
  }
  plan->path = plan->named ? std::filesystem::path(flags.history) : default_history_path();
  if (plan->path.empty()) return nullptr;
  if (plan->named) {
    // Like -o: a file that cannot be written is found before the run.
    const auto parent = plan->path.parent_path();
    std::error_code ec;
    if (!parent.empty() && !std::filesystem::is_directory(parent, ec)) {
      throw usage_error(
          fmt::format("--history: the folder of '{}' does not exist", plan->path.string()));
    }
  }
  plan->records = run_history::load(plan->path);
  plan->machine = machine_key(clocks::detect_tsc_features().brand, clock.name(),
                              clock.ticks_per_second(), tuning.reference_iterations);
  plan->build = file_fingerprint(platform::executable_path());
  plan->at = run_history::now();
  return plan;
}

// What the history knows, for the runner; the floors only when the build could be identified.
floor_memory memory_of(const std::shared_ptr<history_plan>& plan) {
  floor_memory memory;
  if (!plan) return memory;
  if (const auto fastest = plan->records.fastest_reference(plan->machine, plan->at)) {
    memory.fastest_reference = fastest->reference_ticks;
    memory.fastest_reference_remembered = true;
  }
  if (!plan->build.empty()) {
    memory.floor_of = [plan](std::string_view name, std::uint64_t batch) -> std::optional<double> {
      const auto record = plan->records.floor(plan->machine, plan->build, name, batch, plan->at);
      return record ? std::optional<double>(record->floor) : std::nullopt;
    };
  }
  return memory;
}

// The fastest reference-loop run of a workload's phases and warmup, ticks; 0 when none ran.
std::uint64_t fastest_reference_of(const workload_result& r) {
  std::uint64_t best = r.warmup.reference_best;
  for (const auto* phase : {&r.baseline, &r.prepared}) {
    if (*phase && (*phase)->reference_best > 0)
      best = best == 0 ? (*phase)->reference_best : std::min(best, (*phase)->reference_best);
  }
  return best;
}

// Adds what the run saw to the history and writes it whole. A history that cannot be written is
// a shortfall of the machine, not of the run: a warning, and the run's exit code stands.
void save_history(history_plan& plan, const run_report& report, std::ostream& err) {
  for (const workload_result& r : report.results) {
    if (const std::uint64_t best = fastest_reference_of(r); best > 0)
      plan.records.note_reference(plan.machine, best, plan.at);
    // Every prepared floor, confirmed or not: noise only adds time, so the lowest is the best
    // evidence of what this build can do here.
    if (!plan.build.empty() && r.prepared && r.prepared->floor) {
      plan.records.note_floor(plan.machine, plan.build, r.name, r.prepared->batch,
                              r.prepared->floor->floor, plan.at);
    }
  }
  try {
    std::error_code ec;
    if (!plan.named) std::filesystem::create_directories(plan.path.parent_path(), ec);
    write_file_atomically(plan.path, plan.records.to_json());
  } catch (const output_error& e) {
    fmt::print(err, "harness: warning: the history was not saved: {}\n", e.what());
  }
}

history_use use_of(const std::shared_ptr<history_plan>& plan, const floor_memory& memory) {
  history_use use;
  if (!plan) return use;
  use.path = plan->path.string();
  use.machine = plan->machine;
  use.build = plan->build;
  if (memory.fastest_reference_remembered) use.fastest_reference = memory.fastest_reference;
  return use;
}

std::string render(const report_model& model, report_format format) {
  std::ostringstream text;
  write_report(text, model, format);
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
  if (flags.max_time.empty()) {
    options.max_time = options.auto_samples ? kAutoMaxTime : kConfirmMaxTime;
  } else {
    options.max_time = parse_duration(flags.max_time, "--max-time");
    if (options.max_time.count() == 0) {
      throw usage_error("--max-time: invalid value '0': sampling needs some time; give e.g. 10s");
    }
  }
  options.blocks = parse_positive(flags.blocks, "--blocks", "a positive number of blocks");
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
  const auto& registry = ctx.host.workloads();
  const std::vector<workload_instance> selected =
      flags.workloads.empty() ? registry.default_selection() : registry.select(flags.workloads);
  if (selected.empty()) throw usage_error("no workload is registered");
  auto os = ctx.host.os();
  const platform::cpu_list allowed = os->affinity();
  check_cpu(flags, allowed);
  const clock_source& clock = ctx.host.clock(flags.clock);
  const report_plan plan = plan_report(flags);
  const std::shared_ptr<history_plan> history = plan_history(flags, clock, options.tuning);
  options.memory = memory_of(history);
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
  const doctor::doctor_report health = ctx.host.doctor(checkup);
  if (!flags.no_pin) options.cpu = health.cpu;

  run_report report;
  report.clock = ctx.host.measure_clock(clock);
  report.clock_reason =
      flags.clock.empty() ? ctx.host.default_clock_reason() : "chosen with --clock";
  report.options = options;
  report.history = use_of(history, options.memory);
  report.calibration = ctx.host.calibration();
  report.context = ctx.host.context(doctor::summarize(health));
  report.show_samples = flags.detail || (selected.size() == 1 && !options.auto_samples &&
                                         options.samples <= kMaxListedSamples);
  {
    // SIGINT and SIGTERM end sampling after the current sample; the guard in run_workload restores
    // affinity and priority, and what was gathered is reported.
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
  }
  progress->clear();
  // One analysis, whatever the number of outputs.
  const report_model model = analyze_run(report);
  if (plan.line) {
    print_lines(ctx.out, model, *plan.line);
  } else {
    const console_style style = &ctx.out == &std::cout ? detect_console_style(1) : console_style{};
    write_report(ctx.out, model, *plan.stdout_format, style);
  }
  ctx.out.flush();
  if (history) save_history(*history, report, ctx.err);
  bool written = true;
  if (plan.file) {
    try {
      write_file_atomically(*plan.file, render(model, plan.file_format));
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
                 "interval is within --target at two checks in a row and the floor is confirmed, "
                 "or --max-time has passed)")
      ->capture_default_str();
  app.add_option("--target", flags.target,
                 "With --samples auto: the width of the minimum's 95% interval to reach, in % of "
                 "the minimum")
      ->capture_default_str();
  app.add_option("--max-time", flags.max_time,
                 "The longest a phase may sample (a duration): with --samples auto its ceiling "
                 "(default 10s); otherwise how long the prepared phase may go on taking blocks "
                 "until its floor is confirmed (default 2s)");
  app.add_option("--blocks", flags.blocks,
                 "Take each phase's samples in this many blocks spread out in time (50 ms of the "
                 "reference loop between them); the floor is confirmed when two blocks agree")
      ->capture_default_str();
  flags.history_option = app.add_option(
      "--history", flags.history,
      "The file of floors and host speeds earlier runs showed on this machine, read to catch a "
      "run slowed as a whole and then added to (default: $HARNESS_HISTORY, else "
      "~/.local/state/harness/history.json)");
  app.add_flag("--no-history", flags.no_history,
               "Neither read nor write the history: the floor is checked within this run only");
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
      "--cpu", flags.cpu,
      "CPU to pin to (default: the least-loaded CPU this process may use, preferring one other "
      "than CPU 0; the report says which and why)");
  app.add_flag("--no-pin", flags.no_pin, "Do not pin the process for the prepared samples");
  app.add_option("--priority", flags.priority,
                 "Priority for the prepared samples: normal, high (nice -20) or realtime "
                 "(SCHED_FIFO)")
      ->capture_default_str();
  app.add_flag("--no-baseline", flags.no_baseline, "Skip the unprepared baseline");
  app.add_flag("--detail", flags.detail,
               "List every sample of every phase (without it, the samples are listed when one "
               "workload runs with at most 100 samples per phase)");
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
