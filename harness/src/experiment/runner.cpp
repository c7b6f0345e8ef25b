// The experiment for one workload, in the Stopwatch article's order, and the sampler under it.
#include "harness/runner.hpp"

#include "harness/log.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <exception>
#include <limits>
#include <thread>

#include "harness/clock_survey.hpp"
#include "harness/speed_probe.hpp"
#include "harness/statistics.hpp"

namespace harness {

const char* to_string(phase_kind kind) noexcept {
  switch (kind) {
    case phase_kind::first:
      return "first call";
    case phase_kind::baseline:
      return "baseline";
    case phase_kind::prepared:
      return "prepared";
  }
  return "unknown";
}

const char* to_string(stop_reason reason) noexcept {
  switch (reason) {
    case stop_reason::count:
      return "the requested sample count";
    case stop_reason::confirmed:
      return "the requested samples, then more blocks until the floor was confirmed";
    case stop_reason::target:
      return "the target interval was met at two checks in a row and the floor confirmed";
    case stop_reason::max_time:
      return "--max-time elapsed before sampling could stop";
    case stop_reason::max_samples:
      return "the sample limit was reached before the target";
    case stop_reason::interrupted:
      return "interrupted";
  }
  return "unknown";
}

std::uint64_t phase_result::raw(std::size_t i) const noexcept {
  return static_cast<std::uint64_t>(
      std::llround(values[i] * static_cast<double>(batch) + static_cast<double>(overhead)));
}

std::size_t phase_result::block_of(std::size_t i) const noexcept {
  const auto after =
      std::upper_bound(blocks.begin(), blocks.end(), i,
                       [](std::size_t v, const sample_block& b) { return v < b.first; });
  return after == blocks.begin() ? blocks.size()
                                 : static_cast<std::size_t>(after - blocks.begin()) - 1;
}

bool phase_result::disturbed(std::size_t i) const noexcept {
  return host_slowdown[i] || (!context_switch.empty() && context_switch[i]);
}

std::size_t phase_result::disturbed_count() const noexcept {
  std::size_t n = 0;
  for (std::size_t i = 0; i < values.size(); ++i)
    n += disturbed(i) ? 1 : 0;
  return n;
}

std::size_t phase_result::host_slowdown_count() const noexcept {
  return static_cast<std::size_t>(std::count(host_slowdown.begin(), host_slowdown.end(), true));
}

std::size_t phase_result::context_switch_count() const noexcept {
  return static_cast<std::size_t>(std::count(context_switch.begin(), context_switch.end(), true));
}

namespace {

std::atomic<int> g_stop_signal{0};

// One timed sample: `reps` calls between two clock reads and nothing else, so the raw sample is
// the calls plus the overhead that measure_overhead() finds for this very path.
inline std::uint64_t timed_sample(const workload_instance& workload, const clock_source& clock,
                                  std::uint64_t reps, std::uint64_t& iterations) {
  const std::uint64_t start = clock.now();
  iterations = workload.run(reps);
  const std::uint64_t stop = clock.now();
  return stop - start;
}

// The reference loop: a fixed chain of dependent multiply-adds, whose time only changes when the
// CPU runs slower.
std::uint64_t reference_run(const clock_source& clock, std::uint32_t iterations) {
  return run_probe(probe_kind::multiply_chain, clock, iterations);
}

std::uint64_t seconds_to_ticks(std::chrono::nanoseconds d, const clock_source& clock) {
  return static_cast<std::uint64_t>(static_cast<double>(d.count()) * 1e-9 *
                                    clock.ticks_per_second());
}

// Pauses a real-time sampler once it has held the CPU for max_hold, so it never starves the
// system (the kernel's RT throttling would otherwise step in after 950 ms of every second).
class hold_guard {
 public:
  hold_guard(const run_options& options, bool active)
      : active_(active && options.priority == platform::priority_level::realtime),
        max_hold_(options.max_hold),
        pause_(options.realtime_pause),
        since_(std::chrono::steady_clock::now()) {}

  // Called between samples; returns true when it paused.
  bool between_samples() {
    if (!active_) return false;
    const auto now = std::chrono::steady_clock::now();
    if (now - since_ < max_hold_) return false;
    std::this_thread::sleep_for(pause_);
    since_ = std::chrono::steady_clock::now();
    return true;
  }

