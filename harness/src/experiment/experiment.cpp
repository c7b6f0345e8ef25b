// The experiment for one workload, in the Stopwatch article's order: timer overhead, cold first
// call, batch calibration, unprepared baseline, preparation, warmup, prepared samples, restore.
//
// Errors (docs/errors.md): only an exception that escapes the workload's own call (the sampler
// hands it on as detail::workload_threw), or a negative iteration count it returned, is the
// workload's failure, kept in workload_result::failure with the stage and sample it happened in.
// Any other exception is the harness's own failure: it leaves run_workload, after the preparation
// guard's destructor has put affinity, priority and memory locking back.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

#include "experiment/sampler.hpp"
#include "harness/log.hpp"
#include "harness/runner.hpp"

namespace harness {
namespace {

// A cold first call is often 2-4x slower than a warm one; a workload whose first call is within
// this factor of the goal may be short once warm, so it is calibrated (three calls suffice).
constexpr std::uint64_t kColdCallSlowdown = 4;

phase_result single_sample(phase_kind kind, std::uint64_t raw, std::uint64_t overhead) {
  phase_result phase;
  phase.kind = kind;
  phase.overhead = overhead;
  phase.values.push_back(static_cast<double>(raw) - static_cast<double>(overhead));
  phase.host_slowdown.push_back(false);
  return phase;
}

// What run_workload's caller may get wrong: checked at the public API's edge (the command line
// checks its own flags first, so there this never fires).
void check_options(const run_options& options) {
  if (options.auto_samples && !(options.target > 0 && std::isfinite(options.target))) {
    throw std::invalid_argument(
        fmt::format("run_workload: target {} is not a positive, finite fraction of the minimum",
                    options.target));
  }
}

// Says on the log (level info) and on the progress channel, when there is one, which stage of
// the experiment begins.
void announce(const run_options& options, const std::string& name, std::string_view stage,
              std::string_view detail = {}) {
  logger().info("{}: {}{}", name, stage, detail);
  if (options.progress) options.progress({.workload = name, .stage = stage});
}

// The phases in order, into `result`; preparation is applied through `prep` before the warmup.
void run_phases(detail::live_workload workload, const run_options& options,
                const clock_facts& facts, platform::os_interface& os, preparation& prep,
                workload_result& result, run_stage& stage) {
  const clock_source& clock = *facts.clock;
  // The counters count from here on; each phase reads them around its samples.
  counter_opening counters;
  if (!options.counters.empty()) counters = os.open_counters(options.counters);
  result.counters = counters.status;
  workload.counters = counters.reader.get();
  workload.counted = detail::opened_counters(counters.status);
  // The overhead is measured first: it runs no workload code, so the first call stays cold.
  const std::uint64_t cold_overhead = measure_overhead(clock, options.tuning.overhead_samples);
  announce(options, result.name, "cold first call");
  stage = run_stage::first_call;
  std::uint64_t iterations = 0;
  detail::sample_counting first_counts(workload.counters, workload.counted, 1);
  const std::uint64_t first_raw = detail::timed_sample(
      workload.session, clock, 1, iterations, first_counts.active() ? &first_counts : nullptr);
  // Every sample's count is checked against this one (sampler.hpp: check_iteration_count).
  workload.iterations_per_call = iterations;
  detail::check_iteration_count(workload, 1, iterations, first_raw, cold_overhead, facts);
  result.first = single_sample(phase_kind::first, first_raw, cold_overhead);
  first_counts.record();
  result.first->counters = first_counts.finish();
  result.iterations_per_call = iterations;

  // A sample lasts 1000 steps of back-to-back reads: longer than both the clock's granularity
  // and its read cost, whose jitter the overhead subtraction leaves in each sample; or as long as
  // the workload declared, when longer; --min-sample-time decides when given.
  const min_sample_length length = choose_min_sample(
      options.min_sample_time
          ? std::optional(detail::seconds_to_ticks(*options.min_sample_time, clock))
          : std::nullopt,
      static_cast<std::uint64_t>(options.tuning.min_sample_steps * static_cast<double>(facts.step)),
      workload.min_sample_time ? detail::seconds_to_ticks(*workload.min_sample_time, clock) : 0);
  result.min_sample_ticks = length.ticks;
  result.min_sample_source = length.origin;
  if (options.batch) {
    result.batch = *options.batch;
  } else if (first_raw - std::min(first_raw, cold_overhead) <
             kColdCallSlowdown * result.min_sample_ticks) {
    stage = run_stage::batch_calibration;
    result.batch =
        detail::calibrate_batch(workload.session, clock, cold_overhead, result.min_sample_ticks);
    result.batch_calibrated = true;
  }
  // The workload's own count of calls a sample (workload::min_batch), when the length asked
  // fewer; --batch decides when given.
  const std::uint64_t length_batch = result.batch;
  result.min_batch = workload.min_batch;
  if (!options.batch) {
    const raised_batch chosen = raise_to_min_batch(result.batch, workload.min_batch);
    result.batch = chosen.batch;
    result.batch_raised = chosen.raised;
  }
  // What one sample should last, to pace the side checks: the calibration's goal (scaled by a
  // raised batch), or the cold first call (an upper bound) times the batch.
  const double expected_seconds =
      result.batch_calibrated
          ? clock.to_seconds(result.min_sample_ticks) * static_cast<double>(result.batch) /
                static_cast<double>(length_batch)
          : clock.to_seconds(first_raw) * static_cast<double>(result.batch);

  // The floor's context: the clock's granularity per call, and the fastest reference run known
  // (the history's, then the baseline's too).
  floor_context floor;
  floor.granularity = facts.resolution() / static_cast<double>(result.batch);
  floor.reference_step = facts.resolution();
  floor.fastest_reference = options.memory.fastest_reference;
  floor.fastest_reference_remembered = options.memory.fastest_reference_remembered;

  if (options.baseline && stop_signal() == 0) {
    announce(options, result.name, "unprepared samples", fmt::format(" (batch {})", result.batch));
    stage = run_stage::baseline;
    // Only `--samples auto` extends the baseline: taking blocks until its floor is confirmed
    // would warm it up, and it is there to show the unprepared run.
    result.baseline = detail::sample_phase({phase_kind::baseline, result.batch, cold_overhead,
                                            expected_seconds, options.auto_samples, floor},
                                           workload, options, facts, os);
    if (result.baseline->reference_best > 0 &&
        (!floor.fastest_reference || result.baseline->reference_best < *floor.fastest_reference)) {
      floor.fastest_reference = result.baseline->reference_best;
      floor.fastest_reference_remembered = false;
    }
    if (result.baseline->floor) {
      floor.baseline_floor = result.baseline->floor->floor;
      floor.baseline_floor_cpu = result.baseline->floor->floor_cpu;
    }
  }

  if (stop_signal() == 0) {
    prep.apply(preparation_plan{options.cpu, options.priority, options.lock_memory});
    announce(
        options, result.name, "warmup",
        fmt::format(" for {} ms",
                    std::chrono::duration_cast<std::chrono::milliseconds>(options.warmup).count()));
    stage = run_stage::warmup;
    result.warmup = detail::warm_up(workload, result.batch, options, clock);
    if (const std::uint64_t r = result.warmup.reference_best;
        r > 0 && (!floor.fastest_reference || r < *floor.fastest_reference)) {
      floor.fastest_reference = r;
      floor.fastest_reference_remembered = false;
    }
  }
  if (stop_signal() == 0) {
    // Measured again now that the process is pinned, raised and warm.
    const std::uint64_t overhead = measure_overhead(clock, options.tuning.overhead_samples);
    announce(options, result.name, "prepared samples");
    stage = run_stage::prepared;
    if (options.memory.floor_of) {
      floor.remembers_floors = true;
      floor.remembered_floor = options.memory.floor_of(result.name, result.batch);
      floor.remembered_cpu = options.memory.floors_cpu;
    }
    result.prepared = detail::sample_phase(
        {phase_kind::prepared, result.batch, overhead, expected_seconds, true, floor}, workload,
        options, facts, os);
  }
}

}  // namespace

workload_result run_workload(const workload_instance& workload, const run_options& options,
                             const clock_facts& facts, platform::os_interface& os) {
  check_options(options);
  workload_result result;
  result.name = workload.display_name();
  result.build = workload.def->build();
  result.items_per_call = workload.def->items_for(workload.arg.value_or(0));
  result.bytes_per_call = workload.def->bytes_for(workload.arg.value_or(0));
  // Asked before anything runs: a function that gives a count out of range throws
  // std::invalid_argument (workload_registry::select refuses such an argument first).
  const std::uint64_t min_batch = workload.def->min_batch_for(workload.arg.value_or(0)).value_or(0);
  result.setup = workload.def->setup();
  preparation prep(os);
  run_stage stage = run_stage::setup;
  std::unique_ptr<workload_session> session;
  const auto keep_failure = [&](const detail::workload_threw& e) {
    const bool in_samples =
        stage == run_stage::baseline || stage == run_stage::warmup || stage == run_stage::prepared;
    result.failure = workload_failure{.message = e.message(),
                                      .threw = e.threw(),
                                      .making_input = e.making_input(),
                                      .stage = stage,
                                      .sample = e.sample(),
                                      .block = e.block(),
                                      .calls_per_sample = in_samples ? result.batch : 1};
  };
  try {
    // The setup runs before the timer overhead and the first call, untimed.
    if (workload.def->setup() != workload::setup_kind::none)
      announce(options, result.name, "setup");
    const std::uint64_t setup_begin = facts.clock->now();
    try {
      session = workload.start();
    } catch (...) {
      detail::rethrow_as_workload_threw();
    }
    if (result.setup == workload::setup_kind::per_argument)
      result.setup_seconds = facts.clock->to_seconds(facts.clock->now() - setup_begin);
    run_phases({*session, result.name, 0, nullptr, {}, workload.def->min_sample_time(), min_batch},
               options, facts, os, prep, result, stage);
  } catch (const detail::workload_threw& e) {
    keep_failure(e);
  }
  // The teardown runs after the last call, whatever happened to the calls.
  if (session) {
    const run_stage reached = stage;
    stage = run_stage::teardown;
    try {
      try {
        session->finish();
      } catch (...) {
        detail::rethrow_as_workload_threw();
      }
    } catch (const detail::workload_threw& e) {
      if (!result.failed()) {
        keep_failure(e);
      } else {
        logger().error("{}: its teardown threw too, after it failed in the {}: {}", result.name,
                       to_string(reached), e.message());
      }
    }
    session.reset();
  }
  result.interrupted = stop_signal() != 0;
  prep.restore();
  result.preparation = prep.report();
  if (result.failed()) {
    logger().error("{}: failed in {}: {}", result.name, result.failure->where(),
                   result.failure->what());
  }
  return result;
}

}  // namespace harness
