// `harness ab`'s command line: the flags as typed, their checking into ab_options, where the
// report goes, and the two ways to run it (two workloads here, or two builds as workers).
// Internal header of cli/.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli.hpp"
#include "harness/ab.hpp"
#include "harness/ab_report.hpp"
#include "harness/format_template.hpp"
#include "harness/report.hpp"
#include "run_command.hpp"
#include "store_options.hpp"

namespace CLI {
class Option;
}  // namespace CLI

namespace harness {
class progress_sink;
}  // namespace harness

namespace harness::cli {

// Two builds: fresh pairs of worker processes per comparison, and how they take their turns. On
// the host measured (docs/ab.md, "Turns or duet, and how many pairs") turns held as well as the
// duet or better, on one CPU; past 5 pairs each buys less of the interval (t / sqrt(n): 1.24 at 5,
// 0.72 at 10), and 5 keep a memory-bound comparison at about 13 s.
inline constexpr std::size_t kDefaultPairs = 5;
inline constexpr const char* kDefaultLayout = "turns";

// The measured rounds' time. Two workloads: up to 5 s, but they stop on a verdict settled at 2, 3
// or 4 s, so only a pair still unsure at 2 s pays for more (docs/ab.md: on a busy host,
// memory-bound A/A pairs came within +-0.5% in 115 of 120 with 2 s, in 119 of 120 so, while
// compute-bound pairs decide well inside 2 s). Two builds: 2 s a pair of processes, with no stop
// on a settled verdict: their interval is over the pairs, whose spread more rounds within a pair
// do not narrow.
inline constexpr const char* kWorkloadsMaxTime = "5s";
inline constexpr const char* kDefaultDecideAfter = "2s";
inline constexpr const char* kBuildsMaxTime = "2s";

struct ab_flags {
  std::vector<std::string> specs;
  // Two builds: the binaries, how many fresh pairs of workers, how they take their turns, and how
  // long a worker may take beyond what a command should take.
  std::string a;
  CLI::Option* a_option = nullptr;
  std::string b;
  CLI::Option* b_option = nullptr;
  std::string pairs = std::to_string(kDefaultPairs);
  CLI::Option* pairs_option = nullptr;
  std::string layout = kDefaultLayout;
  CLI::Option* layout_option = nullptr;
  std::string worker_timeout = "10s";
  CLI::Option* worker_timeout_option = nullptr;
  std::string warmup = "500ms";
  std::string max_time;  // empty: kWorkloadsMaxTime, or kBuildsMaxTime with --a and --b
  CLI::Option* max_time_option = nullptr;
  std::string decide_after;  // empty: kDefaultDecideAfter, unless --max-time is given
  CLI::Option* decide_after_option = nullptr;
  std::string target = "0.04%";
  std::string threshold = "0.5%";
  std::string fail_if_slower;
  std::string order;  // not given: balanced for two builds, alternate for two workloads
  CLI::Option* order_option = nullptr;
  std::string seed = "1";
  int cpu = -1;
  CLI::Option* cpu_option = nullptr;
  bool no_pin = false;
  std::string priority = "high";
  std::string batch;
  std::string min_sample_time;
  std::string clock;
  std::string format;
  std::string output;
  CLI::Option* output_option = nullptr;
  std::string line;
  CLI::Option* line_option = nullptr;
  std::string log_level = "warn";
  store_flags store;          // --save, --db, --commit, --branch, --tag
  bool instructions = false;  // also B's instructions over A's, counted under valgrind
  bool cache_sim = false;
};

// Where the report goes, decided before the first round.
using ab_output_plan = report_plan;

// Every flag checked into options (what both ways share); throws usage_error.
ab_options ab_options_from(const ab_flags& flags);
// Also opens the store --save names (plan.save; usage_error when it cannot be used).
ab_output_plan plan_ab_output(const ab_flags& flags, const context& ctx);
// The progress line for the rounds, when stderr is a terminal; empty otherwise.
std::function<void(const ab_progress&)> ab_progress_to(
    const std::shared_ptr<progress_sink>& progress);
// `harness ab --a BIN --b BIN WORKLOAD` (ab_builds.cpp): the workload in worker processes of the
// two binaries, several fresh pairs of them.
int run_ab_builds(const ab_flags& flags, context& ctx);

// One side of --instructions: the harness binary that runs the workload under callgrind.
struct counted_side {
  std::filesystem::path binary;
  std::string workload;
};
// --instructions, after the rounds: A's and B's instructions per call counted under Valgrind's
// callgrind (instructions.hpp), and B/A of their medians, into report.instructions. As `run` does,
// a count Valgrind could not give, or one a signal cut short, is said on ctx.err and the timed
// report goes on without it: false then. Throws usage_error when valgrind is gone from the PATH.
bool count_ab_instructions(ab_report& report, const counted_side& a, const counted_side& b,
                           bool cache_sim, context& ctx);

// Prints the report as planned and gives the exit code: 130/143 interrupted, 1 the file could not
// be written or saved or the instructions not counted (counted false), 4 the gate failed, else 0.
int finish_ab(const ab_report& report, const ab_output_plan& plan, context& ctx,
              bool counted = true);

}  // namespace harness::cli
