// `harness history`'s report (history_report.hpp): the saved runs grouped by workload and machine,
// the regressions found, in every format. Formats only: every figure is the store's or the rule's.
#include "harness/history_report.hpp"

#include <fmt/format.h>

#include <chrono>
#include <map>
#include <nlohmann/json.hpp>
#include <ostream>
#include <set>
#include <utility>

#include "base/numbers.hpp"
#include "harness/duration.hpp"
#include "harness/history.hpp"
#include "report/format_writers.hpp"
#include "report/html.hpp"
#include "report/json_document.hpp"
#include "report/table.hpp"

namespace harness {

namespace {

using json = nlohmann::ordered_json;
using report_detail::align;
using report_detail::csv_field;
using report_detail::number_or_null;
using report_detail::text_table;

// The document's own schema: a change that drops or renames a field raises it.
constexpr int kHistorySchemaVersion = 1;

std::string time_text(const std::optional<double>& seconds) {
  if (!seconds) return "-";
  return format_seconds(*seconds, {.digits = 4});
}

std::string interval_text(const history_run& r) {
  if (!r.floor_lower || !r.floor_upper) return "-";
  return fmt::format("[{}, {}]", time_text(r.floor_lower), time_text(r.floor_upper));
}

std::string short_commit(const std::string& commit) {
  return commit.size() > 12 ? commit.substr(0, 12) : commit;
}

std::string change_text(double change) {
  return fmt::format("{}{}%", change >= 0 ? "+" : "", change_percent_text(change * 100));
}

// The runs of each (workload, series), in the order saved, keyed in name order.
using groups = std::map<std::pair<std::string, std::string>, std::vector<const history_run*>>;
groups group_runs(const history_report& report) {
  groups g;
  for (const history_run& r : report.runs)
    g[{r.workload, series_of(r)}].push_back(&r);
  return g;
}

text_table runs_table(const std::vector<const history_run*>& runs) {
  text_table t;
  t.columns = {{"saved (UTC)", align::left, 0},   {"commit", align::left, 0},
               {"branch", align::left, 2},        {"floor", align::right, 0},
               {"95% interval", align::right, 3}, {"confirmed", align::left, 1},
               {"median", align::right, 2},       {"samples", align::right, 4}};
  for (const history_run* r : runs) {
    t.rows.push_back({utc_text(r->saved_at), r->commit.empty() ? "-" : short_commit(r->commit),
                      r->branch.empty() ? "-" : r->branch, time_text(r->floor_seconds),
                      interval_text(*r), r->confirmed ? "yes" : "no", time_text(r->median_seconds),
                      std::to_string(r->samples)});
  }
  return t;
}

std::string finding_text(const regressions::finding& f) {
  return fmt::format(
      "{} on {}: {} {} from {} to {}; floor {} -> {} (geometric means of {} runs before, {} "
      "after); noise {} (sd of the log floors), p {}",
      f.workload, f.machine, change_text(f.change), to_string(f.dir), short_commit(f.commit_before),
      short_commit(f.commit_after), time_text(f.floor_before), time_text(f.floor_after),
      f.runs_before, f.runs_after, percent_text(f.noise, 2), significant_text(f.p_value, 2));
}

std::string rule_text(const regressions::settings& s) {
  return fmt::format(
      "a move of more than {} with p < {}, up to {} commits each side, per machine and CPU",
      percent_text(s.threshold, 2), significant_text(s.significance, 3), s.window);
}

void write_console(std::ostream& out, const history_report& report, const console_style& style) {
  const groups g = group_runs(report);
  std::set<std::string> machines;
  for (const history_run& r : report.runs)
    machines.insert(r.machine);
  out << fmt::format("history: {} run{} of {} series on {} machine{}, from {}\n",
                     report.runs.size(), report.runs.size() == 1 ? "" : "s", g.size(),
                     machines.size(), machines.size() == 1 ? "" : "s", report.query.store);
  if (report.runs.empty()) out << "  no saved run matches what was asked\n";
  for (const auto& [key, runs] : g) {
    out << fmt::format("\n{} on {}, clock {}\n", key.first, series_of(*runs.front()),
                       runs.front()->clock);
    for (const std::string& line : render_text(runs_table(runs), style.width).lines)
      out << line << '\n';
  }
  if (!report.regression_settings) return;
  std::size_t slower = 0;
  for (const auto& f : report.findings)
    slower += f.dir == regressions::direction::slower ? 1 : 0;
  out << fmt::format("\nregressions ({}): {} slower, {} faster\n",
                     rule_text(*report.regression_settings), slower,
                     report.findings.size() - slower);
  for (const auto& f : report.findings)
    out << "  " << finding_text(f) << '\n';
}

json finding_json(const regressions::finding& f) {
  return {{"workload", f.workload},
          {"machine", f.machine},
          {"direction", id_of(f.dir)},
          {"commit_before", f.commit_before},
          {"commit_after", f.commit_after},
          {"change", f.change},
          {"floor_before_seconds", f.floor_before},
          {"floor_after_seconds", f.floor_after},
          {"commits_before", f.commits_before},
          {"commits_after", f.commits_after},
          {"runs_before", f.runs_before},
          {"runs_after", f.runs_after},
          {"noise", f.noise},
          {"t", f.t},
          {"dof", f.dof},
          {"p_value", f.p_value}};
}

json document(const history_report& report) {
  json runs = json::array();
  for (const history_run& r : report.runs) {
    runs.push_back({{"run", r.run},
                    {"saved_at", utc_text(r.saved_at)},
                    {"saved_at_seconds", r.saved_at},
                    {"machine", r.machine},
                    {"floor_cpu", r.floor_cpu ? json(*r.floor_cpu) : json(nullptr)},
                    {"series", series_of(r)},
                    {"host", r.host},
                    {"cpu", r.cpu},
                    {"commit", r.commit},
                    {"branch", r.branch},
                    {"workload", r.workload},
                    {"clock", r.clock},
                    {"floor_seconds", number_or_null(r.floor_seconds)},
                    {"floor_lower_seconds", number_or_null(r.floor_lower)},
                    {"floor_upper_seconds", number_or_null(r.floor_upper)},
                    {"confirmed", r.confirmed},
                    {"unconfirmed", r.unconfirmed},
                    {"median_seconds", number_or_null(r.median_seconds)},
                    {"samples", r.samples}});
  }
  const history_query& q = report.query;
  json doc = {{"history_schema_version", kHistorySchemaVersion},
              {"store", q.store},
              {"query",
               {{"workload", q.workload},
                {"machine", q.machine},
                {"branch", q.branch},
                {"since", q.since ? json(utc_text(*q.since)) : json(nullptr)}}},
              {"runs", std::move(runs)},
              {"regressions", nullptr}};
  if (const auto& s = report.regression_settings) {
    json findings = json::array();
    for (const auto& f : report.findings)
      findings.push_back(finding_json(f));
    doc["regressions"] = {{"threshold", s->threshold},
                          {"significance", s->significance},
                          {"window", s->window},
                          {"min_runs_before", s->min_runs_before},
                          {"slower", regressions::any_slower(report.findings)},
                          {"findings", std::move(findings)}};
  }
  return doc;
}

void write_json(std::ostream& out, const history_report& report) {
  out << document(report).dump(2) << '\n';
}

std::string csv_number(const std::optional<double>& v) {
  return v ? fmt::format("{}", *v) : std::string();
}

void write_csv(std::ostream& out, const history_report& report) {
  out << "saved_at,run,machine,host,cpu,commit,branch,workload,clock,floor_seconds,"
         "floor_lower_seconds,floor_upper_seconds,confirmed,unconfirmed,median_seconds,samples,"
         "floor_cpu\n";
  for (const history_run& r : report.runs) {
    out << fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", utc_text(r.saved_at),
                       csv_field(r.run), csv_field(r.machine), csv_field(r.host), csv_field(r.cpu),
                       csv_field(r.commit), csv_field(r.branch), csv_field(r.workload),
                       csv_field(r.clock), csv_number(r.floor_seconds), csv_number(r.floor_lower),
                       csv_number(r.floor_upper), r.confirmed ? "true" : "false",
                       csv_field(r.unconfirmed), csv_number(r.median_seconds), r.samples,
                       r.floor_cpu ? std::to_string(*r.floor_cpu) : std::string());
  }
}

void write_markdown(std::ostream& out, const history_report& report) {
  out << fmt::format("# harness history\n\n{} saved runs from `{}`.\n", report.runs.size(),
                     report_detail::markdown_escape(report.query.store));
  for (const auto& [key, runs] : group_runs(report)) {
    out << fmt::format("\n## {} on {}\n\n", report_detail::markdown_escape(key.first),
                       report_detail::markdown_escape(series_of(*runs.front())));
    out << report_detail::render_markdown(runs_table(runs));
  }
  if (!report.regression_settings) return;
  out << fmt::format("\n## Regressions\n\n{}.\n\n",
                     report_detail::markdown_escape(rule_text(*report.regression_settings)));
  if (report.findings.empty()) out << "None found.\n";
  for (const auto& f : report.findings)
    out << "- " << report_detail::markdown_escape(finding_text(f)) << '\n';
}

void write_html(std::ostream& out, const history_report& report) {
  out << html::page(html::page_kind::history, "harness history", document(report));
}

constexpr report_detail::format_writers<history_report> kWriters{
    .console = write_console,
    .json = write_json,
    .csv = write_csv,
    .markdown = write_markdown,
    .html = write_html,
};

}  // namespace

