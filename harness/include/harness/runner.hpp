// Running one workload through the experiment: cold first call, unprepared baseline, preparation,
// warmup, prepared samples, restore.
//
// Each phase is sampled in blocks spread out in time, with the reference loop running in the gaps
// between them; the floor of the phase is confirmed from its blocks (floor.hpp). The prepared
// phase (and every phase with `--samples auto`) takes more blocks until its floor is confirmed,
// within max_time.
//
// Every figure is in native ticks of the sampling clock. What a sample adds around the workload
// (two clock reads and one call through the registry) is measured in each phase as the timer
// overhead and subtracted; a workload too short to time alone runs `batch` times per sample and
// values are per call. Each sample is checked for disturbance: involuntary context switches (when
// samples are long enough to read them cheaply) and host slow-downs, which a virtual machine's
// guest cannot see, found by timing a short fixed reference loop between samples.
// The runner only measures; reports are made from its results elsewhere.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "harness/clock.hpp"
#include "harness/enum_names.hpp"
#include "harness/floor.hpp"
#include "harness/platform.hpp"
#include "harness/preparation.hpp"
#include "harness/workload.hpp"

namespace harness {

// Tuning of the sampler, gathered here; each value says why.
struct sampler_settings {
  // Empty samples taken to measure the timer overhead: at ~30 ns each, 2000 take well under 1 ms
  // and show the cheapest path many times over.
  std::size_t overhead_samples = 2000;
  // A sample must last this many clock steps, or the workload is batched: at 1000 steps the
  // clock's quantisation is at most 0.1% of a sample.
  double min_sample_steps = 1000;
  // Host slow-downs last seconds, so checking the reference loop about once a millisecond catches
  // them while costing ~0.2% of the sampling time.
  std::chrono::microseconds reference_interval{1000};
  // The reference loop (speed_probe.hpp's multiply chain): ~1.5 us of dependent multiply-adds,
  // long against the clock step and short against a sample's budget.
  std::uint32_t reference_iterations = 1000;
  // Between two blocks the reference loop runs for this long: the blocks are spread out so one
  // slow stretch of the host is less likely to cover them (floor_settings::min_separation asks
  // two agreeing blocks to begin 100 ms apart: blocks two apart are), and the loop reads the
  // host's speed meanwhile. Five blocks add 0.2 s to a phase.
  std::chrono::milliseconds block_gap{50};
  // The baseline's gaps are shorter: it takes no extra blocks, and its floor serves to check the
  // prepared one's, so its blocks need only span the 100 ms two agreeing blocks need (blocks 1
  // and 5 do). The 0.1 s saved goes to the prepared phase's extra blocks, within the wall time
  // a default run had before blocks x 1.5.
  std::chrono::milliseconds baseline_block_gap{25};
  // Before each prepared block after the first, the workload runs untimed for this long, after the
  // gap's reference loop: a workload that learns its input (a branch predictor trained by the same
  // bytes) forgets it in the gap, and its blocks would each start untrained while the first,
  // right after the warmup, did not. 0: no re-warming. (docs/floor.md, "A workload that learns")
  std::chrono::milliseconds block_rewarm{0};
  // With `--samples auto`, a block holds this many samples or a quarter of those taken so far,
  // whichever is more, so the checks (O(n log n) each) cost a small multiple of one summary.
  std::size_t auto_block_samples = 20;
  // How a floor is confirmed.
  floor_settings floor;
  // A reference run this much slower than the phase's best marks the samples around it: the host
  // slow-downs seen here are 1.6-2x, ordinary jitter of the loop stays within ~10%.
  double host_slowdown_factor = 1.3;
  // Context switches are read (getrusage, ~0.4 us a call) only around samples at least this long,
  // keeping the cost under ~4% of the sampling time.
  std::chrono::microseconds switch_count_min_sample{20};
  // A phase stops here whatever its interval or floor, so memory stays bounded (8 bytes a
  // sample): `--samples auto`, or the prepared phase's extra blocks.
  std::size_t auto_max_samples = 10'000'000;
  // Progress is reported at most this often: enough to show a long phase moving, rare enough that
  // the report (a terminal write of a few microseconds, between samples) stays negligible.
  std::chrono::milliseconds progress_interval{250};
};

// How far a phase has got, for a progress line.
struct sampling_progress {
  std::string_view workload;  // display name
  std::string_view stage;     // "unprepared samples", "warmup" or "prepared samples"
  std::size_t done = 0;       // samples taken; warmup: samples' worth of calls made
  std::size_t total = 0;      // samples asked for; 0 when not known in advance (auto, warmup)
  double elapsed_seconds = 0;
  double budget_seconds = 0;  // the warmup's length or auto's --max-time; 0 when none
};
// Called between samples, never while one is timed, at most every progress_interval.
using progress_callback = std::function<void(const sampling_progress&)>;

// What earlier runs showed, for the floor's cross-checks; empty members: nothing known.
struct floor_memory {
  // The fastest reference-loop run known before this workload: this run's earlier phases and
  // workloads, or this machine's history for the sampling clock. Ticks.
  std::optional<std::uint64_t> fastest_reference;
  bool fastest_reference_remembered = false;  // it came from the history
  // The prepared floor earlier runs of this build showed here for a workload (display name) and
  // batch, per call; empty function or nullopt: none remembered.
  std::function<std::optional<double>(std::string_view name, std::uint64_t batch)> floor_of;
};

struct run_options {
  std::size_t samples = 20;  // per phase, unless auto_samples
  bool auto_samples = false;
  double target = 0.001;  // auto: relative width of the min's CI
  // Samples are taken in this many blocks (fewer when there are fewer samples); one block
  // cannot confirm a floor.
  std::size_t blocks = 5;
  // How long a phase may sample: auto's ceiling, and how long the prepared phase may go on
  // taking blocks until its floor is confirmed. The planned blocks of a fixed count always run.
  std::chrono::nanoseconds max_time = std::chrono::seconds(10);
  std::chrono::nanoseconds warmup = std::chrono::milliseconds(1200);  // 0: no warmup
  std::optional<int> cpu;  // pin here; nullopt: do not pin
  platform::priority_level priority = platform::priority_level::high;
  bool baseline = true;                                     // take the unprepared baseline
  bool lock_memory = false;                                 // mlockall during the prepared phase
  std::optional<std::uint64_t> batch;                       // calls per sample; nullopt: calibrate
  std::optional<std::chrono::nanoseconds> min_sample_time;  // nullopt: min_sample_steps x step
  // Under realtime priority, sampling pauses for `realtime_pause` after holding the CPU this long,
  // so the rest of the system (and the kernel's own threads) can run.
  std::chrono::nanoseconds max_hold = std::chrono::seconds(2);
  std::chrono::nanoseconds realtime_pause = std::chrono::milliseconds(20);
  progress_callback progress;  // empty: no progress is reported and none is tracked
  floor_memory memory;
  sampler_settings tuning;
};

enum class phase_kind { first, baseline, prepared };
// A phase's identifier for machine-readable reports ("first": JSON, CSV, --line) and its wording
// for people ("first call").
inline constexpr enum_table<phase_kind, phase_kind::prepared> kPhaseKindNames{{
    {phase_kind::first, "first", "first call"},
    {phase_kind::baseline, "baseline"},
    {phase_kind::prepared, "prepared"},
}};
constexpr const auto& enum_names(phase_kind) noexcept {
  return kPhaseKindNames;
}
// Its instance index among a workload's rows in Google Benchmark's JSON: the enum's order.
constexpr int instance_index(phase_kind kind) noexcept {
  return static_cast<int>(kind);
}

// Why sampling of a phase ended.
enum class stop_reason {
  count,        // the requested samples were taken (and the floor needed no more blocks)
  confirmed,    // the requested samples, then more blocks until the floor was confirmed
  target,       // auto: the target interval was met twice in a row and the floor confirmed
  max_time,     // max_time passed first
  max_samples,  // auto: the sample ceiling came first
  // The blocks agree, and what keeps the floor unconfirmed no further block can change: the
  // build's first run here, or a floor below the earlier runs' (floor_finding::first_of_build,
  // below_remembered). Only another run can confirm it.
  needs_another_run,
  interrupted,
};
// Why a phase's sampling ended, as an identifier (JSON's `stopped_by`) and for people.
inline constexpr enum_table<stop_reason, stop_reason::interrupted> kStopReasonNames{{
    {stop_reason::count, "count", "the requested sample count"},
    {stop_reason::confirmed, "confirmed",
     "the requested samples, then more blocks until the floor was confirmed"},
    {stop_reason::target, "target",
     "the target interval was met at two checks in a row and the floor confirmed"},
    {stop_reason::max_time, "max_time", "--max-time elapsed before sampling could stop"},
    {stop_reason::max_samples, "max_samples", "the sample limit was reached before the target"},
    {stop_reason::needs_another_run, "needs_another_run",
     "the blocks agree; only another run of this build can confirm the floor"},
    {stop_reason::interrupted, "interrupted"},
}};
constexpr const auto& enum_names(stop_reason) noexcept {
  return kStopReasonNames;
}

// The stage of a workload's experiment, in the order they run: where a workload can fail.
enum class run_stage { setup, first_call, batch_calibration, baseline, warmup, prepared, teardown };
// As an identifier (JSON's, CSV's, --line's: "calibration") and for people ("batch calibration").
inline constexpr enum_table<run_stage, run_stage::teardown> kRunStageNames{{
    {run_stage::setup, "setup"},
    {run_stage::first_call, "first", "first call"},
    {run_stage::batch_calibration, "calibration", "batch calibration"},
    {run_stage::baseline, "baseline"},
    {run_stage::warmup, "warmup"},
    {run_stage::prepared, "prepared"},
    {run_stage::teardown, "teardown"},
}};
constexpr const auto& enum_names(run_stage) noexcept {
  return kRunStageNames;
}

// How and where a workload failed: the stage, and within a phase or the warmup the sample (the
// call of `calls_per_sample` calls) it failed in. What was measured before it stays in the result.
struct workload_failure {
  std::string message;        // what it threw (the exception's what()), or what it did wrong
  bool threw = true;          // false: a call returned a count that is none (negative, not the
                              // first call's, more than 1e14 a second: sampler.hpp), or the
                              // benchmark tool reported an error (`harness gbench`: SkipWithError)
  bool making_input = false;  // the fresh input's maker failed (with_fresh_input), not a call
  run_stage stage = run_stage::first_call;
  std::size_t sample = 0;  // 1-based sample of the baseline, warmup or prepared phase; 0: none
  std::size_t block = 0;   // 1-based block of the baseline or prepared phase; 0: none
  std::uint64_t calls_per_sample = 1;

