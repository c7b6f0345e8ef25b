// The summary table's rows and the spread comparison, for the console and Markdown reports.
#include "report/summary.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>

namespace harness::report_detail {
namespace {

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
  c.granularity = clock.resolution() / static_cast<double>(phase.batch);
  return c;
}

std::string spread_sentence(const std::string& name, const phase_analysis& base,
                            const phase_analysis& prep) {
  const auto change = compare_spread(base.all, prep.all);
  if (!change)
    return fmt::format("{}: spread change undefined (a minimum at or below 0 ticks)", name);
  if (change->factor) {
    return fmt::format(
        "{}: preparation changed the spread from {:.3f}% to {:.3f}% of min ({:.3g}x {})", name,
        change->baseline_percent, change->prepared_percent,
        *change->factor >= 1 ? *change->factor : 1 / *change->factor,
        *change->factor >= 1 ? "narrower" : "wider");
  }
  return fmt::format("{}: preparation changed the spread from {} to {}", name,
                     spread_text(change->baseline_percent), spread_text(change->prepared_percent));
}

// Empty unless the reference loop ran slower by more than `factor` in one whole phase.
std::string speed_sentence(const phase_result& base, const phase_result& prep, double factor) {
  const auto speed = compare_host_speed(base, prep);
  if (!speed || speed->ratio <= factor) return {};
  return fmt::format(
      "; but the CPU ran the reference loop {:.2f}x slower in the {} phase (best {} ticks) than "
      "in the {} phase ({} ticks): a slowed host or a lower clock for that whole phase, so the "
      "two phases' figures do not compare directly",
      speed->ratio, speed->baseline_slower ? "baseline" : "prepared",
      speed->baseline_slower ? speed->baseline_best : speed->prepared_best,
      speed->baseline_slower ? "prepared" : "baseline",
      speed->baseline_slower ? speed->prepared_best : speed->baseline_best);
}

}  // namespace

std::string ticks_text(double ticks, std::uint64_t batch) {
  return batch > 1 ? fmt::format("{:.2f}", ticks) : fmt::format("{:.0f}", ticks);
}

std::string time_text(double seconds, bool unicode) {
  const double magnitude = std::fabs(seconds);
  if (magnitude >= 1) return fmt::format("{:.3f} s", seconds);
  if (magnitude >= 1e-3) return fmt::format("{:.3f} ms", seconds * 1e3);
  if (magnitude >= 1e-6) return fmt::format("{:.3f} {}", seconds * 1e6, unicode ? "µs" : "us");
  return fmt::format("{:.3f} ns", seconds * 1e9);
}

const std::vector<summary_column>& summary_columns() {
  // Minimum, phase and name say what the run found; the verdict and the spread say whether to
  // trust it; the rest is detail a narrow terminal can do without.
  static const std::vector<summary_column> columns{
      {"workload", align::left, 0},   {"phase", align::left, 0},     {"samples", align::right, 4},
      {"min", align::right, 0},       {"median", align::right, 2},   {"max", align::right, 6},
      {"spread", align::right, 7},    {"spread %", align::right, 2}, {"min time", align::right, 3},
      {"disturbed", align::right, 5}, {"verdict", align::left, 1},   {"floor", align::left, 1},
  };
  return columns;
}

std::vector<workload_summary> summarize_report(const run_report& report, bool unicode) {
  std::vector<workload_summary> out;
  for (const workload_result& r : report.results) {
    workload_summary& w = out.emplace_back();
    w.result = &r;
    const phase_analysis* base = nullptr;
    const phase_analysis* prep = nullptr;
    const auto phases = phases_of(r);
    w.analyses.reserve(phases.size());
    for (const phase_result* p : phases) {
      if (p->kind == phase_kind::first) {
        w.analyses.push_back({stats::summarize(p->values), std::nullopt, {}});
      } else {
        w.analyses.push_back(analyze(*p, report.clock));
      }
      const phase_analysis& a = w.analyses.back();
      if (p->kind == phase_kind::baseline) base = &a;
      if (p->kind == phase_kind::prepared) prep = &a;
      const auto& s = a.all;
      summary_row row;
      row.phase = p;
      row.has_verdict = p->kind != phase_kind::first;
      row.level = a.verdict.level;
      row.cells = {
          r.name,
          to_string(p->kind),
          fmt::format("{}", s.n),
          opt_ticks(s.min, p->batch),
          opt_ticks(s.median, p->batch),
          opt_ticks(s.max, p->batch),
          opt_ticks(s.spread, p->batch),
          percent_text(s.spread_percent),
          s.min ? time_text(*s.min / report.clock.clock->ticks_per_second(), unicode)
                : std::string("-"),
          fmt::format("{}", p->disturbed_count()),
          row.has_verdict ? std::string(stats::to_string(a.verdict.level)) : std::string("-"),
          !p->floor             ? std::string("-")
          : p->floor->confirmed ? std::string("confirmed")
                                : std::string("unconfirmed")};
      w.rows.push_back(std::move(row));
    }
    if (base != nullptr && prep != nullptr) {
      w.spread_sentence =
          spread_sentence(r.name, *base, *prep) +
          speed_sentence(*r.baseline, *r.prepared, report.options.tuning.host_slowdown_factor);
    }
  }
  return out;
}

}  // namespace harness::report_detail

namespace harness {

phase_analysis analyze(const phase_result& phase, const clock_facts& clock) {
  phase_analysis a;
  a.all = stats::summarize(phase.values);
  const std::size_t disturbed = phase.disturbed_count();
  if (disturbed > 0 && disturbed < phase.values.size()) {
    a.clean =
        stats::summarize(phase.values, [&phase](std::size_t i) { return !phase.disturbed(i); });
  }
  a.verdict = stats::judge(a.all, report_detail::counts_of(phase, clock));
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

}  // namespace harness
