// The JSON report: Google Benchmark's schema, so its tools (compare.py) read a harness file as
// they read their own, plus what only the harness knows (docs/output.md, schema version
// kReportSchemaVersion).
//
// How the harness maps onto Google Benchmark's rows:
// - A prepared sample is one repetition: run_type "iteration", `iterations` = calls in the sample
//   (the batch), real_time = nanoseconds per call after the timer overhead.
// - Baseline samples and the first call go under their own names ("NAME/baseline",
//   "NAME/first"), so compare.py pairs prepared with prepared and baseline with baseline.
// - Aggregates as Google Benchmark 1.7.1 writes them: "NAME_mean" etc., aggregate_unit "time",
//   and for cv "percentage" with the value as a fraction. An aggregate the samples cannot define
//   (stddev of one sample, cv of a minimum at or below 0) is left out, never written as 0.
// Caveat: the harness measures wall-clock time only; cpu_time repeats real_time so tools that
// require it work. docs/output.md says so.
#include <nlohmann/json.hpp>

#include <array>
#include <ostream>
#include <string_view>
#include <tuple>

#include "base/check.hpp"
#include "doctor/doctor_json.hpp"
#include "harness/floor.hpp"
#include "harness/report.hpp"
#include "report/counters.hpp"
#include "report/json_document.hpp"
#include "report/summary.hpp"

