// The report model: every phase analysed once, and the baseline set against the prepared phase.
#include "harness/analysis.hpp"

#include <algorithm>
#include <cmath>

namespace harness {
namespace {

stats::disturbance_counts counts_of(const phase_result& phase, const clock_facts& clock) {
  stats::disturbance_counts c;
  c.n_clean = phase.values.size() - phase.disturbed_count();
  c.n_host_slowdown = phase.host_slowdown_count();
  c.n_context_switch = phase.context_switch_count();
  c.granularity = clock.resolution() / static_cast<double>(phase.batch);
  return c;
}

}  // namespace

phase_analysis analyze(const phase_result& phase, const clock_facts& clock) {
  phase_analysis a;
  a.phase = &phase;
  a.all = stats::summarize(phase.values);
  if (!phase.values.empty()) {
    const auto [lo, hi] = std::minmax_element(phase.values.begin(), phase.values.end());
    a.lowest_index = static_cast<std::size_t>(lo - phase.values.begin());
    a.highest_index = static_cast<std::size_t>(hi - phase.values.begin());
  }
  if (phase.kind == phase_kind::first) return a;
  const std::size_t disturbed = phase.disturbed_count();
  if (disturbed > 0 && disturbed < phase.values.size()) {
    a.clean =
        stats::summarize(phase.values, [&phase](std::size_t i) { return !phase.disturbed(i); });
  }
  a.verdict = stats::judge(a.all, counts_of(phase, clock));
  return a;
}

bool preparation_change::floor_changed() const noexcept {
  return std::fabs(floor_change()) > tolerance;
}

bool preparation_change::median_changed() const noexcept {
  return std::fabs(median_change()) > tolerance;
}

bool preparation_change::tail_changed() const noexcept {
  if (!prepared_tail || !baseline_tail) return false;
  const double difference = std::fabs(*prepared_tail - *baseline_tail);
  return difference > tolerance && difference > 0.25 * std::max(*prepared_tail, *baseline_tail);
}

std::optional<preparation_change> compare_preparation(const phase_analysis& baseline,
                                                      const phase_analysis& prepared,
                                                      const clock_facts& clock,
                                                      const floor_settings& settings) {
  const stats::phase_statistics& b = baseline.all;
  const stats::phase_statistics& p = prepared.all;
  if (!b.min || !p.min || !(*b.min > 0) || !(*p.min > 0)) return std::nullopt;
  preparation_change c;
  c.baseline_floor = *b.min;
  c.prepared_floor = *p.min;
  c.baseline_median = *b.median;
  c.prepared_median = *p.median;
  if (b.n >= kMinSamplesForTail && p.n >= kMinSamplesForTail) {
    c.baseline_tail = (*b.p90 - *b.min) / *b.min;
    c.prepared_tail = (*p.p90 - *p.min) / *p.min;
  }
  const double granularity =
      clock.resolution() / static_cast<double>(std::max<std::uint64_t>(prepared.phase->batch, 1));
  c.tolerance = floor_tolerance(c.baseline_floor, granularity, settings) / c.baseline_floor;
  c.prepared_floor_confirmed = prepared.phase->floor && prepared.phase->floor->confirmed;
  return c;
}

std::optional<host_speed_change> compare_host_speed(const phase_result& baseline,
                                                    const phase_result& prepared) {
  if (baseline.reference_best == 0 || prepared.reference_best == 0) return std::nullopt;
  host_speed_change c;
  c.baseline_best = baseline.reference_best;
  c.prepared_best = prepared.reference_best;
  c.baseline_slower = c.baseline_best > c.prepared_best;
  c.ratio = static_cast<double>(std::max(c.baseline_best, c.prepared_best)) /
            static_cast<double>(std::min(c.baseline_best, c.prepared_best));
  return c;
}

std::vector<const phase_result*> phases_of(const workload_result& result) {
  std::vector<const phase_result*> phases;
  if (result.first) phases.push_back(&*result.first);
  if (result.baseline) phases.push_back(&*result.baseline);
  if (result.prepared) phases.push_back(&*result.prepared);
  return phases;
}

const phase_analysis* workload_analysis::find(phase_kind kind) const noexcept {
  const auto found = std::find_if(phases.begin(), phases.end(), [kind](const phase_analysis& p) {
    return p.phase->kind == kind;
  });
  return found == phases.end() ? nullptr : &*found;
}

phase_rates rates_of(const stats::phase_statistics& s, const workload_result& result,
                     double ticks_per_second) {
  phase_rates rates;
  if (!s.min || !s.median || !(*s.min > 0) || !(ticks_per_second > 0)) return rates;
  const double min_seconds = *s.min / ticks_per_second;
  const double median_seconds = *s.median / ticks_per_second;
  if (result.iterations_per_call > 0) {
    const double n = static_cast<double>(result.iterations_per_call);
    rates.seconds_per_iteration = at_min_median{min_seconds / n, median_seconds / n};
  }
  const auto per_second = [&](const std::optional<double>& per_call) {
    return per_call ? std::optional<at_min_median>(
                          at_min_median{*per_call / min_seconds, *per_call / median_seconds})
                    : std::nullopt;
  };
  rates.items_per_second = per_second(result.items_per_call);
  rates.bytes_per_second = per_second(result.bytes_per_call);
  return rates;
}

phase_totals totals_of(const phase_result& p, const workload_result& result,
                       double ticks_per_second) {
  phase_totals t;
  // Exact in integers: each sample's raw ticks less the overhead it carried.
  for (std::size_t i = 0; i < p.values.size(); ++i)
    t.ticks += static_cast<std::int64_t>(p.raw(i)) - static_cast<std::int64_t>(p.overhead);
  t.runs = p.values.size() * p.batch;
  t.seconds = static_cast<double>(t.ticks) / ticks_per_second;
  if (result.iterations_per_call > 0) t.iterations = t.runs * result.iterations_per_call;
  if (!(t.runs > 0 && t.ticks > 0)) return t;
  const auto runs = static_cast<double>(t.runs);
  t.runs_per_second = runs / t.seconds;
  t.seconds_per_run = t.seconds / runs;
  if (result.iterations_per_call > 0) {
    t.seconds_per_iteration = t.seconds / (runs * static_cast<double>(result.iterations_per_call));
  }
  const auto rate = [&](const std::optional<double>& per_call) -> std::optional<double> {
    if (!per_call) return std::nullopt;
    return *per_call * runs / t.seconds;
  };
  t.items_per_second = rate(result.items_per_call);
  t.bytes_per_second = rate(result.bytes_per_call);
  return t;
}

report_model analyze_run(const run_report& run) {
  report_model model;
  model.run = &run;
  model.workloads.reserve(run.results.size());
  for (const workload_result& r : run.results) {
    workload_analysis& w = model.workloads.emplace_back();
    w.result = &r;
    for (const phase_result* p : phases_of(r)) {
      phase_analysis& a = w.phases.emplace_back(analyze(*p, run.clock));
      a.rates = rates_of(a.all, r, run.clock.clock->ticks_per_second());
      a.totals = totals_of(*p, r, run.clock.clock->ticks_per_second());
      // Only the prepared phase follows a warmup, which the first block's lead is measured from.
      if (p->kind == phase_kind::prepared) a.learning = detect_learning(*p);
      a.counters = counters_of(*p, a.lowest_index);
    }
    const phase_analysis* base = w.find(phase_kind::baseline);
    const phase_analysis* prep = w.find(phase_kind::prepared);
    if (base != nullptr && prep != nullptr) {
      w.change = compare_preparation(*base, *prep, run.clock, run.options.tuning.floor);
      w.host_speed = compare_host_speed(*base->phase, *prep->phase);
    }
    w.pinned = r.preparation.affinity_applied.size() == 1;
    if (prep != nullptr) {
      if (const counter_figure* m = prep->counters.find(cpu_counter::cpu_migrations))
        w.prepared_migrations = m->phase_total;
    }
    std::vector<std::span<const double>> sampled;
    for (const phase_analysis& a : w.phases) {
      if (a.phase->kind != phase_kind::first) sampled.emplace_back(a.phase->values);
    }
    w.histogram = stats::histogram_of(sampled);
    w.trust = judge_trust(w, run);
  }
  return model;
}

}  // namespace harness
