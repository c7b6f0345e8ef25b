// slowdown_signals: which signals catch the host's slow stretches on this machine?
//
// The host of a virtual machine slows the guest for stretches of under a millisecond to seconds,
// invisibly to the guest, and not uniformly: the whole core steps between boost levels (every kind
// of loop moves together, in steps of a few percent), and a busy sibling thread on the host slows
// front-end-bound loops while a latency-bound multiply chain runs at full speed. This program
// measures which signal would have flagged the workload's slow stretches.
//
// It pins itself to one CPU, raises its priority, and for --seconds alternates one sample of a
// registered workload with one run of each speed probe (harness/speed_probe.hpp: a dependent
// multiply chain and a tight empty loop), keeping per window of --window-ms the minimum of each
// series. A window minimum is what survives the short disturbances (interrupts, preemption) that
// any sample may catch; what is left slow over a whole window is the host's doing. The summary
// takes the workload's best window as its true speed and asks, window by window:
//   - how often, and how much, the workload ran slow;
//   - which speed levels the multiply chain showed, and how long each lasted;
//   - how well each probe, as a detector ("probe > its best by more than d"), predicted the
//     workload's slow windows: hits, misses, false alarms;
//   - whether dividing the workload by a probe would cancel the slow-down (a constant ratio).
// Ticks are raw readings of the harness's default clock: two clock reads are included in every
// figure, the same in every window, so only ratios within one series compare.
//
// Why one file of ~600 lines: a standalone study program (options, sampling, and the analysis it
// prints) meant to be read and run as one piece.
#include <fmt/format.h>
#include <fmt/ostream.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cmath>
#include <csignal>
#include <cstdint>
#include <fstream>
#include <iostream>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "harness/clock.hpp"
#include "harness/errors.hpp"
#include "harness/platform.hpp"
#include "harness/preparation.hpp"
#include "harness/speed_probe.hpp"
#include "harness/workload.hpp"
#include "study.hpp"