  // "the prepared phase, sample 7 (block 2, 8 calls)", "the first call", "the warmup, sample 3".
  std::string where() const;
  // "threw: MESSAGE", "its fresh input's maker threw: MESSAGE", or "it returned a negative
  // iteration count; ..."
  std::string what() const;
};

// Consecutive samples of a phase taken together, between two gaps.
struct sample_block {
  std::size_t first = 0;     // index of its first sample in phase_result::values
  std::size_t count = 0;     // samples in it
  double start_seconds = 0;  // when it began, seconds of the sampling clock since the phase began
  std::uint64_t reference_best = 0;  // fastest reference run at its start, within it and at its end
};

struct phase_result {
  phase_kind kind = phase_kind::prepared;
  // Ticks per call after the overhead: (raw - overhead) / batch, in sampling order. Raw ticks are
  // kept implicitly: raw(i) gives them back exactly.
  std::vector<double> values;
  std::vector<bool> host_slowdown;   // per sample: the reference loop ran slow around it
  std::vector<bool> context_switch;  // per sample: preempted; empty when not counted
  std::uint64_t batch = 1;           // calls per sample
  std::uint64_t overhead = 0;        // ticks subtracted from each raw sample
  std::size_t reference_every =
      0;  // within a block, the reference loop ran every this-many samples
  std::uint64_t reference_best = 0;   // fastest reference run, ticks, the gaps' runs included
  std::uint64_t reference_worst = 0;  // slowest reference run within the blocks
  std::size_t reference_runs = 0;     // reference runs within the blocks
  std::size_t reference_slow = 0;     // of those, runs slower than host_slowdown_factor x best
  std::vector<sample_block> blocks;   // empty for the first call
  std::size_t requested = 0;          // samples asked for (0 with --samples auto)
  std::optional<floor_check> floor;   // the floor of the blocks; nullopt for the first call
  double elapsed_seconds = 0;         // sampling clock time from the first block's start to the end
  stop_reason stopped_by = stop_reason::count;
  std::size_t realtime_pauses = 0;
  // Samples another tool took (`harness gbench`: one Google Benchmark repetition each): per
  // sample, the iterations it averaged over and the user counters the tool reported for it, as it
  // reported them. Empty for the harness's own samples.
  std::vector<std::uint64_t> sample_iterations;
  std::vector<std::vector<std::pair<std::string, double>>> sample_counters;

