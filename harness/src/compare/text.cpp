// `harness compare` for people: what is compared and how, one row per workload (the shared table
// renderer) including those not compared and those found on one side only, the reasons and notes,
// the host check, and the gate's finding.
#include <fmt/format.h>
#include <fmt/ostream.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <ostream>
#include <sstream>
#include <string_view>

#include "base/numbers.hpp"
#include "compare/figures.hpp"
#include "harness/compare.hpp"
#include "harness/format_template.hpp"
#include "report/table.hpp"

namespace harness::compare {

using detail::figure;

void write_text(std::ostream& to, const comparison& c, const std::vector<run_file>& a,
                const std::vector<run_file>& b, const gate_result& gate, int exit_code,
                std::size_t width) {
  // The lines before the table, then those after it, wrapped at `width` as the run's report: a
  // longer one goes on under its label. The table's rows are never broken.
  std::ostringstream out;
  const auto flush = [&] {
    to << report_detail::wrap_lines(out.str(), width);
    out.str("");
  };
  const auto described = [](const std::vector<run_file>& runs) {
    std::vector<std::string> parts;
    for (const run_file& run : runs)
      parts.push_back(run.date.empty() ? run.source : fmt::format("{} ({})", run.source, run.date));
    return fmt::format("{}", fmt::join(parts, ", "));
  };
  fmt::print(out, "A: {}\nB: {}\n", described(a), described(b));
  const bool external = !a.front().sample_source.empty();
  if (c.same_clock && external) {
    // harness gbench: the binary's own figures, nothing subtracted.
    fmt::print(out, "figures: ticks of {} per call, prepared phases: {}\n", a.front().clock,
               a.front().sample_source);
  } else if (c.same_clock) {
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
  const bool any_shift = std::any_of(
      c.workloads.begin(), c.workloads.end(),
      [](const workload_comparison& w) { return w.decided_by == estimator::median_shift; });
  if (any_shift) {
    fmt::print(out,
               "  where a side confirmed no floor: the median shift of all its reports' samples "
               "(Hodges-Lehmann over the logarithms, B/A with Mann-Whitney's 95% interval); the "
               "row says \"by medians\"\n");
  }

  // The name and the verdict read left to right; figures line up on the right.
  using report_detail::align;
  report_detail::text_table table{{{"workload", align::left},
                                   {"A min", align::right},
                                   {"B min", align::right},
                                   {"B/A", align::right},
                                   {"change", align::right},
                                   {"verdict", align::left}},
                                  {}};
  for (const auto& w : c.workloads) {
    const bool integral = w.whole_ticks;
    table.rows.push_back({w.name, w.a.min ? figure(*w.a.min, integral) : "-",
                          w.b.min ? figure(*w.b.min, integral) : "-",
                          w.ratio ? fixed_text(*w.ratio, 4) : "-",
                          w.ratio ? signed_change_percent_text((*w.ratio - 1) * 100) : "-",
                          w.decided_by == estimator::median_shift
                              ? fmt::format("{} (by medians)", to_string(w.result))
                              : std::string(to_string(w.result))});
  }
  for (const auto& w : c.not_compared)
    table.rows.push_back({w.name, "-", "-", "-", "-", std::string(to_string(outcome::undefined))});
  for (const auto& name : c.only_in_a)
    table.rows.push_back({name, "-", "-", "-", "-", "only in A"});
  for (const auto& name : c.only_in_b)
    table.rows.push_back({name, "-", "-", "-", "-", "only in B"});
  flush();
  for (const std::string& line : report_detail::render_text(table).lines)
    fmt::print(to, "{}\n", line);
  const auto spread = [](std::string_view side, const side_result& s, bool integral) {
    if (s.reports < 2 || !s.lowest_min || !s.highest_min) return std::string();
    return fmt::format(
        "; {}'s minimums over {} reports: {} to {}{}", side, s.reports,
        figure(*s.lowest_min, integral), figure(*s.highest_min, integral),
        *s.lowest_min > 0
            ? fmt::format(" ({} apart)", percent_text(*s.highest_min / *s.lowest_min - 1, 2))
            : std::string());
  };
  // Throughput at each side's min, when every report declares the same amount per call.
  const auto rates = [](const std::optional<double>& ra, const std::optional<double>& rb,
                        human_style style) {
    if (!ra || !rb) return std::string();
    return fmt::format("; at the minimum A {}, B {} (B/A {})", human_text(*ra, style),
                       human_text(*rb, style), fixed_text(*rb / *ra, 4));
  };
  for (const auto& w : c.workloads) {
    fmt::print(
        out, "  {}: {}{}{}{}{}\n", w.name, w.reason, spread("A", w.a, w.whole_ticks),
        spread("B", w.b, w.whole_ticks),
        rates(w.rates.a_items_per_second, w.rates.b_items_per_second, human_style::item_rate),
        rates(w.rates.a_bytes_per_second, w.rates.b_bytes_per_second, human_style::byte_rate));
    for (const auto* notes : {&w.a.notes, &w.b.notes}) {
      for (const auto& note : *notes)
        fmt::print(out, "    note: {}\n", note);
    }
  }
  for (const auto& w : c.not_compared)
    fmt::print(out, "  {}: {}\n", w.name, w.reason);

  if (!several && !c.workloads.empty()) {
    fmt::print(out,
               "  note: one report per side, so the run-to-run variation (code and data "
               "placement, address space randomisation) is not in the floors; two runs of one "
               "build can differ by more than either's interval: give several reports per side "
               "(-a A1.json -a A2.json ... -b B1.json ...)\n");
  }
  if (c.a_reference && c.b_reference) {
    const double ratio = *c.b_reference / *c.a_reference;
    fmt::print(out, "host: fastest reference loop A {}, B {} {} (B/A {})",
               figure(*c.a_reference, c.same_clock), figure(*c.b_reference, c.same_clock),
               c.same_clock ? "ticks" : "ns", fixed_text(ratio, 3));
    if (c.host_speed_differs) {
      fmt::print(out,
                 ": the CPU ran {} more than {} slower, a slowed host or a lower clock for "
                 "that whole side, so the figures do not compare directly; repeat the runs\n",
                 ratio > 1 ? "B" : "A", factor_text(c.slowdown_factor));
    } else {
      fmt::print(out, ": both sides saw the same CPU speed within {}\n",
                 factor_text(c.slowdown_factor));
    }
  } else {
    fmt::print(out, "host: a side without reference-loop runs: the CPU speed was not compared\n");
  }
  if (c.workloads.empty()) fmt::print(out, "no workload was sampled on both sides\n");
  // What a comparison of separate runs cannot cancel, and where that is done.
  fmt::print(out,
             "unpaired: A and B were measured in separate runs, so the host's drift between them "
             "(0.2-0.4% on a quiet host of this VM kind, tens of percent on a busy one) is part of "
             "every difference here; `harness ab A B` (or --a BIN --b BIN for two builds) measures "
             "them in paired rounds, which cancels it\n");

  const std::string threshold = percent_significant_text(gate.threshold, 6);
  if (gate.slower.empty() && !gate.not_compared.empty()) {
    fmt::print(out,
               "gate: no workload B slower beyond the threshold {}, but {} not compared ({}), so "
               "nothing is known of {}: exit {}{}\n",
               threshold,
               gate.not_compared.size() == 1
                   ? "1 workload"
                   : fmt::format("{} workloads", gate.not_compared.size()),
               fmt::join(gate.not_compared, ", "), gate.not_compared.size() == 1 ? "it" : "them",
               exit_code, exit_code == 0 ? " (--allow-not-compared)" : "");
  } else if (gate.slower.empty()) {
    fmt::print(out, "gate: no workload B slower beyond the threshold {}: exit {}\n", threshold,
               exit_code);
  } else {
    fmt::print(
        out, "gate: B slower beyond the threshold {} in {} ({}): exit {}{}\n", threshold,
        gate.slower.size() == 1 ? "1 workload" : fmt::format("{} workloads", gate.slower.size()),
        fmt::join(gate.slower, ", "), exit_code,
        c.host_speed_differs ? "; but the host's speed differed between the sides (above), "
                               "so the host may have made B slower, not the build: repeat "
                               "the runs"
                             : "");
  }
  flush();
}

}  // namespace harness::compare
