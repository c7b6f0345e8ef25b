// Comparing two JSON reports workload by workload: minimums with widened floor intervals, and the
// reference loop as a check that both runs saw the same CPU speed.
#include "harness/compare.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <ostream>
#include <sstream>

#include "harness/errors.hpp"

namespace harness::compare {
namespace {

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
  run.ticks_per_second = clock.at("ticks_per_second").get<double>();
  if (!(run.ticks_per_second > 0)) {
    throw usage_error(
        fmt::format("{}: clock ticks_per_second {} is not positive", source, run.ticks_per_second));
  }
  if (clock.contains("step_ticks") && clock["step_ticks"].is_number()) {
    run.step_ticks = clock["step_ticks"].get<double>();
  }

  std::map<std::string, std::vector<double>> samples;
  for (const json& row : doc.at("benchmarks")) {
    if (row.value("run_type", "") != "iteration" || row.value("phase", "") != "prepared") continue;
    samples[row.at("run_name").get<std::string>()].push_back(row.at("ticks").get<double>());
  }
  for (const json& w : h.at("workloads")) {
    const json* prepared = find_prepared(w.at("phases"));
    if (prepared == nullptr) continue;
    workload_run r;
    r.name = w.at("name").get<std::string>();
    r.batch = prepared->at("batch").get<std::uint64_t>();
    const json& reference = prepared->at("reference_loop");
    if (reference.at("runs").get<std::uint64_t>() > 0) {
      r.reference_best = reference.at("best_ticks").get<std::uint64_t>();
    }
    run.slowdown_factor = reference.at("slowdown_factor").get<double>();
    r.verdict = prepared->value("verdict", "");
    r.verdict_reason = prepared->value("verdict_reason", "");
    if (const auto found = samples.find(r.name); found != samples.end()) {
      r.values = found->second;
    }
    run.workloads.push_back(std::move(r));
  }
  return run;
}

const workload_run* find(const run_file& run, const std::string& name) {
  const auto found = std::find_if(run.workloads.begin(), run.workloads.end(),
                                  [&](const workload_run& w) { return w.name == name; });
  return found == run.workloads.end() ? nullptr : &*found;
}

// The floor's interval widened by one clock step each way: [lower - step, min + step].
struct floor_interval {
  double lower = 0;
  double upper = 0;
};

std::optional<floor_interval> widened(const stats::phase_statistics& s, double step) {
  if (!s.min || !s.min_ci) return std::nullopt;
  return floor_interval{s.min_ci->lower - step, *s.min + step};
}

std::string interval_text(const floor_interval& i, bool integral) {
  return integral ? fmt::format("[{:.0f}, {:.0f}]", i.lower, i.upper)
                  : fmt::format("[{:.2f}, {:.2f}]", i.lower, i.upper);
}

std::vector<double> scaled(const std::vector<double>& values, double scale) {
  std::vector<double> out(values);
  for (double& v : out)
    v *= scale;
  return out;
}

void note_verdict(workload_comparison& c, std::string_view run, const workload_run& w) {
  if (!w.verdict.empty() && w.verdict != "stable") {
    c.notes.push_back(
        fmt::format("{} judged its prepared phase {}: {}", run, w.verdict, w.verdict_reason));
  }
}

std::string figure(double v, bool integral) {
  return integral ? fmt::format("{:.0f}", v) : fmt::format("{:.2f}", v);
}

}  // namespace

std::string_view to_string(outcome o) noexcept {
  switch (o) {
    case outcome::faster:
      return "B faster";
    case outcome::slower:
      return "B slower";
    case outcome::not_shown:
      return "no difference shown";
    case outcome::undefined:
      return "not compared";
  }
  return "not compared";
}

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

run_file read_run(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw usage_error(
        fmt::format("{}: cannot be read (a JSON report of `harness --format json` is expected)",
                    path.string()));
  }
  std::ostringstream text;
  text << in.rdbuf();
  return parse_run(text.str(), path.string());
}

