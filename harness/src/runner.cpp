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
    case stop_reason::target:
      return "the target interval was reached";
    case stop_reason::max_time:
      return "--max-time elapsed before the target was reached";
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

// A fixed chain of dependent multiply-adds: its time only changes when the CPU runs slower.
std::uint64_t reference_run(const clock_source& clock, std::uint32_t iterations) {
  std::uint64_t x = 0x9E3779B97F4A7C15ULL;
  const std::uint64_t start = clock.now();
  for (std::uint32_t i = 0; i < iterations; ++i) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    benchmark::DoNotOptimize(x);
  }
  const std::uint64_t stop = clock.now();
  return stop - start;
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
};

// Marks the samples around slow reference runs.
void classify_host_slowdowns(phase_result& phase, const std::vector<std::uint64_t>& refs,
                             double factor) {
  phase.host_slowdown.assign(phase.values.size(), false);
  phase.reference_runs = refs.size();
  if (refs.empty()) return;
  phase.reference_best = *std::min_element(refs.begin(), refs.end());
  phase.reference_worst = *std::max_element(refs.begin(), refs.end());
  const double limit = factor * static_cast<double>(phase.reference_best);
  std::vector<bool> slow(refs.size());
  for (std::size_t j = 0; j < refs.size(); ++j) {
    slow[j] = static_cast<double>(refs[j]) > limit;
    phase.reference_slow += slow[j] ? 1 : 0;
  }
  // A slow-down may begin anywhere in a block: the run before the block and the one after it both
  // speak for its samples.
  for (std::size_t i = 0; i < phase.values.size(); ++i) {
    const std::size_t j = i / phase.reference_every;
    phase.host_slowdown[i] = slow[j] || (j + 1 < slow.size() && slow[j + 1]);
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

phase_result sample_phase(const phase_plan& plan, const workload_instance& workload,
                          const run_options& options, const clock_facts& facts,
                          platform::os_interface& os) {
  const clock_source& clock = *facts.clock;
  const sampler_settings& tuning = options.tuning;
  phase_result phase;
  phase.kind = plan.kind;
  phase.batch = plan.batch;
  phase.overhead = plan.overhead;

  const std::size_t limit = options.auto_samples ? tuning.auto_max_samples : options.samples;
  phase.values.reserve(options.auto_samples ? std::min<std::size_t>(limit, 1 << 16) : limit);
  const double reference_seconds = std::chrono::duration<double>(tuning.reference_interval).count();
  phase.reference_every = static_cast<std::size_t>(
      std::max(1.0, std::floor(reference_seconds / std::max(plan.expected_sample_seconds, 1e-9))));
  const bool count_switches =
      plan.expected_sample_seconds >=
          std::chrono::duration<double>(tuning.switch_count_min_sample).count() &&
      os.involuntary_switches().has_value();
  std::vector<std::uint64_t> refs;
  // With auto sampling the limit is only a ceiling: reserving for it would hold memory for samples
  // that are never taken.
  if (!options.auto_samples) refs.reserve(limit / phase.reference_every + 1);

  const bool timed_stop = options.auto_samples;
  const std::uint64_t max_ticks = seconds_to_ticks(options.max_time, clock);
  const double step_per_call = static_cast<double>(facts.step) / static_cast<double>(plan.batch);
  std::size_t next_check = tuning.auto_first_check;
  hold_guard hold(options, plan.kind == phase_kind::prepared);
  const std::uint64_t begin = clock.now();
  phase.stopped_by = options.auto_samples ? stop_reason::max_samples : stop_reason::count;
  progress_pacer pacer(options, clock, begin);
  const std::string name = pacer.active() ? workload.display_name() : std::string();
  const sampling_progress update{
      .workload = name,
      .stage = stage_name(plan.kind),
      .total = options.auto_samples ? 0 : limit,
      .budget_seconds =
          options.auto_samples ? std::chrono::duration<double>(options.max_time).count() : 0.0};

  std::uint64_t iterations = 0;
  for (std::size_t i = 0; i < limit; ++i) {
    if (stop_signal() != 0) {
      phase.stopped_by = stop_reason::interrupted;
      break;
    }
    if (i % phase.reference_every == 0)
      refs.push_back(reference_run(clock, tuning.reference_iterations));
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
      pacer.maybe_report(now);
    }

    if (timed_stop) {
      if (clock.now() - begin >= max_ticks) {
        phase.stopped_by = stop_reason::max_time;
        break;
      }
      if (phase.values.size() >= next_check) {
        // Statistics cost O(n log n); checking at 25% growth keeps their total cost a small
        // multiple of one final summary.
        const auto decision = stats::auto_sampling_target_reached(stats::summarize(phase.values),
                                                                  options.target, step_per_call);
        if (decision.target_reached) {
          phase.stopped_by = stop_reason::target;
          break;
        }
        next_check = std::max(next_check + 1, phase.values.size() + phase.values.size() / 4);
      }
    }
  }
  classify_host_slowdowns(phase, refs, tuning.host_slowdown_factor);
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
  std::uint64_t iterations = 0;
  auto now = begin;
  do {
    (void)timed_sample(workload, clock, batch, iterations);
    result.calls += batch;
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

    if (options.baseline && stop_signal() == 0) {
      logger().info("{}: unprepared samples (batch {})", result.name, result.batch);
      result.baseline =
          sample_phase({phase_kind::baseline, result.batch, cold_overhead, expected_seconds},
                       workload, options, facts, os);
    }

    if (stop_signal() == 0) {
      prep.apply(preparation_plan{options.cpu, options.priority, options.lock_memory});
      logger().info("{}: warmup for {} ms", result.name,
                    std::chrono::duration_cast<std::chrono::milliseconds>(options.warmup).count());
      result.warmup = warm_up(workload, result.batch, options, clock);
    }
    if (stop_signal() == 0) {
      // Measured again now that the process is pinned, raised and warm.
      const std::uint64_t overhead = measure_overhead(clock, options.tuning.overhead_samples);
      logger().info("{}: prepared samples", result.name);
      result.prepared =
          sample_phase({phase_kind::prepared, result.batch, overhead, expected_seconds}, workload,
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
