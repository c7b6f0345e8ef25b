// `harness clocks`: the survey of every clock source of this machine, as a table, as JSON, or as an
// HTML page drawing call cost and granularity on a log scale (--format html).
//
// For each source: call cost (ns per call and % of the cheapest, as in the WinSTL study's Table 4),
// declared beside measured resolution (its Table 5), smallest step, granularity (the smallest
// amount the value advances by) and the ticks between back-to-back reads, kind and rate.
// Unavailable sources are listed with their reason. The output ends with the TSC calibration and
// the default sampling clock with the reason it was chosen. Every figure comes from the estimators
// of harness/clock_survey.hpp; nothing is printed that was not measured on this run.
#include <fmt/format.h>
#include <fmt/ostream.h>
#include <CLI/CLI.hpp>

#include <memory>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

#include "base/numbers.hpp"
#include "cli.hpp"
#include "harness/clock.hpp"
#include "harness/clock_survey.hpp"
#include "harness/duration.hpp"
#include "harness/errors.hpp"
#include "report/html.hpp"
#include "report/json_document.hpp"

namespace harness::cli {

namespace {

// 3 significant digits in the largest unit that keeps the value at least 1.
std::string human_seconds(double seconds) {
  return format_seconds(
      seconds, {duration_format::digits_kind::significant, 3, true, micro_spelling::unicode});
}

std::optional<double> ticks_to_seconds(const clock_source& source,
                                       std::optional<std::uint64_t> ticks) {
  if (!ticks) return std::nullopt;
  return source.to_seconds(*ticks);
}

std::string resolution_cell(const clock_source& source, const resolution_estimate& r) {
  if (!r.ticks) return fmt::format("none in {}", human_seconds(r.searched_seconds));
  return human_seconds(source.to_seconds(*r.ticks));
}

std::string step_cell(const clock_source& source, const step_estimate& s) {
  if (!s.ticks) return fmt::format("none in {}", human_seconds(s.searched_seconds));
  return fmt::format("{} ({} t)", human_seconds(source.to_seconds(*s.ticks)), *s.ticks);
}

// The granularity in ticks may be fractional (20.96 ticks for a 10 ns quantum of a 2.096 GHz TSC).
std::string granularity_cell(const clock_source& source, const clock_granularity& g) {
  if (!g.granularity_ticks) return fmt::format("none in {}", human_seconds(g.searched_seconds));
  return fmt::format("{} ({} t)", human_seconds(*g.granularity_ticks / source.ticks_per_second()),
                     significant_text(*g.granularity_ticks, 4));
}

// Ticks between two back-to-back reads; "~" marks a timed cost (ns a call x ticks/s), the clock
// being too coarse to count one.
std::string read_cost_cell(const clock_granularity& g) {
  return fmt::format("{}{}", g.read_cost_counted ? "" : "~",
                     significant_text(g.read_cost_ticks, 3));
}

nlohmann::json optional_json(const std::optional<double>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

nlohmann::json row_json(const clock_survey_row& row) {
  const clock_source& source = *row.source;
  nlohmann::json j;
  j["name"] = source.name();
  j["description"] = source.description();
  j["kind"] = to_string(source.kind());
  j["monotonic"] = source.is_monotonic();
  j["reads_in_order"] = source.reads_in_order();
  j["available"] = source.available();
  j["unavailable_reason"] =
      source.available() ? nlohmann::json(nullptr) : nlohmann::json(source.unavailable_reason());
  j["ticks_per_second"] = source.ticks_per_second();
  j["declared_resolution_seconds"] = optional_json(source.declared_resolution());
  j["call_cost"] = nullptr;
  j["measured_resolution"] = nullptr;
  j["smallest_step"] = nullptr;
  j["granularity"] = nullptr;
  if (row.cost) {
    j["call_cost"] = {{"ns_per_call", row.cost->ns_per_call},
                      {"percent_of_cheapest", optional_json(row.percent_of_cheapest)},
                      {"pairs", row.cost->pairs},
                      {"bounded_by_time", row.cost->bounded_by_time},
                      {"pass_seconds", row.cost->seconds}};
  }
  if (row.resolution) {
    const auto& r = *row.resolution;
    j["measured_resolution"] = {
        {"ticks", r.ticks ? nlohmann::json(*r.ticks) : nlohmann::json(nullptr)},
        {"seconds", optional_json(ticks_to_seconds(source, r.ticks))},
        {"sweeps", r.sweeps},
        {"searched_seconds", r.searched_seconds}};
  }
  if (row.step) {
    const auto& s = *row.step;
    j["smallest_step"] = {{"ticks", s.ticks ? nlohmann::json(*s.ticks) : nlohmann::json(nullptr)},
                          {"seconds", optional_json(ticks_to_seconds(source, s.ticks))},
                          {"reads", s.reads},
                          {"changes", s.changes},
                          {"searched_seconds", s.searched_seconds}};
  }
  if (row.granularity && source.available()) {
    const auto& g = *row.granularity;
    j["granularity"] = {{"ticks", optional_json(g.granularity_ticks)},
                        {"seconds", g.granularity_ticks ? nlohmann::json(*g.granularity_ticks /
                                                                         source.ticks_per_second())
                                                        : nlohmann::json(nullptr)},
                        {"advances_every_tick", g.advances_every_tick},
                        {"read_cost_ticks", g.read_cost_ticks},
                        {"read_cost_counted", g.read_cost_counted},
                        {"reads", g.reads},
                        {"changes", g.changes},
                        {"sweeps", g.sweeps},
                        {"searched_seconds", g.searched_seconds}};
  }
  return j;
}

nlohmann::json survey_json(const std::vector<clock_survey_row>& rows,
                           const survey_settings& settings, const machine& host) {
  nlohmann::json doc;
  doc["clocks"] = nlohmann::json::array();
  for (const auto& row : rows)
    doc["clocks"].push_back(row_json(row));
  doc["tsc_calibration"] = report_detail::calibration_json<nlohmann::json>(host.calibration());
  doc["default_clock"] = {{"name", host.clock("").name()}, {"reason", host.default_clock_reason()}};
  doc["settings"] = {{"max_pairs", settings.max_pairs},
                     {"cost_pass_budget_seconds", settings.cost_pass_budget_seconds},
                     {"resolution_max_inner", settings.resolution_max_inner},
                     {"resolution_budget_seconds", settings.resolution_budget_seconds},
                     {"resolution_enough_intervals", settings.resolution_enough_intervals},
                     {"step_enough_reads", settings.step.enough_reads},
                     {"step_enough_changes", settings.step.enough_changes},
                     {"step_budget_seconds", settings.step.budget_seconds},
                     {"granularity_max_spin", settings.granularity.max_spin},
                     {"granularity_enough_changes", settings.granularity.enough_changes},
                     {"granularity_min_changes", settings.granularity.min_changes},
                     {"granularity_budget_seconds", settings.granularity.budget_seconds},
                     {"reference_clock", "steady_clock"}};
  return doc;
}

void print_table(std::ostream& out, const std::vector<clock_survey_row>& rows,
                 const survey_settings& settings, const machine& host) {
  fmt::print(
      out,
      "Clock sources: call cost over {} start/stop pairs (second of two passes; fewer for "
      "slow sources, as shown),\nmeasured resolution = smallest non-zero interval around "
      "0..{} loop iterations,\ngranularity = smallest amount the value advances by (its "
      "quantum; t = ticks), found from the differences\nbetween reads around spins of "
      "0..{} cycles: groups of them on multiples of one quantum, or every tick value,\n"
      "step = smallest advance of back-to-back reads: the smallest multiple of the quantum "
      "they showed often,\nrounded to a tick (differences under one quantum are the host's "
      "corrections of the clock), or for a clock\nwithout a quantum the smallest difference "
      "seen often (at least twice, and 1 time in {} of the commonest),\nt/read = mean ticks "
      "between back-to-back reads (~: timed, the clock moving too seldom to count them).\n\n",
      settings.max_pairs, settings.resolution_max_inner, settings.granularity.max_spin,
      kOftenShareOfCommonest);
  const auto line =
      "{:<31} {:>9} {:>8} {:>10} {:>13} {:>20} {:>20} {:>8} {:<11} {:>4} {:>16} {:>12}\n";
  fmt::print(out, fmt::runtime(line), "source", "ns/call", "% min", "declared", "measured res",
             "smallest step", "granularity", "t/read", "kind", "mono", "ticks/s", "pairs");
  std::vector<const clock_survey_row*> unavailable;
  for (const auto& row : rows) {
    const clock_source& source = *row.source;
    if (!source.available()) {
      unavailable.push_back(&row);
      continue;
    }
    const auto declared = source.declared_resolution();
    fmt::print(out, fmt::runtime(line), source.name(), fixed_text(row.cost->ns_per_call, 1),
               row.percent_of_cheapest ? fixed_text(*row.percent_of_cheapest, 0) + "%" : "-",
               declared ? human_seconds(*declared) : "-", resolution_cell(source, *row.resolution),
               step_cell(source, *row.step), granularity_cell(source, *row.granularity),
               read_cost_cell(*row.granularity), to_string(source.kind()),
               source.is_monotonic() ? "yes" : "no", frequency_text(source.ticks_per_second()),
               fmt::format("{}{}", row.cost->pairs, row.cost->bounded_by_time ? "*" : ""));
  }
  fmt::print(out,
             "(* pairs cut to fit {} per pass; each row's figures are from its own source, "
             "timed against steady_clock)\n",
             human_seconds(settings.cost_pass_budget_seconds));
  if (!unavailable.empty()) {
    fmt::print(out, "\nUnavailable here:\n");
    for (const auto* row : unavailable) {
      fmt::print(out, "  {:<31} {}\n", row->source->name(), row->source->unavailable_reason());
    }
  }
  if (const auto c = host.calibration()) {
    fmt::print(out,
               "\nTSC calibration: {} MHz against {}, error within {} ppm, {} rounds in {}{}\n",
               fixed_text(c->ticks_per_second / 1e6, 6), c->reference, fixed_text(c->error_ppm, 2),
               c->rounds, format_seconds(c->duration_seconds, kSpanFormat),
               c->converged ? "" : " (not converged in the time limit)");
  }
  fmt::print(out, "\nDefault sampling clock: {}\n  because {}\n", host.clock("").name(),
             host.default_clock_reason());
}

}  // namespace

void add_clocks_command(CLI::App& root, context& ctx) {
  struct clocks_flags {
    bool json = false;
    std::string format;
  };
  auto flags = std::make_shared<clocks_flags>();
  CLI::App* sub = root.add_subcommand("clocks",
                                      "Measure every clock source here: call cost, resolution, "
                                      "step, granularity; name the default");
  sub->add_flag("--json", flags->json, "Print the survey as JSON (the same as --format json)");
  sub->add_option("--format", flags->format,
                  "text (the default), json, or html (a page drawing call cost and granularity "
                  "on a log scale)");
  sub->callback([&ctx, flags] {
    if (!flags->format.empty() && flags->format != "text" && flags->format != "json" &&
        flags->format != "html") {
      throw usage_error(fmt::format(
          "--format: invalid value '{}': clocks writes text, json or html", flags->format));
    }
    if (flags->json && !flags->format.empty() && flags->format != "json") {
      throw usage_error(fmt::format(
          "--json and --format {} both say what to print: give one of them", flags->format));
    }
    const std::string format = flags->json             ? "json"
                               : flags->format.empty() ? "text"
                                                       : flags->format;
    ctx.action = [&ctx, format] {
      const survey_settings settings;
      ctx.host.clock("");  // build the registry and choose the default before measuring
      // Measured on one CPU: two back-to-back reads on different CPUs (the process migrated
      // between them) can differ by less than one quantum of either CPU's clock (a 1-tick "step"
      // of a TSC that advances in 21-tick quanta was seen here). Put back afterwards.
      const std::unique_ptr<platform::os_interface> os = ctx.host.os();
      const platform::cpu_list allowed = os->affinity();
      const bool pinned =
          !allowed.empty() && os->set_affinity(platform::cpu_list{allowed.front()}).applied;
      const auto rows = ctx.host.survey_clocks(settings);
      if (pinned) os->set_affinity(allowed);
      nlohmann::json doc = survey_json(rows, settings, ctx.host);
      doc["settings"]["pinned_cpu"] = pinned ? nlohmann::json(allowed.front()) : nullptr;
      if (format == "json") {
        ctx.out << doc.dump(2) << '\n';
      } else if (format == "html") {
        ctx.out << html::page(html::page_kind::clocks, "harness clocks",
                              nlohmann::ordered_json::parse(doc.dump()));
      } else {
        print_table(ctx.out, rows, settings, ctx.host);
        fmt::print(ctx.out, "{}\n",
                   pinned
                       ? fmt::format("(measured pinned to CPU {}, then unpinned)", allowed.front())
                       : std::string("(measured unpinned: pinning to one CPU was refused, so two "
                                     "reads may come from different CPUs)"));
      }
      return exit_ok;
    };
  });
}

}  // namespace harness::cli
