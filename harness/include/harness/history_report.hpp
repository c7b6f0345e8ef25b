// The report of `harness history` (issue 29): the saved runs of workloads over commits, machine by
// machine, and the regressions found in them (regressions.hpp), with their writers: console,
// JSON (docs/output.md, "harness history"), CSV (a row per run), Markdown and the HTML page (the
// floor per commit with its interval, one line per machine). Writers only format: the store gives
// the runs, regressions::find the findings.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "harness/regressions.hpp"
#include "harness/report.hpp"

namespace harness {

// One saved run's figures for one workload, as the store keeps them.
struct history_run {
  std::string run;            // the run's id in the store
  std::int64_t saved_at = 0;  // seconds since the epoch (UTC)
  std::string machine;        // the machine key: runs of one key and CPU are compared together
  std::string host;           // what the key is made of, for people
  std::string cpu;
  std::string commit;  // --commit, --branch as CI gave them; empty when not given
  std::string branch;
  std::string workload;
  std::string clock;                    // the sampling clock
  std::optional<double> floor_seconds;  // the prepared floor per call; none without samples
  std::optional<double> floor_lower;    // its 95% interval
  std::optional<double> floor_upper;
  bool confirmed = false;
  std::string unconfirmed;  // why the floor was not confirmed (empty when it was)
  std::optional<double> median_seconds;
  std::size_t samples = 0;
  // The CPU the prepared floor ran on (the one it was pinned to); nullopt for runs saved before
  // it was read. A machine's CPUs need not run at one speed: each is a series of its own.
  std::optional<std::int64_t> floor_cpu;
};

// What `harness history` was asked for.
struct history_query {
  std::string store;     // where the runs were read (a path, or a PostgreSQL URL without password)
  std::string workload;  // a workload's name, or empty for all
  std::string machine;   // a machine key, or empty for all
  std::string branch;    // a branch, or empty for all
  std::optional<std::int64_t> since;  // seconds since the epoch
};

struct history_report {
  history_query query;
  std::vector<history_run> runs;  // in the order saved
  // With --regressions: the rule's settings and what it found.
  std::optional<regressions::settings> regression_settings;
  std::vector<regressions::finding> findings;
};

// The series a run belongs to: its machine key and the CPU its floor ran on ("MACHINE | prepared
// on CPU 1", history.hpp's floor_key), or the machine key alone when the CPU is not known. Runs
// are listed, charted and compared series by series.
std::string series_of(const history_run& run);

// The regression rule's input from the runs: every run with a floor, its series as the machine,
// its commit (the run's id when it has none, so it stands alone).
std::vector<regressions::saved_floor> floors_of(const std::vector<history_run>& runs);

// "2026-12-02 18:00:00" (UTC) for the seconds since the epoch.
std::string utc_text(std::int64_t seconds);

void write_history_report(std::ostream& out, const history_report& report, report_format format,
                          const console_style& style = {});

}  // namespace harness