  std::uint64_t raw(std::size_t i) const noexcept;
  // The block sample i was taken in, 0-based; blocks.size() when there are no blocks.
  std::size_t block_of(std::size_t i) const noexcept;
  bool disturbed(std::size_t i) const noexcept;
  std::size_t disturbed_count() const noexcept;
  std::size_t host_slowdown_count() const noexcept;
  std::size_t context_switch_count() const noexcept;
};

struct warmup_result {
  std::chrono::nanoseconds requested{0};
  std::chrono::nanoseconds elapsed{0};  // time the warmup loop ran, on the sampling clock
  std::uint64_t calls = 0;
  // Fastest reference-loop run between the warmup's calls (about once per reference_interval),
  // ticks; 0 when none ran. The floor's speed check counts it: the longer the run has watched the
  // host, the likelier it has seen its fastest speed.
  std::uint64_t reference_best = 0;
};

struct workload_result {
  std::string name;  // display name, "xor_loop/4000000"
  // How the file that registered it was compiled (optimisation, assertions): the user's build.
  workload_build build;
  std::optional<phase_result> first;
  std::optional<phase_result> baseline;
  std::optional<phase_result> prepared;
  std::uint64_t iterations_per_call = 0;  // what the workload reported; 0: it reports none
  // What one call processes, as the workload declares it for its argument (workload.hpp's
  // items_per_call / bytes_per_call); nullopt: not declared. Reports turn them into items/s and
  // bytes/s (Google Benchmark's items_per_second / bytes_per_second).
  std::optional<double> items_per_call;
  std::optional<double> bytes_per_call;
  // The setup it declared (with_setup: once per argument; with_fresh_input: before each sample),
  // run outside every timed region.
  workload::setup_kind setup = workload::setup_kind::none;
  // How long with_setup's setup took, seconds of the sampling clock (not in any sample); 0 when
  // there is none. Fresh inputs are made before each sample and not timed at all.
  double setup_seconds = 0;
  std::uint64_t batch = 1;             // calls per sample in baseline and prepared
  bool batch_calibrated = false;       // batch was found by timing, not given by --batch
  std::uint64_t min_sample_ticks = 0;  // the sample length batching aims for
  preparation_report preparation;
  warmup_result warmup;
  std::optional<workload_failure> failure;  // nullopt when the workload ran to the end
  bool interrupted = false;

