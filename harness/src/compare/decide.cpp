// Deciding `harness compare`: per workload, each side's floor from the reports that confirmed it,
// B faster or slower only when the floors are apart, the workloads a side never sampled, the
// host-speed check across the sides, and the gate over the outcomes.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string_view>

#include "base/numbers.hpp"
#include "compare/figures.hpp"
#include "harness/compare.hpp"

namespace harness::compare {
namespace {

using detail::figure;
using detail::interval_text;

const workload_run* find(const run_file& run, const std::string& name) {
  const auto found = std::find_if(run.workloads.begin(), run.workloads.end(),
                                  [&](const workload_run& w) { return w.name == name; });
  return found == run.workloads.end() ? nullptr : &*found;
}

const unsampled_workload* find_unsampled(const run_file& run, const std::string& name) {
  const auto found = std::find_if(run.unsampled.begin(), run.unsampled.end(),
                                  [&](const unsampled_workload& w) { return w.name == name; });
  return found == run.unsampled.end() ? nullptr : &*found;
}

// Why a report has no prepared phase of a workload it names.
std::string why_unsampled(const unsampled_workload& w) {
  if (!w.error.empty()) return fmt::format("the workload threw before it: {}", w.error);
  return w.interrupted ? "interrupted before it" : "the report does not say why";
}

std::vector<double> scaled(const std::vector<double>& values, double scale) {
  std::vector<double> out(values);
  for (double& v : out)
    v *= scale;
  return out;
}

std::string side_name(std::string_view side, const run_file& run, std::size_t count) {
  return count == 1 ? std::string(side) : fmt::format("{} ({})", side, run.source);
}

// One side's result for `name`, in the comparison's unit (`scales` per report).
side_result summarize_side(std::string_view side, const std::vector<run_file>& runs,
                           const std::vector<double>& scales, const std::string& name) {
  side_result r;
  std::vector<double> minimums;
  bool every_floor = true;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const workload_run* w = find(runs[i], name);
    if (w == nullptr) {
      if (const unsampled_workload* u = find_unsampled(runs[i], name)) {
        r.notes.push_back(fmt::format("{}: no prepared phase ({}), so the report is left out",
                                      side_name(side, runs[i], runs.size()), why_unsampled(*u)));
      }
      continue;
    }
    if (!w->floor_confirmed) {
      // A minimum the run itself could not confirm may come from a slowed host: left out.
      ++r.unconfirmed;
      r.notes.push_back(
          w->floor_recorded
              ? fmt::format("{}: the floor was not confirmed, so the report is left out: {}",
                            side_name(side, runs[i], runs.size()), w->floor_reason)
              : fmt::format("{}: written without a floor confirmation (an older harness), so the "
                            "report is left out",
                            side_name(side, runs[i], runs.size())));
      continue;
    }
    const stats::phase_statistics s = stats::summarize(scaled(w->values, scales[i]));
    const double granularity =
        runs[i].granularity_ticks > 0 ? runs[i].granularity_ticks : runs[i].step_ticks;
    const double step =
        granularity / static_cast<double>(std::max<std::uint64_t>(w->batch, 1)) * scales[i];
    r.fewest_samples = r.reports == 0 ? s.n : std::min(r.fewest_samples, s.n);
    ++r.reports;
    r.step = std::max(r.step, step);
    if (!w->verdict.empty() && w->verdict != "stable") {
      r.notes.push_back(fmt::format("{} judged its prepared phase {}: {}",
                                    side_name(side, runs[i], runs.size()), w->verdict,
                                    w->verdict_reason));
    }
    if (!s.min) {
      every_floor = false;
      continue;
    }
    minimums.push_back(*s.min);
    if (!s.min_ci) {
      every_floor = false;
      continue;
    }
    // A call takes no less than no time: the bounds are clamped at zero (Robson-Whitlock reaches
    // far below a minimum whose next-fastest sample is far above it).
    const floor_interval widened{std::max(0.0, s.min_ci->lower - step),
                                 std::max(0.0, *s.min + step)};
    r.floor = r.floor ? floor_interval{std::min(r.floor->lower, widened.lower),
                                       std::max(r.floor->upper, widened.upper)}
                      : widened;
  }
  if (!every_floor || r.reports == 0) r.floor.reset();
  if (!minimums.empty()) {
    std::sort(minimums.begin(), minimums.end());
    r.min = stats::median_sorted(minimums);
    r.lowest_min = minimums.front();
    r.highest_min = minimums.back();
  }
  return r;
}

// Every sample of `name` in a side's reports, confirmed or not, in the comparison's unit.
std::vector<double> pooled_values(const std::vector<run_file>& runs,
                                  const std::vector<double>& scales, const std::string& name) {
  std::vector<double> values;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    if (const workload_run* w = find(runs[i], name)) {
      for (const double v : w->values)
        values.push_back(v * scales[i]);
    }
  }
  return values;
}

