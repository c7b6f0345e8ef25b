// `harness run`'s command line: the flags as typed, their options on the CLI11 app, and their
// checking into run_options. Internal header of cli/.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "harness/doctor.hpp"
#include "harness/platform.hpp"
#include "harness/runner.hpp"
#include "store_options.hpp"

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace harness::cli {

struct context;  // cli.hpp

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
  CLI::Option* target_option = nullptr;
  std::string max_time;  // empty: kAutoMaxTime with --samples auto, else kConfirmMaxTime
  std::string blocks = "5";
  std::string block_rewarm = "0";
  std::string history;  // empty: history_path_from's default (run_history.cpp)
  CLI::Option* history_option = nullptr;
  bool no_history = false;
  std::string batch;
  std::string min_sample_time;
  bool lock_memory = false;
  std::string counters = "default";
  bool instructions = false;  // also count instructions per call under valgrind
  bool cache_sim = false;     // ... with callgrind's cache simulation
  std::string max_hold = "2s";
  CLI::Option* max_hold_option = nullptr;
  std::string format;  // empty: console on stdout, or the file's extension with -o
  std::string output;  // empty: no file (-o '' is refused by options_from)
  CLI::Option* output_option = nullptr;
  std::string line;
  CLI::Option* line_option = nullptr;
  store_flags store;  // --save, --db, --commit, --branch, --tag
};

// Lists every sample when one workload runs with at most this many; beyond, only with --detail.
inline constexpr std::size_t kMaxListedSamples = 100;

// --max-time's defaults. With --samples auto a phase samples until its target: 10 s bounds a
// 1 ms workload at 10,000 samples. Otherwise it bounds the prepared phase, with the extra blocks
// it takes until its floor is confirmed: 0.5 s keeps a default run of a workload under 1 ms
// within 1.5x the wall time it took before blocks (1.47 s then, 2.1 s now when the floor is
// never confirmed, 1.8 s when the planned blocks confirm it; docs/benchmarks.md).
inline constexpr std::chrono::seconds kAutoMaxTime{10};
inline constexpr std::chrono::milliseconds kConfirmMaxTime{500};

// What several commands' options share: a whole number that 64 bits hold, 0 included, and a
// positive one up to the int64 maximum (`accepted` says what is, in the error), a duration above
// zero (`why` says what zero would mean), a priority level (normal, high, realtime). Each throws
// usage_error naming the option and the bad value.
std::uint64_t parse_whole(const std::string& text, std::string_view option,
                          std::string_view accepted);
std::uint64_t parse_positive(const std::string& text, std::string_view option,
                             std::string_view accepted);
std::chrono::nanoseconds positive_duration(const std::string& text, std::string_view option,
                                           std::string_view why);
platform::priority_level parse_priority(const std::string& text);
// A percentage with its percent sign ("0.5%" -> 0.005; a bare "0.5" could mean 0.5% or 50%),
// above 0, or 0 or more when `zero_allowed`; `expected` says what is accepted, in the error.
double parse_percentage(const std::string& text, std::string_view option, bool zero_allowed,
                        std::string_view expected);

// --counters: none, default (every counter; the hardware ones where they open), software,
// hardware, or a comma-separated list of counter ids (task-clock,page-faults); throws usage_error
// naming a bad or repeated id and the accepted ones.
std::vector<cpu_counter> parse_counters(const std::string& text);

// Registers every option of `run` on `app`, writing into `flags`; `program` is the command as
// invoked, which the help names.
void add_run_options(CLI::App& app, run_flags& flags, std::string_view program);
// The parts of them `gbench` shares: --history, --no-history; --warmup, --cpu, --no-pin,
// --priority; and --no-baseline, --detail, --format, -o, --line, --log-level.
void add_history_options(CLI::App& app, run_flags& flags);
void add_preparation_options(CLI::App& app, run_flags& flags);
void add_phase_and_report_options(CLI::App& app, run_flags& flags);

// The sampling options the flags ask for; throws usage_error naming a bad value and what is
// accepted, or options that mean nothing together (--target without --samples auto, --max-hold
// without --priority realtime, --min-sample-time with --batch). Where to pin is the doctor's to say
// (run_command.cpp).
run_options options_from(const run_flags& flags);

// The CPU to pin to: --cpu when given (it must be one the process may run on), else the doctor's
// choice (the least-loaded allowed CPU, preferring one other than CPU 0). Throws usage_error.
void check_cpu(const run_flags& flags, const platform::cpu_list& allowed);
// The part of it every command with --cpu shares (ab too): some CPU is allowed, and --cpu, when
// given (cpu_option counted it), is one of them.
void check_cpu_allowed(const CLI::Option* cpu_option, int cpu, const platform::cpu_list& allowed);
// The doctor's checks of this machine over the allowed CPUs, with the CPU it chooses to pin to:
// the one --cpu names when it was given.
doctor::doctor_report checkup_of(const CLI::Option* cpu_option, int cpu,
                                 const platform::cpu_list& allowed, context& ctx);

}  // namespace harness::cli