  bool failed() const noexcept { return failure.has_value(); }
};

// The clock facts the sampler needs, measured once per run.
struct clock_facts {
  const clock_source* clock = nullptr;
  std::uint64_t step = 1;  // smallest difference between two back-to-back reads, ticks
  bool step_measured = false;
  // The smallest amount the clock's value advances by (1 tick for a TSC on bare metal, 10 ns
  // here); this, not the step, bounds how finely a sample is resolved. 0: not measured.
  double granularity = 0;
  double read_cost = 0;  // ticks one read costs; 0: not measured

  // The granularity when measured, else the step (an upper bound of it), else 0.
  double resolution() const noexcept {
    return granularity > 0 ? granularity : step_measured ? static_cast<double>(step) : 0.0;
  }
};
clock_facts measure_clock_facts(const clock_source& clock);

// Runs the experiment for one workload. Affinity and priority are restored before returning, also
// when the workload throws or a stop is requested. Only an exception that escapes the workload's
// own call (first call, batch calibration, warmup, a sample) is the workload's failure: it is kept
// in `failure`, with where it happened and the results gathered before it. Any other exception is
// the harness's own failure and propagates, after affinity, priority and memory locking are put
// back. Throws std::invalid_argument for options it cannot run with (auto sampling with a target
// that is not a positive, finite fraction).
workload_result run_workload(const workload_instance& workload, const run_options& options,
                             const clock_facts& clock, platform::os_interface& os);

// The timer overhead: the cheapest of `samples` empty samples through the sampling path, ticks.
std::uint64_t measure_overhead(const clock_source& clock, std::size_t samples);

// Asks running samplers to stop after the current sample (async-signal-safe), and reads it.
void request_stop(int signal_number) noexcept;
int stop_signal() noexcept;  // 0 while no stop was requested
void clear_stop() noexcept;

}  // namespace harness