bool whole_ticks(const std::vector<run_file>& runs, const std::string& name) {
  return std::all_of(runs.begin(), runs.end(), [&](const run_file& run) {
    const workload_run* w = find(run, name);
    return w == nullptr || w->batch == 1;
  });
}

std::optional<double> fastest_reference(const std::vector<run_file>& runs,
                                        const std::vector<double>& scales) {
  std::optional<double> best;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    for (const workload_run& w : runs[i].workloads) {
      if (!w.reference_best || *w.reference_best == 0) continue;
      const double v = static_cast<double>(*w.reference_best) * scales[i];
      best = best ? std::min(*best, v) : v;
    }
  }
  return best;
}

// The amount every report of both sides declares per call for `name`, or nullopt when one
// does not declare it or two differ (the figures would not compare).
std::optional<double> common_amount(const std::vector<run_file>& a, const std::vector<run_file>& b,
                                    const std::string& name,
                                    std::optional<double> workload_run::*amount) {
  std::optional<double> common;
  for (const auto* side : {&a, &b}) {
    for (const run_file& r : *side) {
      const workload_run* w = find(r, name);
      if (w == nullptr) continue;
      if (!(w->*amount) || (common && *common != *(w->*amount))) return std::nullopt;
      common = w->*amount;
    }
  }
  return common;
}

throughput rates_at_min(const workload_comparison& w, const std::vector<run_file>& a,
                        const std::vector<run_file>& b, bool same_clock) {
  throughput t;
  // A side's min is in ticks of the common clock, or in ns.
  const double seconds_per_unit = same_clock ? 1 / a.front().ticks_per_second : 1e-9;
  const auto per_second = [&](const std::optional<double>& per_call,
                              const std::optional<double>& min) -> std::optional<double> {
    if (!per_call || !min || !(*min > 0) || !(seconds_per_unit > 0)) return std::nullopt;
    return *per_call / (*min * seconds_per_unit);
  };
  const std::optional<double> items = common_amount(a, b, w.name, &workload_run::items_per_call);
  const std::optional<double> bytes = common_amount(a, b, w.name, &workload_run::bytes_per_call);
  t.a_items_per_second = per_second(items, w.a.min);
  t.b_items_per_second = per_second(items, w.b.min);
  t.a_bytes_per_second = per_second(bytes, w.a.min);
  t.b_bytes_per_second = per_second(bytes, w.b.min);
  return t;
}

}  // namespace

