// The sampler: one phase's samples in blocks, with the reference loop in the gaps between them and
// beside the samples (host slow-downs), context switches counted around long samples, the CPU
// counters read around every sample (counting.hpp), progress
// paced, a real-time sampler's hold on the CPU limited; and the warmup, which takes the same path.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <exception>
#include <limits>
#include <optional>
#include <thread>
#include <vector>

#include "base/numbers.hpp"
#include "experiment/sampler.hpp"
#include "harness/analysis.hpp"
#include "harness/duration.hpp"
#include "harness/log.hpp"
#include "harness/statistics.hpp"

namespace harness::detail {

void rethrow_as_workload_threw(bool making_input) {
  try {
    throw;
  } catch (const negative_count_error& e) {
    throw workload_threw(e.what(), false, making_input);
  } catch (const std::exception& e) {
    throw workload_threw(e.what(), true, making_input);
  } catch (...) {
    throw workload_threw("an exception not derived from std::exception", true, making_input);
  }
}

void check_iteration_count(const live_workload& workload, std::uint64_t calls, std::uint64_t count,
                           std::uint64_t raw, std::uint64_t overhead, const clock_facts& facts) {
  const std::uint64_t per_call = workload.iterations_per_call;
  // The invoker sums the calls' counts modulo 2^64: so does the product.
  if (count != per_call * calls) {
    throw workload_threw(
        fmt::format("{} returned {} iterations, not {}the first call's {}: an iteration count is "
                    "the same in every call, and the time per iteration divides by it; return "
                    "the number of iterations a call does, or void (pass a value to keep from "
                    "the optimiser to benchmark::DoNotOptimize)",
                    calls == 1 ? std::string("the call") : fmt::format("its {} calls", calls),
                    count, calls == 1 ? std::string() : fmt::format("{} times ", calls), per_call),
        false);
  }
  if (per_call == 0) return;
  const double measured = std::max(0.0, static_cast<double>(raw) - static_cast<double>(overhead));
  const double seconds =
      facts.clock->to_seconds(1) * (measured + std::max(1.0, facts.resolution()));
  const double rate = static_cast<double>(per_call) * static_cast<double>(calls) / seconds;
  if (rate > kMaxIterationsPerSecond) {
    throw workload_threw(
        fmt::format("it returned {} iterations a call, and {} call{} took at most {}: {} "
                    "iterations a second, more than any CPU does ({}); such a count is not one "
                    "(size_t's npos, a checksum), or the loop was optimised away; return the "
                    "number of iterations a call does, or void",
                    per_call, calls, calls == 1 ? "" : "s", format_seconds(seconds, kSpanFormat),
                    significant_text(rate, 3), significant_text(kMaxIterationsPerSecond, 6)),
        false);
  }
}

namespace {

// Pauses a real-time sampler once it has held the CPU for max_hold, so it never starves the
// system (the kernel's RT throttling would otherwise step in after 950 ms of every second). The
// hold is measured on the sampling clock, as every other length of the sampler is: a test's fake
// clock then decides when it pauses, and a CPU-time clock counts exactly the time it held the CPU.
class hold_guard {
 public:
  hold_guard(const run_options& options, const clock_source& clock, bool active)
      : active_(active && options.priority == platform::priority_level::realtime),
        clock_(clock),
        max_hold_(seconds_to_ticks(options.max_hold, clock)),
        pause_(options.realtime_pause),
        since_(active_ ? clock.now() : 0) {}

  // Called between samples; returns true when it paused.
  bool between_samples() {
    if (!active_) return false;
    if (clock_.now() - since_ < max_hold_) return false;
    std::this_thread::sleep_for(pause_);
    since_ = clock_.now();
    return true;
  }

