// `harness run --line`: the values of each phase for its template.
#include "harness/report_line.hpp"

#include <ostream>

#include "report/counters.hpp"

namespace harness {

format_template parse_line_template(std::string_view text) {
  return format_template(text, line_tokens);
}

void print_lines(std::ostream& out, const report_model& model, const format_template& line) {
  const clock_source& clock = *model.run->clock.clock;
  const double tps = clock.ticks_per_second();
  for (const workload_analysis& w : model.workloads) {
    const workload_result& r = *w.result;
    for (const phase_analysis& a : w.phases) {
      const phase_result* p = a.phase;
      // The sums and mean rates are the analysis' (phase_totals); here they are only placed.
      const phase_totals& t = a.totals;
      auto in_seconds = [tps](const std::optional<double>& v) -> std::optional<double> {
        if (!v) return std::nullopt;
        return *v / tps;
      };
      const auto times_1e9 = [](const std::optional<double>& v) -> std::optional<double> {
        if (!v) return std::nullopt;
        return *v * 1e9;
      };
      std::array<template_value, line_slot::count> values{
          t.runs,
          t.seconds,
          t.runs_per_second,
          t.ticks,
          times_1e9(t.seconds_per_run),
          t.seconds_per_run,
          clock.name(),
          std::string_view(r.name),
          id_of(p->kind),
          in_seconds(a.all.min),
          in_seconds(a.all.max),
          in_seconds(a.all.spread),
          in_seconds(a.all.median),
          p->values.size(),
          a.verdict ? template_value(stats::id_of(a.verdict->level)) : template_value(),
          p->disturbed_count(),
          !p->floor ? template_value() : template_value(p->floor->confirmed ? "yes" : "no"),
          p->floor ? in_seconds(p->floor->floor) : std::nullopt,
          t.iterations ? template_value(*t.iterations) : template_value(),
          t.seconds_per_iteration,
          times_1e9(t.seconds_per_iteration),
          t.items_per_second,
          t.bytes_per_second,
      };
      for (const counter_figure& f : a.counters.figures) {
        if (f.at_floor) values[line_slot::counters + index_of(f.counter)] = *f.at_floor;
        if (f.counter == cpu_counter::cpu_migrations && f.phase_total)
          values[line_slot::phase_migrations] = *f.phase_total;
      }
      if (a.counters.ipc_at_floor) values[line_slot::ipc] = *a.counters.ipc_at_floor;
      if (r.instructions && !r.instructions->per_call.empty())
        values[line_slot::counted_instructions] =
            report_detail::median_of(r.instructions->per_call);
      out << line.render(values) << '\n';
    }
    if (r.failed()) {
      // The stage it failed in, with nothing measured to show: every figure n/a.
      std::array<template_value, line_slot::count> values{};
      values[profile_slot::clock] = clock.name();
      values[line_slot::workload] = std::string_view(r.name);
      values[line_slot::phase] = id_of(r.failure->stage);
      values[line_slot::verdict] = "failed";
      out << line.render(values) << '\n';
    }
  }
}

}  // namespace harness