namespace harness {
namespace {

using json = nlohmann::ordered_json;
using report_detail::number_or_null;

// A workload's rows share a family; each phase is an instance of it (instance_index), named after
// it except the prepared phase, which carries the workload's own name so that compare.py pairs
// it with another run's.
std::string row_name(const workload_result& r, phase_kind kind) {
  return kind == phase_kind::prepared ? r.name : fmt::format("{}/{}", r.name, id_of(kind));
}

json steps_json(const std::vector<platform::step_result>& steps, bool applied) {
  json list = json::array();
  for (const auto& s : steps) {
    if (s.applied != applied) continue;
    if (applied) {
      list.push_back(s.action);
    } else {
      list.push_back({{"action", s.action}, {"reason", s.reason}, {"error_code", s.error_code}});
    }
  }
  return list;
}

json floor_json(const floor_check& f) {
  json minimums = json::array();
  for (const double m : f.block_minimums)
    minimums.push_back(m);
  json agreeing = json::array();
  for (const std::size_t b : f.agreeing)
    agreeing.push_back(b + 1);
  json findings = json::array();
  for (const floor_finding finding : f.findings)
    findings.push_back(id_of(finding));
  const floor_context& c = f.context;
  return {
      {"confirmed", f.confirmed},
      {"ticks", f.floor},
      {"block", f.floor_block + 1},
      {"tolerance_ticks", f.tolerance},
      {"block_minimums_ticks", minimums},
      {"agreeing_blocks", agreeing},
      {"confirmed_by", f.confirmed_by
                           ? json::array({f.confirmed_by->first + 1, f.confirmed_by->second + 1})
                           : json(nullptr)},
      {"findings", findings},
      {"reason", f.reason},
      {"recommendation", f.recommendation},
      {"floor_cpu", f.floor_cpu ? json(*f.floor_cpu) : json(nullptr)},
      {"baseline_floor_ticks", number_or_null(c.baseline_floor)},
      {"baseline_floor_cpu", c.baseline_floor_cpu ? json(*c.baseline_floor_cpu) : json(nullptr)},
      {"remembered_floor_ticks", number_or_null(c.remembered_floor)},
      {"fastest_reference_ticks", c.fastest_reference ? json(*c.fastest_reference) : json(nullptr)},
      {"fastest_reference_remembered", c.fastest_reference_remembered}};
}

// {"0": 12, "1": 48}: the samples that ended on each CPU, or null when the CPU was not read.
json samples_by_cpu(const phase_result& p) {
  if (p.cpu.empty()) return nullptr;
  json by = json::object();
  for (const auto& [cpu, n] : p.samples_by_cpu())
    by[std::to_string(cpu)] = n;
  return by;
}

json blocks_json(const phase_result& p) {
  json blocks = json::array();
  for (const sample_block& b : p.blocks) {
    blocks.push_back({{"first_sample", b.first},
                      {"samples", b.count},
                      {"start_seconds", b.start_seconds},
                      {"reference_best_ticks", b.reference_best}});
  }
  return blocks;
}

// {"at_min": ..., "at_median": ...}, or null.
json rate_json(const std::optional<at_min_median>& v) {
  if (!v) return nullptr;
  return {{"at_min", v->at_min}, {"at_median", v->at_median}};
}

json phase_json(const phase_result& p, const phase_analysis& a, double slowdown_factor) {
  json j = {
      {"phase", id_of(p.kind)},
      {"samples", p.values.size()},
      {"batch", p.batch},
      {"overhead_ticks", p.overhead},
      {"stopped_by", id_of(p.stopped_by)},
      {"disturbed", p.disturbed_count()},
      {"host_slowdown", p.host_slowdown_count()},
      {"context_switch", p.context_switch.empty() ? json(nullptr) : json(p.context_switch_count())},
      {"samples_by_cpu", samples_by_cpu(p)},
      {"reference_loop",
       {{"runs", p.reference_runs},
        {"slow", p.reference_slow},
        {"best_ticks", p.reference_best},
        {"worst_ticks", p.reference_worst},
        {"slowdown_factor", slowdown_factor}}},
      {"realtime_pauses", p.realtime_pauses},
      {"min_ticks", number_or_null(a.all.min)},
      {"median_ticks", number_or_null(a.all.median)},
      {"max_ticks", number_or_null(a.all.max)},
      {"spread_percent", number_or_null(a.all.spread_percent)},
      {"seconds_per_iteration", rate_json(a.rates.seconds_per_iteration)},
      {"items_per_second", rate_json(a.rates.items_per_second)},
      {"bytes_per_second", rate_json(a.rates.bytes_per_second)},
      {"counters", report_detail::phase_counters_json(a)}};
  if (a.verdict) {
    j["verdict"] = stats::id_of(a.verdict->level);
    j["verdict_reason"] = a.verdict->reason;
    j["requested_samples"] = p.requested > 0 ? json(p.requested) : json(nullptr);
    j["elapsed_seconds"] = p.elapsed_seconds;
    j["blocks"] = blocks_json(p);
    j["floor"] = p.floor ? floor_json(*p.floor) : json(nullptr);
    j["learning"] =
        a.learning ? json{{"blocks_examined", a.learning->blocks_examined},
                          {"blocks_falling", a.learning->blocks_falling},
                          {"median_drop", a.learning->median_drop},
                          {"first_block_lead", a.learning->first_block_lead},
                          {"falling", a.learning->falling},
                          {"rewarm_lead", a.learning->rewarm_lead ? json(*a.learning->rewarm_lead)
                                                                  : json(nullptr)}}
                   : json(nullptr);
    j["learning_check"] = p.learning_check
                              ? json{{"samples", p.learning_check->samples},
                                     {"plain_min_ticks", p.learning_check->plain_min},
                                     {"rewarmed_min_ticks", p.learning_check->rewarmed_min},
                                     {"rewarm_seconds", p.learning_check->rewarm_seconds}}
                              : json(nullptr);
  }
  return j;
}

json history_json(const history_use& h) {
  if (h.path.empty()) return nullptr;
  return {{"path", h.path},
          {"machine", h.machine},
          {"build", h.build.empty() ? json(nullptr) : json(h.build)},
          {"fastest_reference_ticks",
           h.fastest_reference ? json(*h.fastest_reference) : json(nullptr)}};
}

json options_json(const run_options& o) {
  return {{"samples", o.auto_samples ? json("auto") : json(o.samples)},
          {"target", o.target},
          {"max_time_ns", o.max_time.count()},
          {"blocks", o.blocks},
          {"warmup_ns", o.warmup.count()},
          {"priority", platform::to_string(o.priority)},
          {"cpu", o.cpu ? json(*o.cpu) : json(nullptr)},
          {"baseline", o.baseline},
          {"lock_memory", o.lock_memory},
          {"batch", o.batch ? json(*o.batch) : json(nullptr)}};
}

// The setup a workload declared: "per_argument", "per_call", or null.
json setup_id(setup_kind setup) {
  return setup == setup_kind::none ? json(nullptr) : json(id_of(setup));
}

// Google Benchmark's counters of a row whose real_time is `ns` per call: items_per_second and
// bytes_per_second, as its SetItemsProcessed/SetBytesProcessed give them, when declared.
void add_rates(json& row, const workload_result& r, double ns) {
  if (!(ns > 0)) return;
  if (r.items_per_call) row["items_per_second"] = *r.items_per_call / (ns * 1e-9);
  if (r.bytes_per_call) row["bytes_per_second"] = *r.bytes_per_call / (ns * 1e-9);
}

// Where and how the workload failed; null when it did not.
json failure_json(const workload_result& r) {
  if (!r.failed()) return nullptr;
  const workload_failure& f = *r.failure;
  const auto or_null = [](std::size_t v) { return v == 0 ? json(nullptr) : json(v); };
  return {{"stage", id_of(f.stage)},   {"sample", or_null(f.sample)},
          {"block", or_null(f.block)}, {"calls_per_sample", f.calls_per_sample},
          {"threw", f.threw},          {"making_input", f.making_input},
          {"message", f.message},      {"where", f.where()}};
}

json workload_json(const workload_analysis& w, double slowdown_factor) {
  const workload_result& r = *w.result;
  const preparation_report& prep = r.preparation;
  json phases = json::array();
  for (const phase_analysis& a : w.phases)
    phases.push_back(phase_json(*a.phase, a, slowdown_factor));
  // What preparation changed, in the words of the console and Markdown reports.
  const bool both =
      w.find(phase_kind::baseline) != nullptr && w.find(phase_kind::prepared) != nullptr;
  const json sentence =
      both ? json(report_detail::preparation_sentence(w, slowdown_factor)) : json(nullptr);
  return {{"name", r.name},
          {"batch", r.batch},
          {"batch_calibrated", r.batch_calibrated},
          {"min_sample_ticks", r.min_sample_ticks},
          {"min_sample_source", id_of(r.min_sample_source)},
          {"min_batch", r.min_batch == 0 ? json(nullptr) : json(r.min_batch)},
          {"batch_raised", r.batch_raised},
          {"iterations_per_call", r.iterations_per_call},
          {"items_per_call", number_or_null(r.items_per_call)},
          {"bytes_per_call", number_or_null(r.bytes_per_call)},
          {"setup", setup_id(r.setup)},
          {"setup_seconds",
           r.setup == setup_kind::per_argument ? json(r.setup_seconds) : json(nullptr)},
          {"build",
           {{"optimized", r.build.optimized ? json(*r.build.optimized) : json(nullptr)},
            {"assertions", r.build.assertions ? json(*r.build.assertions) : json(nullptr)}}},
          {"warmup",
           {{"requested_ns", r.warmup.requested.count()},
            {"elapsed_ns", r.warmup.elapsed.count()},
            {"calls", r.warmup.calls},
            {"reference_best_ticks", r.warmup.reference_best}}},
          {"preparation",
           {{"applied", steps_json(prep.steps, true)},
            {"refused", steps_json(prep.steps, false)},
            {"restore_refused", steps_json(prep.restore_steps, false)},
            {"affinity_before", platform::format_cpu_list(prep.affinity_before)},
            {"affinity_applied", platform::format_cpu_list(prep.affinity_applied)},
            {"priority_before", prep.priority_before},
            {"priority_applied", prep.priority_applied}}},
          {"counters", report_detail::counters_json(w)},
          {"instructions", report_detail::instructions_json(r.instructions)},
          {"phases", phases},
          {"preparation_sentence", sentence},
          {"trust",
           {{"ok", w.trust.ok},
            {"text", w.trust.text},
            {"next", w.trust.next.empty() ? json(nullptr) : json(w.trust.next)}}},
          {"error", r.failed() ? json(r.failure->message) : json(nullptr)},
          {"failure", failure_json(r)},
          {"interrupted", r.interrupted}};
}

// The rows Google Benchmark's tools read, for one phase.
// Hands each row to `emit` as it is made, so a writer can stream them: a million rows held as
// objects at once take gigabytes (200,000 samples per phase took 1.45 GB, measured).
template <class Emit>
void add_rows(Emit&& emit, const workload_result& r, std::size_t family, const phase_result& p,
              const phase_analysis& a, double ns_per_tick) {
  const std::string name = row_name(r, p.kind);
  const std::size_t n = p.values.size();
  auto common = [&](const std::string& row, const char* run_type) {
    return json{{"name", row},
                {"family_index", family},
                {"per_family_instance_index", instance_index(p.kind)},
                {"run_name", name},
                {"run_type", run_type},
                {"repetitions", n}};
  };
  for (std::size_t i = 0; i < n; ++i) {
    json row = common(name, "iteration");
    const double ns = p.values[i] * ns_per_tick;
    row["repetition_index"] = i;
    row["threads"] = 1;
    // Samples another tool took keep its iteration count and its counters.
    row["iterations"] = i < p.sample_iterations.size() ? p.sample_iterations[i] : p.batch;
    row["real_time"] = ns;
    row["cpu_time"] = ns;
    row["time_unit"] = "ns";
    add_rates(row, r, ns);
    row["phase"] = id_of(p.kind);
    row["ticks"] = p.values[i];
    row["raw_ticks"] = p.raw(i);
    row["disturbed"] = p.disturbed(i);
    if (!p.blocks.empty()) row["block"] = p.block_of(i) + 1;
    row["host_slowdown"] = static_cast<bool>(p.host_slowdown[i]);
    if (!p.context_switch.empty()) row["context_switch"] = static_cast<bool>(p.context_switch[i]);
    if (i < p.cpu.size() && p.cpu[i] >= 0) row["cpu"] = p.cpu[i];
    report_detail::add_sample_counters(row, p, i);
    if (i < p.sample_counters.size()) {
      for (const auto& [counter, value] : p.sample_counters[i]) {
        if (!row.contains(counter)) row[counter] = value;
      }
    }
    emit(std::move(row));
  }
  // Google Benchmark writes aggregates only over two or more repetitions.
  if (n < 2) return;
  const auto& s = a.all;
  std::optional<double> cv;
  if (s.cv_percent) cv = *s.cv_percent / 100;
  const std::array<std::tuple<const char*, std::optional<double>, bool>, 6> aggregates{{
      {"mean", s.mean, true},
      {"median", s.median, true},
      {"stddev", s.stddev, true},
      {"cv", cv, false},
      {"min", s.min, true},
      {"max", s.max, true},
  }};
  for (const auto& [aggregate, value, is_time] : aggregates) {
    if (!value) continue;
    json row = common(name + "_" + aggregate, "aggregate");
    row["threads"] = 1;
    row["aggregate_name"] = aggregate;
    row["aggregate_unit"] = is_time ? "time" : "percentage";
    row["iterations"] = n;
    const double figure = is_time ? *value * ns_per_tick : *value;
    row["real_time"] = figure;
    row["cpu_time"] = figure;
    row["time_unit"] = "ns";
    // Google Benchmark's mean and stddev rows average the repetitions' rates, which the rate at
    // the mean time is not: only min, median and max carry one, the rate at that time.
    if (is_time && std::string_view(aggregate) != "mean" && std::string_view(aggregate) != "stddev")
      add_rates(row, r, figure);
    report_detail::add_aggregate_counters(row, a, aggregate);
    row["phase"] = id_of(p.kind);
    if (is_time) row["ticks"] = *value;
    emit(std::move(row));
  }
}

}  // namespace

json report_detail::json_document(const report_model& model) {
  const run_report& report = *model.run;
  const clock_source& clock = *report.clock.clock;
  const double slowdown_factor = report.options.tuning.host_slowdown_factor;
  json workloads = json::array();
  for (const workload_analysis& analysis : model.workloads)
    workloads.push_back(workload_json(analysis, slowdown_factor));
  const run_context& c = report.context;
  json harness_block = {
      {"schema_version", kReportSchemaVersion},
      {"harness_version", c.harness_version},
      {"clock",
       {{"name", clock.name()},
        {"description", clock.description()},
        {"ticks_per_second", clock.ticks_per_second()},
        {"step_ticks", report.clock.step_measured ? json(report.clock.step) : json(nullptr)},
        {"granularity_ticks",
         report.clock.granularity > 0 ? json(report.clock.granularity) : json(nullptr)},
        {"read_cost_ticks",
         report.clock.read_cost > 0 ? json(report.clock.read_cost) : json(nullptr)},
        {"reason", report.clock_reason},
        {"calibration", report_detail::calibration_json<json>(report.calibration)}}},
      {"options", options_json(report.options)},
      {"doctor", c.doctor ? json(doctor::to_json(*c.doctor)) : json(nullptr)},
      {"history", history_json(report.history)},
      {"workloads", workloads}};
  // Only a report of samples another tool took (harness gbench) has a source.
  if (report.source) {
    harness_block["source"] = {{"tool", report.source->tool},
                               {"command", report.source->command},
                               {"sample", report.source->sample},
                               {"plan", report.source->plan},
                               {"warmup", report.source->warmup}};
  }
  return {{"context", context_json(c)}, {"harness", harness_block}, {"benchmarks", json::array()}};
}

void write_json_report(std::ostream& out, const report_model& model) {
  // The document without its rows, then the rows streamed into its last member one by one, each
  // dumped as nlohmann would dump it in place (indented two levels): the same bytes as dumping
  // the whole document, without every row in memory at once.
  const json document = report_detail::json_document(model);
  // Replace rather than throw on bytes that are not UTF-8 (a workload's error message may hold
  // any).
  const auto dump = [](const json& j) {
    return j.dump(2, ' ', false, json::error_handler_t::replace);
  };
  std::string head = dump(document);
  constexpr std::string_view kEmptyRows = "[]\n}";
  HARNESS_CHECK(head.size() >= kEmptyRows.size() &&
                    std::string_view(head).substr(head.size() - kEmptyRows.size()) == kEmptyRows,
                "the JSON document does not end with its empty benchmarks array");
  head.resize(head.size() - kEmptyRows.size());
  out << head;
  bool first = true;
  const auto emit = [&](json&& row) {
    out << (first ? "[\n" : ",\n");
    first = false;
    const std::string text = dump(row);
    // Every line of the row two levels in (4 spaces): JSON strings hold no raw line breaks.
    std::size_t begin = 0;
    while (begin < text.size()) {
      const std::size_t end = text.find('\n', begin);
      const std::size_t stop = end == std::string::npos ? text.size() : end;
      out << "    " << std::string_view(text).substr(begin, stop - begin);
      if (end == std::string::npos) break;
      out << '\n';
      begin = end + 1;
    }
  };
  const double ns_per_tick = 1e9 / model.run->clock.clock->ticks_per_second();
  for (std::size_t w = 0; w < model.workloads.size(); ++w) {
    const workload_analysis& analysis = model.workloads[w];
    for (const phase_analysis& a : analysis.phases)
      add_rows(emit, *analysis.result, w, *a.phase, a, ns_per_tick);
  }
  out << (first ? "[]" : "\n  ]") << "\n}\n";
}

namespace report_detail {

nlohmann::ordered_json context_json(const run_context& c) {
  json caches = json::array();
  for (const auto& cache : c.caches) {
    caches.push_back({{"type", cache.type},
                      {"level", cache.level},
                      {"size", cache.size},
                      {"num_sharing", cache.num_sharing}});
  }
  return {{"date", c.date},
          {"host_name", c.host_name},
          {"executable", c.executable},
          {"num_cpus", c.num_cpus},
          {"mhz_per_cpu", c.mhz_per_cpu},
          {"cpu_scaling_enabled", c.cpu_scaling_enabled},
          {"caches", caches},
          {"load_avg", c.load_avg},
          {"library_build_type", c.library_build_type}};
}

}  // namespace report_detail

}  // namespace harness
