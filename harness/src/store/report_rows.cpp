// What a report's JSON gives the store's rows (store.hpp's rows_of_report), the machine's key, and
// reading a column's value. The report is the one the run wrote (docs/output.md): the store keeps
// it whole and takes from it the figures it lists and compares, so a saved row always says what
// the report said.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <vector>

#include "harness/statistics.hpp"
#include "store/database.hpp"
#include "store/store.hpp"

namespace harness::store {
namespace {

using json = nlohmann::json;

[[noreturn]] void refuse(const std::string& why) {
  throw store_failed(fmt::format("the report to save is not a harness report: {}", why));
}

const json& member(const json& object, const char* name) {
  static const json null;
  if (!object.is_object()) return null;
  const auto found = object.find(name);
  return found == object.end() ? null : *found;
}

std::string text(const json& object, const char* name) {
  const json& v = member(object, name);
  return v.is_string() ? v.get<std::string>() : std::string();
}

std::optional<double> number(const json& object, const char* name) {
  const json& v = member(object, name);
  if (!v.is_number()) return std::nullopt;
  const double d = v.get<double>();
  return std::isfinite(d) ? std::optional<double>(d) : std::nullopt;
}

std::int64_t count(const json& object, const char* name) {
  const json& v = member(object, name);
  if (v.is_number_unsigned() && v.get<std::uint64_t>() <= INT64_MAX)
    return static_cast<std::int64_t>(v.get<std::uint64_t>());
  if (v.is_number_integer()) return v.get<std::int64_t>();
  return 0;
}

// The sample rows of "benchmarks" (run_type "iteration"), their ticks per call per workload
// (family_index, its place in harness.workloads) and phase, as report_reader.hpp reads them.
using sample_ticks = std::map<std::pair<std::int64_t, std::string>, std::vector<double>>;
sample_ticks samples_of(const json& doc) {
  sample_ticks out;
  const json& rows = member(doc, "benchmarks");
  if (!rows.is_array()) return out;
  for (const json& r : rows) {
    if (text(r, "run_type") != "iteration" || !member(r, "family_index").is_number_integer())
      continue;
    const std::optional<double> ticks = number(r, "ticks");
    if (!ticks) continue;
    out[{count(r, "family_index"), text(r, "phase")}].push_back(*ticks);
  }
  return out;
}

phase_row phase_of(const std::string& workload, const json& p, std::vector<double>* samples) {
  phase_row row;
  row.workload = workload;
  row.phase = text(p, "phase");
  row.samples = count(p, "samples");
  row.min_ticks = number(p, "min_ticks");
  row.median_ticks = number(p, "median_ticks");
  row.spread_percent = number(p, "spread_percent");
  row.verdict = text(p, "verdict");
  const json& floor = member(p, "floor");
  if (floor.is_object()) {
    row.floor_ticks = number(floor, "ticks");
    row.floor_confirmed = member(floor, "confirmed").is_boolean() && floor["confirmed"].get<bool>();
    const json& cpu = member(floor, "floor_cpu");
    if (cpu.is_number_integer() && cpu.get<std::int64_t>() >= 0)
      row.floor_cpu = cpu.get<std::int64_t>();
    const json& findings = member(floor, "findings");
    if (findings.is_array()) {
      for (const json& f : findings) {
        if (!f.is_string()) continue;
        if (!row.floor_findings.empty()) row.floor_findings += ',';
        row.floor_findings += f.get<std::string>();
      }
    }
  }
  // The minimum's 95% interval, as the console prints it beside the minimum ("[a, b]"): the
  // report keeps the samples, not the interval, so it is computed from them with the same
  // estimator (Robson-Whitlock, stats::minimum_ci_sorted). The floor is the lowest block
  // minimum, the phase's minimum: this is its interval. None from fewer than two samples.
  if (samples != nullptr) {
    std::sort(samples->begin(), samples->end());
    if (const auto ci = stats::minimum_ci_sorted(*samples)) {
      row.floor_lower = ci->lower;
      row.floor_upper = ci->upper;
    }
  }
  return row;
}

ab_row ab_of(std::string a, std::string b, const json& block) {
  ab_row row;
  row.a = std::move(a);
  row.b = std::move(b);
  const json& answer = member(block, "answer");
  row.ratio = number(answer, "ratio");
  row.lower = number(answer, "lower");
  row.upper = number(answer, "upper");
  row.level = number(answer, "level");
  row.count = count(answer, "count");
  row.verdict = text(block, "verdict");
  return row;
}

}  // namespace

report_rows rows_of_report(std::string_view text_json) {
  json doc;
  try {
    doc = json::parse(text_json);
  } catch (const json::exception& e) {
    refuse(fmt::format("not JSON ({})", e.what()));
  }
  const json& harness_block = member(doc, "harness");
  if (!harness_block.is_object()) refuse("no \"harness\" block");
  report_rows rows;
  const json& clock = member(harness_block, "clock");
  rows.clock = text(clock, "name");
  rows.ticks_per_second = number(clock, "ticks_per_second").value_or(0);
  rows.harness_version = text(harness_block, "harness_version");
  if (text(harness_block, "kind") == "ab") {
    rows.kind = "ab";
    const json& ab = member(doc, "ab");
    if (!ab.is_object()) refuse("an ab report without its \"ab\" block");
    const json& comparisons = member(ab, "comparisons");
    if (comparisons.is_array()) {
      // gbench --vs: one answer per benchmark, B and A the same benchmark of two binaries.
      for (const json& c : comparisons)
        rows.ab.push_back(ab_of(text(c, "benchmark"), text(c, "benchmark"), c));
    } else {
      rows.ab.push_back(
          ab_of(text(member(ab, "a"), "workload"), text(member(ab, "b"), "workload"), ab));
    }
    return rows;
  }
  rows.kind = member(harness_block, "source").is_object() ? "gbench" : "run";
  const json& workloads = member(harness_block, "workloads");
  if (!workloads.is_array()) refuse("no \"harness.workloads\" list");
  sample_ticks samples = samples_of(doc);
  for (std::size_t i = 0; i < workloads.size(); ++i) {
    const json& w = workloads[i];
    const std::string name = text(w, "name");
    const json& phases = member(w, "phases");
    if (!phases.is_array()) continue;
    for (const json& p : phases) {
      // The first call is one sample, and no figure to follow over commits.
      const std::string phase = text(p, "phase");
      if (phase == "first") continue;
      const auto found = samples.find({static_cast<std::int64_t>(i), phase});
      rows.phases.push_back(phase_of(name, p, found == samples.end() ? nullptr : &found->second));
    }
  }
  return rows;
}

}  // namespace harness::store
