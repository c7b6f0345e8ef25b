// Reading a harness JSON report for `harness compare`: the prepared phase of each workload, its
// samples, the floor's confirmation and the clock facts, and the workloads named without a
// prepared phase. A file that cannot be read (with the system's reason), or is not a harness
// report of a schema this build reads, is a usage error naming the file.
#include <fmt/format.h>

#include <cerrno>
#include <cmath>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <system_error>

#include "harness/compare.hpp"
#include "harness/errors.hpp"

namespace harness::compare {
namespace {

// The largest clock rate and sample a report may hold: every figure compare derives from them
// (a conversion to ns, a ratio, an interval) stays finite.
constexpr double kMaxTicksPerSecond = 1e15;
constexpr double kMaxTicks = 1e15;

using nlohmann::json;

// The report schema this build reads (docs/output.md).
constexpr int kSchemaVersion = 1;

const json* find_prepared(const json& phases) {
  for (const json& phase : phases) {
    if (phase.at("phase").get<std::string>() == "prepared") return &phase;
  }
  return nullptr;
}

run_file parse_document(const json& doc, const std::string& source) {
  if (!doc.is_object() || !doc.contains("harness") || !doc["harness"].is_object()) {
    throw usage_error(fmt::format(
        "{}: not a harness JSON report (it has no \"harness\" object; write one with --format "
        "json or -o FILE.json)",
        source));
  }
  const json& h = doc["harness"];
  const int version = h.value("schema_version", 0);
  if (version != kSchemaVersion) {
    throw usage_error(fmt::format("{}: schema_version {} is not one this harness reads ({})",
                                  source, version, kSchemaVersion));
  }
  run_file run;
  run.source = source;
  if (doc.contains("context") && doc["context"].is_object()) {
    run.date = doc["context"].value("date", "");
  }
  const json& clock = h.at("clock");
  run.clock = clock.at("name").get<std::string>();
  if (const auto s = h.find("source"); s != h.end() && s->is_object())
    run.sample_source = s->value("sample", "");
  run.ticks_per_second = clock.at("ticks_per_second").get<double>();
  // From the one-tick-a-second `time` to a petahertz: beyond, figures converted to ns would not
  // stay finite.
  if (!(run.ticks_per_second >= 1 && run.ticks_per_second <= kMaxTicksPerSecond)) {
    throw usage_error(fmt::format(
        "{}: clock ticks_per_second {} is out of range: a clock ticks from 1 to 1e15 times a "
        "second",
        source, run.ticks_per_second));
  }
  if (clock.contains("step_ticks") && clock["step_ticks"].is_number()) {
    run.step_ticks = clock["step_ticks"].get<double>();
  }
  if (clock.contains("granularity_ticks") && clock["granularity_ticks"].is_number()) {
    run.granularity_ticks = clock["granularity_ticks"].get<double>();
  }

  std::map<std::string, std::vector<double>> samples;
  for (const json& row : doc.at("benchmarks")) {
    if (row.value("run_type", "") != "iteration" || row.value("phase", "") != "prepared") continue;
    const double ticks = row.at("ticks").get<double>();
    if (!(std::fabs(ticks) <= kMaxTicks)) {
      throw usage_error(
          fmt::format("{}: a sample of {} ticks is out of range (at most 1e15)", source, ticks));
    }
    samples[row.at("run_name").get<std::string>()].push_back(ticks);
  }
  for (const json& w : h.at("workloads")) {
    const json* prepared = find_prepared(w.at("phases"));
    if (prepared == nullptr) {
      // Interrupted, or failed, before its prepared phase: named, so compare can say so.
      unsampled_workload u;
      u.name = w.at("name").get<std::string>();
      u.interrupted = w.value("interrupted", false);
      if (w.contains("error") && w["error"].is_string()) u.error = w["error"].get<std::string>();
      run.unsampled.push_back(std::move(u));
      continue;
    }
    workload_run r;
    r.name = w.at("name").get<std::string>();
    r.batch = prepared->at("batch").get<std::uint64_t>();
    for (auto [key, field] : {std::pair{"items_per_call", &r.items_per_call},
                              std::pair{"bytes_per_call", &r.bytes_per_call}}) {
      if (w.contains(key) && w[key].is_number() && w[key].get<double>() > 0)
        *field = w[key].get<double>();
    }
    const json& reference = prepared->at("reference_loop");
    if (reference.at("runs").get<std::uint64_t>() > 0) {
      r.reference_best = reference.at("best_ticks").get<std::uint64_t>();
    }
    run.slowdown_factor = reference.at("slowdown_factor").get<double>();
    r.verdict = prepared->value("verdict", "");
    r.verdict_reason = prepared->value("verdict_reason", "");
    if (prepared->contains("floor") && (*prepared)["floor"].is_object()) {
      const json& floor = (*prepared)["floor"];
      r.floor_recorded = true;
      r.floor_confirmed = floor.at("confirmed").get<bool>();
      r.floor_reason = floor.value("reason", "");
    }
    if (const auto found = samples.find(r.name); found != samples.end()) {
      r.values = found->second;
    }
    run.workloads.push_back(std::move(r));
  }
  return run;
}

}  // namespace

run_file parse_run(std::string_view json_text, const std::string& source) {
  json doc;
  try {
    doc = json::parse(json_text);
  } catch (const json::parse_error& e) {
    throw usage_error(fmt::format("{}: not JSON: {}", source, e.what()));
  }
  try {
    return parse_document(doc, source);
  } catch (const json::exception& e) {
    throw usage_error(fmt::format("{}: a harness report with a missing or malformed field: {}",
                                  source, e.what()));
  }
}

std::ifstream open_report(const std::filesystem::path& path) {
  const auto refused = [&](const std::string& why) {
    return usage_error(
        fmt::format("cannot read '{}': {} (a JSON report of `harness --format json` is expected)",
                    path.string(), why));
  };
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (ec) throw refused(ec.message());
  if (std::filesystem::is_directory(status)) throw refused("it is a folder");
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    const int err = errno;
    throw refused(err != 0 ? std::generic_category().message(err) : "it cannot be opened");
  }
  return in;
}

run_file read_run(const std::filesystem::path& path) {
  std::ifstream in = open_report(path);
  std::ostringstream text;
  text << in.rdbuf();
  return parse_run(text.str(), path.string());
}

}  // namespace harness::compare
