// The console report without --detail: about ten lines a workload, the answer first. Per workload:
// the prepared minimum and median per call in ticks and time with their intervals, per iteration
// and throughput where declared, the baseline's, the min/max/spread of both phases (as the
// Stopwatch article shows them), the cold first call, one trust line (ok, or what was wrong and
// the one command to run next), and one line on what preparation changed. With several workloads,
// a summary table of 100 columns. Everything else (every sample, both statistics blocks, the
// clock's reasons, the block minimums, the preparation's steps) is in --detail.
#include <fmt/format.h>
#include <fmt/ostream.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <ostream>
#include <string>
#include <vector>

#include "base/numbers.hpp"
#include "harness/format_template.hpp"
#include "harness/report.hpp"
#include "report/counters.hpp"
#include "report/summary.hpp"
#include "report/table.hpp"

namespace harness::report_detail {

namespace {

std::string colored(std::string_view text, const char* ansi, const console_style& style) {
  return style.color ? fmt::format("\033[{}m{}\033[0m", ansi, text) : std::string(text);
}

std::string duration(double ticks, const clock_source& clock, bool unicode) {
  return time_text(ticks / clock.ticks_per_second(), unicode);
}

// "651350 ticks (250.519 µs) [650590, 651350]": a figure per call with its interval.
std::string figure(const std::optional<double>& v, const std::optional<stats::estimate>& ci,
                   std::uint64_t batch, const clock_source& clock, bool unicode, bool with_unit) {
  if (!v) return "-";
  std::string text = fmt::format("{}{} ({})", ticks_text(*v, batch), with_unit ? " ticks" : "",
                                 duration(*v, clock, unicode));
  if (ci)
    text += fmt::format(" [{}, {}]", ticks_text(ci->lower, batch), ticks_text(ci->upper, batch));
  return text;
}

// "pinned to CPU 1, nice -20" from the steps applied; what was refused, with its reason; the pin's
// check after the pin ("pinned to CPU 1 (held: 0 cpu-migrations)").
std::string steps_text(const preparation_report& p, const std::string& pin) {
  std::vector<std::string> parts;
  for (const platform::step_result& s : p.steps) {
    std::string action = s.action.substr(0, s.action.find(" ("));
    if (action.rfind("pin to ", 0) == 0) {
      action = "pinned to " + action.substr(7);
      if (s.applied && !pin.empty()) action += fmt::format(" ({})", pin);
    }
    parts.push_back(s.applied ? action : fmt::format("{} refused ({})", action, s.reason));
  }
  return parts.empty() ? "nothing applied" : fmt::format("{}", fmt::join(parts, ", "));
}

// "the floor 7.8% lower (confirmed) and the median 8.2% lower than unprepared, the tail shorter
// (...)": the measured changes preparation_sentence (summary.cpp) states, in fewer words.
std::string change_text(const workload_analysis& w) {
  if (!w.change) return {};
  const preparation_change& c = *w.change;
  if (!c.floor_changed() && !c.median_changed() && !c.tail_changed()) {
    return fmt::format("nothing measurable: floor and median within {} of unprepared",
                       percent_text(c.tolerance, 2));
  }
  const auto moved = [](double change, bool changed, std::string_view what) {
    if (!changed) return fmt::format("the {} no different", what);
    return fmt::format("the {} {} {}", what, percent_text(std::abs(change), 1),
                       change < 0 ? "lower" : "higher");
  };
  std::string text = fmt::format("{}{} and {} than unprepared",
                                 moved(c.floor_change(), c.floor_changed(), "floor"),
                                 c.prepared_floor_confirmed ? "" : " (not confirmed)",
                                 moved(c.median_change(), c.median_changed(), "median"));
  if (c.tail_changed() && c.baseline_tail && c.prepared_tail) {
    text += fmt::format(", the tail {} (p90 {} above the floor, against {})",
                        *c.prepared_tail < *c.baseline_tail ? "shorter" : "longer",
                        percent_text(*c.prepared_tail, 1), percent_text(*c.baseline_tail, 1));
  }
  if (const auto cpus = phases_on_other_cpus(w))
    text +=
        fmt::format(" (unprepared on CPU {}, prepared on CPU {})", cpus->baseline, cpus->prepared);
  return text;
}

// `text` after a label column of 13, wrapped at spaces to lines of at most `width` columns, each
// continued at column 15.
void print_wrapped(std::ostream& out, std::size_t width, std::string_view label,
                   std::string_view text) {
  out << wrap_lines(fmt::format("  {:<11} {}", label, text), width, 14) << '\n';
}

// "0.2637 ns per iteration at the min, 0.2756 ns at the median; 26.80 M items/s at the min ...".
std::string rates_text(const phase_rates& rates, bool unicode) {
  std::vector<std::string> parts;
  if (const auto& r = rates.seconds_per_iteration) {
    parts.push_back(fmt::format("{} per iteration at the min, {} at the median",
                                time_text(r->at_min, unicode), time_text(r->at_median, unicode)));
  }
  for (const auto& [figure, style] :
       {std::pair{&rates.items_per_second, harness::human_style::item_rate},
        std::pair{&rates.bytes_per_second, harness::human_style::byte_rate}}) {
    if (*figure) {
      parts.push_back(fmt::format("{} at the min, {} at the median",
                                  human_text((*figure)->at_min, style),
                                  human_text((*figure)->at_median, style)));
    }
  }
  return fmt::format("{}", fmt::join(parts, "; "));
}

// Segments after the label column, each whole: on one line while they fit in `width` columns,
// else one segment a line.
void print_segments(std::ostream& out, std::size_t width, std::string_view label,
                    const std::vector<std::string>& segments) {
  std::string line = fmt::format("  {:<11} ", label);
  const std::string indent(14, ' ');
  for (std::size_t i = 0; i < segments.size(); ++i) {
    if (i > 0 && display_width(line) + 3 + display_width(segments[i]) > width) {
      out << line << '\n';
      line = indent + segments[i];
    } else {
      line += (i > 0 ? "   " : "") + segments[i];
    }
  }
  out << line << '\n';
}

void print_phase(std::ostream& out, std::string_view label, const phase_analysis& a,
                 const clock_source& clock, const console_style& style) {
  const phase_result& p = *a.phase;
  const stats::phase_statistics& s = a.all;
  print_segments(out, console_width(style), label,
                 {"min " + figure(s.min, s.min_ci, p.batch, clock, style.unicode, true),
                  "median " + figure(s.median, s.median_ci, p.batch, clock, style.unicode, false)});
  if (p.kind == phase_kind::prepared) {
    const std::string rates = rates_text(a.rates, style.unicode);
    if (!rates.empty()) print_wrapped(out, console_width(style), "", rates);
  }
}

}  // namespace

void print_short_console_report(std::ostream& out, const report_model& model,
                                const console_style& style) {
  const run_report& report = *model.run;
  const clock_source& clock = *report.clock.clock;
  fmt::print(out, "clock: {}, {} ticks/s (1 tick = {}){}; figures per call\n", clock.name(),
             fixed_text(clock.ticks_per_second(), 0),
             tick_text(clock.ticks_per_second(), style.unicode),
             report.clock.step_measured ? fmt::format(", step {} ticks", report.clock.step)
                                        : std::string(", no step seen"));
  if (report.source) fmt::print(out, "command: {}\n", report.source->command);
  if (const auto& d = report.context.doctor; d && d->warn > 0) {
    print_wrapped(out, console_width(style), "doctor",
                  fmt::format("{} warn on CPU {}: {}; `{} doctor` says why and how to fix it",
                              d->warn, d->cpu, fmt::join(d->warned, ", "), report.program));
  }

  for (const workload_analysis& w : model.workloads) {
    const workload_result& r = *w.result;
    fmt::print(out, "\n{}\n", r.name);
    if (const std::string problem = build_problem(r.build); !problem.empty()) {
      print_wrapped(out, console_width(style), "build",
                    fmt::format("{}: the file that registered it was compiled {}: not a release "
                                "build's times -> configure with -DCMAKE_BUILD_TYPE=Release",
                                colored("YOUR BUILD", "33", style), problem));
    }
    const phase_analysis* first = w.find(phase_kind::first);
    const phase_analysis* baseline = w.find(phase_kind::baseline);
    const phase_analysis* prepared = w.find(phase_kind::prepared);
    if (prepared != nullptr) print_phase(out, "prepared", *prepared, clock, style);
    if (baseline != nullptr) print_phase(out, "baseline", *baseline, clock, style);
    std::vector<std::string> spreads;
    for (const phase_analysis* a : {prepared, baseline}) {
      if (a == nullptr || !a->all.min) continue;
      spreads.push_back(fmt::format("{} {} to {} ({} of the min)", to_string(a->phase->kind),
                                    ticks_text(*a->all.min, a->phase->batch),
                                    ticks_text(*a->all.max, a->phase->batch),
                                    opt_percent(a->all.spread_percent)));
    }
    if (!spreads.empty()) print_segments(out, console_width(style), "spread", spreads);
    if (first != nullptr) {
      fmt::print(out, "  {:<11} {} ticks ({}), cold and alone{}\n", "first call",
                 ticks_text(first->phase->values[0], 1),
                 duration(first->phase->values[0], clock, style.unicode),
                 r.batch > 1 ? fmt::format("; {} calls per sample after it", r.batch) : "");
    }
    if (const std::string counters = short_counters_text(w, console_width(style) - 14);
        !counters.empty())
      print_wrapped(out, console_width(style), "counters", counters);
    if (r.instructions)
      print_wrapped(out, console_width(style), "valgrind", instructions_text(*r.instructions));
    const trust_note& t = w.trust;
    // Colour marks the verdict word only, so wrapping measures plain text.
    const std::size_t colon = t.text.find(':');
    const std::string head = t.text.substr(0, colon);
    print_wrapped(out, console_width(style), "trust",
                  (t.ok ? colored(head, "32", style) : colored(head, "33", style)) +
                      t.text.substr(colon == std::string::npos ? t.text.size() : colon));
    if (!t.next.empty()) fmt::print(out, "  {:<11} next: {}\n", "", t.next);
    const std::string change = change_text(w);
    const std::string pin = short_pin_text(w);
    if (!r.preparation.steps.empty() || !change.empty()) {
      print_wrapped(out, console_width(style), "preparation",
                    fmt::format("{}{}{}", steps_text(r.preparation, pin),
                                change.empty() ? "" : ": ", change));
    }
  }
  const auto detail_hint = [&] {
    fmt::print(
        out,
        "\n(figures per call, timer overhead subtracted; [a, b]: 95% intervals, the min's from\n"
        "Robson-Whitlock's endpoint, the median's by order statistics; --detail adds every\n"
        "sample, both phases' statistics, the clock's reasons, the blocks and the preparation's\n"
        "steps)\n");
  };
  if (model.workloads.size() < 2) {
    detail_hint();
    return;
  }
  // The summary of several workloads, in 100 columns: the figures a row needs to compare them.
  summary_table summary = summary_of(model, style.unicode);
  text_table compact;
  const std::vector<std::size_t> keep = {col::workload, col::phase,  col::samples,
                                         col::min,      col::median, col::spread_percent,
                                         col::min_time, col::floor};
  for (const std::size_t c : keep)
    compact.columns.push_back(summary.table.columns[c]);
  for (std::size_t i = 0; i < summary.table.rows.size(); ++i) {
    const auto& row = summary.table.rows[i];
    std::vector<std::string> cells;
    for (const std::size_t c : keep)
      cells.push_back(row[c]);
    // A failure's row says so where the floor would be.
    if (summary.rows[i] == nullptr) cells.back() = row[col::verdict];
    compact.rows.push_back(std::move(cells));
  }
  fmt::print(out, "\nsummary (ticks of {} per call)\n", clock.name());
  for (const std::string& line : render_text(compact, console_width(style)).lines)
    fmt::print(out, "{}\n", line);
  detail_hint();
}

}  // namespace harness::report_detail
