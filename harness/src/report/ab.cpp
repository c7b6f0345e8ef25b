// The report of `harness ab` (ab_report.hpp): the answer over the pairs, and its writers. Every
// figure comes from the rounds the sides measured; the writers only format it.
#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <ostream>

#include "harness/ab_report.hpp"
#include "harness/format_template.hpp"
#include "report/html.hpp"
#include "report/json_document.hpp"

namespace harness {

namespace {

using ab_json = nlohmann::ordered_json;

// A change in percent with two decimals, or three below 0.1% (0.004% is not "0.00%").
std::string magnitude(double change_percent) {
  return std::abs(change_percent) < 0.1 ? fmt::format("{:.3f}", change_percent)
                                        : fmt::format("{:.2f}", change_percent);
}

std::string percent(double ratio) {
  return ab_change_text(ratio);
}

std::string bounds(const ab_interval& i) {
  return fmt::format("[{}, {}]", percent(i.lower), percent(i.upper));
}

std::string duration_of(double ticks, double ticks_per_second) {
  return human_text(ticks / ticks_per_second, human_style::duration);
}

std::size_t total_rounds(const ab_report& r) {
  std::size_t n = 0;
  for (const ab_pair& p : r.pairs)
    n += p.rounds.size();
  return n;
}

std::size_t total_disturbed(const ab_report& r) {
  std::size_t n = 0;
  for (const ab_pair& p : r.pairs)
    n += p.estimate.disturbed;
  return n;
}

// "xor_loop/1000000" with two workloads; "xor_loop/1000000 of build-a/my_bench" with builds (and
// "BM_copy/4096 of ./old_bench" with gbench).
std::string side_name(const ab_side_facts& s, ab_mode mode) {
  return mode != ab_mode::workloads ? fmt::format("{} of {}", s.workload, s.build) : s.workload;
}

ab_json interval_json(const std::optional<ab_interval>& i) {
  if (!i) return nullptr;
  return {{"ratio", i->ratio}, {"lower", i->lower}, {"upper", i->upper},
          {"level", i->level}, {"count", i->count}, {"method", i->method}};
}

ab_json optional_number(const std::optional<double>& v) {
  return v ? ab_json(*v) : ab_json(nullptr);
}

ab_json side_json(const ab_side_facts& s) {
  return {{"workload", s.workload},
          {"build", s.build},
          {"clock", s.clock},
          {"ticks_per_second", s.ticks_per_second},
          {"iterations_per_call", s.iterations_per_call}};
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
          {"overhead_a_ticks", p.overhead_a},
          {"overhead_b_ticks", p.overhead_b},
          {"samples_per_side", p.samples_per_side},
          {"samples_per_stretch", p.samples_per_stretch},
          {"warmup_rounds", p.warmup_rounds},
          {"warmup_seconds", p.warmup_seconds},
          {"seconds", p.seconds},
          {"stopped_by", id_of(p.stopped_by)},
          {"checks", p.checks},
          {"last_half_width", optional_number(p.last_half_width)},
          {"estimate",
           {{"rounds", interval_json(p.estimate.rounds)},
            {"undisturbed", interval_json(p.estimate.undisturbed)},
            {"disturbed_rounds", p.estimate.disturbed},
            {"floor_a_ticks", optional_number(p.estimate.floor_a)},
            {"floor_b_ticks", optional_number(p.estimate.floor_b)},
            {"floor_ratio", optional_number(p.estimate.floor_ratio())}}},
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

ab_json document(const ab_report& r) {
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
        {"target", o.target},
        {"threshold", o.threshold},
        {"fail_if_slower", optional_number(o.fail_if_slower)},
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

}  // namespace

void conclude(ab_report& report) {
  report.answer.reset();
  report.pair_ratios.clear();
  report.between_pairs.reset();
  report.pooled_rounds.reset();
  report.decision.reset();
  if (report.pairs.size() == 1) {
    report.answer = report.pairs.front().estimate.rounds;
  } else if (report.pairs.size() > 1) {
    std::vector<ab_round> pooled;
    for (const ab_pair& p : report.pairs) {
      if (p.estimate.rounds) report.pair_ratios.push_back(p.estimate.rounds->ratio);
      pooled.insert(pooled.end(), p.rounds.begin(), p.rounds.end());
    }
    // The pooled rounds keep the disturbed marks each pair gave them.
    std::vector<ab_round> marked = pooled;
    const ab_estimate all = estimate_rounds(marked, report.options.tuning.slowdown_factor);
    report.answer = combine_pairs(report.pair_ratios, all.rounds);
    report.between_pairs = combine_pairs(report.pair_ratios, std::nullopt);
    report.pooled_rounds = all.rounds;
  }
  if (report.answer) {
    report.decision =
        decide(*report.answer, report.options.threshold, report.options.fail_if_slower);
  }
  for (ab_benchmark& b : report.benchmarks) {
    b.decision.reset();
    if (const auto& answer = b.pair.estimate.rounds)
      b.decision = decide(*answer, report.options.threshold, report.options.fail_if_slower);
  }
}

bool ab_gate_failed(const ab_report& report) {
  if (report.decision && report.decision->gate_failed) return true;
  return std::any_of(report.benchmarks.begin(), report.benchmarks.end(),
                     [](const ab_benchmark& b) { return b.decision && b.decision->gate_failed; });
}

std::string ab_headline(const ab_interval& interval) {
  const double change = (interval.ratio - 1) * 100;
  if (change > 0) return fmt::format("B is {}% slower than A", magnitude(change));
  if (change < 0) return fmt::format("B is {}% faster than A", magnitude(-change));
  return "B and A take the same time";
}

std::string ab_change_text(double ratio) {
  const double change = (ratio - 1) * 100;
  // (not "+" + magnitude(...): GCC 12's -Wrestrict misreads that with -O3, as in the mingw build)
  return fmt::format("{}{}%", change >= 0 ? "+" : "", magnitude(change));
}

// gbench: a block per benchmark, the unpaired ones, then what every invocation was.
void print_gbench_console(std::ostream& out, const ab_report& r) {
  fmt::print(out, "A: {} (--vs)\nB: {}\n", r.build_a, r.build_b);
  for (const ab_benchmark& b : r.benchmarks) {
    const ab_pair& p = b.pair;
    const ab_estimate& e = p.estimate;
    fmt::print(out, "{}\n", b.name);
    if (e.rounds) {
      fmt::print(out, "  {} {} (95%, median of {} rounds, each a new process of each)\n",
                 ab_headline(*e.rounds), bounds(*e.rounds), e.rounds->count);
    } else {
      fmt::print(out, "  not answered: {} rounds gave a ratio, and an interval needs 6\n",
                 p.rounds.size());
    }
    if (b.decision) {
      fmt::print(out, "  verdict: {}: {}\n", id_of(b.decision->verdict), b.decision->reason);
    }
    if (b.error) fmt::print(out, "  FAILED: {}\n", *b.error);
    if (e.floor_a && e.floor_b) {
      fmt::print(out, "  floors over the run: A {}, B {} per iteration",
                 duration_of(*e.floor_a, 1e9), duration_of(*e.floor_b, 1e9));
      if (const auto fr = e.floor_ratio()) fmt::print(out, ", B/A {:.5f}", *fr);
      fmt::print(out, "\n");
    }
    fmt::print(out, "  rounds: {} (ABBA order), {} repetition{} an invocation; stopped: {}",
               p.rounds.size(), p.samples_per_side, p.samples_per_side == 1 ? "" : "s",
               to_string(p.stopped_by));
    if (p.last_half_width) {
      fmt::print(out, " (half-width {:.3f}% at the last of {} checks, target {:.3f}%)",
                 *p.last_half_width * 100, p.checks, r.options.target * 100);
    }
    fmt::print(out, ", {:.2f} s\n", p.seconds);
  }
  for (const std::string& name : r.only_in_a)
    fmt::print(out, "{}\n  only in A: not compared\n", name);
  for (const std::string& name : r.only_in_b)
    fmt::print(out, "{}\n  only in B: not compared\n", name);
  std::string prepared;
  for (const preparation_report& p : r.preparations) {
    for (const auto& s : p.steps) {
      prepared += fmt::format("{}{}: {}", prepared.empty() ? "" : "; ", s.action,
                              s.applied ? "applied" : s.reason);
    }
  }
  fmt::print(out, "figures: {} (Google Benchmark's real_time per iteration, ns); {}{}{}\n", r.clock,
             r.plan, prepared.empty() ? "" : "; ", prepared);
  if (r.interrupted) fmt::print(out, "interrupted: the figures are what came before\n");
}

void print_ab_console(std::ostream& out, const ab_report& r) {
  if (r.mode == ab_mode::gbench) {
    print_gbench_console(out, r);
    return;
  }
  if (r.pairs.empty()) {
    fmt::print(out, "harness ab: no rounds were measured{}\n",
               r.interrupted ? " (interrupted)" : "");
    return;
  }
  const ab_pair& first = r.pairs.front();
  const double tps = r.ticks_per_second;
  fmt::print(out, "A: {}\nB: {}\n", side_name(first.a, r.mode), side_name(first.b, r.mode));
  if (r.answer) {
    fmt::print(out, "  {} {} (95%, {} {} {})\n", ab_headline(*r.answer), bounds(*r.answer),
               r.pairs.size() > 1 ? "over" : "median of", r.answer->count,
               r.pairs.size() > 1 ? "pairs of processes" : "round ratios");
  } else {
    fmt::print(out, "  not answered: {} rounds gave a ratio, and an interval needs 6\n",
               first.estimate.rounds ? first.estimate.rounds->count : 0);
  }
  if (r.decision) {
    fmt::print(out, "  verdict: {}: {}\n", id_of(r.decision->verdict), r.decision->reason);
  }
  for (std::size_t i = 0; i < r.pairs.size(); ++i) {
    const ab_pair& p = r.pairs[i];
    const ab_estimate& e = p.estimate;
    const std::string prefix = r.pairs.size() > 1 ? fmt::format("  pair {}: ", i + 1) : "  ";
    if (r.pairs.size() > 1 && e.rounds) {
      fmt::print(out, "{}{} {}\n", prefix, percent(e.rounds->ratio), bounds(*e.rounds));
    }
    if (e.floor_a && e.floor_b) {
      fmt::print(out, "{}floors over the run: A {:.0f} ticks ({}), B {:.0f} ticks ({}) per call",
                 prefix, *e.floor_a, duration_of(*e.floor_a, tps), *e.floor_b,
                 duration_of(*e.floor_b, tps));
      if (const auto fr = e.floor_ratio()) fmt::print(out, ", B/A {:.5f}", *fr);
      fmt::print(out, "\n");
    }
    fmt::print(out,
               "{}rounds: {} of {} sample{} a side in stretches of {} ({} order), batch {}; {} "
               "disturbed",
               prefix, p.rounds.size(), p.samples_per_side, p.samples_per_side == 1 ? "" : "s",
               p.samples_per_stretch, to_string(r.options.order), p.batch, e.disturbed);
    if (e.disturbed > 0) {
      if (e.undisturbed) {
        fmt::print(out, " (without them {} {})", percent(e.undisturbed->ratio),
                   bounds(*e.undisturbed));
      } else {
        fmt::print(out, " (too few left without them for an interval)");
      }
    }
    fmt::print(out, "\n");
    fmt::print(out, "{}stopped: {}", prefix, to_string(p.stopped_by));
    if (p.last_half_width) {
      fmt::print(out, " (half-width {:.3f}% at the last of {} checks, target {:.3f}%)",
                 *p.last_half_width * 100, p.checks, r.options.target * 100);
    }
    fmt::print(out, ", {:.2f} s of rounds after a {:.2f} s warmup ({} rounds)\n", p.seconds,
               p.warmup_seconds, p.warmup_rounds);
  }
  if (r.pairs.size() > 1) {
    fmt::print(out,
               "  the interval is over the {} pairs of processes (Student's t on their ratios), "
               "joined with the pooled rounds': each process has its own pages and code layout\n",
               r.pair_ratios.size());
    if (r.between_pairs && r.pooled_rounds) {
      const double between = r.between_pairs->upper - r.between_pairs->lower;
      const double within = r.pooled_rounds->upper - r.pooled_rounds->lower;
      fmt::print(out,
                 "  its width comes from {}: between the pairs {} (Student's t), within them {} "
                 "(the {} pooled rounds)\n",
                 between >= within ? "the spread between processes"
                                   : "the spread of the rounds within each process",
                 bounds(*r.between_pairs), bounds(*r.pooled_rounds), r.pooled_rounds->count);
    }
  }
  if (r.mode == ab_mode::builds) {
    fmt::print(out, "  workers: {} of {} pairs, layout {} ({})\n", r.pairs.size(),
               r.pairs_requested, r.layout,
               r.layout == "duet" ? "the two sample each round at the same time on two CPUs"
                                  : "the two take turns on one CPU");
  }
  std::string prepared;
  for (const preparation_report& p : r.preparations) {
    for (const auto& s : p.steps) {
      prepared += fmt::format("{}{}: {}", prepared.empty() ? "" : "; ", s.action,
                              s.applied ? "applied" : s.reason);
    }
  }
  fmt::print(out, "  clock: {} ({:.0f} ticks/s); timer overhead A {} / B {} ticks subtracted{}{}\n",
             r.clock, tps, first.overhead_a, first.overhead_b, prepared.empty() ? "" : "; ",
             prepared);
  if (r.interrupted) fmt::print(out, "  interrupted: the figures are what came before\n");
}

void write_ab_json(std::ostream& out, const ab_report& report) {
  out << document(report).dump(2) << '\n';
}

void write_ab_csv(std::ostream& out, const ab_report& r) {
  out << "pair,round,a,b,a_first,a_min_ticks,b_min_ticks,ratio,disturbed,reference_ticks,"
         "context_switches\n";
  const auto quoted = [](const std::string& s) {
    std::string q = "\"";
    for (const char c : s) {
      if (c == '"') q += '"';
      q += c;
    }
    return q + "\"";
  };
  // gbench --vs times nothing itself: no reference loop, no context switches, so no disturbed
  // round; those cells stay empty rather than say 0.
  const bool watched = r.mode != ab_mode::gbench;
  const auto rows = [&](std::size_t i, const ab_pair& p) {
    for (std::size_t k = 0; k < p.rounds.size(); ++k) {
      const ab_round& round = p.rounds[k];
      fmt::print(out, "{},{},{},{},{},{},{},{},{},{},{}\n", i + 1, k + 1, quoted(p.a.workload),
                 quoted(p.b.workload), round.a_first ? 1 : 0, round.a_min, round.b_min,
                 round.a_min > 0 ? fmt::format("{}", round.ratio()) : "",
                 watched ? fmt::format("{}", round.disturbed ? 1 : 0) : "",
                 watched ? fmt::format("{}", round.reference) : "",
                 watched ? fmt::format("{}", round.switches) : "");
    }
  };
  for (std::size_t i = 0; i < r.pairs.size(); ++i)
    rows(i, r.pairs[i]);
  // gbench: each benchmark's one pair of binaries, its name in a and b.
  for (const ab_benchmark& b : r.benchmarks)
    rows(0, b.pair);
}

void write_ab_markdown(std::ostream& out, const ab_report& r) {
  out << "| A | B | B/A | change | 95% interval | verdict | rounds | disturbed |\n"
         "|---|---|---:|---:|---|---|---:|---:|\n";
  const auto cell = [](const std::string& s) {
    std::string escaped;
    for (const char c : s) {
      if (c == '|') escaped += '\\';
      escaped += c;
    }
    return escaped;
  };
  for (const ab_benchmark& b : r.benchmarks) {
    const std::optional<ab_interval>& answer = b.pair.estimate.rounds;
    fmt::print(out, "| {} | {} | {} | {} | {} | {} | {} | {} |\n",
               cell(side_name(b.pair.a, r.mode)), cell(side_name(b.pair.b, r.mode)),
               answer ? fmt::format("{:.5f}", answer->ratio) : "n/a",
               answer ? percent(answer->ratio) : "n/a", answer ? bounds(*answer) : "n/a",
               b.error      ? "failed"
               : b.decision ? id_of(b.decision->verdict)
                            : "n/a",
               b.pair.rounds.size(), "n/a");  // gbench --vs watches no disturbance
  }
  if (r.pairs.empty()) return;
  const ab_pair& first = r.pairs.front();
  fmt::print(out, "| {} | {} | {} | {} | {} | {} | {} | {} |\n", cell(side_name(first.a, r.mode)),
             cell(side_name(first.b, r.mode)),
             r.answer ? fmt::format("{:.5f}", r.answer->ratio) : "n/a",
             r.answer ? percent(r.answer->ratio) : "n/a", r.answer ? bounds(*r.answer) : "n/a",
             r.decision ? id_of(r.decision->verdict) : "n/a", total_rounds(r), total_disturbed(r));
}

void write_ab_html(std::ostream& out, const ab_report& report) {
  std::string title = "harness ab";
  if (!report.pairs.empty()) {
    title += fmt::format(": {} against {}", side_name(report.pairs.front().a, report.mode),
                         side_name(report.pairs.front().b, report.mode));
  }
  out << html::page(html::page_kind::ab, title, html::ab_page_data(document(report)));
}

void write_ab_report(std::ostream& out, const ab_report& report, report_format format) {
  switch (format) {
    case report_format::console:
      print_ab_console(out, report);
      return;
    case report_format::json:
      write_ab_json(out, report);
      return;
    case report_format::csv:
      write_ab_csv(out, report);
      return;
    case report_format::markdown:
      write_ab_markdown(out, report);
      return;
    case report_format::html:
      write_ab_html(out, report);
      return;
  }
}

format_template parse_ab_line_template(std::string_view text) {
  return format_template(text, ab_line_tokens);
}

namespace {

// One line: `first` the first pair of the comparison (nullptr: none), its answer and verdict.
void render_ab_line(std::ostream& out, const format_template& line, const ab_pair* first,
                    const std::optional<ab_interval>& answer,
                    const std::optional<ab_decision>& decision, std::size_t rounds,
                    std::size_t disturbed, std::size_t pairs, const std::string& clock) {
  std::array<template_value, ab_line_slot::count> values{};
  if (first) {
    values[ab_line_slot::a] = std::string_view(first->a.workload);
    values[ab_line_slot::b] = std::string_view(first->b.workload);
    values[ab_line_slot::floor_ratio] = first->estimate.floor_ratio();
  }
  if (answer) {
    values[ab_line_slot::ratio] = answer->ratio;
    values[ab_line_slot::lower] = answer->lower;
    values[ab_line_slot::upper] = answer->upper;
    values[ab_line_slot::change] = answer->ratio - 1;
    values[ab_line_slot::change_lower] = answer->lower - 1;
    values[ab_line_slot::change_upper] = answer->upper - 1;
  }
  if (decision) values[ab_line_slot::verdict] = id_of(decision->verdict);
  values[ab_line_slot::rounds] = rounds;
  values[ab_line_slot::disturbed] = disturbed;
  values[ab_line_slot::pairs] = pairs;
  values[ab_line_slot::clock] = std::string_view(clock);
  out << line.render(values) << '\n';
}

}  // namespace

void print_ab_line(std::ostream& out, const ab_report& r, const format_template& line) {
  if (r.mode == ab_mode::gbench) {
    // A line per benchmark: its one pair, its answer and verdict.
    for (const ab_benchmark& b : r.benchmarks) {
      render_ab_line(out, line, &b.pair, b.pair.estimate.rounds, b.decision, b.pair.rounds.size(),
                     b.pair.estimate.disturbed, 1, r.clock);
    }
    return;
  }
  render_ab_line(out, line, r.pairs.empty() ? nullptr : &r.pairs.front(), r.answer, r.decision,
                 total_rounds(r), total_disturbed(r), r.pairs.size(), r.clock);
}

}  // namespace harness
