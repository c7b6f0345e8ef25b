// `harness run`'s options: declared on the CLI11 app, and checked into run_options before any run
// starts.
#include "run_flags.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <iterator>
#include <limits>
#include <optional>

#include "base/numbers.hpp"
#include "cli.hpp"
#include "harness/duration.hpp"
#include "harness/errors.hpp"

namespace harness::cli {

std::uint64_t parse_whole(const std::string& text, std::string_view option,
                          std::string_view accepted) {
  // Digits only: from_chars into an unsigned type refuses a sign, and one too large for 64 bits.
  std::uint64_t n = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (text.empty() || ec != std::errc{} || end != text.data() + text.size()) {
    throw usage_error(fmt::format("{}: invalid value '{}': expected {}", option, text, accepted));
  }
  return n;
}

std::uint64_t parse_positive(const std::string& text, std::string_view option,
                             std::string_view accepted) {
  const std::uint64_t n = parse_whole(text, option, accepted);
  if (n == 0 || n > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
    throw usage_error(fmt::format("{}: invalid value '{}': expected {}", option, text, accepted));
  }
  return n;
}

namespace {

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

}  // namespace

double parse_percentage(const std::string& text, std::string_view option, bool zero_allowed,
                        std::string_view expected) {
  std::string_view digits = text;
  const bool percent_sign = !digits.empty() && digits.back() == '%';
  if (percent_sign) digits.remove_suffix(1);
  double percent = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), percent);
  const bool number = !digits.empty() && ec == std::errc{} &&
                      end == digits.data() + digits.size() && std::isfinite(percent);
  const bool in_range = zero_allowed ? percent >= 0 : percent > 0;
  if (number && !percent_sign && in_range) {
    // 0 is 0% either way: one reading to offer, not the same one twice.
    if (percent == 0) {
      throw usage_error(
          fmt::format("{}: invalid value '{}': give a percentage with its percent sign, such as 0%",
                      option, text));
    }
    throw usage_error(fmt::format(
        "{}: invalid value '{}': give a percentage with its percent sign: {}% for {} percent, or "
        "{} for the fraction {}",
        option, text, text, text, percent_significant_text(percent, 6), text));
  }
  if (!number || !percent_sign || !in_range) {
    throw usage_error(fmt::format("{}: invalid value '{}': expected {}", option, text, expected));
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

void check_cpu(const run_flags& flags, const platform::cpu_list& allowed) {
  if (flags.no_pin && flags.cpu_option->count() > 0) {
    throw usage_error("--cpu and --no-pin contradict each other: give one of them");
  }
  check_cpu_allowed(flags.cpu_option, flags.cpu, allowed);
}

void check_cpu_allowed(const CLI::Option* cpu_option, int cpu, const platform::cpu_list& allowed) {
  if (allowed.empty()) throw usage_error("this process may run on no CPU at all");
  if (cpu_option->count() > 0 && std::find(allowed.begin(), allowed.end(), cpu) == allowed.end()) {
    throw usage_error(
        fmt::format("--cpu: CPU {} is not one this process may run on; allowed CPUs: {}", cpu,
                    platform::format_cpu_list(allowed)));
  }
}

doctor::doctor_report checkup_of(const CLI::Option* cpu_option, int cpu,
                                 const platform::cpu_list& allowed, context& ctx) {
  doctor::doctor_options checkup;
  checkup.allowed = allowed;
  if (cpu_option->count() > 0) checkup.cpu = cpu;
  return ctx.host.doctor(checkup);
}

std::chrono::nanoseconds positive_duration(const std::string& text, std::string_view option,
                                           std::string_view why) {
  const std::chrono::nanoseconds d = parse_duration(text, option, false);
  if (d.count() == 0)
    throw usage_error(fmt::format("{}: invalid value '{}': {}", option, text, why));
  return d;
}

namespace {

bool given(const CLI::Option* option) {
  return option != nullptr && option->count() > 0;
}

}  // namespace

std::vector<cpu_counter> parse_counters(const std::string& text) {
  if (text == "none") return {};
  std::vector<cpu_counter> all = all_cpu_counters();
  if (text == "default") return all;
  const auto of_kind = [&](bool hardware) {
    std::vector<cpu_counter> list;
    std::copy_if(all.begin(), all.end(), std::back_inserter(list),
                 [&](cpu_counter c) { return is_hardware(c) == hardware; });
    return list;
  };
  if (text == "software") return of_kind(false);
  if (text == "hardware") return of_kind(true);
  const auto accepted = [&] {
    std::vector<std::string_view> ids;
    for (const cpu_counter c : all)
      ids.push_back(id_of(c));
    return fmt::format("none, default, software, hardware, or a comma-separated list of {}",
                       fmt::join(ids, ", "));
  };
  std::vector<cpu_counter> list;
  std::size_t at = 0;
  while (at <= text.size()) {
    const std::size_t comma = std::min(text.find(',', at), text.size());
    const std::string id = text.substr(at, comma - at);
    const std::optional<cpu_counter> c = parse_id<cpu_counter>(id);
    if (!c) {
      throw usage_error(fmt::format("--counters {}: {} is no counter; accepted: {}", text,
                                    id.empty() ? std::string("an empty name") : "'" + id + "'",
                                    accepted()));
    }
    if (std::find(list.begin(), list.end(), *c) != list.end())
      throw usage_error(fmt::format("--counters {}: {} is named twice", text, id));
    list.push_back(*c);
    at = comma + 1;
  }
  return list;
}

run_options options_from(const run_flags& flags) {
  run_options options;
  if (flags.samples == "auto") {
    options.auto_samples = true;
  } else {
    options.samples = parse_positive(flags.samples, "--samples", "a positive integer or auto");
  }
  options.target = parse_target(flags.target);
  if (given(flags.target_option) && !options.auto_samples) {
    throw usage_error(fmt::format(
        "--target {} only applies with --samples auto (sampling until the minimum's interval is "
        "that narrow); add -n auto, or drop --target",
        flags.target));
  }
  if (flags.max_time.empty()) {
    options.max_time = options.auto_samples ? kAutoMaxTime : kConfirmMaxTime;
  } else {
    options.max_time =
        positive_duration(flags.max_time, "--max-time", "sampling needs some time; give e.g. 10s");
  }
  options.blocks = parse_positive(flags.blocks, "--blocks", "a positive number of blocks");
  options.tuning.block_rewarm = std::chrono::duration_cast<std::chrono::milliseconds>(
      parse_duration(flags.block_rewarm, "--block-rewarm"));
  if (!flags.batch.empty()) {
    options.batch = parse_positive(flags.batch, "--batch", "a positive number of calls per sample");
  }
  if (!flags.min_sample_time.empty()) {
    if (options.batch) {
      throw usage_error(fmt::format(
          "--min-sample-time {} and --batch {} both set the calls per sample: give one of them",
          flags.min_sample_time, flags.batch));
    }
    options.min_sample_time = positive_duration(
        flags.min_sample_time, "--min-sample-time",
        "a sample lasts at least one call; for one call per sample give --batch 1");
  }
  options.priority = parse_priority(flags.priority);
  options.max_hold =
      positive_duration(flags.max_hold, "--max-hold",
                        "give the longest time realtime sampling may hold the CPU, e.g. 2s");
  if (given(flags.max_hold_option) && options.priority != platform::priority_level::realtime) {
    throw usage_error(fmt::format(
        "--max-hold {} only applies with --priority realtime (a SCHED_FIFO sampler pauses after "
        "holding the CPU that long); add --priority realtime, or drop --max-hold",
        flags.max_hold));
  }
  options.lock_memory = flags.lock_memory;
  options.counters = parse_counters(flags.counters);
  if (flags.cache_sim && !flags.instructions) {
    throw usage_error(
        "--cache-sim only applies with --instructions (callgrind simulates the caches while it "
        "counts); add --instructions, or drop --cache-sim");
  }
  options.warmup = parse_duration(flags.warmup, "--warmup");
  options.baseline = !flags.no_baseline;
  // An empty -o would otherwise read as no -o at all, and the report the user asked for would
  // silently go nowhere.
  if (flags.output_option != nullptr && flags.output_option->count() > 0 && flags.output.empty()) {
    throw usage_error("--output: the path is empty; give a file name such as 'report.json'");
  }
  return options;
}

void add_run_options(CLI::App& app, run_flags& flags, std::string_view program) {
  app.add_option("-w,--workload", flags.workloads,
                 "Workload to run: NAME, a glob (* and ?), NAME/ARG, NAME/A,B,C (a list), "
                 "NAME/LO..HI:xF (LO, LO*F, ... and HI) or NAME/LO..HI:+S (LO, LO+S, ... up to "
                 "HI); each argument is its own result; repeatable, and what two patterns both "
                 "select runs once (default: the default workload)");
  app.add_option("-n,--samples", flags.samples,
                 "Samples per phase: a positive integer, or auto (sample until the minimum's 95% "
                 "interval is within --target at two checks in a row and the floor is confirmed, "
                 "or --max-time has passed)")
      ->capture_default_str();
  flags.target_option =
      app.add_option(
             "--target", flags.target,
             "With --samples auto: the width of the minimum's 95% interval to reach, in % of "
             "the minimum")
          ->capture_default_str();
  app.add_option("--max-time", flags.max_time,
                 "The longest a phase may sample (a duration): with --samples auto its ceiling "
                 "(default 10s); otherwise how long the prepared phase may go on taking blocks "
                 "until its floor is confirmed (default 500ms)");
  app.add_option("--blocks", flags.blocks,
                 "Take each phase's samples in this many blocks spread out in time (the reference "
                 "loop runs between them: 50 ms in the prepared phase, 25 ms in the baseline); the "
                 "floor is confirmed when two blocks agree")
      ->capture_default_str();
  app.add_option("--block-rewarm", flags.block_rewarm,
                 "Before each prepared block after the first, run the workload untimed for this "
                 "long (a duration; 0: not), so a workload that learns its input starts every "
                 "block trained, as the first starts after the warmup")
      ->capture_default_str();
  add_history_options(app, flags);
  add_store_options(app, flags.store);
  app.add_option("--batch", flags.batch,
                 "Calls per sample (default: calibrated so a sample lasts --min-sample-time)");
  app.add_option("--min-sample-time", flags.min_sample_time,
                 "Shortest sample before batching kicks in (default: 1000 steps of the clock)");
  app.add_option("--clock", flags.clock,
                 fmt::format("Clock to sample with (see `{} clocks`; default: the cheapest fine "
                             "monotonic wall clock)",
                             program));
  app.add_flag("--lock-memory", flags.lock_memory,
               "Lock the process's memory (mlockall) for the prepared phase");
  app.add_option("--counters", flags.counters,
                 "CPU counters read around every sample, outside its clock reads, and reported "
                 "per call at the floor and median samples: none, default (the software set, and "
                 "the hardware counters that open; those that do not are reported with the "
                 "kernel's reason), software, hardware, or a list such as "
                 "task-clock,page-faults,cpu-migrations (Linux perf_event_open; Windows has none)")
      ->capture_default_str();
  app.add_flag("--instructions", flags.instructions,
               "After the run, count each workload's instructions per call exactly under "
               "Valgrind's callgrind (5 calls after an uncounted one; Debian package valgrind)");
  app.add_flag("--cache-sim", flags.cache_sim,
               "With --instructions: also callgrind's simulated L1 and last-level cache misses "
               "per call");
  flags.max_hold_option =
      app.add_option("--max-hold", flags.max_hold,
                     "With --priority realtime: the longest sampling holds the CPU before pausing "
                     "20 ms for the rest of the system")
          ->capture_default_str();
  add_preparation_options(app, flags);
  add_phase_and_report_options(app, flags);
}

void add_history_options(CLI::App& app, run_flags& flags) {
  flags.history_option = app.add_option(
      "--history", flags.history,
      "A JSON file of the floors (and host speeds) earlier runs showed on this machine, read to "
      "catch a run slowed as a whole and then added to (default: $HARNESS_HISTORY, else kept in "
      "the results store, --db)");
  app.add_flag("--no-history", flags.no_history,
               "Neither read nor write the history: the floor is checked within this run only");
}

void add_preparation_options(CLI::App& app, run_flags& flags) {
  app.add_option("--warmup", flags.warmup,
                 "Warmup before the prepared samples: a duration with unit ns, us, ms or s; 0 "
                 "disables")
      ->capture_default_str();
  flags.cpu_option = app.add_option("--cpu", flags.cpu,
                                    "CPU to pin to (default: the least-loaded CPU this process may "
                                    "use, preferring one other "
                                    "than CPU 0; the report says which and why)")
                         ->check(cpu_number());
  app.add_flag("--no-pin", flags.no_pin, "Do not pin the process for the prepared samples");
  app.add_option("--priority", flags.priority,
                 "Priority for the prepared samples: normal, high (nice -20) or realtime "
                 "(SCHED_FIFO)")
      ->capture_default_str();
}

void add_phase_and_report_options(CLI::App& app, run_flags& flags) {
  app.add_flag("--no-baseline", flags.no_baseline, "Skip the unprepared baseline");
  app.add_flag("--detail", flags.detail,
               "The whole console report: every sample, both phases' statistics, the clock's "
               "reasons, the block minimums and the preparation's steps (without it: about ten "
               "lines a workload, the answer first)");
  app.add_option("--format", flags.format,
                 "Report format: console, json (Google Benchmark's schema), csv (one row per "
                 "sample), markdown (the summary table) or html (a self-contained page of "
                 "charts). Without -o it is what stdout gets; with -o it is the file's format "
                 "(default: from the file's extension), and stdout keeps the console report");
  flags.output_option = app.add_option(
      "-o,--output", flags.output,
      "Also write the report to FILE, whole or not at all (a link is followed, a device or "
      "FIFO written in place); the format comes from the extension (.json, .csv, .md, .txt, "
      ".html) "
      "unless --format is given");
  flags.line_option = app.add_option(
      "--line", flags.line,
      "Print one line per workload and phase in this template instead of the console report, "
      "e.g. '{workload} {phase}: min {min}, median {median}'. Tokens: {workload} {phase} "
      "{samples} {runs} {ticks} {time} {frequency} {ns_per_run} {per_run} {min} {median} {max} "
      "{spread} {verdict} {disturbed} {confirmed} {floor} {clock} {0} {1} {2}; specs as in fmt "
      "({min:.3e}); {{ and "
      "}} for braces. Without a spec, counts are grouped and times carry units, for people; with "
      "one, the plain value, for scripts: {frequency:.0f} {runs:d} {min:.9e}");
  app.add_option("--log-level", flags.log_level, "Log level on stderr")
      ->check(CLI::Validator(
          [](const std::string& level) -> std::string {
            for (const char* known : {"trace", "debug", "info", "warn", "error", "off"})
              if (level == known) return {};
            return fmt::format(
                "invalid value '{}': expected trace, debug, info, warn, error or off", level);
          },
          "LEVEL"))
      ->capture_default_str();
}

}  // namespace harness::cli
