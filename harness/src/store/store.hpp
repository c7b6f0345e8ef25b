// The results store: runs that outlive the process (docs/store.md). One schema over two backends,
// an SQLite file (the default, ~/.local/state/harness/results.db) and a PostgreSQL database for a
// fleet of runners (postgresql://...). What a saved run holds: the machine it ran on, the build,
// the commit, branch and tags CI gave, every workload's phases (floor and its 95% interval,
// whether confirmed and why not, minimum, median, spread, samples), every A/B answer, and the
// report's JSON itself. The store also keeps the floor history (history.hpp) per machine key,
// shared by every runner that writes into one database.
//
// Written by the command line (cli/store_options.cpp); the read API (runs, workload_history) is
// what `harness history` and a regression finder build on. Internal header of the store layer:
// above every other layer of the library, below cli/.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "harness/history.hpp"

namespace harness::store {

// The schema this build writes. A store at a lower version is migrated forward, all steps in one
// transaction; a store at a higher version was written by a newer harness and is refused
// unchanged.
inline constexpr int kSchemaVersion = 3;

// The store cannot be used at all: what is at the path (a folder, a FIFO, a device), a file that
// cannot be read or written, a file that is no SQLite database or no harness store, a newer
// schema, a server that cannot be reached or refuses. Found when the store is opened, before
// anything is written. Its message is "WHERE: WHY", with the system's reason where there is one.
// The command line makes it a usage error (exit 2) when the user named the store, a warning when
// the default store cannot be used.
class store_unusable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The store failed after it was opened: a statement the database refused, a server that went away
// mid-run. Nothing of the transaction it happened in was kept. Exit 1 from the command line.
class store_failed : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The machine a run was measured on. Runs are only ever compared with runs of the same key.
struct machine_identity {
  std::string cpu_model;  // "AMD EPYC 7R13 Processor"; "unknown CPU" when unreadable
  double tsc_hz = 0;      // the calibrated TSC rate; 0 when there is no TSC
  std::string kernel;     // "Linux 6.1.0-18-amd64"
  std::string host;       // the host name; empty when unknown
  // "CPU | TSC 2994 MHz | kernel | host": what runs are grouped and compared by.
  std::string key() const;
};

// One phase of one workload in a saved run, in the report's own units: ticks of the run's clock
// (saved_run::ticks_per_second), per call.
struct phase_row {
  std::string workload;  // "sort_ints/10000", or a Google Benchmark's name
  std::string phase;     // "baseline", "prepared" (the first call is not kept)
  std::int64_t samples = 0;
  std::optional<double> min_ticks;
  std::optional<double> median_ticks;
  std::optional<double> spread_percent;
  std::optional<double> floor_ticks;  // nullopt: no floor was checked (the first call, a failure)
  // The minimum's (the floor's) 95% Robson-Whitlock interval, computed from the report's samples;
  // nullopt with fewer than two samples, and for runs saved without the samples' rows.
  std::optional<double> floor_lower;
  std::optional<double> floor_upper;
  bool floor_confirmed = false;
  std::string floor_findings;  // why not confirmed: "too_few_blocks,no_agreement"; "" if it was
  std::string verdict;         // "stable", "noisy", "unstable", "too_few_samples", or ""
  // The CPU the floor's sample ran on (the report's floor.floor_cpu): the prepared phase's is the
  // CPU it was pinned to. nullopt when the report does not say (before the harness read it, or
  // a platform where the CPU cannot be read).
  std::optional<std::int64_t> floor_cpu;
};

// One A/B answer: B/A with its interval (`harness ab`, each benchmark of `gbench --vs`).
struct ab_row {
  std::string a;  // A's workload, or the benchmark
  std::string b;
  std::optional<double> ratio;  // nullopt: too few rounds gave a ratio
  std::optional<double> lower;
  std::optional<double> upper;
  std::optional<double> level;
  std::int64_t count = 0;
  std::string verdict;  // faster, slower, same, unsure; "" without an answer
};

// What a report's JSON holds for the store; throws store_failed when it is not a harness report
// (the command line only ever gives its own).
struct report_rows {
  std::string kind;  // "run", "gbench" or "ab" (harness.kind; a gbench report has a `source`)
  std::string clock;
  double ticks_per_second = 0;
  std::string harness_version;
  std::vector<phase_row> phases;
  std::vector<ab_row> ab;
};
report_rows rows_of_report(std::string_view json);

// What the command line gives to save: the run's report and who made it.
struct save_request {
  machine_identity machine;
  std::string build;  // the measured binary's fingerprint ("xxh3:..."); for ab "A vs B"
  std::optional<std::string> commit;
  std::optional<std::string> branch;
  std::vector<std::pair<std::string, std::string>> tags;
  std::string report_json;  // the JSON report, as `--format json` writes it
};

// A saved run, as listed.
struct saved_run {
  std::string id;  // 32 hex digits, random: unique across stores
  std::string kind;
  std::int64_t saved_unix = 0;
  std::string saved_at;  // ISO 8601, UTC
  std::string machine;   // machine_identity::key()
  machine_identity identity;
  std::string build;
  std::optional<std::string> commit;
  std::optional<std::string> branch;
  std::vector<std::pair<std::string, std::string>> tags;  // sorted by key
  std::string clock;
  double ticks_per_second = 0;
  std::string harness_version;
};

// Which runs to list; every field is optional and they combine.
struct run_filter {
  std::optional<std::string> machine;  // machine_identity::key()
  std::optional<std::string> branch;
  std::optional<std::int64_t> since_unix;  // saved at or after
  std::optional<std::string> kind;
};

// One workload's phase in one saved run, for a history over commits.
struct phase_point {
  saved_run run;
  phase_row phase;
};

// One floor-history change a run saw (history.hpp's note_reference and note_floor), applied in
// the store under its lock so that runners sharing a database never lose each other's records.
struct history_notes {
  std::vector<std::pair<std::string, std::uint64_t>> references;  // machine, ticks
  std::vector<run_history::floor_record> floors;                  // `seen` unused: now
};

class results_store {
 public:
  virtual ~results_store() = default;