 private:
  bool active_;
  const clock_source& clock_;
  std::uint64_t max_hold_;
  std::chrono::nanoseconds pause_;
  std::uint64_t since_;
};

// A reference run and where it ran: before the sample with this index.
struct reference_mark {
  std::size_t before_sample;
  std::uint64_t ticks;
};

// Marks the samples next to slow reference runs: a slow-down may begin anywhere between two runs,
// so the run before a sample and the run after it both speak for it.
void classify_host_slowdowns(phase_result& phase, const std::vector<reference_mark>& refs,
                             double factor) {
  phase.host_slowdown.assign(phase.values.size(), false);
  phase.reference_runs = refs.size();
  if (refs.empty()) return;
  std::uint64_t worst = 0;
  for (const reference_mark& r : refs) {
    phase.reference_best =
        phase.reference_best == 0 ? r.ticks : std::min(phase.reference_best, r.ticks);
    worst = std::max(worst, r.ticks);
  }
  phase.reference_worst = worst;
  const double limit = factor * static_cast<double>(phase.reference_best);
  const auto slow = [&](const reference_mark& r) { return static_cast<double>(r.ticks) > limit; };
  for (const reference_mark& r : refs)
    phase.reference_slow += slow(r) ? 1 : 0;
  // refs are in sampling order: walk them beside the samples.
  std::size_t j = 0;  // first run not before sample i
  for (std::size_t i = 0; i < phase.values.size(); ++i) {
    while (j < refs.size() && refs[j].before_sample <= i)
      ++j;
    const bool before = j > 0 && slow(refs[j - 1]);
    const bool after = j < refs.size() && slow(refs[j]);
    phase.host_slowdown[i] = before || after;
  }
}

// Calls options.progress at most every progress_interval of `clock`'s time; free when no callback
// is set. The caller fills in what the update says.
class progress_pacer {
 public:
  progress_pacer(const run_options& options, const clock_source& clock, std::uint64_t begin)
      : options_(options),
        clock_(clock),
        begin_(begin),
        interval_(seconds_to_ticks(options.tuning.progress_interval, clock)),
        next_(begin + interval_) {}

  bool active() const noexcept { return static_cast<bool>(options_.progress); }

  // Reports `update` (with its elapsed time filled in) when the interval has passed.
  void maybe_report(sampling_progress update) {
    if (!active()) return;
    const std::uint64_t now = clock_.now();
    if (now < next_) return;
    next_ = now + interval_;
    update.elapsed_seconds = clock_.to_seconds(now - begin_);
    options_.progress(update);
  }

