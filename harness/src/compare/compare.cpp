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
#include <stdexcept>
#include <string_view>

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
  if (clock.contains("granularity_ticks") && clock["granularity_ticks"].is_number()) {
    run.granularity_ticks = clock["granularity_ticks"].get<double>();
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

const workload_run* find(const run_file& run, const std::string& name) {
  const auto found = std::find_if(run.workloads.begin(), run.workloads.end(),
                                  [&](const workload_run& w) { return w.name == name; });
  return found == run.workloads.end() ? nullptr : &*found;
}

std::vector<double> scaled(const std::vector<double>& values, double scale) {
  std::vector<double> out(values);
  for (double& v : out)
    v *= scale;
  return out;
}

std::string figure(double v, bool integral) {
  return integral ? fmt::format("{:.0f}", v) : fmt::format("{:.2f}", v);
}

std::string interval_text(const floor_interval& i, bool integral) {
  return integral ? fmt::format("[{:.0f}, {:.0f}]", i.lower, i.upper)
                  : fmt::format("[{:.2f}, {:.2f}]", i.lower, i.upper);
}

std::string side_name(std::string_view side, const run_file& run, std::size_t count) {
  return count == 1 ? std::string(side) : fmt::format("{} ({})", side, run.source);
}

// One side's result for `name`, in the comparison's unit (`scales` per report).
side_result summarize_side(std::string_view side, const std::vector<run_file>& runs,
                           const std::vector<double>& scales, const std::string& name) {
  side_result r;
  std::vector<double> minimums;
  bool every_floor = true;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const workload_run* w = find(runs[i], name);
    if (w == nullptr) continue;
    if (!w->floor_confirmed) {
      // A minimum the run itself could not confirm may come from a slowed host: left out.
      ++r.unconfirmed;
      r.notes.push_back(
          w->floor_recorded
              ? fmt::format("{}: the floor was not confirmed, so the report is left out: {}",
                            side_name(side, runs[i], runs.size()), w->floor_reason)
              : fmt::format("{}: written without a floor confirmation (an older harness), so the "
                            "report is left out",
                            side_name(side, runs[i], runs.size())));
      continue;
    }
    const stats::phase_statistics s = stats::summarize(scaled(w->values, scales[i]));
    const double granularity =
        runs[i].granularity_ticks > 0 ? runs[i].granularity_ticks : runs[i].step_ticks;
    const double step =
        granularity / static_cast<double>(std::max<std::uint64_t>(w->batch, 1)) * scales[i];
    r.fewest_samples = r.reports == 0 ? s.n : std::min(r.fewest_samples, s.n);
    ++r.reports;
    r.step = std::max(r.step, step);
    if (!w->verdict.empty() && w->verdict != "stable") {
      r.notes.push_back(fmt::format("{} judged its prepared phase {}: {}",
                                    side_name(side, runs[i], runs.size()), w->verdict,
                                    w->verdict_reason));
    }
    if (!s.min) {
      every_floor = false;
      continue;
    }
    minimums.push_back(*s.min);
    if (!s.min_ci) {
      every_floor = false;
      continue;
    }
    const floor_interval widened{s.min_ci->lower - step, *s.min + step};
    r.floor = r.floor ? floor_interval{std::min(r.floor->lower, widened.lower),
                                       std::max(r.floor->upper, widened.upper)}
                      : widened;
  }
  if (!every_floor || r.reports == 0) r.floor.reset();
  if (!minimums.empty()) {
    std::sort(minimums.begin(), minimums.end());
    r.min = stats::median_sorted(minimums);
    r.lowest_min = minimums.front();
    r.highest_min = minimums.back();
  }
  return r;
}

bool whole_ticks(const std::vector<run_file>& runs, const std::string& name) {
  return std::all_of(runs.begin(), runs.end(), [&](const run_file& run) {
    const workload_run* w = find(run, name);
    return w == nullptr || w->batch == 1;
  });
}

std::optional<double> fastest_reference(const std::vector<run_file>& runs,
                                        const std::vector<double>& scales) {
  std::optional<double> best;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    for (const workload_run& w : runs[i].workloads) {
      if (!w.reference_best || *w.reference_best == 0) continue;
      const double v = static_cast<double>(*w.reference_best) * scales[i];
      best = best ? std::min(*best, v) : v;
    }
  }
  return best;
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

