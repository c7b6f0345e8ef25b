// The one reader of a saved JSON report (report_reader.hpp).
#include "report/report_reader.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <istream>
#include <map>
#include <system_error>
#include <utility>

#include "base/json_field.hpp"
#include "base/numbers.hpp"
#include "harness/ab.hpp"
#include "harness/ab_report.hpp"
#include "harness/analysis.hpp"
#include "harness/errors.hpp"
#include "harness/run_report.hpp"

namespace harness::report_reader {
namespace {

using json = nlohmann::ordered_json;
using field = json_field<json>;

// A report names each workload once: a family_index this high is a broken file, not a workload.
constexpr std::uint64_t kMaxFamilies = 1000000;

// A count that must be 1 or more (calls per sample).
std::uint64_t positive_count(const field& f) {
  const std::uint64_t n = f.count();
  if (n == 0) f.expected("a whole number of 1 or more");
  return n;
}

// A clock figure in ticks (a step, a granularity, an overhead): 0 to kMaxTicks.
double ticks_figure(const field& f) {
  const double x = f.number();
  if (!(x >= 0 && x <= kMaxTicks))
    f.refuse(fmt::format("{} is out of range: expected 0 to 1e15 ticks", f.json().dump()));
  return x;
}

// The rows of one phase of one workload as they are parsed: the samples, the row name they
// carry, the first row and the lowest sample's row, to name them if refused.
struct series {
  std::vector<double> ticks;
  std::vector<char> disturbed;
  std::string run_name;
  std::size_t first_row = 0;
  double lowest = 0;
  std::size_t lowest_row = 0;
};
// Per family_index, per phase id.
using row_series = std::vector<std::map<std::string, series>>;

// Refuses the value `value` at `place` (benchmarks[3].ticks) of a row already dropped.
[[noreturn]] void refuse_row_value(const std::string& source, const std::string& place,
                                   const json& value, std::string_view why) {
  field(value, source, place).refuse(why);
}

// One element of "benchmarks", at index `index`: a sample row is kept in `rows`, anything else
// checked for its type and dropped.
void read_row(const json& parsed, std::size_t index, row_series& rows, const std::string& source) {
  const std::string place = fmt::format("benchmarks[{}]", index);
  const field r(parsed, source, place);
  if (r.at("run_type").text() != "iteration") return;
  const field family = r.at("family_index");
  const std::uint64_t w = family.count();
  if (w >= kMaxFamilies) family.refuse(fmt::format("{} is out of range (below 1000000)", w));
  const std::string phase = r.at("phase").text();
  const field name = r.at("run_name");
  const std::string run_name = name.text();
  const field ticks = r.at("ticks");
  const double value = ticks.number();
  if (!(value <= kMaxTicks)) {
    ticks.refuse(
        fmt::format("a sample of {} ticks is out of range (at most 1e15)", ticks.json().dump()));
  }
  const auto disturbed = r.find("disturbed");
  const bool was_disturbed = disturbed && disturbed->flag();
  if (rows.size() <= w) rows.resize(w + 1);
  series& s = rows[w][phase];
  if (s.ticks.empty()) {
    s.run_name = run_name;
    s.first_row = index;
  } else if (run_name != s.run_name) {
    name.refuse(
        fmt::format("{} differs from the run_name of the phase's first row ({}, "
                    "benchmarks[{}]): one phase of one workload has one row name",
                    name.json().dump(), json(s.run_name).dump(), s.first_row));
  }
  if (s.ticks.empty() || value < s.lowest) {
    s.lowest = value;
    s.lowest_row = index;
  }
  s.ticks.push_back(value);
  s.disturbed.push_back(was_disturbed ? 1 : 0);
}

// Parses the document, keeping each sample row's figures in `rows` and dropping the row itself.
// A row's error is thrown only once the document parsed (a syntax error later in the file is
// said first) and the document is a harness report of this schema.
json parse_document(std::istream& in, row_series& rows, std::optional<usage_error>& row_error,
                    const std::string& source) {
  bool in_rows = false;     // inside the top-level "benchmarks"
  bool rows_array = false;  // ... and it is an array
  std::size_t row = 0;      // the index in it of the element being parsed
  const auto keep_row = [&](int depth, json::parse_event_t event, json& parsed) {
    if (depth == 1 && event == json::parse_event_t::key) {
      in_rows = parsed == "benchmarks";
      rows_array = false;
    }
    if (in_rows && depth == 1 && event == json::parse_event_t::array_start) rows_array = true;
    if (!in_rows || !rows_array || depth != 2) return true;
    // An element of "benchmarks" ends: an object, an array or a value.
    if (event != json::parse_event_t::object_end && event != json::parse_event_t::array_end &&
        event != json::parse_event_t::value) {
      return true;
    }
    const std::size_t index = row++;
    if (row_error) return false;
    try {
      read_row(parsed, index, rows, source);
    } catch (const usage_error& e) {
      row_error = e;  // the rows after it are dropped unread
    }
    return false;  // every row is dropped: its figures are in `rows`
  };
  try {
    return json::parse(in, keep_row);
  } catch (const json::exception& e) {
    // A syntax error, or a number no double holds (out_of_range: 1e400).
    throw usage_error(fmt::format("{}: not JSON: {}", source, json_error_text(e)));
  }
}

phase read_phase(const field& f) {
  phase p;
  p.id = f.at("phase").text();
  p.batch = positive_count(f.at("batch"));
  if (const auto overhead = f.find("overhead_ticks")) p.overhead_ticks = ticks_figure(*overhead);
  const field reference = f.at("reference_loop");
  p.reference_runs = reference.at("runs").count();
  if (p.reference_runs > 0) p.reference_best = reference.at("best_ticks").count();
  const field factor = reference.at("slowdown_factor");
  p.slowdown_factor = factor.number();
  if (!(p.slowdown_factor >= 1 && p.slowdown_factor <= 1e6)) {
    factor.refuse(
        fmt::format("{} is out of range: a slow-down factor is 1 to 1e6", factor.json().dump()));
  }
  if (const auto verdict = f.find("verdict")) p.verdict = verdict->text();
  if (const auto reason = f.find("verdict_reason")) p.verdict_reason = reason->text();
  if (const auto floor = f.find("floor")) {
    floor->object();
    p.floor_recorded = true;
    p.floor_confirmed = floor->at("confirmed").flag();
    if (const auto reason = floor->find("reason")) p.floor_reason = reason->text();
  }
  return p;
}

workload read_workload(const field& f) {
  workload w;
  w.name = f.at("name").text();
  if (const auto interrupted = f.find("interrupted")) w.interrupted = interrupted->flag();
  if (const auto error = f.find("error")) w.error = error->text();
  for (auto [key, value] : {std::pair{"items_per_call", &w.items_per_call},
                            std::pair{"bytes_per_call", &w.bytes_per_call}}) {
    if (const auto amount = f.find(key); amount && amount->number() > 0) *value = amount->number();
  }
  f.at("phases").each([&](const field& p) { w.phases.push_back(read_phase(p)); });
  return w;
}

// Gives each workload's phases their rows, refusing a row that names no workload, no phase of
// its workload, another row name than its workload's for that phase, or a sample below minus the
// phase's timer overhead per call.
void join_rows(report& r, row_series& rows) {
  const auto refuse_at = [&](std::size_t row, const char* key, const json& value,
                             std::string_view why) {
    refuse_row_value(r.source, fmt::format("benchmarks[{}].{}", row, key), value, why);
  };
  if (rows.size() > r.workloads.size()) {
    // The first row of a family beyond the list.
    std::size_t first = SIZE_MAX;
    std::size_t family = 0;
    for (std::size_t f = r.workloads.size(); f < rows.size(); ++f) {
      for (const auto& [id, s] : rows[f]) {
        if (s.first_row < first) {
          first = s.first_row;
          family = f;
        }
      }
    }
    if (first != SIZE_MAX) {
      refuse_at(
          first, "family_index", json(family),
          fmt::format("{} names no workload (the report lists {})", family, r.workloads.size()));
    }
  }
  for (std::size_t f = 0; f < rows.size() && f < r.workloads.size(); ++f) {
    workload& w = r.workloads[f];
    for (auto& [id, s] : rows[f]) {
      // A structured binding named in the lambda through a plain reference (clang 14 cannot
      // capture a binding).
      const auto& phase_id = id;
      const auto found = std::find_if(w.phases.begin(), w.phases.end(),
                                      [&](const phase& p) { return p.id == phase_id; });
      if (found == w.phases.end()) {
        refuse_at(s.first_row, "phase", json(id),
                  fmt::format("{} is not a phase harness.workloads[{}] ({}) lists", json(id).dump(),
                              f, json(w.name).dump()));
      }
      // The row names of report/json.cpp: the prepared phase under the workload's own name, so
      // compare.py pairs it with another run's; the others as "NAME/baseline".
      const std::string expected = id == "prepared" ? w.name : w.name + "/" + id;
      if (s.run_name != expected) {
        refuse_at(
            s.first_row, "run_name", json(s.run_name),
            fmt::format("{} is not the row name of {}'s {} phase ({})", json(s.run_name).dump(),
                        json(w.name).dump(), id, json(expected).dump()));
      }
      // A sample is its calls' raw time less the timer overhead, per call: never below minus the
      // overhead per call (an empty workload's may lie a little below 0, none further).
      phase& p = *found;
      const double lowest = -p.overhead_ticks / static_cast<double>(p.batch);
      if (!(s.lowest >= lowest)) {
        const json value = s.lowest;
        refuse_at(s.lowest_row, "ticks", value,
                  fmt::format("a sample of {} ticks is out of range: a sample is its calls' time "
                              "less the timer overhead, so it lies at or above minus the overhead "
                              "per call ({} ticks in {}'s {} phase)",
                              value.dump(), significant_text(lowest, 6), w.name, id));
      }
      p.ticks = std::move(s.ticks);
      p.disturbed = std::move(s.disturbed);
    }
  }
}

// ---- an ab report -----------------------------------------------------------------------------
// Its page (html/ab.js, report/ab_html.cpp) reads these values and no others: each is checked for
// its type, and a ratio or a time for its range, so a file edited by hand is refused naming the
// value rather than drawn wrong.

// A ratio B/A: above 0 (every figure derived from it stays finite).
double ratio_figure(const field& f) {
  const double x = f.number();
  if (!(x > 0 && x <= kMaxTicks)) {
    f.refuse(
        fmt::format("{} is out of range: a ratio B/A lies above 0 (up to 1e15)", f.json().dump()));
  }
  return x;
}

// An identifier of the enum E ("slower"), or refused naming the ones it takes.
template <named_enum E>
void id_figure(const field& f) {
  const std::string id = f.text();
  if (parse_id<E>(id)) return;
  std::string ids;
  for (const auto& row : names_table<E>())
    ids += fmt::format("{}{}", ids.empty() ? "" : ", ", row.id);
  f.refuse(fmt::format("{} is not one of {}", f.json().dump(), ids));
}

// A value that may be null, read by `read` when it is not.
template <class F>
void maybe(const field& parent, std::string_view key, F&& read) {
  if (const auto value = parent.find(key)) read(*value);
}

// An interval (ab_interval's JSON): null, or its ratio, bounds around it, level, count, method.
void check_interval(const field& parent, std::string_view key) {
  parent.at(key);  // present, null or not
  maybe(parent, key, [](const field& i) {
    const double ratio = ratio_figure(i.at("ratio"));
    const field lower = i.at("lower");
    const field upper = i.at("upper");
    if (!(ratio_figure(lower) <= ratio)) lower.refuse("lies above the ratio");
    if (!(ratio_figure(upper) >= ratio)) upper.refuse("lies below the ratio");
    const field level = i.at("level");
    if (const double l = level.number(); !(l >= 0 && l <= 1)) level.expected("a share from 0 to 1");
    i.at("count").count();
    i.at("method").text();
    i.at("resolution").number();
    maybe(i, "order", [](const field& o) {
      ratio_figure(o.at("a_first"));
      ratio_figure(o.at("b_first"));
      o.at("a_first_rounds").count();
      o.at("b_first_rounds").count();
    });
  });
}

void check_side(const field& side) {
  side.at("workload").text();
  side.at("build").text();
  side.at("iterations_per_call").count();
}

void check_pair(const field& pair) {
  check_side(pair.at("a"));
  check_side(pair.at("b"));
  positive_count(pair.at("batch"));
  pair.at("batch_calibrated").flag();
  pair.at("samples_per_side").count();
  maybe(pair, "samples_per_stretch", [](const field& f) { f.count(); });
  ticks_figure(pair.at("overhead_a_ticks"));
  ticks_figure(pair.at("overhead_b_ticks"));
  pair.at("warmup_rounds").count();
  pair.at("warmup_seconds").number();
  pair.at("seconds").number();
  id_figure<ab_stop>(pair.at("stopped_by"));
  pair.at("checks").count();
  maybe(pair, "last_half_width", [](const field& f) { f.number(); });
  const field estimate = pair.at("estimate");
  check_interval(estimate, "rounds");
  check_interval(estimate, "undisturbed");
  estimate.at("disturbed_rounds").count();
  for (const char* key : {"floor_a_ticks", "floor_b_ticks"})
    maybe(estimate, key, [](const field& f) { ticks_figure(f); });
  for (const char* key : {"floor_ratio", "slow_a", "slow_b", "slow_reference"})
    maybe(estimate, key, [](const field& f) { ratio_figure(f); });
  pair.at("rounds").each([](const field& round) {
    round.at("ratio");  // present, null when A's minimum is not above 0
    maybe(round, "ratio", [](const field& f) { ratio_figure(f); });
    round.at("disturbed").flag();
  });
}

// The verdict of an answer: null, or one of ab_verdict's, with its reason.
void check_verdict(const field& parent) {
  parent.at("verdict");
  maybe(parent, "verdict", [](const field& f) { id_figure<ab_verdict>(f); });
  maybe(parent, "reason", [](const field& f) { f.text(); });
  parent.at("gate_failed").flag();
}

// The document of `harness ab` or `gbench --vs` (report/ab_json.cpp), its clock already read.
void check_ab(const field& root) {
  const field context = root.at("context");
  context.object();
  for (const char* key : {"date", "host_name", "library_build_type"})
    maybe(context, key, [](const field& f) { f.text(); });
  maybe(context, "num_cpus", [](const field& f) { f.count(); });
  const field h = root.at("harness");
  h.at("harness_version").text();
  const field clock = h.at("clock");
  clock.at("reason").text();
  maybe(clock, "calibration", [](const field& c) { c.at("error_ppm").number(); });
  const field ab = root.at("ab");
  const field mode = ab.at("mode");
  id_figure<ab_mode>(mode);
  const field o = ab.at("options");
  for (const char* key : {"warmup_ns", "max_time_ns", "round_time_ns", "seed", "pairs"})
    o.at(key).count();
  const field target = o.at("target");
  if (!(target.number() > 0)) target.expected("a share above 0");
  o.at("threshold").number();
  maybe(o, "fail_if_slower", [](const field& f) { f.number(); });
  id_figure<ab_order>(o.at("order"));
  maybe(o, "cpu", [](const field& f) { f.count(); });
  o.at("layout").text();
  check_interval(ab, "answer");
  check_verdict(ab);
  ab.at("interrupted").flag();
  ab.at("preparations").each([](const field& p) {
    p.at("applied").each([](const field& a) { a.text(); });
    p.at("refused").each([](const field& r) {
      r.at("action").text();
      r.at("reason").text();
    });
  });
  ab.at("pairs").each(check_pair);
  if (mode.text() == id_of(ab_mode::gbench)) {
    const field builds = ab.at("builds");
    builds.at("a").text();
    builds.at("b").text();
    ab.at("plan").text();
    for (const char* key : {"only_in_a", "only_in_b"})
      ab.at(key).each([](const field& name) { name.text(); });
    ab.at("comparisons").each([](const field& c) {
      c.at("benchmark").text();
      check_interval(c, "answer");
      check_verdict(c);
      maybe(c, "error", [](const field& f) { f.text(); });
      check_pair(c.at("pair"));
    });
  } else {
    for (const char* key : {"a", "b"})
      maybe(ab, key, check_side);
  }
}

}  // namespace

const phase* workload::find(std::string_view id) const noexcept {
  for (const phase& p : phases) {
    if (p.id == id) return &p;
  }
  return nullptr;
}

namespace {

// Either kind of report; an ab report refused unless `ab_allowed`.
saved_report read_any(std::istream& in, const std::string& source, bool ab_allowed) {
  row_series rows;
  std::optional<usage_error> row_error;
  json doc = parse_document(in, rows, row_error, source);
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
      version->json().get<std::int64_t>() != kReportSchemaVersion) {
    throw usage_error(fmt::format("{}: schema_version {} is not one this harness reads ({})",
                                  source, version ? version->json().dump() : "null",
                                  kReportSchemaVersion));
  }
  // `ab` and `gbench --vs` write the run report's frame around their own "ab" section, with
  // harness.kind "ab", no workloads and no rows.
  const auto kind = h.find("kind");
  const bool ab = (kind && kind->json() == "ab") ||
                  (doc.contains("ab") && !doc["harness"].contains("workloads"));
  if (ab && !ab_allowed) {
    throw usage_error(fmt::format(
        "{}: a report of `harness ab` (or `gbench --vs`), which compares A and B itself: only "
        "the reports of runs are compared here (harness --format json, or -o FILE.json); "
        "`harness report {}` draws its page",
        source, shell_word(source)));
  }
  if (row_error) throw *row_error;
  report r;
  r.source = source;
  const field clock = h.at("clock");
  r.clock = clock.at("name").text();
  const field rate = clock.at("ticks_per_second");
  r.ticks_per_second = rate.number();
  // From the one-tick-a-second `time` to a petahertz: beyond, figures converted to ns would not
  // stay finite.
  if (!(r.ticks_per_second >= 1 && r.ticks_per_second <= kMaxTicksPerSecond)) {
    rate.refuse(fmt::format("{} is out of range: a clock ticks from 1 to 1e15 times a second",
                            rate.json().dump()));
  }
  if (const auto step = clock.find("step_ticks")) r.step_ticks = ticks_figure(*step);
  if (const auto g = clock.find("granularity_ticks")) r.granularity_ticks = ticks_figure(*g);
  const field context = root.at("context");
  context.object();
  if (const auto date = context.find("date")) r.date = date->text();
  if (const auto host = context.find("host_name")) r.host_name = host->text();
  root.at("benchmarks").array();
  if (ab) {
    check_ab(root);
    r.document = std::move(doc);  // "benchmarks" kept, empty, as the page the run drew has it
    return {std::move(r), true};
  }
  if (const auto s = h.find("source")) {
    if (const auto sample = s->find("sample")) r.sample_source = sample->text();
  }
  h.at("workloads").each([&](const field& w) { r.workloads.push_back(read_workload(w)); });
  join_rows(r, rows);
  doc.erase("benchmarks");
  r.document = std::move(doc);
  return {std::move(r), false};
}

}  // namespace

saved_report read_saved_report(std::istream& in, const std::string& source) {
  return read_any(in, source, true);
}

report read_report(std::istream& in, const std::string& source) {
  return std::move(read_any(in, source, false).run);
}

}  // namespace harness::report_reader
