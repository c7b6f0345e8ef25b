// What a run of the experiment gives back, per workload: its phases' samples in blocks, the
// warmup, where it failed; and the clock facts the sampler used (runner.hpp makes them). Every
// figure is in native ticks of the sampling clock. Free of the workload templates and Google
// Benchmark, so the writers and the analysis can read it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "harness/clock.hpp"
#include "harness/cpu_counters.hpp"
#include "harness/enum_names.hpp"
#include "harness/floor.hpp"
#include "harness/preparation.hpp"
#include "harness/workload_facts.hpp"

namespace harness {

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

// One counter over a phase: its count in each sample's calls (scaled when the kernel multiplexed
// it), and over the whole phase, its gaps included (the checks: CPU migrations while pinned).
struct counter_series {
  cpu_counter counter = cpu_counter::task_clock;
  // Per sample, in sampling order: the count over the sample's `batch` calls, read right before
  // and right after its clock reads; NaN where none could be given (the read failed, or the
  // kernel never ran the counter during the sample).
  std::vector<double> counts;
  std::vector<bool> scaled;  // per sample: multiplexed, the count scaled by enabled / running
  std::optional<double> phase_total;  // from the phase's start to its end; nullopt: not read
  bool phase_total_scaled = false;
};

// The check a prepared phase runs when its first block, right after the warmup, lies far below
// every block after a gap (analysis.hpp: learning_finding): a workload that learns its input, or a
// host that slowed after that block? After a gap as the blocks', a block of samples, then the
// workload run for `rewarm_seconds`, then another block. A workload that learns runs the second
// well below the first, as the first block ran below the rest; a host that slowed runs both alike.
struct learning_check_result {
  std::size_t samples = 0;    // in each of the two blocks
  double plain_min = 0;       // ticks per call: the lowest sample of the block after the gap
  double rewarmed_min = 0;    // the lowest of the block after the re-warm
  double rewarm_seconds = 0;  // how long the workload ran between them, on the sampling clock
};

struct phase_result {
  phase_kind kind = phase_kind::prepared;
  // Ticks per call after the overhead: (raw - overhead) / batch, in sampling order. Raw ticks are
  // kept implicitly: raw(i) gives them back exactly.
  std::vector<double> values;
  std::vector<bool> host_slowdown;   // per sample: the reference loop ran slow around it
  std::vector<bool> context_switch;  // per sample: preempted; empty when not counted
  std::vector<int> cpu;     // per sample: the CPU it ended on (-1: not read); empty when never read
  std::uint64_t batch = 1;  // calls per sample
  std::uint64_t overhead = 0;  // ticks subtracted from each raw sample
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
  // The CPU counters that opened (workload_result::counters says which were asked for and why
  // the others did not), one series each in cpu_counter order; empty when none were read.
  std::vector<counter_series> counters;
  // Run when the blocks suggested a workload that learns by its first block alone; its samples
  // are not in `values`.
  std::optional<learning_check_result> learning_check;

  std::uint64_t raw(std::size_t i) const noexcept;
  // The block sample i was taken in, 0-based; blocks.size() when there are no blocks.
  std::size_t block_of(std::size_t i) const noexcept;
  bool disturbed(std::size_t i) const noexcept;
  std::size_t disturbed_count() const noexcept;
  std::size_t host_slowdown_count() const noexcept;
  std::size_t context_switch_count() const noexcept;
  // The samples that ended on each CPU (cpu), ascending by CPU; empty when the CPU was not read.
  std::vector<std::pair<int, std::size_t>> samples_by_cpu() const;
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

// A workload's instructions per call counted under Valgrind's callgrind (`--instructions`):
// exact, whatever the machine, since Valgrind counts the instructions it runs; not times.
struct instruction_count {
  std::string tool;                     // "valgrind-3.19.0, callgrind"
  std::vector<std::uint64_t> per_call;  // each counted call's instructions, in order
  // With --cache-sim: each call's simulated L1 misses (instruction and data) and last-level
  // misses; empty without.
  std::vector<std::uint64_t> l1_misses;
  std::vector<std::uint64_t> ll_misses;
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
  harness::setup_kind setup = harness::setup_kind::none;
  // How long with_setup's setup took, seconds of the sampling clock (not in any sample); 0 when
  // there is none. Fresh inputs are made before each sample and not timed at all.
  double setup_seconds = 0;
  std::uint64_t batch = 1;             // calls per sample in baseline and prepared
  bool batch_calibrated = false;       // batch was found by timing, not given by --batch
  std::uint64_t min_sample_ticks = 0;  // the sample length batching aims for
  min_sample_origin min_sample_source = min_sample_origin::clock_steps;  // where it came from
  // The calls a sample the workload declared it needs (workload::min_batch); 0: none. Whether it
  // raised the batch above what the sample length asked (never with --batch).
  std::uint64_t min_batch = 0;
  bool batch_raised = false;
  preparation_report preparation;
  warmup_result warmup;
  // The CPU counters asked for (run_options::counters), each opened or with the system's reason
  // why not; empty when none were asked for.
  std::vector<counter_status> counters;
  std::optional<instruction_count> instructions;  // --instructions; nullopt: not counted
  std::optional<workload_failure> failure;        // nullopt when the workload ran to the end
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

}  // namespace harness
