// `harness gbench --vs OLD -- NEW`: two Google Benchmark binaries, benchmark by benchmark, in
// paired invocations, answered as `harness ab` answers (ab.hpp, ab_report.hpp).
//
// - Each binary lists its benchmarks first (`--benchmark_list_tests`, with the user's arguments,
//   so a --benchmark_filter of theirs chooses); a benchmark only one lists is reported, not
//   compared.
// - Per benchmark both list (in OLD's order), the binaries are invoked in turn, ABBA: OLD NEW,
//   NEW OLD, OLD NEW..., each with `--benchmark_filter=^NAME$` (the name's regex characters
//   escaped) and a few short repetitions, every invocation started held, pinned to the same CPU and
//   raised as gbench's prepared ones are (gbench.hpp's run_child).
// - Invocation i of OLD and invocation i of NEW are round i: a_min and b_min are the lowest
//   real_time per iteration (ns) of each one's repetitions. Each side goes first in half the
//   rounds, so a host that slows down or speeds up over a round falls on both alike; each round's
//   processes are new, so their page placement and layout vary from round to round and the
//   median of the round ratios rests on many of them, not on one.
// - Rounds run until the interval's half-width is under the target at checks_in_a_row checks,
//   or max_time (per benchmark) passes; then estimate_rounds() per benchmark.
// Internal to the harness.
#pragma once

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gbench/gbench.hpp"
#include "harness/ab.hpp"
#include "harness/ab_report.hpp"

namespace harness::gbench {

// --vs's defaults and tuning, gathered here; each says why.
namespace vs_defaults {
// Repetitions per invocation, and the shortest of each (--benchmark_min_time). The invocation's
// figure is their minimum: many short ones find the host's fast stretches, where few long ones
// average its slow ones in (on the 2-CPU development VM, loaded, 3 x 10 ms gave B/A of +1% of
// work as +0.65% to +1.48%, 20 x 0.5 ms +1.00% every time; docs/gbench.md). 0.5 ms still holds
// 50 iterations of a 10 us benchmark, and an invocation near 20 ms with the process's start, so
// a round is two of them, some 30 rounds per benchmark in the default --max-time.
inline constexpr std::size_t repetitions = 20;
inline constexpr std::chrono::microseconds min_time{500};
// The child's end is looked for this often: every wait is a round's dead time (20 ms, gbench's
// interval, took a quarter of each invocation), and a wake-up every 2 ms costs a few microseconds.
inline constexpr std::chrono::milliseconds poll_interval{2};
// Per benchmark: the rounds stop here whatever the interval.
inline constexpr std::chrono::seconds max_time{3};
// The interval's relative half-width to reach: adjacent processes of two builds agree to about
// 0.1% (docs/floor.md: B/A of +1% of work from processes run one after the other, +0.90% to
// +1.06%), so a tighter target would only run until --max-time.
inline constexpr double target = 0.001;
// The interval is checked first after this many rounds (an order-statistic 95% interval of the
// median needs 6; 10 keep one lucky stretch from stopping the run), then every 2: a round costs
// two processes, not microseconds.
inline constexpr std::size_t min_rounds = 10;
inline constexpr std::size_t check_every = 2;
}  // namespace vs_defaults

// ab_options as --vs uses them: its budgets and checks (vs_defaults), the rest as `harness ab`.
ab_options default_vs_options();

struct vs_settings {
  std::filesystem::path old_binary;  // A
  std::filesystem::path new_binary;  // B
  std::vector<std::string> args;     // the user's own, passed to both
  std::size_t repetitions = vs_defaults::repetitions;
  std::chrono::nanoseconds min_time = vs_defaults::min_time;
  // --benchmark_min_warmup_time of every invocation; 0: not passed (Google Benchmark's iteration
  // estimate runs the benchmark before its first repetition anyway).
  std::chrono::nanoseconds warmup{0};
  // max_time (per benchmark), target, threshold, cpu, priority, the wall clock (now_ns) and the
  // checks (tuning.min_rounds, check_every, checks_in_a_row, max_rounds); order and seed are not
  // used: the order is ABBA.
  ab_options options = default_vs_options();
  std::filesystem::path work_dir;  // where the invocations' files go; the caller removes it
  std::chrono::milliseconds poll_interval = vs_defaults::poll_interval;
  // Told before each invocation, e.g. "BM_copy/4096: round 3, 0.4 s of 3.0 s"; empty: nothing.
  std::function<void(std::string_view)> progress;
};

// The benchmarks a `--benchmark_list_tests` run printed, one a line, in its order.
std::vector<std::string> parse_list(std::string_view text);

// A --benchmark_filter that matches `name` alone: anchored, with the characters of POSIX extended
// regular expressions (what Google Benchmark compiles the filter as) escaped.
std::string exact_filter(std::string_view name);

// The arguments of one invocation for one benchmark: the user's, then the harness's own (its
// filter last, so it is the one Google Benchmark keeps).
std::vector<std::string> vs_invocation_args(const vs_settings& s, std::string_view benchmark,
                                            const std::filesystem::path& json_file);

struct vs_outcome {
  std::vector<ab_benchmark> benchmarks;  // those both list, in OLD's order, as far as they got
  std::vector<std::string> only_in_old;
  std::vector<std::string> only_in_new;
  // The first invocation's preparation, with the refusals later ones met that it did not.
  std::optional<preparation_report> preparation;
  std::optional<std::string> failure;  // a binary failed as a whole (binary_failed's message)
  int stop_signal = 0;                 // the stop request that ended it; 0: none
  bool debug_library = false;   // either binary's Google Benchmark says it was built as debug
  std::size_t invocations = 0;  // of both binaries, the listings included
};

// Lists both binaries' benchmarks, then runs each benchmark both list in rounds; conclude() is
// the caller's. Never leaves a child running.
vs_outcome run_vs(const vs_settings& s, platform::process_launcher& launcher);

}  // namespace harness::gbench
