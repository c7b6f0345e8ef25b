// The console report.
#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <ostream>

#include "harness/duration.hpp"
#include "harness/report.hpp"

namespace harness {
namespace {

double to_ms(double ticks, const clock_source& clock) {
  return ticks / clock.ticks_per_second() * 1e3;
}

// Ticks per call: whole ticks for single calls, one decimal when batched (a fraction of a tick per
// call is measured: the sample's ticks divided by the batch).
std::string ticks_text(double v, std::uint64_t batch) {
  return batch > 1 ? fmt::format("{:.2f}", v) : fmt::format("{:.0f}", v);
}

std::string opt_ticks(const std::optional<double>& v, std::uint64_t batch) {
  return v ? ticks_text(*v, batch) : std::string("-");
}

std::string percent_text(const std::optional<double>& p) {
  return p ? fmt::format("{:.3f}%", *p) : std::string("n/a");
}

std::string spread_text(double percent) {
  return percent == 0 ? std::string("0 ticks") : fmt::format("{:.3f}% of min", percent);
}

stats::disturbance_counts counts_of(const phase_result& phase, const clock_facts& clock) {
  stats::disturbance_counts c;
  c.n_clean = phase.values.size() - phase.disturbed_count();
  c.n_host_slowdown = phase.host_slowdown_count();
  c.n_context_switch = phase.context_switch_count();
  c.clock_step = clock.step_measured
                     ? static_cast<double>(clock.step) / static_cast<double>(phase.batch)
                     : 0.0;
  return c;
}

void print_steps(std::ostream& out, std::string_view prefix,
                 const std::vector<platform::step_result>& steps) {
  for (const auto& s : steps) {
    if (s.applied) {
      fmt::print(out, "{}{}: applied\n", prefix, s.action);
    } else {
      fmt::print(out, "{}{}: REFUSED: {}\n", prefix, s.action, s.reason);
    }
  }
}

void print_preparation(std::ostream& out, const workload_result& r) {
  const preparation_report& p = r.preparation;
  fmt::print(out, "  preparation:\n");
  if (p.steps.empty()) fmt::print(out, "    nothing to apply (--no-pin and --priority normal)\n");
  print_steps(out, "    ", p.steps);
  fmt::print(out, "    read back: CPUs {} (were {}); {} (was {})\n",
             p.affinity_applied.empty() ? std::string("unreadable")
                                        : platform::format_cpu_list(p.affinity_applied),
             platform::format_cpu_list(p.affinity_before), p.priority_applied, p.priority_before);
  if (r.warmup.requested.count() == 0) {
    fmt::print(out, "    warmup: disabled\n");
  } else {
    fmt::print(out, "    warmup: {} requested, {} run, {} calls\n",
               format_duration(r.warmup.requested), format_duration(r.warmup.elapsed),
               r.warmup.calls);
  }
}

void print_phase_header(std::ostream& out, const phase_result& p, const clock_facts& clock) {
  fmt::print(out, "  {}: {} samples{}; timer overhead {} ticks subtracted; ", to_string(p.kind),
             p.values.size(),
             p.kind == phase_kind::baseline
                 ? " unprepared (no pinning, priority as started, no warmup)"
                 : "",
             p.overhead);
  if (p.batch > 1) {
    fmt::print(out, "{} calls per sample, figures per call\n", p.batch);
  } else {
    fmt::print(out, "one call per sample\n");
  }
  if (p.stopped_by != stop_reason::count) {
    fmt::print(out, "    sampling ended: {}\n", to_string(p.stopped_by));
  }
  (void)clock;
}

void print_estimates(std::ostream& out, std::string_view label, const stats::phase_statistics& s,
                     std::uint64_t batch, const clock_source& clock) {
  if (s.n == 0) return;
  fmt::print(out, "    {}: n {}, min {} ticks ({:.6f} ms)", label, s.n, opt_ticks(s.min, batch),
             to_ms(*s.min, clock));
  if (s.min_ci) {
    fmt::print(out, " [95% CI {}..{}, {}]", ticks_text(s.min_ci->lower, batch),
               ticks_text(s.min_ci->upper, batch), s.min_ci->method);
  }
  fmt::print(out, ", median {}", opt_ticks(s.median, batch));
  if (s.median_ci) {
    fmt::print(out, " [95% CI {}..{}, {}]", ticks_text(s.median_ci->lower, batch),
               ticks_text(s.median_ci->upper, batch), s.median_ci->method);
  }
  fmt::print(out, "\n");
  fmt::print(out, "      mean {}, stddev {}, CV {}, MAD {}, p5 {}, p95 {}, spread {} ({} of min)\n",
             opt_ticks(s.mean, batch), opt_ticks(s.stddev, batch), percent_text(s.cv_percent),
             opt_ticks(s.mad, batch), opt_ticks(s.p5, batch), opt_ticks(s.p95, batch),
             opt_ticks(s.spread, batch), percent_text(s.spread_percent));
  fmt::print(
      out, "      outliers (Tukey): {} low severe, {} low mild, {} high mild, {} high severe",
      s.outliers.low_severe, s.outliers.low_mild, s.outliers.high_mild, s.outliers.high_severe);
  if (s.drift) {
    fmt::print(out, "; drift: Spearman rho {:+.3f}", s.drift->spearman_rho);
    if (s.drift->p_value) {
      fmt::print(out, " (p {:.3g}{})", *s.drift->p_value,
                 s.drift->significant ? ", significant" : "");
    }
  }
  fmt::print(out, "\n");
}

void print_analysis(std::ostream& out, const phase_result& p, const phase_analysis& a,
                    const clock_facts& clock, double slowdown_factor) {
  print_estimates(out, "all samples", a.all, p.batch, *clock.clock);
  const std::size_t disturbed = p.disturbed_count();
  fmt::print(out,
             "    disturbed: {} of {} ({} during host slow-downs: reference loop {} of {} runs "
             "over {:.2f}x its best of {} ticks; ",
             disturbed, p.values.size(), p.host_slowdown_count(), p.reference_slow,
             p.reference_runs, slowdown_factor, p.reference_best);
  if (p.context_switch.empty()) {
    fmt::print(out, "context switches not counted: samples too short to read them cheaply)\n");
  } else {
    fmt::print(out, "{} preempted by a context switch)\n", p.context_switch_count());
  }
  if (a.clean) print_estimates(out, "clean samples", *a.clean, p.batch, *clock.clock);
  fmt::print(out, "    verdict: {}: {}\n      recommendation: {}\n",
             stats::to_string(a.verdict.level), a.verdict.reason, a.verdict.recommendation);
}

void print_summary_row(std::ostream& out, std::string_view workload, const phase_result& p,
                       const phase_analysis& a, const clock_source& clock) {
  const auto& s = a.all;
  fmt::print(out, "  {:<24} {:<10} {:>8} {:>14} {:>14} {:>14} {:>12} {:>10} {:>12.6f} {:>9} {}\n",
             workload, to_string(p.kind), s.n, opt_ticks(s.min, p.batch),
             opt_ticks(s.median, p.batch), opt_ticks(s.max, p.batch), opt_ticks(s.spread, p.batch),
             percent_text(s.spread_percent), s.min ? to_ms(*s.min, clock) : 0.0,
             p.disturbed_count(),
             p.kind == phase_kind::first ? std::string("-")
                                         : std::string(stats::to_string(a.verdict.level)));
}

}  // namespace

phase_analysis analyze(const phase_result& phase, const clock_facts& clock) {
  phase_analysis a;
  a.all = stats::summarize(phase.values);
  const std::size_t disturbed = phase.disturbed_count();
  if (disturbed > 0 && disturbed < phase.values.size()) {
    a.clean =
        stats::summarize(phase.values, [&phase](std::size_t i) { return !phase.disturbed(i); });
  }
  a.verdict = stats::judge(a.all, counts_of(phase, clock));
  return a;
}

std::optional<spread_change> compare_spread(const stats::phase_statistics& baseline,
                                            const stats::phase_statistics& prepared) {
  if (!baseline.spread_percent || !prepared.spread_percent) return std::nullopt;
  spread_change c{*baseline.spread_percent, *prepared.spread_percent, std::nullopt};
  if (c.prepared_percent > 0 && c.baseline_percent > 0) {
    c.factor = c.baseline_percent / c.prepared_percent;
  }
  return c;
}

void print_samples(std::ostream& out, const phase_result& phase, const clock_source& clock) {
  if (phase.values.empty()) return;
  const auto lo = std::min_element(phase.values.begin(), phase.values.end()) - phase.values.begin();
  const auto hi = std::max_element(phase.values.begin(), phase.values.end()) - phase.values.begin();
  const int width = static_cast<int>(fmt::formatted_size("{}", phase.values.size()));
  for (std::size_t i = 0; i < phase.values.size(); ++i) {
    const auto idx = static_cast<std::ptrdiff_t>(i);
    const char* mark = lo == hi    ? ""
                       : idx == hi ? "  <-- highest"
                       : idx == lo ? "  <-- lowest"
                                   : "";
    std::string flags;
    if (phase.host_slowdown[i]) flags += "  [host slow-down]";
    if (!phase.context_switch.empty() && phase.context_switch[i]) flags += "  [context switch]";
    fmt::print(out, "    {:>{}}. ticks: {:>14}  ms: {:>12.6f}  (raw {}){}{}\n", i + 1, width,
               ticks_text(phase.values[i], phase.batch), to_ms(phase.values[i], clock),
               phase.raw(i), mark, flags);
  }
}

void print_console_report(std::ostream& out, const run_report& report) {
  const clock_source& clock = *report.clock.clock;
  fmt::print(out, "clock: {} ({}), {:.0f} ticks/s, 1 tick = {:.4g} ns, ", clock.name(),
             clock.description(), clock.ticks_per_second(), 1e9 / clock.ticks_per_second());
  if (report.clock.step_measured) {
    fmt::print(out, "smallest step seen {} ticks\n", report.clock.step);
  } else {
    fmt::print(out, "no step seen\n");
  }
  if (!report.clock_reason.empty()) fmt::print(out, "  why this clock: {}\n", report.clock_reason);
  fmt::print(out,
             "figures: ticks of this clock per call, timer overhead subtracted (raw ticks in "
             "brackets); headline estimator: the minimum, with the median beside it\n");
  const run_options& o = report.options;
  fmt::print(out, "samples per phase: {}; warmup: {}; priority: {}; pin: {}{}\n",
             o.auto_samples ? fmt::format("auto (target {:.3g}% of min, at most {} each)",
                                          o.target * 100, format_duration(o.max_time))
                            : fmt::format("{}", o.samples),
             format_duration(o.warmup), platform::to_string(o.priority),
             o.cpu ? fmt::format("CPU {}", *o.cpu) : std::string("off"),
             o.lock_memory ? "; memory locked" : "");
  for (const auto& line : report.environment)
    fmt::print(out, "{}\n", line);

  std::vector<std::vector<std::pair<const phase_result*, phase_analysis>>> analyses;
  for (const workload_result& r : report.results) {
    auto& list = analyses.emplace_back();
    fmt::print(out, "\n{}\n", r.name);
    if (r.first) {
      const phase_result& f = *r.first;
      fmt::print(out, "  first call (cold, alone): {} ticks  {:.6f} ms  (raw {}, overhead {})\n",
                 ticks_text(f.values[0], 1), to_ms(f.values[0], clock), f.raw(0), f.overhead);
      list.emplace_back(&f, phase_analysis{stats::summarize(f.values), std::nullopt, {}});
    }
    if (r.batch > 1) {
      fmt::print(out, "  batch: {} calls per sample ({}; samples aim at {} ticks or more)\n",
                 r.batch, r.batch_calibrated ? "calibrated before the baseline" : "--batch",
                 r.min_sample_ticks);
    }
    if (r.baseline) {
      print_phase_header(out, *r.baseline, report.clock);
      if (report.show_samples) print_samples(out, *r.baseline, clock);
      list.emplace_back(&*r.baseline, analyze(*r.baseline, report.clock));
      print_analysis(out, *r.baseline, list.back().second, report.clock,
                     o.tuning.host_slowdown_factor);
    }
    if (!r.preparation.steps.empty() || r.prepared) print_preparation(out, r);
    if (r.prepared) {
      print_phase_header(out, *r.prepared, report.clock);
      if (report.show_samples) print_samples(out, *r.prepared, clock);
      list.emplace_back(&*r.prepared, analyze(*r.prepared, report.clock));
      print_analysis(out, *r.prepared, list.back().second, report.clock,
                     o.tuning.host_slowdown_factor);
    }
    print_steps(out, "  restore: ", r.preparation.restore_steps);
    if (r.failed()) fmt::print(out, "  FAILED: the workload threw: {}\n", r.error);
    if (r.interrupted) fmt::print(out, "  INTERRUPTED: results so far\n");
  }

  fmt::print(out,
             "\nsummary (ticks of {} per call; spread = max - min, % of min; disturbed = samples "
             "during host slow-downs or context switches)\n",
             clock.name());
  fmt::print(out, "  {:<24} {:<10} {:>8} {:>14} {:>14} {:>14} {:>12} {:>10} {:>12} {:>9} {}\n",
             "workload", "phase", "samples", "min", "median", "max", "spread", "spread %", "min ms",
             "disturbed", "verdict");
  for (std::size_t w = 0; w < report.results.size(); ++w) {
    const workload_result& r = report.results[w];
    const phase_analysis* base = nullptr;
    const phase_analysis* prep = nullptr;
    for (const auto& [phase, analysis] : analyses[w]) {
      print_summary_row(out, r.name, *phase, analysis, clock);
      if (phase->kind == phase_kind::baseline) base = &analysis;
      if (phase->kind == phase_kind::prepared) prep = &analysis;
    }
    if (base == nullptr || prep == nullptr) continue;
    const auto change = compare_spread(base->all, prep->all);
    if (!change) {
      fmt::print(out, "  {}: spread change undefined (a minimum at or below 0 ticks)\n", r.name);
    } else if (change->factor) {
      fmt::print(out,
                 "  {}: preparation changed the spread from {:.3f}% to {:.3f}% of min ({:.3g}x "
                 "{})\n",
                 r.name, change->baseline_percent, change->prepared_percent,
                 *change->factor >= 1 ? *change->factor : 1 / *change->factor,
                 *change->factor >= 1 ? "narrower" : "wider");
    } else {
      fmt::print(out, "  {}: preparation changed the spread from {} to {}\n", r.name,
                 spread_text(change->baseline_percent), spread_text(change->prepared_percent));
    }
  }
}

}  // namespace harness
