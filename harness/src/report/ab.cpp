// The report of `harness ab` (ab_report.hpp): the answer over the pairs, and its writers. Every
// figure comes from the rounds the sides measured; the writers only format it.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <ostream>

#include "base/numbers.hpp"
#include "harness/ab_report.hpp"
#include "harness/format_template.hpp"
#include "report/ab_writers.hpp"
#include "report/format_writers.hpp"

namespace harness {

namespace ab_detail {

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

double widest_resolution(const ab_report& r) {
  double widest = 0;
  for (const ab_pair& p : r.pairs)
    widest = std::max(widest, p.estimate.resolution);
  return widest;
}

std::string side_name(const ab_side_facts& s, ab_mode mode) {
  return mode != ab_mode::workloads ? fmt::format("{} of {}", s.workload, s.build) : s.workload;
}

}  // namespace ab_detail

using namespace ab_detail;

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
    // Widened by the clock's resolution of the pair where it is widest (each pair's own rounds
    // carry theirs; the pooled and the between-pairs intervals stay the ratios' alone).
    const double resolution = widest_resolution(report);
    if (report.answer && resolution >= 1) {
      report.answer.reset();  // as one pair's (estimate_rounds)
    } else if (report.answer && resolution > 0) {
      report.answer = widened_by_resolution(*report.answer, resolution);
    }
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
  if (change > 0) return fmt::format("B is {}% slower than A", change_percent_text(change));
  if (change < 0) return fmt::format("B is {}% faster than A", change_percent_text(-change));
  return "B and A take the same time";
}

std::string ab_change_text(double ratio) {
  return signed_change_percent_text((ratio - 1) * 100);
}

void write_ab_report(std::ostream& out, const ab_report& report, report_format format,
                     const console_style& style) {
  static constexpr report_detail::format_writers<ab_report> kWriters{
      // ab's console block is plain text: no colour, only the terminal's width.
      .console =
          [](std::ostream& o, const ab_report& r, const console_style& s) {
            print_ab_console(o, r, report_detail::console_width(s));
          },
      .json = write_ab_json,
      .csv = write_ab_csv,
      .markdown = write_ab_markdown,
      .html = write_ab_html,
  };
  kWriters.write(out, report, format, style);
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
    values[ab_line_slot::slow_a] = first->estimate.slow_a;
    values[ab_line_slot::slow_b] = first->estimate.slow_b;
    values[ab_line_slot::slow_reference] = first->estimate.slow_reference;
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