comparison compare_runs(const std::vector<run_file>& a, const std::vector<run_file>& b) {
  if (a.empty() || b.empty()) throw std::invalid_argument("compare_runs: a side without reports");
  comparison c;
  const std::string& clock = a.front().clock;
  const auto one_clock = [&](const run_file& r) { return r.clock == clock; };
  c.same_clock =
      std::all_of(a.begin(), a.end(), one_clock) && std::all_of(b.begin(), b.end(), one_clock);
  c.unit = c.same_clock ? "ticks of " + clock : "ns";
  const auto scales_of = [&](const std::vector<run_file>& runs) {
    std::vector<double> scales;
    for (const run_file& r : runs)
      scales.push_back(c.same_clock ? 1.0 : 1e9 / r.ticks_per_second);
    return scales;
  };
  const std::vector<double> scale_a = scales_of(a);
  const std::vector<double> scale_b = scales_of(b);
  c.slowdown_factor = 0;
  for (const auto* side : {&a, &b}) {
    for (const run_file& r : *side)
      c.slowdown_factor = std::max(c.slowdown_factor, r.slowdown_factor);
  }

  // Workload names in order of first appearance on each side.
  const auto names_of = [](const std::vector<run_file>& runs) {
    std::vector<std::string> names;
    for (const run_file& r : runs) {
      for (const workload_run& w : r.workloads) {
        if (std::find(names.begin(), names.end(), w.name) == names.end()) names.push_back(w.name);
      }
    }
    return names;
  };
  const std::vector<std::string> names_a = names_of(a);
  const std::vector<std::string> names_b = names_of(b);
  for (const std::string& name : names_b) {
    if (std::find(names_a.begin(), names_a.end(), name) == names_a.end())
      c.only_in_b.push_back(name);
  }

  for (const std::string& name : names_a) {
    if (std::find(names_b.begin(), names_b.end(), name) == names_b.end()) {
      c.only_in_a.push_back(name);
      continue;
    }
    workload_comparison w;
    w.name = name;
    w.a = summarize_side("A", a, scale_a, name);
    w.b = summarize_side("B", b, scale_b, name);
    w.whole_ticks = c.same_clock && whole_ticks(a, name) && whole_ticks(b, name);
    if (w.a.min && w.b.min && *w.a.min > 0) w.ratio = *w.b.min / *w.a.min;
    const bool integral = w.whole_ticks;
    if (w.a.reports == 0 || w.b.reports == 0) {
      w.result = outcome::undefined;
      w.reason = fmt::format(
          "{} confirmed its floor: a minimum the run could not confirm may come from a slowed "
          "host; rerun (several runs per side give more chances)",
          w.a.reports == 0 && w.b.reports == 0 ? "no report on either side"
          : w.a.reports == 0                   ? "no report of A"
                                               : "no report of B");
    } else if (!w.a.floor || !w.b.floor || w.a.fewest_samples < stats::kMinSamplesForVerdict ||
               w.b.fewest_samples < stats::kMinSamplesForVerdict) {
      // The verdicts' own threshold: with fewer samples the minimum may not have come near the
      // floor, and the floor's interval is too loose to trust.
      w.result = outcome::undefined;
      w.reason =
          fmt::format("every report needs {} samples or more to compare; the fewest are A {}, B {}",
                      stats::kMinSamplesForVerdict, w.a.fewest_samples, w.b.fewest_samples);
    } else if (w.b.floor->upper < w.a.floor->lower) {
      w.result = outcome::faster;
      w.reason = fmt::format("B's floor {} lies below A's {}", interval_text(*w.b.floor, integral),
                             interval_text(*w.a.floor, integral));
    } else if (w.a.floor->upper < w.b.floor->lower) {
      w.result = outcome::slower;
      w.reason = fmt::format("B's floor {} lies above A's {}", interval_text(*w.b.floor, integral),
                             interval_text(*w.a.floor, integral));
    } else {
      w.result = outcome::not_shown;
      w.reason = fmt::format("the floors overlap: A {}, B {}", interval_text(*w.a.floor, integral),
                             interval_text(*w.b.floor, integral));
    }
    c.workloads.push_back(std::move(w));
  }

  c.a_reference = fastest_reference(a, scale_a);
  c.b_reference = fastest_reference(b, scale_b);
  if (c.a_reference && c.b_reference) {
    const double ratio =
        std::max(*c.a_reference, *c.b_reference) / std::min(*c.a_reference, *c.b_reference);
    c.host_speed_differs = ratio > c.slowdown_factor;
  }
  return c;
}

