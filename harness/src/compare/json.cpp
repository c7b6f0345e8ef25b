// `harness compare --format json`: the comparison as one JSON document for a CI job or a script
// (docs/output.md, "harness compare"): the reports each side was read from, per workload both
// sides' figures, the ratio, the outcome and its reason; the workloads not compared, with why, and
// those on one side only; the host check; and the gate with the exit code. It formats the
// comparison and computes nothing. A figure a side cannot define is null, never 0.
#include <nlohmann/json.hpp>

#include <ostream>

#include "harness/compare.hpp"

namespace harness::compare {
namespace {

using ordered = nlohmann::ordered_json;

// The document's own schema: a change that drops or renames a field raises it.
constexpr int kCompareSchemaVersion = 1;

ordered optional_number(const std::optional<double>& v) {
  return v ? ordered(*v) : ordered(nullptr);
}

ordered reports_json(const std::vector<run_file>& runs) {
  ordered list = ordered::array();
  for (const run_file& r : runs)
    list.push_back({{"source", r.source}, {"date", r.date}, {"clock", r.clock}});
  return list;
}

ordered side_json(const side_result& s) {
  return {{"reports", s.reports},
          {"unconfirmed", s.unconfirmed},
          {"fewest_samples", s.fewest_samples},
          {"min", optional_number(s.min)},
          {"lowest_min", optional_number(s.lowest_min)},
          {"highest_min", optional_number(s.highest_min)},
          {"floor", s.floor ? ordered{{"lower", s.floor->lower}, {"upper", s.floor->upper}}
                            : ordered(nullptr)},
          {"step", s.step},
          {"samples", s.samples},
          {"median", optional_number(s.median)},
          {"median_interval", s.median_interval ? ordered{{"lower", s.median_interval->lower},
                                                          {"upper", s.median_interval->upper}}
                                                : ordered(nullptr)},
          {"notes", s.notes}};
}

}  // namespace

void write_json(std::ostream& out, const comparison& c, const std::vector<run_file>& a,
                const std::vector<run_file>& b, const gate_result& gate, int exit_code) {
  ordered workloads = ordered::array();
  for (const workload_comparison& w : c.workloads) {
    workloads.push_back({{"name", w.name},
                         {"a", side_json(w.a)},
                         {"b", side_json(w.b)},
                         {"ratio", optional_number(w.ratio)},
                         {"decided_by", id_of(w.decided_by)},
                         {"shift", w.shift ? ordered{{"ratio", w.shift->ratio},
                                                     {"lower", w.shift->lower},
                                                     {"upper", w.shift->upper},
                                                     {"level", w.shift->confidence_level},
                                                     {"a_samples", w.shift->a_values},
                                                     {"b_samples", w.shift->b_values},
                                                     {"thinned", w.shift->thinned},
                                                     {"method", w.shift->method}}
                                           : ordered(nullptr)},
                         {"throughput",
                          {{"a_items_per_second", optional_number(w.rates.a_items_per_second)},
                           {"b_items_per_second", optional_number(w.rates.b_items_per_second)},
                           {"a_bytes_per_second", optional_number(w.rates.a_bytes_per_second)},
                           {"b_bytes_per_second", optional_number(w.rates.b_bytes_per_second)}}},
                         {"outcome", id_of(w.result)},
                         {"verdict", std::string(to_string(w.result))},
                         {"reason", w.reason}});
  }
  ordered not_compared = ordered::array();
  for (const not_compared_workload& w : c.not_compared)
    not_compared.push_back({{"name", w.name}, {"reason", w.reason}});
  const ordered document = {{"harness_compare", {{"schema_version", kCompareSchemaVersion}}},
                            {"a", reports_json(a)},
                            {"b", reports_json(b)},
                            {"same_clock", c.same_clock},
                            {"unit", c.unit},
                            {"workloads", workloads},
                            {"not_compared", not_compared},
                            {"only_in_a", c.only_in_a},
                            {"only_in_b", c.only_in_b},
                            {"references",
                             {{"a", optional_number(c.a_reference)},
                              {"b", optional_number(c.b_reference)},
                              {"slowdown_factor", c.slowdown_factor}}},
                            {"host_speed_differs", c.host_speed_differs},
                            {"gate",
                             {{"threshold_percent", gate.threshold * 100},
                              {"slower", gate.slower},
                              {"not_compared", gate.not_compared},
                              {"exit_code", exit_code}}}};
  // A source or a reason may hold bytes that are not UTF-8 (a file name, a workload's error).
  out << document.dump(2, ' ', false, ordered::error_handler_t::replace) << '\n';
}

}  // namespace harness::compare
