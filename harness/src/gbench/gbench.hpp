// `harness gbench`: an existing Google Benchmark binary, run unprepared and prepared, its
// repetitions turned into the harness's own raw results so that analyze_run() and every writer
// report it as they report `harness run`.
//
// The model:
// - one sample is one repetition of one benchmark: Google Benchmark's real_time per iteration,
//   the mean over that repetition's iterations, in nanoseconds (its time_unit converted);
// - one block is one invocation of the binary (`--benchmark_repetitions=K`): the phase's samples
//   are spread over `blocks` invocations, each a new process, which is what the floor's blocks
//   ask for (floor.hpp): minimums taken apart in time, here also in separate processes;
// - the baseline's invocations run as the user runs the binary (the harness's own affinity and
//   priority, no warmup); the prepared ones are started held, pinned and raised through the
//   child's pid, read back, then released, with `--benchmark_min_warmup_time`.
// Internal to the harness.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "harness/clock.hpp"
#include "harness/run_report.hpp"
#include "harness/runner.hpp"
#include "platform/child_process.hpp"

namespace harness::gbench {

// One repetition of one benchmark as the binary's JSON file has it (run_type "iteration").
struct repetition {
  std::string name;  // run_name (name in files without it)
  std::uint64_t iterations = 0;
  double real_ns = 0;  // real_time per iteration, converted to nanoseconds
  double cpu_ns = 0;
  std::optional<double> items_per_second;  // Google Benchmark's rate counters
  std::optional<double> bytes_per_second;
  // The user's other counters, in the file's order, as Google Benchmark finished them.
  std::vector<std::pair<std::string, double>> counters;
  std::optional<std::string> error;  // error_message when error_occurred (SkipWithError)
};

// What one invocation wrote.
struct output {
  std::vector<repetition> repetitions;  // in the file's order; aggregates are left out
  std::string library_build_type;       // context.library_build_type; empty when absent
};

// Text that is not a Google Benchmark JSON file; the message says what was wrong.
class gbench_output_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Reads a `--benchmark_out_format=json` file. Throws gbench_output_error.
output parse_output(std::string_view text);

// The flags the harness sets itself, and why; a user's flag among the binary's arguments that
// sets one of them is refused (usage_error naming it and what to give instead).
void check_binary_args(const std::vector<std::string>& args);

// What one invocation of the binary adds: every repetition row of `out`, as the block
// `start_seconds` after its phase began, to the result of its benchmark (created in `results`
// when new, in the order benchmarks first appear). A repetition with an error is that
// benchmark's failure in `phase`; once failed, a benchmark takes no more samples.
void add_invocation(std::vector<workload_result>& results, const output& out, phase_kind phase,
                    double start_seconds);

// Closes a phase of every result: its floor from its blocks (the prepared one against the
// baseline's, and against the floor `memory` holds for its benchmark when it keeps floors),
// elapsed time, samples requested and why it stopped.
void finish_phase(std::vector<workload_result>& results, phase_kind phase, std::size_t requested,
                  double elapsed_seconds, bool interrupted, const floor_settings& settings,
                  const floor_memory& memory);

// The clock of a gbench report: Google Benchmark's nanoseconds as the binary reported them. It is
// never read: the harness times nothing itself here.
const clock_source& reported_nanoseconds();

// Seconds as Google Benchmark's flags take them: a plain number, which every version from 1.5
// reads (1.8 also takes "0.05s", which older ones refuse).
std::string seconds_flag(std::chrono::nanoseconds d);

// How a gbench run is asked for.
struct settings {
  std::filesystem::path binary;
  std::vector<std::string> args;  // the user's own, passed through
  std::size_t repetitions = 20;   // per phase
  std::size_t blocks = 5;         // invocations per phase (fewer when there are fewer repetitions)
  std::chrono::nanoseconds min_time = std::chrono::milliseconds(50);  // per repetition
  std::chrono::nanoseconds warmup = std::chrono::milliseconds(1200);  // per benchmark, in all
  bool baseline = true;
  std::optional<int> cpu;
  platform::priority_level priority = platform::priority_level::high;
  std::filesystem::path work_dir;  // where the invocations' files go; the caller removes it
  // The floors earlier runs of this binary showed here, per benchmark (the history); its
  // reference-loop speed is not used: no reference loop runs.
  floor_memory memory;
  // While a child runs, whether it ended and whether a stop was requested are checked this often:
  // rarely enough to cost nothing measurable (a wake-up of a few microseconds), often enough that
  // a stop is passed on at once.
  std::chrono::milliseconds poll_interval{20};
  // Told before each invocation, e.g. "prepared invocation 2 of 5"; empty: nothing is told.
  std::function<void(std::string_view)> progress;
};

// The repetitions of each invocation of a phase: `repetitions` over `blocks`, the first ones one
// more when they do not divide.
std::vector<std::size_t> block_sizes(std::size_t repetitions, std::size_t blocks);

// The arguments of one invocation: the user's, then the harness's own.
std::vector<std::string> invocation_args(const settings& s, std::size_t repetitions, bool prepared,
                                         const std::filesystem::path& json_file);

// The binary failed as a whole: it could not be started, crashed, exited non-zero, or wrote no
// Google Benchmark JSON. The message says which, with the last lines of its stderr.
class binary_failed : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};
// Throws binary_failed: `what` the binary did, with the last lines of its stderr (`err_file`).
[[noreturn]] void throw_binary_failed(const std::string& what,
                                      const std::filesystem::path& err_file);
// A file's whole text; `found` says whether it could be opened ("" when not).
std::string read_all(const std::filesystem::path& file, bool& found);

// How a prepared invocation is prepared: pinned here (nullopt: not pinned), and raised.
struct child_preparation {
  std::optional<int> cpu;
  platform::priority_level priority = platform::priority_level::high;
};

// One invocation from launch to end: started held, prepared when `how` is given (what was applied
// and read back goes to `report`), released (logged as "LABEL: pid N"), then polled every `poll`
// with stop requests (runner.hpp's stop_signal) passed on; a child that ignores one is killed
// after 2 s. Returns how it ended, or nullopt when a stop came before it did (`stopped` then holds
// the signal; what it wrote is not to be trusted). Throws binary_failed when it could not be
// started or executed. Never leaves it running.
std::optional<platform::child_exit> run_child(platform::process_launcher& launcher,
                                              const platform::child_spec& spec,
                                              const child_preparation* how,
                                              preparation_report* report,
                                              std::chrono::milliseconds poll,
                                              std::string_view label, int& stopped);

// What an invocation that ended wrote to its --benchmark_out file; `what` names it in messages
// ("'./bench' (baseline invocation 1 of 5)"). Throws binary_failed, with the last lines of its
// stderr: it exited other than with 0, wrote no file or not Google Benchmark's JSON, or ran no
// benchmark.
output read_invocation(const platform::child_exit& exit, const std::filesystem::path& json_file,
                       const std::filesystem::path& err_file, const std::string& what);

// What a gbench run gathered.
struct outcome {
  std::vector<workload_result> results;
  std::optional<std::string> failure;  // the binary_failed message, when it ended the run
  int stop_signal = 0;                 // the stop request that ended it; 0: none
  std::string library_build_type;      // the binary's Google Benchmark library build, as it said
};

// Runs the phases: each invocation launched through `launcher`, its stop requests (runner.hpp's
// stop_signal) passed on to it, its JSON added. Never leaves a child running.
outcome run(const settings& s, platform::process_launcher& launcher);

}  // namespace harness::gbench
