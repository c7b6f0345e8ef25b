// The CSV report: one row per sample of every phase, for spreadsheets and scripts.
//
// Columns (docs/output.md): workload, phase, index (0-based, sampling order), ticks (per call,
// overhead subtracted), ns (ticks converted with the clock's rate), disturbed (0/1), raw_ticks (the
// whole sample as read), batch (calls in the sample), host_slowdown (0/1), context_switch (0/1, or
// empty when not counted), block (1-based, empty for the first call), ns_per_iteration (ns divided
// by the iterations the workload returned per call), items_per_second and bytes_per_second (what
// it declared a call processes, over ns) - these three empty when not reported or declared -,
// error (empty), then one column per CPU counter read in the run (its id: "task-clock",
// "page-faults"; the count per call in that sample, empty when not counted). A workload
// that failed gets one more row: the stage it failed in as its phase, the sample it failed in
// (0-based) as its index when in a phase, its block, and what it threw in `error`; the figures are
// empty. Fields are quoted as RFC 4180 asks when they hold a comma, a quote or a line break.
#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <cmath>
#include <ostream>

#include "harness/report.hpp"
#include "report/counters.hpp"
#include "report/table.hpp"

namespace harness {
namespace {

using report_detail::csv_field;

// `per_call` over `ns` nanoseconds, per second; empty when not declared or ns is not above 0.
std::string per_second(const std::optional<double>& per_call, double ns) {
  if (!per_call || !(ns > 0)) return {};
  return fmt::format("{}", *per_call / (ns * 1e-9));
}

}  // namespace

void write_csv_report(std::ostream& out, const report_model& model) {
  const run_report& report = *model.run;
  const double ns_per_tick = 1e9 / report.clock.clock->ticks_per_second();
  const std::vector<cpu_counter> counters = report_detail::counters_in(model);
  fmt::print(out,
             "workload,phase,index,ticks,ns,disturbed,raw_ticks,batch,host_slowdown,"
             "context_switch,block,ns_per_iteration,items_per_second,bytes_per_second,error");
  for (const cpu_counter c : counters)
    fmt::print(out, ",{}", id_of(c));
  // --instructions: the workload's count per call under Valgrind, on each of its rows.
  const bool counted =
      std::any_of(report.results.begin(), report.results.end(),
                  [](const workload_result& r) { return r.instructions.has_value(); });
  if (counted) fmt::print(out, ",counted_instructions");
  fmt::print(out, "\n");
  // Once per workload: the same on each of its rows.
  const auto instructions_field = [&](const workload_result& r) -> std::string {
    if (!counted) return {};
    if (!r.instructions || r.instructions->per_call.empty()) return ",";
    return fmt::format(",{}", report_detail::median_of(r.instructions->per_call));
  };
  // The sample's counts per call, one field each; empty where not counted.
  const auto counter_fields = [&](const phase_result& p, std::size_t i) {
    std::string fields;
    for (const cpu_counter c : counters) {
      fields += ',';
      for (const counter_series& s : p.counters) {
        if (s.counter == c && i < s.counts.size() && !std::isnan(s.counts[i]))
          fields += fmt::format("{}", s.counts[i] / static_cast<double>(p.batch));
      }
    }
    return fields;
  };
  for (const workload_result& r : report.results) {
    const std::string name = csv_field(r.name);
    const std::string instructions = instructions_field(r);
    for (const phase_result* p : phases_of(r)) {
      for (std::size_t i = 0; i < p->values.size(); ++i) {
        const double ns = p->values[i] * ns_per_tick;
        fmt::print(out, "{},{},{},{},{},{:d},{},{},{:d},{},{},{},{},{},{}{}\n", name,
                   id_of(p->kind), i, p->values[i], ns, p->disturbed(i), p->raw(i), p->batch,
                   static_cast<bool>(p->host_slowdown[i]),
                   p->context_switch.empty() ? std::string()
                                             : std::string(p->context_switch[i] ? "1" : "0"),
                   p->blocks.empty() ? std::string() : fmt::format("{}", p->block_of(i) + 1),
                   r.iterations_per_call > 0
                       ? fmt::format("{}", ns / static_cast<double>(r.iterations_per_call))
                       : std::string(),
                   per_second(r.items_per_call, ns), per_second(r.bytes_per_call, ns),
                   counter_fields(*p, i), instructions);
      }
    }
    if (r.failed()) {
      const workload_failure& f = *r.failure;
      const auto or_empty = [](std::size_t v, std::size_t less) {
        return v == 0 ? std::string() : fmt::format("{}", v - less);
      };
      fmt::print(out, "{},{},{},,,,,{},,,{},,,,{}{}{}\n", name, id_of(f.stage),
                 or_empty(f.sample, 1), f.calls_per_sample, or_empty(f.block, 0),
                 csv_field(f.what()), std::string(counters.size(), ','), counted ? "," : "");
    }
  }
}

}  // namespace harness