  // The store for people: its path, or its URL without a password.
  virtual std::string where() const = 0;

  // Saves one run, whole or not at all (one transaction); returns its id. Throws store_failed.
  virtual std::string save(const save_request& request) = 0;

  // The runs the filter selects, oldest first (by save time, then id).
  virtual std::vector<saved_run> runs(const run_filter& filter) = 0;
  // One workload's `phase` ("prepared") in every run the filter selects, oldest first: the
  // floor per commit on each machine. Runs of different machines come interleaved; group them by
  // run.machine, never compare across.
  virtual std::vector<phase_point> workload_history(std::string_view workload,
                                                    std::string_view phase,
                                                    const run_filter& filter) = 0;
  // The workloads that have a `phase` in the runs the filter selects, each once, by name: what a
  // glob (`harness history 'sort_ints/*'`) is matched against.
  virtual std::vector<std::string> workload_names(std::string_view phase,
                                                  const run_filter& filter) = 0;
  // A saved run's report JSON, as it was saved; nullopt when no run has that id.
  virtual std::optional<std::string> report_json(std::string_view run_id) = 0;
  // Runs whose rows disagree with their own counts (a run saved in part): empty in a sound store.
  virtual std::vector<std::string> partial_runs() = 0;

  // The floor history's records of these machine keys (speeds) and machine keys (floors).
  virtual run_history load_history(const std::vector<std::string>& machines) = 0;
  // Applies what a run saw, at `at`, under the store's lock (one transaction).
  virtual void note_history(const history_notes& notes, const run_history::moment& at) = 0;
  // Imports a history file's records once: false when `source` was imported before (nothing
  // done). The file itself is left where it is.
  virtual bool import_history(const std::string& source, const run_history& records) = 0;
};

// Opens (and creates, or migrates) the store at `where`: a postgresql:// or postgres:// URL, or
// a file path. A file that does not exist is created when `may_create`, and its folder must
// exist. Throws store_unusable before anything is written when the store cannot be used.
std::unique_ptr<results_store> open_store(const std::string& where, bool may_create);

// Whether `where` names a PostgreSQL database rather than a file.
bool is_database_url(std::string_view where);

// The default store's file: $XDG_STATE_HOME/harness/results.db, else
// ~/.local/state/harness/results.db, from the state folder; empty when there is none.
std::filesystem::path default_store_path(const std::filesystem::path& state_directory);

// Whether this build has a store at all (false on Windows: docs/store.md).
bool store_available();

}  // namespace harness::store