void write_text(std::ostream& out, const comparison& c, const std::vector<run_file>& a,
                const std::vector<run_file>& b) {
  const auto described = [](const std::vector<run_file>& runs) {
    std::vector<std::string> parts;
    for (const run_file& run : runs)
      parts.push_back(run.date.empty() ? run.source : fmt::format("{} ({})", run.source, run.date));
    return fmt::format("{}", fmt::join(parts, ", "));
  };
  fmt::print(out, "A: {}\nB: {}\n", described(a), described(b));
  if (c.same_clock) {
    fmt::print(out, "figures: ticks of {} per call, prepared phases, timer overhead subtracted\n",
               a.front().clock);
  } else {
    fmt::print(out,
               "figures: ns per call, prepared phases, timer overhead subtracted (the reports used "
               "different clocks: each one's ticks converted with its own ticks_per_second)\n");
  }
  const bool several = a.size() > 1 || b.size() > 1;
  fmt::print(out,
             "estimator: the minimum of each report whose floor was confirmed; its 95% "
             "Robson-Whitlock interval for the floor, widened by one granularity step of the "
             "clock each way{}; B is faster or slower only when the floors are apart\n",
             several ? ", joined over each side's reports (a side's min is the median of its "
                       "reports' minimums)"
                     : "");

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
  const auto spread = [](std::string_view side, const side_result& s, bool integral) {
    if (s.reports < 2 || !s.lowest_min || !s.highest_min) return std::string();
    return fmt::format("; {}'s minimums over {} reports: {} to {}{}", side, s.reports,
                       figure(*s.lowest_min, integral), figure(*s.highest_min, integral),
                       *s.lowest_min > 0 ? fmt::format(" ({:.2f}% apart)",
                                                       (*s.highest_min / *s.lowest_min - 1) * 100)
                                         : std::string());
  };
  for (const auto& w : c.workloads) {
    fmt::print(out, "  {}: {}{}{}\n", w.name, w.reason, spread("A", w.a, w.whole_ticks),
               spread("B", w.b, w.whole_ticks));
    for (const auto* notes : {&w.a.notes, &w.b.notes}) {
      for (const auto& note : *notes)
        fmt::print(out, "    note: {}\n", note);
    }
  }

  if (!several && !c.workloads.empty()) {
    fmt::print(out,
               "  note: one report per side, so the run-to-run variation (code and data "
               "placement, address space randomisation) is not in the floors; two runs of one "
               "build can differ by more than either's interval: give several reports per side "
               "(-a A1.json -a A2.json ... -b B1.json ...)\n");
  }
  if (c.a_reference && c.b_reference) {
    const double ratio = *c.b_reference / *c.a_reference;
    fmt::print(out, "host: fastest reference loop A {}, B {} {} (B/A {:.3f})",
               figure(*c.a_reference, c.same_clock), figure(*c.b_reference, c.same_clock),
               c.same_clock ? "ticks" : "ns", ratio);
    if (c.host_speed_differs) {
      fmt::print(out,
                 ": the CPU ran {} more than {:.2f}x slower, a slowed host or a lower clock for "
                 "that whole side, so the figures do not compare directly; repeat the runs\n",
                 ratio > 1 ? "B" : "A", c.slowdown_factor);
    } else {
      fmt::print(out, ": both sides saw the same CPU speed within {:.2f}x\n", c.slowdown_factor);
    }
  } else {
    fmt::print(out, "host: a side without reference-loop runs: the CPU speed was not compared\n");
  }
  if (!c.only_in_a.empty()) fmt::print(out, "only in A: {}\n", fmt::join(c.only_in_a, ", "));
  if (!c.only_in_b.empty()) fmt::print(out, "only in B: {}\n", fmt::join(c.only_in_b, ", "));
  if (c.workloads.empty()) fmt::print(out, "no workload was sampled on both sides\n");
}

}  // namespace harness::compare
