// `harness ab`'s report as JSON (docs/output.schema.json's `ab`), and its HTML page, drawn from
// that document.
#include <nlohmann/json.hpp>
#include <ostream>

#include "harness/ab_report.hpp"
#include "report/ab_writers.hpp"
#include "report/counters.hpp"
#include "report/html.hpp"
#include "report/json_document.hpp"

namespace harness {

namespace {

using ab_json = nlohmann::ordered_json;
using report_detail::number_or_null;

ab_json order_json(const std::optional<ab_order_split>& s) {
  if (!s) return nullptr;
  return {{"a_first", s->a_first},
          {"b_first", s->b_first},
          {"a_first_rounds", s->a_first_rounds},
          {"b_first_rounds", s->b_first_rounds}};
}

ab_json interval_json(const std::optional<ab_interval>& i) {
  if (!i) return nullptr;
  return {{"ratio", i->ratio},           {"lower", i->lower},
          {"upper", i->upper},           {"level", i->level},
          {"count", i->count},           {"method", i->method},
          {"resolution", i->resolution}, {"order", order_json(i->order)}};
}

ab_json side_json(const ab_side_facts& s) {
  return {{"workload", s.workload},
          {"build", s.build},
          {"clock", s.clock},
          {"ticks_per_second", s.ticks_per_second},
          {"iterations_per_call", s.iterations_per_call},
          {"min_batch", s.min_batch == 0 ? ab_json(nullptr) : ab_json(s.min_batch)}};
}

ab_json pair_json(const ab_pair& p) {
  ab_json rounds = ab_json::array();
  for (const ab_round& r : p.rounds) {
    rounds.push_back({{"a_first", r.a_first},
                      {"a_min_ticks", r.a_min},
                      {"b_min_ticks", r.b_min},
                      {"ratio", r.a_min > 0 ? ab_json(r.ratio()) : ab_json(nullptr)},
                      {"disturbed", r.disturbed},
                      {"reference_ticks", r.reference},
                      {"context_switches", r.switches}});
  }
  return {{"a", side_json(p.a)},
          {"b", side_json(p.b)},
          {"batch", p.batch},
          {"batch_calibrated", p.batch_calibrated},
          {"min_sample_ticks", p.min_sample_ticks},
          {"min_sample_source", id_of(p.min_sample_source)},
          {"batch_raised", p.batch_raised},
          {"overhead_a_ticks", p.overhead_a},
          {"overhead_b_ticks", p.overhead_b},
          {"samples_per_side", p.samples_per_side},
          {"samples_per_stretch", p.samples_per_stretch},
          {"warmup_rounds", p.warmup_rounds},
          {"warmup_seconds", p.warmup_seconds},
          {"seconds", p.seconds},
          {"stopped_by", id_of(p.stopped_by)},
          {"checks", p.checks},
          {"last_half_width", number_or_null(p.last_half_width)},
          {"estimate",
           {{"rounds", interval_json(p.estimate.rounds)},
            {"undisturbed", interval_json(p.estimate.undisturbed)},
            {"disturbed_rounds", p.estimate.disturbed},
            {"resolution", p.estimate.resolution},
            {"order_split", order_json(p.estimate.order_split)},
            {"floor_a_ticks", number_or_null(p.estimate.floor_a)},
            {"floor_b_ticks", number_or_null(p.estimate.floor_b)},
            {"floor_ratio", number_or_null(p.estimate.floor_ratio())},
            {"slow_a", number_or_null(p.estimate.slow_a)},
            {"slow_b", number_or_null(p.estimate.slow_b)},
            {"slow_reference", number_or_null(p.estimate.slow_reference)}}},
          {"rounds", rounds}};
}

ab_json preparation_json(const preparation_report& p) {
  ab_json applied = ab_json::array();
  ab_json refused = ab_json::array();
  for (const auto& s : p.steps) {
    if (s.applied) {
      applied.push_back(s.action);
    } else {
      refused.push_back({{"action", s.action}, {"reason", s.reason}, {"error_code", s.error_code}});
    }
  }
  return {{"applied", applied},
          {"refused", refused},
          {"priority_applied", p.priority_applied},
          {"affinity_applied", p.affinity_applied}};
}

// gbench: the binaries, what each invocation was asked, one comparison per benchmark (the fields
// of the one answer above, per benchmark, and its one pair), and the benchmarks only one lists.
void add_gbench_json(ab_json& ab, const ab_report& r) {
  ab_json comparisons = ab_json::array();
  for (const ab_benchmark& b : r.benchmarks) {
    const std::optional<ab_interval>& answer = b.pair.estimate.rounds;
    comparisons.push_back(
        {{"benchmark", b.name},
         {"answer", interval_json(answer)},
         {"change_percent", answer ? ab_json((answer->ratio - 1) * 100) : ab_json(nullptr)},
         {"verdict", b.decision ? ab_json(id_of(b.decision->verdict)) : ab_json(nullptr)},
         {"reason", b.decision ? ab_json(b.decision->reason) : ab_json(nullptr)},
         {"gate_failed", b.decision && b.decision->gate_failed},
         {"error", b.error ? ab_json(*b.error) : ab_json(nullptr)},
         {"pair", pair_json(b.pair)}});
  }
  ab["builds"] = {{"a", r.build_a}, {"b", r.build_b}};
  ab["plan"] = r.plan;
  ab["comparisons"] = comparisons;
  ab["only_in_a"] = r.only_in_a;
  ab["only_in_b"] = r.only_in_b;
}

}  // namespace

ab_json ab_detail::document(const ab_report& r) {
  const ab_options& o = r.options;
  ab_json preparations = ab_json::array();
  for (const auto& p : r.preparations)
    preparations.push_back(preparation_json(p));
  ab_json pairs = ab_json::array();
  for (const ab_pair& p : r.pairs)
    pairs.push_back(pair_json(p));
  ab_json harness_block = {
      {"schema_version", kReportSchemaVersion},
      {"harness_version", r.context.harness_version},
      {"kind", "ab"},
      {"clock",
       {{"name", r.clock},
        {"ticks_per_second", r.ticks_per_second},
        {"step_ticks", r.clock_step},
        {"granularity_ticks", r.granularity > 0 ? ab_json(r.granularity) : ab_json(nullptr)},
        {"reason", r.clock_reason},
        {"calibration", report_detail::calibration_json<ab_json>(r.calibration)}}}};
  ab_json ab = {
      {"mode", to_string(r.mode)},
      {"a", r.pairs.empty() ? ab_json(nullptr) : side_json(r.pairs.front().a)},
      {"b", r.pairs.empty() ? ab_json(nullptr) : side_json(r.pairs.front().b)},
      {"options",
       {{"warmup_ns", o.warmup.count()},
        {"max_time_ns", o.max_time.count()},
        {"decide_after_ns", o.decide_after ? ab_json(o.decide_after->count()) : ab_json(nullptr)},
        {"target", o.target},
        {"threshold", o.threshold},
        {"fail_if_slower", number_or_null(o.fail_if_slower)},
        {"order", to_string(o.order)},
        {"seed", o.seed},
        {"cpu", o.cpu ? ab_json(*o.cpu) : ab_json(nullptr)},
        {"round_time_ns",
         std::chrono::duration_cast<std::chrono::nanoseconds>(o.tuning.round_time).count()},
        {"layout", r.layout},
        {"pairs", r.pairs_requested}}},
      {"answer", interval_json(r.answer)},
      {"change_percent", r.answer ? ab_json((r.answer->ratio - 1) * 100) : ab_json(nullptr)},
      {"verdict", r.decision ? ab_json(id_of(r.decision->verdict)) : ab_json(nullptr)},
      {"instructions", r.instructions
                           ? ab_json{{"ratio", r.instructions->ratio},
                                     {"a", report_detail::instructions_json(r.instructions->a)},
                                     {"b", report_detail::instructions_json(r.instructions->b)}}
                           : ab_json(nullptr)},
      {"reason", r.decision ? ab_json(r.decision->reason) : ab_json(nullptr)},
      {"gate_failed", ab_gate_failed(r)},
      {"pair_ratios", r.pair_ratios},
      {"between_pairs", interval_json(r.between_pairs)},
      {"pooled_rounds", interval_json(r.pooled_rounds)},
      {"interrupted", r.interrupted},
      {"preparations", preparations},
      {"pairs", pairs}};
  if (r.mode == ab_mode::gbench) add_gbench_json(ab, r);
  return {{"context", report_detail::context_json(r.context)},
          {"harness", harness_block},
          {"benchmarks", ab_json::array()},
          {"ab", ab}};
}

void write_ab_json(std::ostream& out, const ab_report& report) {
  out << ab_detail::document(report).dump(2) << '\n';
}

void write_ab_html(std::ostream& out, const ab_report& report) {
  out << html::ab_page(ab_detail::document(report));
}

}  // namespace harness