 private:
  bool active_;
  std::chrono::nanoseconds max_hold_;
  std::chrono::nanoseconds pause_;
  std::chrono::steady_clock::time_point since_;
};

struct phase_plan {
  phase_kind kind;
  std::uint64_t batch;
  std::uint64_t overhead;
  double expected_sample_seconds;  // what one sample should take, to pace the side checks
  bool extendable;                 // more blocks may follow the planned ones
  floor_context floor;             // what the floor is checked against (granularity per call...)
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
    views.push_back({*std::min_element(first, first + static_cast<std::ptrdiff_t>(b.count)),
                     b.start_seconds, b.reference_best});
  }
  floor_context context = plan.floor;
  if (fastest > 0 && (!context.fastest_reference || fastest < *context.fastest_reference)) {
    context.fastest_reference = fastest;
    context.fastest_reference_remembered = false;
  }
  return check_floor(views, context, tuning.floor);
}

// Samples one phase in blocks: the planned ones (a fixed count split evenly), then, when the
// plan allows, more until the floor is confirmed (and with auto, the target met twice in a row),
// within max_time. Between blocks the reference loop runs for block_gap.
phase_result sample_phase(const phase_plan& plan, const workload_instance& workload,
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
  const std::size_t planned_blocks =
      options.auto_samples ? std::max<std::size_t>(options.blocks, 1)
                           : std::clamp<std::size_t>(options.blocks, 1, options.samples);
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
  std::vector<reference_mark> refs;

  const std::uint64_t max_ticks = seconds_to_ticks(options.max_time, clock);
  const std::uint64_t gap_ticks = seconds_to_ticks(tuning.block_gap, clock);
  hold_guard hold(options, plan.kind == phase_kind::prepared);
  const std::uint64_t begin = clock.now();
  progress_pacer pacer(options, clock, begin);
  const std::string name = pacer.active() ? workload.display_name() : std::string();
  sampling_progress update{
      .workload = name,
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
  for (std::size_t b = 0;; ++b) {
    const bool planned = b < planned_blocks;
    if (b > 0) {
      // The gap: the reference loop, timed, until block_gap has passed. Before an extra block it
      // goes on until the loop runs at the fastest speed known (or max_time is up): a block
      // taken while the host runs the CPU slower cannot confirm the floor.
      const std::uint64_t gap_begin = clock.now();
      const std::uint64_t fastest = planned ? 0 : fastest_known();
      const double full_speed = static_cast<double>(fastest) * (1 + tuning.floor.speed_tolerance);
      while (stop_signal() == 0) {
        const std::uint64_t r = reference_run(clock, tuning.reference_iterations);
        gap_best = gap_best == 0 ? r : std::min(gap_best, r);
        phase.realtime_pauses += hold.between_samples() ? 1 : 0;
        const std::uint64_t now = clock.now();
        if (now - gap_begin < gap_ticks) continue;
        if (fastest == 0 || static_cast<double>(r) <= full_speed || now - begin >= max_ticks) break;
      }
    }
    if (interrupted()) break;
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
      const std::uint64_t raw = timed_sample(workload, clock, plan.batch, iterations);
      if (count_switches)
        phase.context_switch.push_back(*os.involuntary_switches() != switches_before);
      phase.values.push_back((static_cast<double>(raw) - static_cast<double>(plan.overhead)) /
                             static_cast<double>(plan.batch));
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
    bool done = floor.confirmed;
    if (options.auto_samples) {
      const bool target_met = phase.values.size() >= stats::kMinSamplesForAutoStop &&
                              stats::auto_sampling_target_reached(stats::summarize(phase.values),
                                                                  options.target, step_per_call)
                                  .target_reached;
      done = done && target_met && target_met_before;
      target_met_before = target_met;
      if (done) phase.stopped_by = stop_reason::target;
    } else if (done) {
      phase.stopped_by = b + 1 == planned_blocks ? stop_reason::count : stop_reason::confirmed;
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
  phase.reference_best = gap_best;  // the blocks' runs join it
  classify_host_slowdowns(phase, refs, tuning.host_slowdown_factor);
  if (!phase.blocks.empty()) phase.floor = check_blocks(phase, plan, phase.reference_best, tuning);
  return phase;
}

// Warms up with the very call that samples ("use the same mechanisms for warming up as for
// running"), until `duration` of steady_clock time has passed.
warmup_result warm_up(const workload_instance& workload, std::uint64_t batch,
                      const run_options& options, const clock_source& clock) {
  warmup_result result;
  result.requested = options.warmup;
  if (options.warmup.count() == 0) return result;
  hold_guard hold(options, true);
  progress_pacer pacer(options, clock, clock.now());
  const std::string name = pacer.active() ? workload.display_name() : std::string();
  sampling_progress update{.workload = name,
                           .stage = "warmup",
                           .budget_seconds = std::chrono::duration<double>(options.warmup).count()};
  const auto begin = std::chrono::steady_clock::now();
  const auto deadline = begin + options.warmup;
  const std::uint64_t reference_every = seconds_to_ticks(options.tuning.reference_interval, clock);
  std::uint64_t next_reference = clock.now();
  std::uint64_t iterations = 0;
  auto now = begin;
  do {
    (void)timed_sample(workload, clock, batch, iterations);
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
    now = std::chrono::steady_clock::now();
  } while (now < deadline && stop_signal() == 0);
  result.elapsed = now - begin;
  return result;
}

// Finds how many calls make a sample of at least `min_ticks`: grows the batch until the fastest
// of three samples reaches it. Runs the workload a few times before the baseline, which the
// report says; long workloads need no calibration at all.
std::uint64_t calibrate_batch(const workload_instance& workload, const clock_source& clock,
                              std::uint64_t overhead, std::uint64_t min_ticks) {
  constexpr int kTries = 3;
  constexpr std::uint64_t kMaxBatch = std::uint64_t{1} << 32;
  std::uint64_t batch = 1;
  std::uint64_t iterations = 0;
  while (batch < kMaxBatch && stop_signal() == 0) {
    std::uint64_t best = std::numeric_limits<std::uint64_t>::max();
    for (int t = 0; t < kTries; ++t)
      best = std::min(best, timed_sample(workload, clock, batch, iterations));
    const std::uint64_t net = best > overhead ? best - overhead : 0;
    if (net >= min_ticks) break;
    // Aim 20% past the goal so one more round is rarely needed; never grow more than 10x at once,
    // since a tiny first measurement says little.
    const double wanted =
        net == 0 ? static_cast<double>(batch) * 10
                 : std::ceil(static_cast<double>(batch) * 1.2 * static_cast<double>(min_ticks) /
                             static_cast<double>(net));
    batch = std::min<std::uint64_t>(
        kMaxBatch,
        std::clamp<std::uint64_t>(static_cast<std::uint64_t>(wanted), batch + 1, batch * 10));
  }
  return batch;
}

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

}  // namespace

void request_stop(int signal_number) noexcept {
  g_stop_signal.store(signal_number);
}
int stop_signal() noexcept {
  return g_stop_signal.load(std::memory_order_relaxed);
}
void clear_stop() noexcept {
  g_stop_signal.store(0);
}

clock_facts measure_clock_facts(const clock_source& clock) {
  clock_facts facts;
  facts.clock = &clock;
  const auto reference_ns = [] {
    return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                          std::chrono::steady_clock::now().time_since_epoch())
                                          .count());
  };
  // 100,000 reads with 100 changes, or 30 ms: enough to see a 10 ns TSC quantum many times, or a
  // 4 ms coarse clock step a few times.
  const step_estimate step =
      measure_step([&clock] { return clock.now(); }, reference_ns, 100'000, 100, 0.03);
  if (step.ticks) {
    facts.step = *step.ticks;
    facts.step_measured = true;
  }
  const clock_granularity granularity = measure_clock_granularity(clock);
  facts.granularity = granularity.granularity_ticks.value_or(0);
  facts.read_cost = granularity.read_cost_ticks;
  return facts;
}

std::uint64_t measure_overhead(const clock_source& clock, std::size_t samples) {
  // An empty workload through the same registry call the samples make.
  static const workload empty_workload("(overhead)", detail::make_invoker([] {}), false, false);
  const workload_instance empty{&empty_workload, std::nullopt};
  std::uint64_t best = std::numeric_limits<std::uint64_t>::max();
  std::uint64_t iterations = 0;
  for (std::size_t i = 0; i < samples; ++i) {
    best = std::min(best, timed_sample(empty, clock, 1, iterations));
  }
  return samples == 0 ? 0 : best;
}

workload_result run_workload(const workload_instance& workload, const run_options& options,
                             const clock_facts& facts, platform::os_interface& os) {
  const clock_source& clock = *facts.clock;
  workload_result result;
  result.name = workload.display_name();
  preparation prep(os);
  try {
    // The overhead is measured first: it runs no workload code, so the first call stays cold.
    const std::uint64_t cold_overhead = measure_overhead(clock, options.tuning.overhead_samples);
    logger().info("{}: cold first call", result.name);
    std::uint64_t iterations = 0;
    const std::uint64_t first_raw = timed_sample(workload, clock, 1, iterations);
    result.first = single_sample(phase_kind::first, first_raw, cold_overhead);
    result.iterations_per_call = iterations;

    // A sample lasts 1000 steps of back-to-back reads: longer than both the clock's granularity
    // and its read cost, whose jitter the overhead subtraction leaves in each sample.
    result.min_sample_ticks = options.min_sample_time
                                  ? seconds_to_ticks(*options.min_sample_time, clock)
                                  : static_cast<std::uint64_t>(options.tuning.min_sample_steps *
                                                               static_cast<double>(facts.step));
    if (options.batch) {
      result.batch = *options.batch;
    } else if (first_raw - std::min(first_raw, cold_overhead) <
               kColdCallSlowdown * result.min_sample_ticks) {
      result.batch = calibrate_batch(workload, clock, cold_overhead, result.min_sample_ticks);
      result.batch_calibrated = true;
    }
    // What one sample should last, to pace the side checks: the calibration's goal, or the cold
    // first call (an upper bound) times the batch.
    const double expected_seconds =
        result.batch_calibrated ? clock.to_seconds(result.min_sample_ticks)
                                : clock.to_seconds(first_raw) * static_cast<double>(result.batch);

    // The floor's context: the clock's granularity per call, and the fastest reference run known
    // (the history's, then the baseline's too).
    floor_context floor;
    floor.granularity = facts.resolution() / static_cast<double>(result.batch);
    floor.fastest_reference = options.memory.fastest_reference;
    floor.fastest_reference_remembered = options.memory.fastest_reference_remembered;

    if (options.baseline && stop_signal() == 0) {
      logger().info("{}: unprepared samples (batch {})", result.name, result.batch);
      // Only `--samples auto` extends the baseline: taking blocks until its floor is confirmed
      // would warm it up, and it is there to show the unprepared run.
      result.baseline = sample_phase({phase_kind::baseline, result.batch, cold_overhead,
                                      expected_seconds, options.auto_samples, floor},
                                     workload, options, facts, os);
      if (result.baseline->reference_best > 0 &&
          (!floor.fastest_reference ||
           result.baseline->reference_best < *floor.fastest_reference)) {
        floor.fastest_reference = result.baseline->reference_best;
        floor.fastest_reference_remembered = false;
      }
      if (result.baseline->floor) floor.baseline_floor = result.baseline->floor->floor;
    }

    if (stop_signal() == 0) {
      prep.apply(preparation_plan{options.cpu, options.priority, options.lock_memory});
      logger().info("{}: warmup for {} ms", result.name,
                    std::chrono::duration_cast<std::chrono::milliseconds>(options.warmup).count());
      result.warmup = warm_up(workload, result.batch, options, clock);
      if (const std::uint64_t r = result.warmup.reference_best;
          r > 0 && (!floor.fastest_reference || r < *floor.fastest_reference)) {
        floor.fastest_reference = r;
        floor.fastest_reference_remembered = false;
      }
    }
    if (stop_signal() == 0) {
      // Measured again now that the process is pinned, raised and warm.
      const std::uint64_t overhead = measure_overhead(clock, options.tuning.overhead_samples);
      logger().info("{}: prepared samples", result.name);
      if (options.memory.floor_of)
        floor.remembered_floor = options.memory.floor_of(result.name, result.batch);
      result.prepared = sample_phase(
          {phase_kind::prepared, result.batch, overhead, expected_seconds, true, floor}, workload,
          options, facts, os);
    }
  } catch (const std::exception& e) {
    result.error = e.what();
  } catch (...) {
    result.error = "an exception not derived from std::exception";
  }
  result.interrupted = stop_signal() != 0;
  prep.restore();
  result.preparation = prep.report();
  if (result.failed()) logger().error("{}: the workload threw: {}", result.name, result.error);
  return result;
}

}  // namespace harness