namespace {

constexpr int kExitOk = 0;
constexpr int kExitFailure = 1;  // the CSV file could not be written
constexpr int kExitUsage = 2;    // a bad command line
constexpr int kExitSigint = 130;
constexpr int kExitSigterm = 143;

// Window minimums of the multiply chain within this fraction of a level's lowest belong to that
// level: the host's boost steps measured here are about 3.4% apart, noise within a level well
// under 1%.
constexpr double kLevelWidth = 0.01;
// The workload is slow in a window when its minimum exceeds its best window by more than these.
constexpr double kTruths[] = {0.005, 0.03};
// Detector thresholds: a probe flags a window when its minimum exceeds its best by more than these.
constexpr double kDetectorThresholds[] = {0.01, 0.03};
// How far above best the "share of windows" lines look.
constexpr double kShareThresholds[] = {0.005, 0.03, 0.20};
// Limits on the command line: the windows are stored (48 bytes each, reserved before the run so
// that no window pays for a reallocation), and a window must hold many rounds.
constexpr double kMaxSeconds = 1e6;
constexpr double kMinWindowMs = 0.1;
constexpr double kMaxWindows = 1e7;
// Levels listed one by one; the rest are summed up in one line.
constexpr std::size_t kMaxListedLevels = 12;

struct options {
  std::string workload = "xor_loop/1000000";
  double seconds = 30;
  double window_ms = 50;
  double warmup_ms = 200;
  int cpu = 1;
  std::string priority = "high";
  std::uint32_t multiply_iterations = 1000;
  std::uint32_t tight_iterations = 4000;
  std::string csv;
};

// One window: the minimum of each series over the rounds that ended in it.
struct window {
  double t_seconds = 0;  // start, from the start of the measured run
  double duration_seconds = 0;
  std::uint64_t workload_min = std::numeric_limits<std::uint64_t>::max();
  std::uint64_t multiply_min = std::numeric_limits<std::uint64_t>::max();
  std::uint64_t tight_min = std::numeric_limits<std::uint64_t>::max();
  std::uint64_t samples = 0;
};

volatile std::sig_atomic_t g_stop_signal = 0;

void on_stop_signal(int sig) {
  g_stop_signal = sig;
  std::signal(sig, SIG_DFL);  // a second signal ends the process at once
}

using harness::study::median;

double percent(std::size_t part, std::size_t whole) {
  return whole == 0 ? 0.0 : 100.0 * static_cast<double>(part) / static_cast<double>(whole);
}

// "+3.42%" for a value relative to a base.
std::string above(double value, double base) {
  return fmt::format("{:+.2f}%", 100.0 * (value / base - 1.0));
}

std::string describe_steps(const std::vector<harness::platform::step_result>& steps) {
  std::string text;
  for (const auto& s : steps) {
    if (!text.empty()) text += "; ";
    text += s.applied ? fmt::format("{}: applied", s.action)
                      : fmt::format("{}: refused ({})", s.action, s.reason);
  }
  return text.empty() ? "nothing to apply" : text;
}

// ---------------------------------------------------------------------------------------------
// Measurement

std::vector<window> measure(const options& opt, const harness::workload_instance& workload,
                            const harness::clock_source& clock) {
  const double tps = clock.ticks_per_second();
  const auto window_ticks =
      std::max<std::uint64_t>(1, static_cast<std::uint64_t>(opt.window_ms * 1e-3 * tps));
  const auto total_ticks = static_cast<std::uint64_t>(opt.seconds * tps);
  const auto warmup_ticks = static_cast<std::uint64_t>(opt.warmup_ms * 1e-3 * tps);

  // One round: a workload sample, then each probe, as in the measured run. The session (the
  // setup's state, if any) is made once, as the harness makes it, outside the timing.
  const std::unique_ptr<harness::workload_session> session = workload.start();
  window cur;
  const auto round = [&] {
    session->before_sample(1);
    const std::uint64_t start = clock.now();
    session->run(1);
    const std::uint64_t stop = clock.now();
    cur.workload_min = std::min(cur.workload_min, stop - start);
    cur.multiply_min = std::min(
        cur.multiply_min,
        harness::run_probe(harness::probe_kind::multiply_chain, clock, opt.multiply_iterations));
    cur.tight_min = std::min(cur.tight_min, harness::run_probe(harness::probe_kind::tight_loop,
                                                               clock, opt.tight_iterations));
    ++cur.samples;
  };

  const std::uint64_t warmup_start = clock.now();
  while (g_stop_signal == 0 && clock.now() - warmup_start < warmup_ticks)
    round();

  std::vector<window> windows;
  windows.reserve(static_cast<std::size_t>(total_ticks / window_ticks) + 2);
  const std::uint64_t start = clock.now();
  std::uint64_t boundary = start + window_ticks;
  std::uint64_t window_start = start;
  cur = window{};
  while (g_stop_signal == 0) {
    round();
    const std::uint64_t now = clock.now();
    if (now < boundary) continue;
    // The window ends with the round that crossed its boundary; the next starts here, so windows
    // are contiguous and their durations add up to the run (a round longer than a window, or a
    // preemption, makes one window longer rather than leaving empty ones).
    cur.t_seconds = static_cast<double>(window_start - start) / tps;
    cur.duration_seconds = static_cast<double>(now - window_start) / tps;
    windows.push_back(cur);
    if (now - start >= total_ticks) break;
    boundary = start + ((now - start) / window_ticks + 1) * window_ticks;
    window_start = now;
    cur = window{};
  }
  return windows;
}

// ---------------------------------------------------------------------------------------------
// Analysis

struct level {
  std::uint64_t lowest = 0;
  std::uint64_t highest = 0;
  std::size_t windows = 0;
  std::vector<double> stretches_ms;  // durations of its maximal runs of consecutive windows
  std::vector<double> ratios;        // workload / multiply chain, in its windows
};

// Clusters the multiply chain's window minimums into levels (ascending), and returns the level of
// each window.
std::vector<level> speed_levels(const std::vector<window>& windows,
                                std::vector<std::size_t>& level_of) {
  std::vector<std::uint64_t> sorted;
  for (const auto& w : windows)
    sorted.push_back(w.multiply_min);
  std::sort(sorted.begin(), sorted.end());
  std::vector<level> levels;
  for (const std::uint64_t v : sorted) {
    if (levels.empty() ||
        static_cast<double>(v) > static_cast<double>(levels.back().lowest) * (1 + kLevelWidth)) {
      levels.push_back(level{v, v, 0, {}, {}});
    }
    levels.back().highest = v;
  }
  level_of.clear();
  for (const auto& w : windows) {
    const auto it = std::upper_bound(levels.begin(), levels.end(), w.multiply_min,
                                     [](std::uint64_t v, const level& l) { return v < l.lowest; });
    const auto index = static_cast<std::size_t>(it - levels.begin()) - 1;
    level_of.push_back(index);
    level& l = levels[index];
    ++l.windows;
    l.ratios.push_back(static_cast<double>(w.workload_min) / static_cast<double>(w.multiply_min));
  }
  for (std::size_t i = 0; i < windows.size();) {
    std::size_t j = i;
    double ms = 0;
    while (j < windows.size() && level_of[j] == level_of[i]) {
      ms += windows[j].duration_seconds * 1e3;
      ++j;
    }
    levels[level_of[i]].stretches_ms.push_back(ms);
    i = j;
  }
  return levels;
}

template <class Field>
std::uint64_t best_of(const std::vector<window>& windows, Field field) {
  std::uint64_t best = std::numeric_limits<std::uint64_t>::max();
  for (const auto& w : windows)
    best = std::min(best, w.*field);
  return best;
}

bool slow(std::uint64_t value, std::uint64_t best, double by) {
  return static_cast<double>(value) > static_cast<double>(best) * (1 + by);
}

// ---------------------------------------------------------------------------------------------
// Summary

struct bests {
  std::uint64_t workload, multiply, tight;
};

void print_shares(std::ostream& out, const std::vector<window>& windows, const bests& best,
                  const options& opt, const std::string& workload_name, double tps) {
  fmt::print(out, "\nthe workload's best window minimum: {} ticks = {:.6f} ms\n", best.workload,
             static_cast<double>(best.workload) / tps * 1e3);
  fmt::print(out, "share of windows above the series' best window minimum\n");
  fmt::print(out, "  {:<34} {:>12}", "series", "best ticks");
  for (const double t : kShareThresholds)
    fmt::print(out, " {:>15}", fmt::format("> {:g}%", t * 100));
  fmt::print(out, "\n");
  const auto row = [&](const std::string& name, std::uint64_t window::*field, std::uint64_t b) {
    fmt::print(out, "  {:<34} {:>12}", name, b);
    for (const double t : kShareThresholds) {
      const auto n = static_cast<std::size_t>(std::count_if(
          windows.begin(), windows.end(), [&](const window& w) { return slow(w.*field, b, t); }));
      fmt::print(out, " {:>15}", fmt::format("{} ({:.1f}%)", n, percent(n, windows.size())));
    }
    fmt::print(out, "\n");
  };
  row(fmt::format("workload {}", workload_name), &window::workload_min, best.workload);
  row(fmt::format("multiply chain ({} iterations)", opt.multiply_iterations), &window::multiply_min,
      best.multiply);
  row(fmt::format("tight loop ({} iterations)", opt.tight_iterations), &window::tight_min,
      best.tight);
}

void print_levels(std::ostream& out, const std::vector<window>& windows,
                  const std::vector<level>& levels, const options& opt) {
  fmt::print(out,
             "\nspeed levels of the multiply chain (window minimums within {:g}% of a level's "
             "lowest form a level)\n",
             kLevelWidth * 100);
  fmt::print(out,
             "  stretch: consecutive windows at one level; resolution one window ({:g} ms); the "
             "first and last stretch are cut by the run\n",
             opt.window_ms);
  fmt::print(out,
             "  w/m: the workload's window minimum / the multiply chain's, median over the "
             "level's windows, against the best level's\n");
  fmt::print(out, "  {:>5} {:>9} {:>9} {:>9} {:>8} {:>7} {:>9} {:>10} {:>10} {:>9}\n", "level",
             "lowest", "highest", "vs best", "windows", "share", "stretches", "median ms",
             "longest ms", "w/m");
  const double base_ratio = median(levels.front().ratios);
  const std::size_t listed = std::min(levels.size(), kMaxListedLevels);
  for (std::size_t i = 0; i < listed; ++i) {
    const level& l = levels[i];
    fmt::print(out, "  {:>5} {:>9} {:>9} {:>9} {:>8} {:>6.1f}% {:>9} {:>10.1f} {:>10.1f} {:>9}\n",
               i + 1, l.lowest, l.highest,
               above(static_cast<double>(l.lowest), static_cast<double>(levels.front().lowest)),
               l.windows, percent(l.windows, windows.size()), l.stretches_ms.size(),
               median(l.stretches_ms),
               *std::max_element(l.stretches_ms.begin(), l.stretches_ms.end()),
               above(median(l.ratios), base_ratio));
  }
  if (levels.size() > listed) {
    std::size_t rest = 0;
    for (std::size_t i = listed; i < levels.size(); ++i)
      rest += levels[i].windows;
    fmt::print(out, "  ... {} more levels from {} to {} ticks ({} to {}): {} windows ({:.1f}%)\n",
               levels.size() - listed, levels[listed].lowest, levels.back().highest,
               above(static_cast<double>(levels[listed].lowest),
                     static_cast<double>(levels.front().lowest)),
               above(static_cast<double>(levels.back().highest),
                     static_cast<double>(levels.front().lowest)),
               rest, percent(rest, windows.size()));
  }
}

void print_detectors(std::ostream& out, const std::vector<window>& windows, const bests& best) {
  for (const double truth_by : kTruths) {
    std::vector<bool> truth;
    for (const auto& w : windows)
      truth.push_back(slow(w.workload_min, best.workload, truth_by));
    const auto slow_windows =
        static_cast<std::size_t>(std::count(truth.begin(), truth.end(), true));
    fmt::print(out,
               "\ndetectors against the truth \"workload > its best by more than {:g}%\": {} slow "
               "windows of {}\n",
               truth_by * 100, slow_windows, windows.size());
    fmt::print(out, "  {:<24} {:>6} {:>7} {:>13} {:>7} {:>9} {:>22}\n", "detector", "hits",
               "misses", "false alarms", "quiet", "caught", "alarms that were false");
    for (const double d : kDetectorThresholds) {
      struct detector {
        const char* name;
        int kind;  // 0 multiply, 1 tight, 2 either
      };
      for (const detector det :
           {detector{"multiply", 0}, detector{"tight", 1}, detector{"either", 2}}) {
        std::size_t hits = 0, misses = 0, false_alarms = 0, quiet = 0;
        for (std::size_t i = 0; i < windows.size(); ++i) {
          const bool m = slow(windows[i].multiply_min, best.multiply, d);
          const bool t = slow(windows[i].tight_min, best.tight, d);
          const bool alarm = det.kind == 0 ? m : det.kind == 1 ? t : (m || t);
          if (alarm && truth[i]) ++hits;
          if (!alarm && truth[i]) ++misses;
          if (alarm && !truth[i]) ++false_alarms;
          if (!alarm && !truth[i]) ++quiet;
        }
        const std::string caught =
            slow_windows == 0 ? "-" : fmt::format("{:.1f}%", percent(hits, slow_windows));
        const std::string false_share =
            hits + false_alarms == 0
                ? "-"
                : fmt::format("{:.1f}%", percent(false_alarms, hits + false_alarms));
        fmt::print(out, "  {:<24} {:>6} {:>7} {:>13} {:>7} {:>9} {:>22}\n",
                   fmt::format("{} > best +{:g}%", det.name, d * 100), hits, misses, false_alarms,
                   quiet, caught, false_share);
      }
    }
  }
}

void print_ratios(std::ostream& out, const std::vector<window>& windows) {
  fmt::print(
      out,
      "\nnormalising by a probe: the workload's window minimum / the probe's window minimum\n"
      "  (constant across windows: dividing by the probe would cancel the slow-downs)\n");
  fmt::print(out, "  {:<16} {:>10} {:>10} {:>10} {:>10}", "divided by", "min", "median", "max",
             "max/min");
  for (const double t : kTruths)
    fmt::print(out, " {:>16}", fmt::format("> min +{:g}%", t * 100));
  fmt::print(out, "\n");
  const auto row = [&](const char* name, std::uint64_t window::*probe) {
    std::vector<double> r;
    for (const auto& w : windows)
      r.push_back(static_cast<double>(w.workload_min) / static_cast<double>(w.*probe));
    const double lo = *std::min_element(r.begin(), r.end());
    const double hi = *std::max_element(r.begin(), r.end());
    fmt::print(out, "  {:<16} {:>10.3f} {:>10.3f} {:>10.3f} {:>10}", name, lo, median(r), hi,
               above(hi, lo));
    for (const double t : kTruths) {
      const auto n = static_cast<std::size_t>(
          std::count_if(r.begin(), r.end(), [&](double x) { return x > lo * (1 + t); }));
      fmt::print(out, " {:>16}", fmt::format("{} ({:.1f}%)", n, percent(n, r.size())));
    }
    fmt::print(out, "\n");
  };
  row("multiply chain", &window::multiply_min);
  row("tight loop", &window::tight_min);
  fmt::print(out,
             "  the last columns count windows whose ratio is that far above its lowest: compare "
             "with the workload's own shares above\n");
}

void print_summary(std::ostream& out, const std::vector<window>& windows, const options& opt,
                   const std::string& workload_name, double tps) {
  if (windows.size() < 2) {
    fmt::print(out, "\n{} window(s): too few to compare; run longer or with shorter windows\n",
               windows.size());
    return;
  }
  const bests best{best_of(windows, &window::workload_min), best_of(windows, &window::multiply_min),
                   best_of(windows, &window::tight_min)};
  print_shares(out, windows, best, opt, workload_name, tps);
  std::vector<std::size_t> level_of;
  const std::vector<level> levels = speed_levels(windows, level_of);
  print_levels(out, windows, levels, opt);
  print_detectors(out, windows, best);
  print_ratios(out, windows);
}

// ---------------------------------------------------------------------------------------------

void check(const options& opt, const harness::platform::cpu_list& allowed) {
  if (!std::isfinite(opt.seconds) || opt.seconds <= 0) {
    throw harness::usage_error(fmt::format(
        "--seconds: invalid value '{}': expected a positive number of seconds", opt.seconds));
  }
  if (!std::isfinite(opt.window_ms) || opt.window_ms <= 0) {
    throw harness::usage_error(
        fmt::format("--window-ms: invalid value '{}': expected a positive number of milliseconds",
                    opt.window_ms));
  }
  if (opt.seconds > kMaxSeconds) {
    throw harness::usage_error(fmt::format(
        "--seconds: invalid value '{}': expected at most {:g} seconds", opt.seconds, kMaxSeconds));
  }
  if (opt.window_ms < kMinWindowMs) {
    throw harness::usage_error(
        fmt::format("--window-ms: invalid value '{}': expected at least {:g} ms (one round of the "
                    "probes and a short workload must fit many times)",
                    opt.window_ms, kMinWindowMs));
  }
  if (opt.seconds * 1e3 / opt.window_ms > kMaxWindows) {
    throw harness::usage_error(fmt::format(
        "--seconds {} in windows of {} ms make more than {:g} windows: give longer windows or a "
        "shorter run",
        opt.seconds, opt.window_ms, kMaxWindows));
  }
  if (opt.window_ms * 1e-3 > opt.seconds) {
    throw harness::usage_error(
        fmt::format("--window-ms: {} ms is longer than the run (--seconds {}): give a shorter "
                    "window or a longer run",
                    opt.window_ms, opt.seconds));
  }
  if (!std::isfinite(opt.warmup_ms) || opt.warmup_ms < 0) {
    throw harness::usage_error(fmt::format(
        "--warmup-ms: invalid value '{}': expected 0 or a positive number of milliseconds",
        opt.warmup_ms));
  }
  if (opt.multiply_iterations == 0) {
    throw harness::usage_error(
        "--multiply-iterations: invalid value '0': expected a positive number of iterations");
  }
  if (opt.tight_iterations == 0) {
    throw harness::usage_error(
        "--tight-iterations: invalid value '0': expected a positive number of iterations");
  }
  harness::study::check_cpu(opt.cpu, allowed);
}

int run(const options& opt) {
  auto os = harness::platform::make_native_os();
  check(opt, os->affinity());
  const harness::workload_instance workload = harness::study::one_workload(opt.workload);
  std::optional<std::ofstream> csv;
  if (!opt.csv.empty()) {
    // A file that cannot be written is found before the run, not after it.
    csv.emplace(opt.csv);
    if (!*csv) {
      fmt::print(std::cerr, "slowdown_signals: --csv: cannot write '{}'\n", opt.csv);
      return kExitFailure;
    }
  }
  const harness::clock_source& clock = harness::default_clock();

  harness::preparation prep(*os);
  prep.apply(harness::study::plan_of(opt.cpu, opt.priority));

  fmt::print(
      "slowdown_signals: {} on CPU {}, {:g} s in windows of {:g} ms (after {:g} ms of "
      "warmup)\n",
      workload.display_name(), opt.cpu, opt.seconds, opt.window_ms, opt.warmup_ms);
  fmt::print(
      "  clock: {}, {:.0f} ticks/s; every figure is raw ticks of one timed call (two clock "
      "reads included)\n",
      clock.name(), clock.ticks_per_second());
  fmt::print("  preparation: {}\n", describe_steps(prep.report().steps));
  fmt::print("  each round: one workload sample, a multiply chain of {}, a tight loop of {}\n",
             opt.multiply_iterations, opt.tight_iterations);
  std::cout.flush();

  std::vector<window> windows;
  {
    const auto old_int = std::signal(SIGINT, on_stop_signal);
    const auto old_term = std::signal(SIGTERM, on_stop_signal);
    windows = measure(opt, workload, clock);
    std::signal(SIGINT, old_int);
    std::signal(SIGTERM, old_term);
  }
  prep.restore();

  const int sig = g_stop_signal;
  if (sig != 0) fmt::print("  interrupted: the summary covers the windows completed so far\n");
  std::vector<double> counts;
  for (const auto& w : windows)
    counts.push_back(static_cast<double>(w.samples));
  if (!windows.empty()) {
    fmt::print("  windows: {}; rounds per window: min {:g}, median {:g}, max {:g}\n",
               windows.size(), *std::min_element(counts.begin(), counts.end()), median(counts),
               *std::max_element(counts.begin(), counts.end()));
  }
  print_summary(std::cout, windows, opt, workload.display_name(), clock.ticks_per_second());

  int status = sig == SIGTERM ? kExitSigterm : sig != 0 ? kExitSigint : kExitOk;
  if (csv) {
    fmt::print(*csv, "t_seconds,workload_min,multiply_min,tight_min,samples\n");
    for (const auto& w : windows) {
      fmt::print(*csv, "{:.6f},{},{},{},{}\n", w.t_seconds, w.workload_min, w.multiply_min,
                 w.tight_min, w.samples);
    }
    csv->close();
    if (!*csv) {
      fmt::print(std::cerr, "slowdown_signals: --csv: writing '{}' failed\n", opt.csv);
      if (status == kExitOk) status = kExitFailure;
    } else {
      fmt::print("\nwindows written to {}\n", opt.csv);
    }
  }
  return status;
}

constexpr const char* kFooter = R"(
Examples:
  slowdown_signals                                   xor_loop/1000000, 30 s in 50 ms windows
  slowdown_signals --seconds 300 --csv windows.csv   five minutes, one CSV row per window
  slowdown_signals -w sort_ints/10000 --window-ms 20 another workload, shorter windows

Exit codes: 0 done, 1 the CSV file could not be written, 2 a bad command line, 130/143 interrupted
(the summary then covers the windows completed so far).)";

}  // namespace