comparison compare_runs(const run_file& a, const run_file& b) {
  comparison c;
  c.same_clock = a.clock == b.clock;
  c.unit = c.same_clock ? "ticks of " + a.clock : "ns";
  const double scale_a = c.same_clock ? 1.0 : 1e9 / a.ticks_per_second;
  const double scale_b = c.same_clock ? 1.0 : 1e9 / b.ticks_per_second;
  c.slowdown_factor = std::max(a.slowdown_factor, b.slowdown_factor);

  for (const workload_run& wa : a.workloads) {
    const workload_run* wb = find(b, wa.name);
    if (wb == nullptr) {
      c.only_in_a.push_back(wa.name);
      continue;
    }
    workload_comparison w;
    w.name = wa.name;
    w.a = stats::summarize(scaled(wa.values, scale_a));
    w.b = stats::summarize(scaled(wb->values, scale_b));
    w.a_step = a.step_ticks / static_cast<double>(std::max<std::uint64_t>(wa.batch, 1)) * scale_a;
    w.b_step = b.step_ticks / static_cast<double>(std::max<std::uint64_t>(wb->batch, 1)) * scale_b;
    if (w.a.min && w.b.min && *w.a.min > 0) w.ratio = *w.b.min / *w.a.min;
    const auto ia = widened(w.a, w.a_step);
    const auto ib = widened(w.b, w.b_step);
    w.whole_ticks = c.same_clock && wa.batch == 1 && wb->batch == 1;
    const bool integral = w.whole_ticks;
    if (!ia || !ib || w.a.n < stats::kMinSamplesForVerdict ||
        w.b.n < stats::kMinSamplesForVerdict) {
      // The verdicts' own threshold: with fewer samples the minimum may not have come near the
      // floor, and the floor's interval is too loose to trust.
      w.result = outcome::undefined;
      w.reason = fmt::format("each run needs {} samples or more to compare; A has {}, B has {}",
                             stats::kMinSamplesForVerdict, w.a.n, w.b.n);
    } else if (ib->upper < ia->lower) {
      w.result = outcome::faster;
      w.reason = fmt::format("B's floor {} lies below A's {}", interval_text(*ib, integral),
                             interval_text(*ia, integral));
    } else if (ia->upper < ib->lower) {
      w.result = outcome::slower;
      w.reason = fmt::format("B's floor {} lies above A's {}", interval_text(*ib, integral),
                             interval_text(*ia, integral));
    } else {
      w.result = outcome::not_shown;
      w.reason = fmt::format("the floors' intervals overlap: A {}, B {}",
                             interval_text(*ia, integral), interval_text(*ib, integral));
    }
    note_verdict(w, "A", wa);
    note_verdict(w, "B", *wb);
    c.workloads.push_back(std::move(w));
  }
  for (const workload_run& wb : b.workloads) {
    if (find(a, wb.name) == nullptr) c.only_in_b.push_back(wb.name);
  }

  const auto fastest_reference = [](const run_file& run, double scale) -> std::optional<double> {
    std::optional<double> best;
    for (const workload_run& w : run.workloads) {
      if (!w.reference_best || *w.reference_best == 0) continue;
      const double v = static_cast<double>(*w.reference_best) * scale;
      best = best ? std::min(*best, v) : v;
    }
    return best;
  };
  c.a_reference = fastest_reference(a, scale_a);
  c.b_reference = fastest_reference(b, scale_b);
  if (c.a_reference && c.b_reference) {
    const double ratio =
        std::max(*c.a_reference, *c.b_reference) / std::min(*c.a_reference, *c.b_reference);
    c.host_speed_differs = ratio > c.slowdown_factor;
  }
  return c;
}

