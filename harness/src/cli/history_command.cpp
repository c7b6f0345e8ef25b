// `harness history WORKLOAD...`: the saved runs of workloads over commits, machine by machine,
// from the results store (store.hpp, docs/store.md), and with --regressions the commits after
// which a floor moved (regressions.hpp): exit 4 when one got slower, the gate CI wants.
//
// The store is only read: a store that does not exist is not made (exit 2, "nothing saved
// there yet"), and one that cannot be used is exit 2 with the store's reason; a store that fails
// while it is read is exit 1.
#include <fmt/format.h>
#include <fmt/ostream.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "cli.hpp"
#include "cli/output_file.hpp"
#include "cli/run_command.hpp"
#include "cli/run_flags.hpp"
#include "cli/store_options.hpp"
#include "harness/errors.hpp"
#include "harness/history_report.hpp"
#include "harness/regressions.hpp"
#include "harness/workload.hpp"

namespace harness::cli {

namespace {

struct history_flags {
  std::vector<std::string> workloads;
  store_flags store;  // only --db is taken; add_store_options is not used (no --save here)
  std::string machine;
  std::string branch;
  std::string since;
  bool regressions = false;
  std::string threshold = "1%";
  CLI::Option* threshold_option = nullptr;
  std::string format;
  std::string output;
};

// "2026-12-01" or "2026-12-01T18:00:00" (or with a space), UTC, as seconds since the epoch.
std::int64_t parse_since(const std::string& text) {
  int y = 0;
  unsigned mo = 0, d = 0, h = 0, mi = 0, s = 0;
  char sep = 0;
  char rest = 0;
  const int got = std::sscanf(text.c_str(), "%4d-%2u-%2u%c%2u:%2u:%2u%c", &y, &mo, &d, &sep, &h,
                              &mi, &s, &rest);
  const bool date_only = got == 3 && text.size() == 10;
  const bool full = got == 7 && (sep == 'T' || sep == ' ') && h < 24 && mi < 60 && s < 60;
  const std::chrono::year_month_day day{std::chrono::year{y}, std::chrono::month{mo},
                                        std::chrono::day{d}};
  if ((!date_only && !full) || !day.ok()) {
    throw usage_error(fmt::format(
        "--since: invalid value '{}': expected a UTC date, 2026-12-01, or a date and time, "
        "2026-12-01T18:00:00",
        text));
  }
  const auto midnight = std::chrono::sys_days{day}.time_since_epoch();
  return std::chrono::duration_cast<std::chrono::seconds>(midnight).count() +
         (full ? h * 3600 + mi * 60 + s : 0);
}

// The store's phase points as the report's runs: ticks turned into seconds with each run's rate.
std::vector<history_run> runs_of(const std::vector<store::phase_point>& points) {
  std::vector<history_run> runs;
  for (const store::phase_point& p : points) {
    history_run r;
    r.run = p.run.id;
    r.saved_at = p.run.saved_unix;
    r.machine = p.run.machine;
    r.host = p.run.identity.host;
    r.cpu = p.run.identity.cpu_model;
    r.commit = p.run.commit.value_or("");
    r.branch = p.run.branch.value_or("");
    r.workload = p.phase.workload;
    r.clock = p.run.clock;
    const double tps = p.run.ticks_per_second;
    const auto seconds = [tps](const std::optional<double>& ticks) -> std::optional<double> {
      if (!ticks || !(tps > 0)) return std::nullopt;
      return *ticks / tps;
    };
    r.floor_seconds = seconds(p.phase.floor_ticks ? p.phase.floor_ticks : p.phase.min_ticks);
    // The minimum's interval: the floor's, as the floor is the phase's minimum.
    if (p.phase.floor_lower && p.phase.floor_upper) {
      r.floor_lower = seconds(p.phase.floor_lower);
      r.floor_upper = seconds(p.phase.floor_upper);
    }
    r.confirmed = p.phase.floor_confirmed;
    r.unconfirmed = p.phase.floor_confirmed ? "" : p.phase.floor_findings;
    r.floor_cpu = p.phase.floor_cpu;
    r.median_seconds = seconds(p.phase.median_ticks);
    r.samples = static_cast<std::size_t>(p.phase.samples);
    runs.push_back(std::move(r));
  }
  return runs;
}

int history(const history_flags& flags, context& ctx) {
  if (flags.workloads.empty()) {
    throw usage_error(
        fmt::format("give the workloads whose saved runs to list, e.g. {} history xor_loop/1000000",
                    ctx.program));
  }
  if (flags.threshold_option->count() > 0 && !flags.regressions)
    throw usage_error("--threshold only means something with --regressions: add --regressions");
  history_report report;
  if (flags.regressions) {
    regressions::settings s;
    s.threshold = parse_percentage(flags.threshold, "--threshold", false,
                                   "a percentage above 0 with its percent sign, such as 1% (a "
                                   "smaller move of a floor is never a regression)");
    report.regression_settings = s;
  }
  store::run_filter filter;
  if (!flags.machine.empty()) filter.machine = flags.machine;
  if (!flags.branch.empty()) filter.branch = flags.branch;
  if (!flags.since.empty()) filter.since_unix = parse_since(flags.since);
  const report_plan plan = plan_outputs(flags.format, false, "", flags.output, nullptr, "");
  if (flags.store.db_option->count() > 0 && flags.store.db.empty())
    throw usage_error("--db: the store is empty; give a file or a postgresql:// URL");
  const store_choice choice = choose_store(flags.store, ctx.host.environment);
  if (choice.where.empty())
    throw usage_error(fmt::format("{} has no place here: give --db FILE or URL", choice.label));
  std::unique_ptr<store::results_store> store;
  try {
    store = store::open_store(choice.where, false);
  } catch (const store::store_unusable& e) {
    throw usage_error(fmt::format("{} cannot be read: {}", choice.label, e.what()));
  }
  check_report_file(plan);
  report.query = {.store = store->where(),
                  .workload = fmt::format("{}", fmt::join(flags.workloads, ", ")),
                  .machine = flags.machine,
                  .branch = flags.branch,
                  .since = filter.since_unix};
  try {
    // A name with * or ? is a glob over the saved workloads' names (quoted from the shell), as
    // -w takes one; each workload once, in the order first asked for.
    std::vector<std::string> names;
    std::optional<std::vector<std::string>> saved;
    const auto add = [&names](const std::string& name) {
      if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
    };
    for (const std::string& w : flags.workloads) {
      if (w.find_first_of("*?") == std::string::npos) {
        add(w);
        continue;
      }
      if (!saved) saved = store->workload_names("prepared", filter);
      for (const std::string& name : *saved) {
        if (glob_match(w, name)) add(name);
      }
    }
    for (const std::string& w : names) {
      for (history_run& r : runs_of(store->workload_history(w, "prepared", filter)))
        report.runs.push_back(std::move(r));
    }
  } catch (const store::store_failed& e) {
    fmt::print(ctx.err, "{}: the store failed: {}\n", ctx.program, e.what());
    return exit_failure;
  }
  if (report.regression_settings)
    report.findings = regressions::find(floors_of(report.runs), *report.regression_settings);
  write_history_report(ctx.out, report, *plan.stdout_format, out_style(ctx));
  ctx.out.flush();
  if (plan.file) {
    try {
      std::ostringstream text;
      write_history_report(text, report, plan.file_format);
      const std::string kept = write_output_file(*plan.file, text.str());
      if (!kept.empty()) fmt::print(ctx.err, "{}: warning: --output: {}\n", ctx.program, kept);
    } catch (const output_error& e) {
      fmt::print(ctx.err, "{}: --output: {}\n", ctx.program, e.what());
      return exit_failure;
    }
  }
  return regressions::any_slower(report.findings) ? exit_slower : exit_ok;
}

}  // namespace

void add_history_command(CLI::App& root, context& ctx) {
  auto flags = std::make_shared<history_flags>();
  CLI::App* cmd = root.add_subcommand(
      "history",
      "Saved runs of workloads over commits, machine by machine, from the results "
      "store; --regressions finds the commits after which a floor moved");
  cmd->add_option("workloads", flags->workloads,
                  "The workloads, NAME or NAME/ARG as saved, or a glob over their names (* and ?, "
                  "quoted: 'sort_ints/*')");
  flags->store.db_option = cmd->add_option(
      "--db", flags->store.db,
      "The store to read: a file or a postgresql:// URL (default: $HARNESS_DB, else "
      "~/.local/state/harness/results.db)");
  cmd->add_option("--machine", flags->machine, "Only the runs of this machine key");
  cmd->add_option("--branch", flags->branch, "Only the runs saved with this --branch");
  cmd->add_option("--since", flags->since,
                  "Only the runs saved at or after this UTC date (2026-12-01) or time "
                  "(2026-12-01T18:00:00)");
  cmd->add_flag("--regressions", flags->regressions,
                "Find the commits after which a floor moved beyond --threshold and the noise "
                "seen for it on its machine; exit 4 when one got slower");
  flags->threshold_option = cmd->add_option("--threshold", flags->threshold,
                                            "With --regressions: a smaller move is never a finding")
                                ->capture_default_str();
  cmd->add_option("--format", flags->format,
                  "console, json, csv (a row per run), markdown or html");
  cmd->add_option("-o,--output", flags->output,
                  "Also write the report to FILE, whole or not at all (format from the extension)");
  cmd->footer(fmt::format(
      "Exit codes: 0 listed; 4 --regressions found a slower floor; 2 bad input or a store that "
      "cannot be read; 1 the store failed while read.\n"
      "Examples:\n"
      "  {0} history xor_loop/1000000\n"
      "  {0} history xor_loop/1000000 --regressions --branch main --format html -o trend.html\n"
      "  {0} history sort_ints/10000 --db postgresql://ci@db/harness --since 2026-11-01\n",
      ctx.program));
  cmd->callback([flags, &ctx] { ctx.action = [flags, &ctx] { return history(*flags, ctx); }; });
}

}  // namespace harness::cli