int main(int argc, char** argv) {
  options opt;
  CLI::App app{
      "slowdown_signals: which signals catch the host's slow stretches? Alternates samples of a "
      "workload with two speed probes (a multiply chain and a tight loop) and compares their "
      "minimums window by window",
      "slowdown_signals"};
  app.footer(kFooter);
  app.add_option("-w,--workload", opt.workload,
                 "The workload to sample: NAME or NAME/ARG, one registered workload")
      ->capture_default_str();
  app.add_option("--seconds", opt.seconds, "How long to measure, in seconds")
      ->capture_default_str();
  app.add_option("--window-ms", opt.window_ms, "Window length in milliseconds")
      ->capture_default_str();
  app.add_option("--warmup-ms", opt.warmup_ms,
                 "Rounds run and discarded before the measured run, in milliseconds")
      ->capture_default_str();
  app.add_option("--cpu", opt.cpu, "The CPU to pin to")->capture_default_str();
  app.add_option("--priority", opt.priority, "Priority while measuring: high (nice -20) or normal")
      ->check(CLI::IsMember({"high", "normal"}))
      ->capture_default_str();
  app.add_option("--multiply-iterations", opt.multiply_iterations,
                 "Iterations of the multiply-chain probe")
      ->capture_default_str();
  app.add_option("--tight-iterations", opt.tight_iterations, "Iterations of the tight-loop probe")
      ->capture_default_str();
  app.add_option("--csv", opt.csv,
                 "Write one row per window: t_seconds,workload_min,multiply_min,tight_min,samples");
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    fmt::print(std::cerr, "slowdown_signals: {}\nRun 'slowdown_signals --help' for the options.\n",
               e.what());
    return kExitUsage;
  }
  try {
    return run(opt);
  } catch (const harness::usage_error& e) {
    fmt::print(std::cerr, "slowdown_signals: {}\n", e.what());
    return kExitUsage;
  } catch (const std::exception& e) {
    fmt::print(std::cerr, "slowdown_signals: error: {}\n", e.what());
    return kExitFailure;
  }
}