comparison compare_runs(const std::vector<run_file>& a, const std::vector<run_file>& b) {
  if (a.empty() || b.empty()) throw std::invalid_argument("compare_runs: a side without reports");
  comparison c;
  const std::string& clock = a.front().clock;
  const auto one_clock = [&](const run_file& r) { return r.clock == clock; };
  c.same_clock =
      std::all_of(a.begin(), a.end(), one_clock) && std::all_of(b.begin(), b.end(), one_clock);
  c.unit = c.same_clock ? "ticks of " + clock : "ns";
  const auto scales_of = [&](const std::vector<run_file>& runs) {
    std::vector<double> scales;
    for (const run_file& r : runs)
      scales.push_back(c.same_clock ? 1.0 : 1e9 / r.ticks_per_second);
    return scales;
  };
  const std::vector<double> scale_a = scales_of(a);
  const std::vector<double> scale_b = scales_of(b);
  c.slowdown_factor = 0;
  for (const auto* side : {&a, &b}) {
    for (const run_file& r : *side)
      c.slowdown_factor = std::max(c.slowdown_factor, r.slowdown_factor);
  }

  // Workload names in order of first appearance on each side, sampled or not.
  const auto names_of = [](const std::vector<run_file>& runs) {
    std::vector<std::string> names;
    const auto add = [&](const std::string& name) {
      if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
    };
    for (const run_file& r : runs) {
      for (const workload_run& w : r.workloads)
        add(w.name);
      for (const unsampled_workload& w : r.unsampled)
        add(w.name);
    }
    return names;
  };
  const auto sampled = [](const std::vector<run_file>& runs, const std::string& name) {
    return std::any_of(runs.begin(), runs.end(),
                       [&](const run_file& r) { return find(r, name) != nullptr; });
  };
  // "a.json (interrupted before it)" for each report of a side that names `name` unsampled.
  const auto unsampled_in = [](const std::vector<run_file>& runs, const std::string& name) {
    std::vector<std::string> parts;
    for (const run_file& r : runs) {
      if (const unsampled_workload* u = find_unsampled(r, name))
        parts.push_back(fmt::format("{} ({})", r.source, why_unsampled(*u)));
    }
    return fmt::format("{}", fmt::join(parts, ", "));
  };
  const std::vector<std::string> names_a = names_of(a);
  const std::vector<std::string> names_b = names_of(b);
  for (const std::string& name : names_b) {
    if (std::find(names_a.begin(), names_a.end(), name) == names_a.end())
      c.only_in_b.push_back(name);
  }

  for (const std::string& name : names_a) {
    if (std::find(names_b.begin(), names_b.end(), name) == names_b.end()) {
      c.only_in_a.push_back(name);
      continue;
    }
    const bool in_a = sampled(a, name);
    const bool in_b = sampled(b, name);
    if (!in_a || !in_b) {
      std::vector<std::string> sides;
      if (!in_a) sides.push_back(unsampled_in(a, name));
      if (!in_b) sides.push_back(unsampled_in(b, name));
      c.not_compared.push_back(
          {name, fmt::format("no prepared phase in {}", fmt::join(sides, " nor in "))});
      continue;
    }
    workload_comparison w;
    w.name = name;
    w.a = summarize_side("A", a, scale_a, name);
    w.b = summarize_side("B", b, scale_b, name);
    const std::vector<double> pa = pooled_values(a, scale_a, name);
    const std::vector<double> pb = pooled_values(b, scale_b, name);
    for (auto [side, values] : {std::pair{&w.a, &pa}, std::pair{&w.b, &pb}}) {
      const stats::phase_statistics all = stats::summarize(*values);
      side->samples = all.n;
      side->median = all.median;
      if (all.median_ci) side->median_interval = {all.median_ci->lower, all.median_ci->upper};
    }
    w.whole_ticks = c.same_clock && whole_ticks(a, name) && whole_ticks(b, name);
    if (w.a.min && w.b.min && *w.a.min > 0) w.ratio = *w.b.min / *w.a.min;
    w.rates = rates_at_min(w, a, b, c.same_clock);
    const bool integral = w.whole_ticks;
    if (w.a.reports == 0 || w.b.reports == 0) {
      // No floor to trust on a side: the medians decide, from every sample of both sides.
      const std::string who = w.a.reports == 0 && w.b.reports == 0 ? "no report on either side"
                              : w.a.reports == 0                   ? "no report of A"
                                                                   : "no report of B";
      // log_shift takes logarithms: it needs every sample above 0.
      const auto above_zero = [](const std::vector<double>& v) {
        return static_cast<std::size_t>(
            std::count_if(v.begin(), v.end(), [](double x) { return x > 0; }));
      };
      const std::size_t na = above_zero(pa);
      const std::size_t nb = above_zero(pb);
      const std::optional<stats::shift_estimate> shift =
          na == pa.size() && nb == pb.size() && na >= stats::kMinSamplesForVerdict &&
                  nb >= stats::kMinSamplesForVerdict
              ? stats::log_shift(pa, pb)
              : std::nullopt;
      if (!shift) {
        w.result = outcome::undefined;
        w.reason = fmt::format(
            "{} confirmed its floor (a minimum the run could not confirm may come from a slowed "
            "host), and the medians cannot decide either: they need {} samples a side, all "
            "above 0; A has {} of {} above 0, B {} of {}; rerun",
            who, stats::kMinSamplesForVerdict, na, pa.size(), nb, pb.size());
      } else {
        w.decided_by = estimator::median_shift;
        w.shift = shift;
        w.ratio = shift->ratio;
        const std::string figures = fmt::format(
            "B/A {} [{}, {}] by the median shift (Hodges-Lehmann, Mann-Whitney's 95% "
            "interval) over {} and {} samples{}; medians A {}, B {}",
            fixed_text(shift->ratio, 4), fixed_text(shift->lower, 4), fixed_text(shift->upper, 4),
            shift->a_values, shift->b_values,
            shift->thinned ? ", each side thinned to evenly spaced order statistics" : "",
            figure(*w.a.median, w.whole_ticks), figure(*w.b.median, w.whole_ticks));
        const std::string why =
            fmt::format("{} confirmed its floor, so the medians decided: ", who);
        if (shift->upper < 1) {
          w.result = outcome::faster;
        } else if (shift->lower > 1) {
          w.result = outcome::slower;
        } else {
          w.result = outcome::not_shown;
        }
        w.reason = why + figures;
      }
    } else if (!w.a.floor || !w.b.floor || w.a.fewest_samples < stats::kMinSamplesForVerdict ||
               w.b.fewest_samples < stats::kMinSamplesForVerdict) {
      // The verdicts' own threshold: with fewer samples the minimum may not have come near the
      // floor, and the floor's interval is too loose to trust.
      w.result = outcome::undefined;
      w.reason =
          fmt::format("every report needs {} samples or more to compare; the fewest are A {}, B {}",
                      stats::kMinSamplesForVerdict, w.a.fewest_samples, w.b.fewest_samples);
    } else if (w.b.floor->upper < w.a.floor->lower) {
      w.result = outcome::faster;
      w.reason = fmt::format("B's floor {} lies below A's {}", interval_text(*w.b.floor, integral),
                             interval_text(*w.a.floor, integral));
    } else if (w.a.floor->upper < w.b.floor->lower) {
      w.result = outcome::slower;
      w.reason = fmt::format("B's floor {} lies above A's {}", interval_text(*w.b.floor, integral),
                             interval_text(*w.a.floor, integral));
    } else {
      w.result = outcome::not_shown;
      w.reason = fmt::format("the floors overlap: A {}, B {}", interval_text(*w.a.floor, integral),
                             interval_text(*w.b.floor, integral));
    }
    c.workloads.push_back(std::move(w));
  }

  c.a_reference = fastest_reference(a, scale_a);
  c.b_reference = fastest_reference(b, scale_b);
  if (c.a_reference && c.b_reference) {
    const double ratio =
        std::max(*c.a_reference, *c.b_reference) / std::min(*c.a_reference, *c.b_reference);
    c.host_speed_differs = ratio > c.slowdown_factor;
  }
  return c;
}

gate_result apply_gate(const comparison& c, double threshold) {
  if (!std::isfinite(threshold) || threshold < 0) {
    throw std::invalid_argument(
        fmt::format("apply_gate: threshold {} is not a finite fraction of 0 or more", threshold));
  }
  gate_result g;
  g.threshold = threshold;
  for (const workload_comparison& w : c.workloads) {
    if (w.result == outcome::undefined) g.not_compared.push_back(w.name);
    if (w.result != outcome::slower) continue;
    // Without a ratio (A's min not above 0) no threshold can hold B's min back.
    if (!w.ratio || *w.ratio > 1 + threshold) g.slower.push_back(w.name);
  }
  for (const not_compared_workload& w : c.not_compared)
    g.not_compared.push_back(w.name);
  return g;
}

}  // namespace harness::compare