std::string series_of(const history_run& run) {
  std::optional<int> cpu;
  if (run.floor_cpu) cpu = static_cast<int>(*run.floor_cpu);
  return floor_key(run.machine, cpu);
}

std::vector<regressions::saved_floor> floors_of(const std::vector<history_run>& runs) {
  std::vector<regressions::saved_floor> floors;
  for (const history_run& r : runs) {
    if (!r.floor_seconds || !(*r.floor_seconds > 0)) continue;
    floors.push_back({.machine = series_of(r),
                      .workload = r.workload,
                      .commit = r.commit.empty() ? "run " + r.run : r.commit,
                      .saved_at = r.saved_at,
                      .floor_seconds = *r.floor_seconds,
                      .confirmed = r.confirmed});
  }
  return floors;
}

std::string utc_text(std::int64_t seconds) {
  using namespace std::chrono;
  const sys_seconds at{std::chrono::seconds{seconds}};
  const sys_days day = floor<days>(at);
  const year_month_day date{day};
  const hh_mm_ss time{at - day};
  return fmt::format("{:04}-{:02}-{:02} {:02}:{:02}:{:02}", static_cast<int>(date.year()),
                     static_cast<unsigned>(date.month()), static_cast<unsigned>(date.day()),
                     time.hours().count(), time.minutes().count(), time.seconds().count());
}

void write_history_report(std::ostream& out, const history_report& report, report_format format,
                          const console_style& style) {
  kWriters.write(out, report, format, style);
}

}  // namespace harness
