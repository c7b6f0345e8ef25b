// The rounds of `harness ab` between two prepared sides (ab.hpp): overheads, one batch for both,
// the warmup rounds, then the measured rounds until the target, a settled verdict, the time limit
// or a stop.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <numeric>

#include "experiment/sampler.hpp"
#include "harness/ab.hpp"
#include "harness/clock_survey.hpp"
#include "harness/duration.hpp"
#include "harness/log.hpp"
#include "harness/runner.hpp"

namespace harness {

namespace {

double per_call(std::uint64_t raw_min, std::uint64_t overhead, std::uint64_t batch) {
  return (static_cast<double>(raw_min) - static_cast<double>(overhead)) /
         static_cast<double>(batch);
}

std::uint64_t lowest(const std::vector<std::uint64_t>& raw) {
  return raw.empty() ? 0 : *std::min_element(raw.begin(), raw.end());
}

// A sample is never cut short (not even by a stop request), so a batch that makes one sample of
// a side last longer than the whole --max-time is refused before any round: `ab fresh_pages/4096
// empty` shared empty's batch of thousands of calls, and a sample of fresh_pages took minutes
// (bench/soak.sh).
// `needed_by`: the side whose own need set a calibrated batch.
void refuse_samples_beyond_max_time(const ab_pair& pair, const ab_options& options,
                                    const std::string& needed_by) {
  const double max_seconds = std::chrono::duration<double>(options.max_time).count();
  for (const ab_side_facts* side : {&pair.a, &pair.b}) {
    if (side->call_ticks == 0 || side->ticks_per_second <= 0) continue;
    const double call = static_cast<double>(side->call_ticks) / side->ticks_per_second;
    const double seconds = call * static_cast<double>(pair.batch);
    if (seconds <= max_seconds) continue;
    if (pair.batch_calibrated) {
      const std::string why = pair.batch_raised
                                  ? fmt::format("the min_batch() {} declares", needed_by)
                                  : fmt::format("what {} needs for a sample of {} ticks", needed_by,
                                                pair.min_sample_ticks);
      throw ab_batch_refused(fmt::format(
          "{} and {} cannot share one batch: {} calls a sample, {}, take about {} of {} ({} a "
          "call), longer than --max-time {}; compare workloads of closer cost, or give --batch",
          pair.a.workload, pair.b.workload, pair.batch, why, format_seconds(seconds, kSpanFormat),
          side->workload, format_seconds(call, kSpanFormat),
          format_seconds(max_seconds, kSpanFormat)));
    }
    throw ab_batch_refused(fmt::format(
        "--batch {}: a sample of {} takes about {} ({} a call), longer than --max-time {}; give "
        "a smaller --batch or a longer --max-time",
        pair.batch, side->workload, format_seconds(seconds, kSpanFormat),
        format_seconds(call, kSpanFormat), format_seconds(max_seconds, kSpanFormat)));
  }
}

}  // namespace

ab_pair run_rounds(ab_side& a, ab_side& b, const ab_options& options) {
  const ab_settings& tuning = options.tuning;
  const std::function<std::uint64_t()> now =
      options.now_ns ? options.now_ns : std::function<std::uint64_t()>(steady_now_ns);
  ab_pair pair;
  pair.a = a.facts();
  pair.b = b.facts();
  pair.overhead_a = a.measure_overhead(tuning.overhead_samples);
  pair.overhead_b = b.measure_overhead(tuning.overhead_samples);
  const auto ns_to_ticks = [&](std::uint64_t ns) {
    return detail::ticks_or_most(static_cast<double>(ns) * 1e-9 * pair.a.ticks_per_second);
  };
  // A side's workload may declare longer samples (workload::min_sample_time): both sides take
  // the longer, as they take one batch.
  const min_sample_length length = choose_min_sample(
      options.min_sample_time
          ? std::optional(ns_to_ticks(static_cast<std::uint64_t>(options.min_sample_time->count())))
          : std::nullopt,
      static_cast<std::uint64_t>(
          std::llround(tuning.min_sample_steps *
                       static_cast<double>(std::max(pair.a.clock_step, pair.b.clock_step)))),
      ns_to_ticks(std::max(pair.a.min_sample_ns, pair.b.min_sample_ns)));
  pair.min_sample_ticks = length.ticks;
  pair.min_sample_source = length.origin;
  // Calibrated with --batch too: calibrate() is also where a side says what its workload reports
  // per call and what a call takes alone.
  const std::uint64_t batch_a = a.calibrate(pair.overhead_a, pair.min_sample_ticks);
  const std::uint64_t batch_b = b.calibrate(pair.overhead_b, pair.min_sample_ticks);
  if (options.batch) {
    pair.batch = *options.batch;
  } else {
    // One batch for both, so their per-call figures come from samples alike: the larger need.
    pair.batch = std::max(batch_a, batch_b);
    pair.batch_calibrated = true;
    // And no fewer calls than either workload declared it needs (workload::min_batch).
    const raised_batch chosen =
        raise_to_min_batch(pair.batch, std::max(pair.a.min_batch, pair.b.min_batch));
    pair.batch = chosen.batch;
    pair.batch_raised = chosen.raised;
  }
  // Refreshed by calibrate(): what each workload reported per call, and a call's time.
  pair.a.iterations_per_call = a.facts().iterations_per_call;
  pair.b.iterations_per_call = b.facts().iterations_per_call;
  pair.a.call_ticks = a.facts().call_ticks;
  pair.b.call_ticks = b.facts().call_ticks;
  const std::uint64_t need_a = std::max(batch_a, pair.a.min_batch);
  const std::uint64_t need_b = std::max(batch_b, pair.b.min_batch);
  refuse_samples_beyond_max_time(pair, options,
                                 need_a >= need_b ? pair.a.workload : pair.b.workload);

  // A round: each side's samples in stretches (ab_stretch_sizes) that alternate between the
  // sides (the round's first side, then the other, then the other again...), the reference loop
  // run around each side's first and last stretch.
  std::vector<std::size_t> stretches =
      ab_stretch_sizes(pair.samples_per_side, pair.samples_per_stretch, options.order);
  const auto take_round = [&](std::size_t index) {
    ab_round r;
    r.a_first = a_goes_first(options.order, options.seed, index);
    // Per side, over the round's stretches: the lowest raw sample, the slowest reference run.
    std::uint64_t lowest_a = UINT64_MAX;
    std::uint64_t lowest_b = UINT64_MAX;
    std::uint64_t reference_a = 0;
    std::uint64_t reference_b = 0;
    for (std::size_t j = 0; j < stretches.size(); ++j) {
      const std::uint32_t reference =
          j == 0 || j + 1 == stretches.size() ? tuning.reference_iterations : 0;
      // AB, BA, AB...: each side goes first in half the stretches of a round.
      const bool a_now = r.a_first == (j % 2 == 0);
      for (const bool is_a : {a_now, !a_now}) {
        const ab_side_samples s = (is_a ? a : b).sample(stretches[j], pair.batch, reference);
        std::uint64_t& low = is_a ? lowest_a : lowest_b;
        std::uint64_t& slowest = is_a ? reference_a : reference_b;
        low = std::min(low, lowest(s.raw));
        slowest = std::max(slowest, s.reference);
        r.switches += s.switches;
      }
    }
    r.a_min = per_call(lowest_a, pair.overhead_a, pair.batch);
    r.b_min = per_call(lowest_b, pair.overhead_b, pair.batch);
    r.reference = std::max(reference_a, reference_b);
    // What one sample of each side took, for sizing the rounds.
    return std::pair{r, lowest_a + lowest_b};
  };

  const auto report = [&](std::string_view stage, std::size_t rounds, double elapsed,
                          double budget) {
    if (options.progress) {
      options.progress({.stage = stage,
                        .rounds = rounds,
                        .elapsed_seconds = elapsed,
                        .budget_seconds = budget,
                        .half_width = pair.last_half_width});
    }
  };

  // The warmup: rounds run and discarded, the same path as the measured ones, at least one. A
  // round's samples per side fill round_time: sized from the first warmup round, then again from
  // the last, when caches and predictors have warmed.
  const std::uint64_t warmup_begin = now();
  const auto warmup_ns = static_cast<std::uint64_t>(options.warmup.count());
  const auto size_round = [&](std::uint64_t ticks_of_one_each) {
    // How many samples of each side a second holds.
    const double each_per_second =
        pair.a.ticks_per_second / std::max<double>(1, static_cast<double>(ticks_of_one_each));
    const double wanted =
        std::chrono::duration<double>(tuning.round_time).count() * each_per_second;
    // At least one sample a side whatever the tuning says, as before min_samples_per_side.
    const std::size_t fewest =
        std::clamp<std::size_t>(tuning.min_samples_per_side, 1, tuning.max_samples_per_side);
    pair.samples_per_side = std::clamp<std::size_t>(static_cast<std::size_t>(wanted), fewest,
                                                    tuning.max_samples_per_side);
    // A stretch: the samples of one side that fill stretch_time (one sample of a side takes
    // about half of one of each).
    const double per_stretch =
        std::chrono::duration<double>(tuning.stretch_time).count() * 2 * each_per_second;
    pair.samples_per_stretch =
        std::clamp<std::size_t>(static_cast<std::size_t>(per_stretch), 1, pair.samples_per_side);
    stretches = ab_stretch_sizes(pair.samples_per_side, pair.samples_per_stretch, options.order);
    // What the rounds take (the balanced order may add a sample a side).
    pair.samples_per_side = std::accumulate(stretches.begin(), stretches.end(), std::size_t{0});
    pair.samples_per_stretch = *std::max_element(stretches.begin(), stretches.end());
  };
  do {
    const std::uint64_t one_each = take_round(pair.warmup_rounds).second;
    if (pair.warmup_rounds == 0) size_round(one_each);
    ++pair.warmup_rounds;
    report("warmup", pair.warmup_rounds, static_cast<double>(now() - warmup_begin) / 1e9,
           static_cast<double>(warmup_ns) / 1e9);
    if (now() - warmup_begin >= warmup_ns || stop_signal() != 0) {
      size_round(one_each);
      break;
    }
  } while (true);
  pair.warmup_seconds = static_cast<double>(now() - warmup_begin) / 1e9;

  const std::uint64_t begin = now();
  const auto max_ns = static_cast<std::uint64_t>(options.max_time.count());
  ab_stop_rule rule(tuning, options.target);
  // The answer carries the clock's resolution: a step of each side's clock over the calls of a
  // sample.
  const auto batch = static_cast<double>(pair.batch);
  const ab_steps steps{.a = static_cast<double>(pair.a.clock_step) / batch,
                       .b = static_cast<double>(pair.b.clock_step) / batch};
  // Whether the verdict the rounds so far give (the interval the answer will be, with the clock's
  // resolution) is settled. Looked at a few times only, at the first check after decide_after and
  // after each half of it more (2, 3, 4 s...): the stop depends on where the interval lies, so
  // every look is a chance for a fluctuation to settle it (optional stopping), and the looks are
  // kept few rather than made at every check.
  std::uint64_t next_look =
      options.decide_after ? static_cast<std::uint64_t>(options.decide_after->count()) : 0;
  const std::uint64_t look_every = std::max<std::uint64_t>(next_look / 2, 1);
  const auto settled = [&] {
    std::vector<ab_round> so_far = pair.rounds;
    const ab_estimate e = estimate_rounds(so_far, tuning.slowdown_factor, steps);
    return e.rounds && verdict_settled(*e.rounds, options.threshold, options.fail_if_slower);
  };
  for (;;) {
    if (stop_signal() != 0) {
      pair.stopped_by = ab_stop::interrupted;
      break;
    }
    if (pair.rounds.size() >= tuning.max_rounds) {
      pair.stopped_by = ab_stop::max_rounds;
      break;
    }
    if (now() - begin >= max_ns) {
      pair.stopped_by = ab_stop::max_time;
      break;
    }
    pair.rounds.push_back(take_round(pair.rounds.size()).first);
    const std::size_t n = pair.rounds.size();
    // A mark for whoever waits on the log for the measured rounds to be under way (the e2e test
    // of a signal mid-run).
    if (n == 1)
      logger().debug("ab: {} vs {}: measured round 1 taken", pair.b.workload, pair.a.workload);
    const std::size_t checks = pair.checks;
    if (rule.target_reached(pair)) {
      pair.stopped_by = ab_stop::target;
      break;
    }
    if (options.decide_after && pair.checks != checks && now() - begin >= next_look) {
      if (settled()) {
        pair.stopped_by = ab_stop::decided;
        break;
      }
      while (next_look <= now() - begin)
        next_look += look_every;
    }
    report("rounds", n, static_cast<double>(now() - begin) / 1e9,
           static_cast<double>(max_ns) / 1e9);
  }
  pair.seconds = static_cast<double>(now() - begin) / 1e9;
  pair.estimate = estimate_rounds(pair.rounds, tuning.slowdown_factor, steps);
  return pair;
}

}  // namespace harness
