// Reading a harness JSON report for `harness compare`: the prepared phase of each workload, its
// samples, the floor's confirmation and the clock facts, and the workloads named without a
// prepared phase. A file that cannot be read (with the system's reason), that is not a harness
// report of a schema this build reads, or that holds a value of another type or out of range (a
// sample below minus its overhead, a clock of 0 ticks a second) is a usage error naming the file
// and the value's place in it (json_field.hpp: `benchmarks[3].ticks: expected a number, ...`).
#include <fmt/format.h>

#include <cerrno>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <system_error>

#include "harness/compare.hpp"
#include "harness/errors.hpp"
#include "base/json_field.hpp"

namespace harness::compare {
namespace {

// The largest clock rate and sample a report may hold: every figure compare derives from them
// (a conversion to ns, a ratio, an interval) stays finite.
constexpr double kMaxTicksPerSecond = 1e15;
constexpr double kMaxTicks = 1e15;

using nlohmann::json;

// The report schema this build reads (docs/output.md).
constexpr int kSchemaVersion = 1;

using field = json_field<json>;

// A count that must be 1 or more (calls per sample).
std::uint64_t positive_count(const field& f) {
  const std::uint64_t n = f.count();
  if (n == 0) f.expected("a whole number of 1 or more");
  return n;
}

// A clock figure in ticks (a step, a granularity): 0 to kMaxTicks.
double ticks_figure(const field& f) {
  const double x = f.number();
  if (!(x >= 0 && x <= kMaxTicks))
    f.refuse(fmt::format("{} is out of range: expected 0 to 1e15 ticks", f.json().dump()));
  return x;
}

// A prepared sample as read: its ticks and its row in "benchmarks", for messages.
struct sample_row {
  double ticks;
  std::size_t row;
};

run_file parse_document(const json& doc, const std::string& source) {
  if (!doc.is_object() || !doc.contains("harness") || !doc["harness"].is_object()) {
    throw usage_error(fmt::format(
        "{}: not a harness JSON report (it has no \"harness\" object; write one with --format "
        "json or -o FILE.json)",
        source));
  }
  const field root(doc, source);
  const field h = root.at("harness");
  const auto version = h.find("schema_version");
  if (!version || !version->json().is_number_integer() ||
      version->json().get<std::int64_t>() != kSchemaVersion) {
    throw usage_error(fmt::format("{}: schema_version {} is not one this harness reads ({})",
                                  source, version ? version->json().dump() : "null",
                                  kSchemaVersion));
  }
  run_file run;
  run.source = source;
  if (const auto context = root.find("context")) {
    if (const auto date = context->find("date")) run.date = date->text();
  }
  const field clock = h.at("clock");
  run.clock = clock.at("name").text();
  if (const auto s = h.find("source")) {
    if (const auto sample = s->find("sample")) run.sample_source = sample->text();
  }
  const field rate = clock.at("ticks_per_second");
  run.ticks_per_second = rate.number();
  // From the one-tick-a-second `time` to a petahertz: beyond, figures converted to ns would not
  // stay finite.
  if (!(run.ticks_per_second >= 1 && run.ticks_per_second <= kMaxTicksPerSecond)) {
    rate.refuse(fmt::format("{} is out of range: a clock ticks from 1 to 1e15 times a second",
                            rate.json().dump()));
  }
  if (const auto step = clock.find("step_ticks")) run.step_ticks = ticks_figure(*step);
  if (const auto g = clock.find("granularity_ticks")) run.granularity_ticks = ticks_figure(*g);

  // The prepared samples by workload; how low one may be is known once its phase is read.
  const field rows = root.at("benchmarks");
  std::map<std::string, std::vector<sample_row>> samples;
  std::size_t index = 0;
  rows.each([&](const field& row) {
    const std::size_t at = index++;
    const auto kind = row.find("run_type");
    const auto phase = row.find("phase");
    if (!kind || kind->text() != "iteration" || !phase || phase->text() != "prepared") return;
    const field ticks = row.at("ticks");
    const double value = ticks.number();
    if (!(value <= kMaxTicks)) {
      ticks.refuse(
          fmt::format("a sample of {} ticks is out of range (at most 1e15)", ticks.json().dump()));
    }
    samples[row.at("run_name").text()].push_back({value, at});
  });
  h.at("workloads").each([&](const field& w) {
    std::optional<field> prepared;
    const field phases = w.at("phases");
    phases.each([&](const field& phase) {
      if (phase.at("phase").text() == "prepared" && !prepared) prepared = phase;
    });
    if (!prepared) {
      // Interrupted, or failed, before its prepared phase: named, so compare can say so.
      unsampled_workload u;
      u.name = w.at("name").text();
      if (const auto interrupted = w.find("interrupted")) u.interrupted = interrupted->flag();
      if (const auto error = w.find("error")) u.error = error->text();
      run.unsampled.push_back(std::move(u));
      return;
    }
    workload_run r;
    r.name = w.at("name").text();
    r.batch = positive_count(prepared->at("batch"));
    for (auto [key, value] : {std::pair{"items_per_call", &r.items_per_call},
                              std::pair{"bytes_per_call", &r.bytes_per_call}}) {
      if (const auto amount = w.find(key); amount && amount->number() > 0)
        *value = amount->number();
    }
    const field reference = prepared->at("reference_loop");
    if (reference.at("runs").count() > 0) r.reference_best = reference.at("best_ticks").count();
    const field factor = reference.at("slowdown_factor");
    run.slowdown_factor = factor.number();
    if (!(run.slowdown_factor >= 1 && run.slowdown_factor <= 1e6)) {
      factor.refuse(
          fmt::format("{} is out of range: a slow-down factor is 1 to 1e6", factor.json().dump()));
    }
    if (const auto verdict = prepared->find("verdict")) r.verdict = verdict->text();
    if (const auto reason = prepared->find("verdict_reason")) r.verdict_reason = reason->text();
    if (const auto floor = prepared->find("floor")) {
      floor->object();
      r.floor_recorded = true;
      r.floor_confirmed = floor->at("confirmed").flag();
      if (const auto reason = floor->find("reason")) r.floor_reason = reason->text();
    }
    // A sample is its calls' raw time less the timer overhead, per call: never below minus the
    // overhead per call (an empty workload's samples may lie a little below 0, none further).
    const auto overhead = prepared->find("overhead_ticks");
    const double lowest =
        -(overhead ? ticks_figure(*overhead) : 0.0) / static_cast<double>(r.batch);
    if (const auto found = samples.find(r.name); found != samples.end()) {
      for (const sample_row& s : found->second) {
        if (!(s.ticks >= lowest)) {
          const field row = rows.element(s.row);
          row.at("ticks").refuse(fmt::format(
              "a sample of {} ticks is out of range: a sample is its calls' time less the timer "
              "overhead, so it lies at or above minus the overhead per call ({:g} ticks here)",
              row.at("ticks").json().dump(), lowest));
        }
        r.values.push_back(s.ticks);
      }
    }
    run.workloads.push_back(std::move(r));
  });
  return run;
}

}  // namespace

run_file parse_run(std::string_view json_text, const std::string& source) {
  json doc;
  try {
    doc = json::parse(json_text);
  } catch (const json::exception& e) {
    // A syntax error, or a number no double holds (out_of_range: 1e400).
    throw usage_error(fmt::format("{}: not JSON: {}", source, json_error_text(e)));
  }
  return parse_document(doc, source);
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