void write_text(std::ostream& out, const comparison& c, const run_file& a, const run_file& b) {
  const auto described = [](const run_file& run) {
    return run.date.empty() ? run.source : fmt::format("{} ({})", run.source, run.date);
  };
  fmt::print(out, "A: {}\nB: {}\n", described(a), described(b));
  if (c.same_clock) {
    fmt::print(out, "figures: ticks of {} per call, prepared phases, timer overhead subtracted\n",
               a.clock);
  } else {
    fmt::print(out,
               "figures: ns per call, prepared phases, timer overhead subtracted (A sampled with "
               "{}, B with {}: each run's ticks converted with its own ticks_per_second)\n",
               a.clock, b.clock);
  }
  fmt::print(out,
             "estimator: the minimum; its 95% Robson-Whitlock interval for the floor, widened by "
             "one clock step each way; B is faster or slower only when the intervals are apart\n");

  std::vector<std::vector<std::string>> rows{
      {"workload", "A min", "B min", "B/A", "change", "verdict"}};
  for (const auto& w : c.workloads) {
    const bool integral = w.whole_ticks;
    rows.push_back({w.name, w.a.min ? figure(*w.a.min, integral) : "-",
                    w.b.min ? figure(*w.b.min, integral) : "-",
                    w.ratio ? fmt::format("{:.4f}", *w.ratio) : "-",
                    w.ratio ? fmt::format("{:+.2f}%", (*w.ratio - 1) * 100) : "-",
                    std::string(to_string(w.result))});
  }
  std::vector<std::size_t> widths(rows.front().size(), 0);
  for (const auto& row : rows) {
    for (std::size_t i = 0; i < row.size(); ++i)
      widths[i] = std::max(widths[i], row[i].size());
  }
  for (const auto& row : rows) {
    std::string line;
    for (std::size_t i = 0; i < row.size(); ++i) {
      // The name and the verdict read left to right; figures line up on the right.
      const bool left = i == 0 || i + 1 == row.size();
      line += left ? fmt::format("  {:<{}}", row[i], widths[i])
                   : fmt::format("  {:>{}}", row[i], widths[i]);
    }
    while (!line.empty() && line.back() == ' ')
      line.pop_back();
    fmt::print(out, "{}\n", line);
  }
  for (const auto& w : c.workloads) {
    fmt::print(out, "  {}: {}\n", w.name, w.reason);
    for (const auto& note : w.notes)
      fmt::print(out, "    note: {}\n", note);
  }

  const bool differs = std::any_of(c.workloads.begin(), c.workloads.end(), [](const auto& w) {
    return w.result == outcome::faster || w.result == outcome::slower;
  });
  if (differs) {
    fmt::print(out,
               "  note: a difference between two runs can come from code and data placement "
               "(alignment, address space randomisation) as well as from the change: repeat each "
               "run a few times, under `setarch -R` on Linux, before trusting a difference close "
               "to their run-to-run variation\n");
  }
  if (c.a_reference && c.b_reference) {
    const double ratio = *c.b_reference / *c.a_reference;
    fmt::print(out, "host: fastest reference loop A {}, B {} {} (B/A {:.3f})",
               figure(*c.a_reference, c.same_clock), figure(*c.b_reference, c.same_clock),
               c.same_clock ? "ticks" : "ns", ratio);
    if (c.host_speed_differs) {
      fmt::print(out,
                 ": the CPU ran {} more than {:.2f}x slower, a slowed host or a lower clock for "
                 "that whole run, so the runs' figures do not compare directly; repeat both\n",
                 ratio > 1 ? "B" : "A", c.slowdown_factor);
    } else {
      fmt::print(out, ": both runs saw the same CPU speed within {:.2f}x\n", c.slowdown_factor);
    }
  } else {
    fmt::print(out, "host: a run without reference-loop runs: the CPU speed was not compared\n");
  }
  if (!c.only_in_a.empty()) fmt::print(out, "only in A: {}\n", fmt::join(c.only_in_a, ", "));
  if (!c.only_in_b.empty()) fmt::print(out, "only in B: {}\n", fmt::join(c.only_in_b, ", "));
  if (c.workloads.empty()) fmt::print(out, "no workload was sampled in both runs\n");
}

}  // namespace harness::compare
