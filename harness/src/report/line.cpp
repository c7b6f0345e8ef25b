// `harness run --line`: the values of each phase for its template.
#include "harness/report_line.hpp"

#include <ostream>

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
      // Exact in integers: each sample's raw ticks less the overhead it carried.
      std::int64_t ticks = 0;
      for (std::size_t i = 0; i < p->values.size(); ++i) {
        ticks += static_cast<std::int64_t>(p->raw(i)) - static_cast<std::int64_t>(p->overhead);
      }
      const std::uint64_t runs = p->values.size() * p->batch;
      const double seconds = static_cast<double>(ticks) / tps;
      const bool rated = runs > 0 && ticks > 0;
      auto in_seconds = [tps](const std::optional<double>& v) -> std::optional<double> {
        if (!v) return std::nullopt;
        return *v / tps;
      };
      const bool counted = rated && r.iterations_per_call > 0;
      const double iterations =
          static_cast<double>(runs) * static_cast<double>(r.iterations_per_call);
      const auto rate = [&](const std::optional<double>& per_call) -> std::optional<double> {
        if (!rated || !per_call) return std::nullopt;
        return *per_call * static_cast<double>(runs) / seconds;
      };
      const std::array<template_value, line_slot::count> values{
          runs,
          seconds,
          rated ? std::optional<double>(static_cast<double>(runs) / seconds) : std::nullopt,
          ticks,
          rated ? std::optional<double>(seconds / static_cast<double>(runs) * 1e9) : std::nullopt,
          rated ? std::optional<double>(seconds / static_cast<double>(runs)) : std::nullopt,
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
          r.iterations_per_call > 0 ? template_value(runs * r.iterations_per_call)
                                    : template_value(),
          counted ? std::optional<double>(seconds / iterations) : std::nullopt,
          counted ? std::optional<double>(seconds / iterations * 1e9) : std::nullopt,
          rate(r.items_per_call),
          rate(r.bytes_per_call),
      };
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