 private:
  const run_options& options_;
  const clock_source& clock_;
  std::uint64_t begin_;
  std::uint64_t interval_;
  std::uint64_t next_;
};

const char* stage_name(phase_kind kind) noexcept {
  return kind == phase_kind::baseline ? "unprepared samples" : "prepared samples";
}

// The floor of the blocks so far, checked against the plan's context and the fastest reference
// run known (the phase's own included: `fastest`, when lower than the plan's, is this run's).
floor_check check_blocks(const phase_result& phase, const phase_plan& plan, std::uint64_t fastest,
                         const sampler_settings& tuning) {
  std::vector<block_view> views;
  for (const sample_block& b : phase.blocks) {
    if (b.count == 0) continue;
    const auto first = phase.values.begin() + static_cast<std::ptrdiff_t>(b.first);
    const auto lowest = std::min_element(first, first + static_cast<std::ptrdiff_t>(b.count));
    std::optional<int> cpu;
    if (const auto i = static_cast<std::size_t>(lowest - phase.values.begin());
        i < phase.cpu.size() && phase.cpu[i] >= 0)
      cpu = phase.cpu[i];
    views.push_back({*lowest, b.start_seconds, b.reference_best, cpu});
  }
  floor_context context = plan.floor;
  if (fastest > 0 && (!context.fastest_reference || fastest < *context.fastest_reference)) {
    context.fastest_reference = fastest;
    context.fastest_reference_remembered = false;
  }
  return check_floor(views, context, tuning.floor);
}

// One sample outside the phase's own (a re-warm's, the learning check's), a real-time sampler
// pausing after it as after the phase's: its raw ticks. What the workload throws is placed at the
// phase's next sample, in `block` (1-based).
std::uint64_t extra_sample(const phase_plan& plan, const live_workload& workload,
                           const clock_source& clock, std::uint64_t& iterations,
                           phase_result& phase, hold_guard& hold, std::size_t block) {
  std::uint64_t raw = 0;
  try {
    raw = timed_sample(workload.session, clock, plan.batch, iterations);
  } catch (workload_threw& e) {
    e.at_sample(phase.values.size() + 1, block);
    throw;
  }
  phase.realtime_pauses += hold.between_samples() ? 1 : 0;
  return raw;
}

// A raw sample's ticks per call, the overhead taken off.
double per_call(std::uint64_t raw, const phase_plan& plan) {
  return (static_cast<double>(raw) - static_cast<double>(plan.overhead)) /
         static_cast<double>(plan.batch);
}

// The workload run untimed for `length` (the blocks' re-warm, the learning check's), in `block`
// (extra_sample). Returns how long it ran, on the sampling clock.
double rewarm(const phase_plan& plan, const live_workload& workload, const clock_source& clock,
              std::chrono::milliseconds length, std::uint64_t& iterations, phase_result& phase,
              hold_guard& hold, std::size_t block) {
  const std::uint64_t begin = clock.now();
  const std::uint64_t ticks = seconds_to_ticks(length, clock);
  while (stop_signal() == 0 && clock.now() - begin < ticks)
    (void)extra_sample(plan, workload, clock, iterations, phase, hold, block);
  return clock.to_seconds(clock.now() - begin);
}

// The learning check (run_results.hpp: learning_check_result), after the phase's blocks: a gap as
// theirs, a block as long as the first, the workload re-warmed, another block. Its samples are
// not the phase's; a real-time sampler pauses through it as through the blocks. nullopt when
// interrupted.
std::optional<learning_check_result> check_learning(const phase_plan& plan,
                                                    const live_workload& workload,
                                                    phase_result& phase,
                                                    const sampler_settings& tuning,
                                                    const clock_source& clock,
                                                    std::uint64_t gap_ticks, hold_guard& hold) {
  learning_check_result check;
  check.samples = std::clamp<std::size_t>(phase.blocks.front().count, kLearningCheckMinSamples,
                                          kLearningCheckMaxSamples);
  std::uint64_t iterations = 0;
  const std::size_t block = phase.blocks.size() + 1;
  const auto block_min = [&] {
    double lowest = std::numeric_limits<double>::infinity();
    for (std::size_t k = 0; k < check.samples && stop_signal() == 0; ++k)
      lowest = std::min(
          lowest,
          per_call(extra_sample(plan, workload, clock, iterations, phase, hold, block), plan));
    return lowest;
  };
  const std::uint64_t gap_begin = clock.now();
  while (stop_signal() == 0 && clock.now() - gap_begin < gap_ticks) {
    (void)reference_run(clock, tuning.reference_iterations);
    phase.realtime_pauses += hold.between_samples() ? 1 : 0;
  }
  check.plain_min = block_min();
  check.rewarm_seconds =
      rewarm(plan, workload, clock, tuning.learning_check_rewarm, iterations, phase, hold, block);
  check.rewarmed_min = block_min();
  if (stop_signal() != 0) return std::nullopt;
  return check;
}

}  // namespace

// The plan's phase, in blocks (sampler.hpp).
phase_result sample_phase(const phase_plan& plan, const live_workload& workload,
                          const run_options& options, const clock_facts& facts,
                          platform::os_interface& os) {
  const clock_source& clock = *facts.clock;
  const sampler_settings& tuning = options.tuning;
  phase_result phase;
  phase.kind = plan.kind;
  phase.batch = plan.batch;
  phase.overhead = plan.overhead;
  phase.requested = options.auto_samples ? 0 : options.samples;

  // Memory stays bounded however long the blocks go on.
  const std::size_t limit = tuning.auto_max_samples;
  const std::size_t planned_blocks = options.planned_blocks();
  // A fixed count splits evenly: the first blocks take one more when it does not divide.
  const auto fixed_block_size = [&](std::size_t b) {
    const std::size_t base = options.samples / planned_blocks;
    return base + (b < options.samples % planned_blocks ? 1 : 0);
  };
  const std::size_t extra_block_size = (options.samples + planned_blocks - 1) / planned_blocks;
  phase.values.reserve(options.auto_samples ? std::min<std::size_t>(limit, 1 << 16)
                                            : std::min(limit, options.samples));
  const double reference_seconds = std::chrono::duration<double>(tuning.reference_interval).count();
  phase.reference_every = static_cast<std::size_t>(
      std::max(1.0, std::floor(reference_seconds / std::max(plan.expected_sample_seconds, 1e-9))));
  const bool count_switches =
      plan.expected_sample_seconds >=
          std::chrono::duration<double>(tuning.switch_count_min_sample).count() &&
      os.involuntary_switches().has_value();
  const bool read_cpu = os.current_cpu().has_value();
  if (read_cpu) phase.cpu.reserve(phase.values.capacity());
  std::vector<reference_mark> refs;

  const std::uint64_t max_ticks = seconds_to_ticks(options.max_time, clock);
  const std::uint64_t gap_ticks = seconds_to_ticks(
      plan.kind == phase_kind::baseline ? tuning.baseline_block_gap : tuning.block_gap, clock);
  hold_guard hold(options, clock, plan.kind == phase_kind::prepared);
  const std::uint64_t begin = clock.now();
  progress_pacer pacer(options, clock, begin);
  sampling_progress update{
      .workload = workload.name,
      .stage = stage_name(plan.kind),
      .total = options.auto_samples ? 0 : options.samples,
      .budget_seconds =
          plan.extendable ? std::chrono::duration<double>(options.max_time).count() : 0.0};
  std::uint64_t gap_best = 0;
  bool target_met_before = false;
  const double step_per_call = plan.floor.granularity;
  const auto interrupted = [&] {
    if (stop_signal() == 0) return false;
    phase.stopped_by = stop_reason::interrupted;
    return true;
  };

  // The fastest reference run known so far: the plan's, the phase's blocks' and its gaps'.
  const auto fastest_known = [&] {
    std::uint64_t best = plan.floor.fastest_reference.value_or(0);
    const auto take = [&best](std::uint64_t r) {
      if (r > 0) best = best == 0 ? r : std::min(best, r);
    };
    take(gap_best);
    for (const reference_mark& r : refs)
      take(r.ticks);
    return best;
  };

  std::uint64_t iterations = 0;
  sample_counting counting(workload.counters, workload.counted, phase.values.capacity());
  sample_counting* const counts = counting.active() ? &counting : nullptr;
  for (std::size_t b = 0;; ++b) {
    const bool planned = b < planned_blocks;
    if (b > 0) {
      // The gap: the reference loop, timed, until block_gap has passed. Before an extra block it
      // goes on until the loop runs at the fastest speed known (or max_time is up): a block
      // taken while the host runs the CPU slower cannot confirm the floor.
      const std::uint64_t gap_begin = clock.now();
      const std::uint64_t fastest = planned ? 0 : fastest_known();
      const double step = plan.floor.reference_step;
      while (stop_signal() == 0) {
        const std::uint64_t r = reference_run(clock, tuning.reference_iterations);
        gap_best = gap_best == 0 ? r : std::min(gap_best, r);
        phase.realtime_pauses += hold.between_samples() ? 1 : 0;
        const std::uint64_t now = clock.now();
        if (now - gap_begin < gap_ticks) continue;
        if (fastest == 0 || at_full_speed(r, fastest, step, tuning.floor) ||
            now - begin >= max_ticks)
          break;
      }
    }
    // The prepared blocks after the first begin as the first did, right after warm calls.
    if (b > 0 && plan.kind == phase_kind::prepared && tuning.block_rewarm.count() > 0)
      (void)rewarm(plan, workload, clock, tuning.block_rewarm, iterations, phase, hold, b + 1);
    if (interrupted()) break;
    // The time ran out while the gap waited for full speed: a block begun now would hold one
    // sample, taken at a speed the gap never saw.
    if (!planned && clock.now() - begin >= max_ticks) {
      phase.stopped_by = stop_reason::max_time;
      break;
    }
    const std::size_t size = options.auto_samples
                                 ? std::max(tuning.auto_block_samples, phase.values.size() / 4)
                             : planned ? fixed_block_size(b)
                                       : extra_block_size;
    sample_block block;
    block.first = phase.values.size();
    block.start_seconds = clock.to_seconds(clock.now() - begin);
    const std::size_t block_refs = refs.size();
    // A fixed count's planned blocks run whole; auto and the extra blocks stop at max_time.
    const bool timed = options.auto_samples || !planned;
    for (std::size_t k = 0; k < size && phase.values.size() < limit; ++k) {
      if (interrupted()) break;
      if (timed && k > 0 && clock.now() - begin >= max_ticks) break;
      if (k % phase.reference_every == 0)
        refs.push_back({phase.values.size(), reference_run(clock, tuning.reference_iterations)});
      const std::uint64_t switches_before = count_switches ? *os.involuntary_switches() : 0;
      std::uint64_t raw = 0;
      try {
        raw = timed_sample(workload.session, clock, plan.batch, iterations, counts);
        check_iteration_count(workload, plan.batch, iterations, raw, plan.overhead, facts);
      } catch (workload_threw& e) {
        e.at_sample(phase.values.size() + 1, b + 1);
        throw;
      }
      if (count_switches)
        phase.context_switch.push_back(*os.involuntary_switches() != switches_before);
      if (read_cpu) phase.cpu.push_back(os.current_cpu().value_or(-1));
      phase.values.push_back(per_call(raw, plan));
      if (counts != nullptr) counts->record();
      // A mark that sampling is under way (the stage's announcement comes before it): a signal
      // sent after it interrupts the samples, which the end-to-end test relies on.
      if (phase.values.size() == 1)
        logger().debug("{}: {}: sample 1 taken", workload.name, stage_name(plan.kind));
      phase.realtime_pauses += hold.between_samples() ? 1 : 0;
      if (pacer.active()) {
        sampling_progress now = update;
        now.done = phase.values.size();
        if (!planned) now.total = 0;
        pacer.maybe_report(now);
      }
    }
    block.count = phase.values.size() - block.first;
    refs.push_back({phase.values.size(), reference_run(clock, tuning.reference_iterations)});
    block.reference_best = refs[block_refs].ticks;
    for (std::size_t j = block_refs; j < refs.size(); ++j)
      block.reference_best = std::min(block.reference_best, refs[j].ticks);
    if (block.count > 0) phase.blocks.push_back(block);
    if (phase.stopped_by == stop_reason::interrupted) break;
    if (b + 1 < planned_blocks && !(options.auto_samples && clock.now() - begin >= max_ticks))
      continue;

    // The blocks planned so far are taken: may sampling stop?
    const floor_check floor = check_blocks(phase, plan, fastest_known(), tuning);
    // Blocks that agree while the findings left are about other runs: more blocks cannot change
    // those (the floor only goes lower), so they would cost time for nothing.
    const bool needs_another_run = only_another_run_can_confirm(floor);
    bool done = floor.confirmed || needs_another_run;
    if (options.auto_samples) {
      const bool target_met = phase.values.size() >= stats::kMinSamplesForAutoStop &&
                              stats::auto_sampling_target_reached(stats::summarize(phase.values),
                                                                  options.target, step_per_call)
                                  .target_reached;
      done = done && target_met && target_met_before;
      target_met_before = target_met;
      if (done)
        phase.stopped_by = needs_another_run ? stop_reason::needs_another_run : stop_reason::target;
    } else if (done) {
      phase.stopped_by = needs_another_run         ? stop_reason::needs_another_run
                         : b + 1 == planned_blocks ? stop_reason::count
                                                   : stop_reason::confirmed;
    }
    if (done) break;
    // One block asked for is one block: more would only be blocks the user did not want.
    if (!plan.extendable || (!options.auto_samples && options.blocks < 2)) {
      phase.stopped_by = stop_reason::count;
      break;
    }
    if (phase.values.size() >= limit) {
      phase.stopped_by = stop_reason::max_samples;
      break;
    }
    if (clock.now() - begin >= max_ticks) {
      phase.stopped_by = stop_reason::max_time;
      break;
    }
  }
  phase.elapsed_seconds = clock.to_seconds(clock.now() - begin);
  phase.counters = counting.finish();
  phase.reference_best = gap_best;  // the blocks' runs join it
  classify_host_slowdowns(phase, refs, tuning.host_slowdown_factor);
  // A first block far below the rest, and nothing else: learning, or a host that slowed after it?
  if (plan.kind == phase_kind::prepared && phase.stopped_by != stop_reason::interrupted &&
      tuning.block_rewarm.count() == 0 && tuning.learning_check_rewarm.count() > 0 &&
      !phase.blocks.empty()) {
    const std::optional<learning_finding> seen = detect_learning(phase);
    if (seen && !seen->falling)
      phase.learning_check = check_learning(plan, workload, phase, tuning, clock, gap_ticks, hold);
  }
  if (!phase.blocks.empty()) phase.floor = check_blocks(phase, plan, phase.reference_best, tuning);
  return phase;
}

// The workload through timed_sample until the warmup's time has passed on the sampling clock
// (sampler.hpp).
warmup_result warm_up(const live_workload& workload, std::uint64_t batch,
                      const run_options& options, const clock_source& clock) {
  warmup_result result;
  result.requested = options.warmup;
  if (options.warmup.count() == 0) return result;
  hold_guard hold(options, clock, true);
  const std::uint64_t begin = clock.now();
  progress_pacer pacer(options, clock, begin);
  sampling_progress update{.workload = workload.name,
                           .stage = "warmup",
                           .budget_seconds = std::chrono::duration<double>(options.warmup).count()};
  const std::uint64_t length = seconds_to_ticks(options.warmup, clock);
  const std::uint64_t reference_every = seconds_to_ticks(options.tuning.reference_interval, clock);
  std::uint64_t next_reference = begin;
  std::uint64_t iterations = 0;
  std::uint64_t now = begin;
  do {
    try {
      (void)timed_sample(workload.session, clock, batch, iterations);
    } catch (workload_threw& e) {
      e.at_sample(result.calls / batch + 1, 0);
      throw;
    }
    result.calls += batch;
    if (clock.now() >= next_reference) {
      const std::uint64_t r = reference_run(clock, options.tuning.reference_iterations);
      result.reference_best = result.reference_best == 0 ? r : std::min(result.reference_best, r);
      next_reference = clock.now() + reference_every;
    }
    hold.between_samples();
    if (pacer.active()) {
      update.done = result.calls / batch;
      pacer.maybe_report(update);
    }
    now = clock.now();
  } while (now - begin < length && stop_signal() == 0);
  result.elapsed = std::chrono::round<std::chrono::nanoseconds>(
      std::chrono::duration<double>(clock.to_seconds(now - begin)));
  return result;
}

}  // namespace harness::detail
