// The store's schema and its migrations, and opening a store: what is at the path looked at
// first, the schema read, and only then anything written (docs/store.md).
#include <fmt/format.h>

#include <system_error>

#include "platform/files.hpp"
#include "store/database.hpp"
#include "store/store.hpp"
#include "store/store_internal.hpp"

namespace harness::store {
namespace {

// Each phase row of the runs saved before a step, as a save reads it from the report JSON the
// store keeps (report_rows.cpp), given to `fill` with its run's id. A report that is not one (none
// is: only saves wrote them) is passed over, its rows left as they were.
template <typename Fill>
void for_each_saved_phase(database& db, Fill fill) {
  for (const row& run : db.query(
           "SELECT id FROM runs WHERE phase_count > 0 ORDER BY saved_unix, saved_ns, id", {})) {
    const std::string id = text_of(run[0]);
    const auto report = db.query("SELECT report_json FROM runs WHERE id = $1", {id});
    if (report.empty()) continue;
    report_rows rows;
    try {
      rows = rows_of_report(text_of(report[0][0]));
    } catch (const store_failed&) {
      continue;
    }
    for (const phase_row& p : rows.phases)
      fill(id, p);
  }
}

// The v2 step's filling of the floor interval's columns for the runs saved before it. Phases
// without two samples and reports saved without their sample rows leave their bounds NULL.
void fill_floor_intervals(database& db) {
  for_each_saved_phase(db, [&db](const std::string& id, const phase_row& p) {
    if (!p.floor_lower || !p.floor_upper) return;
    db.query(
        "UPDATE phases SET floor_lower_ticks = $1, floor_upper_ticks = $2 WHERE run_id = $3 AND "
        "workload = $4 AND phase = $5",
        {*p.floor_lower, *p.floor_upper, id, p.workload, p.phase});
  });
}

// The v3 step's filling of the floor's CPU for the runs saved before it; NULL where the report
// does not say (a harness before the CPU was read).
void fill_floor_cpus(database& db) {
  for_each_saved_phase(db, [&db](const std::string& id, const phase_row& p) {
    if (!p.floor_cpu) return;
    db.query("UPDATE phases SET floor_cpu = $1 WHERE run_id = $2 AND workload = $3 AND phase = $4",
             {*p.floor_cpu, id, p.workload, p.phase});
  });
}

struct migration {
  const char* sql;
  void (*fill)(database& db);  // after the SQL, in its transaction; may be null
};

// Each migration takes the store from version i to i + 1; all that a store needs run in one
// transaction, with the version written at its end. A new version appends a step: a table added,
// a column with a default (or NULL, filled from what the store keeps); never a step that loses
// what older harnesses wrote.
const migration kMigrations[] = {
    // 0 -> 1: the first schema.
    {R"sql(
CREATE TABLE harness_store (
  name TEXT PRIMARY KEY,
  value TEXT NOT NULL);
CREATE TABLE runs (
  id TEXT PRIMARY KEY,
  kind TEXT NOT NULL,
  saved_unix BIGINT NOT NULL,
  saved_at TEXT NOT NULL,
  machine TEXT NOT NULL,
  cpu_model TEXT NOT NULL,
  tsc_hz DOUBLE PRECISION NOT NULL,
  kernel TEXT NOT NULL,
  host TEXT NOT NULL,
  build TEXT NOT NULL,
  commit_sha TEXT,
  branch TEXT,
  clock TEXT NOT NULL,
  ticks_per_second DOUBLE PRECISION NOT NULL,
  harness_version TEXT NOT NULL,
  phase_count INTEGER NOT NULL,
  ab_count INTEGER NOT NULL,
  tag_count INTEGER NOT NULL,
  report_json TEXT NOT NULL);
CREATE INDEX runs_by_machine ON runs (machine, saved_unix);
CREATE INDEX runs_by_commit ON runs (commit_sha);
CREATE TABLE run_tags (
  run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  value TEXT NOT NULL,
  PRIMARY KEY (run_id, name));
CREATE TABLE phases (
  run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  workload TEXT NOT NULL,
  phase TEXT NOT NULL,
  samples BIGINT NOT NULL,
  min_ticks DOUBLE PRECISION,
  median_ticks DOUBLE PRECISION,
  spread_percent DOUBLE PRECISION,
  floor_ticks DOUBLE PRECISION,
  floor_confirmed INTEGER NOT NULL,
  floor_findings TEXT NOT NULL,
  verdict TEXT NOT NULL,
  PRIMARY KEY (run_id, workload, phase));
CREATE INDEX phases_by_workload ON phases (workload, phase);
CREATE TABLE ab_results (
  run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  position INTEGER NOT NULL,
  a TEXT NOT NULL,
  b TEXT NOT NULL,
  ratio DOUBLE PRECISION,
  lower_bound DOUBLE PRECISION,
  upper_bound DOUBLE PRECISION,
  level DOUBLE PRECISION,
  ratio_count BIGINT NOT NULL,
  verdict TEXT NOT NULL,
  PRIMARY KEY (run_id, position));
CREATE TABLE history_speeds (
  machine TEXT PRIMARY KEY,
  reference_ticks BIGINT NOT NULL,
  seen_unix BIGINT NOT NULL,
  seen TEXT NOT NULL);
CREATE TABLE history_floors (
  machine TEXT NOT NULL,
  build TEXT NOT NULL,
  workload TEXT NOT NULL,
  batch BIGINT NOT NULL,
  floor_ticks DOUBLE PRECISION NOT NULL,
  seen_unix BIGINT NOT NULL,
  seen TEXT NOT NULL,
  PRIMARY KEY (machine, build, workload, batch));
CREATE TABLE history_imports (
  source TEXT PRIMARY KEY,
  imported_unix BIGINT NOT NULL);
)sql",
     nullptr},
    // 1 -> 2: the floor's 95% interval (the minimum's, in ticks per call) beside floor_ticks;
    // filled for the runs saved before from their reports' samples. And the save time's
    // nanoseconds within its second (saved_ns; 0 for the runs before), which orders runs saved
    // in one second.
    {R"sql(
ALTER TABLE phases ADD COLUMN floor_lower_ticks DOUBLE PRECISION;
ALTER TABLE phases ADD COLUMN floor_upper_ticks DOUBLE PRECISION;
ALTER TABLE runs ADD COLUMN saved_ns BIGINT NOT NULL DEFAULT 0;
)sql",
     fill_floor_intervals},
    // 2 -> 3: the CPU the floor's sample ran on (the prepared phase's: the CPU it was pinned to),
    // so that runs on two CPUs of one machine, which need not run at one speed, are not one
    // series of `history --regressions`; filled for the runs saved before from their reports.
    {R"sql(
ALTER TABLE phases ADD COLUMN floor_cpu BIGINT;
)sql",
     fill_floor_cpus},
};
constexpr int kMigrationCount = static_cast<int>(std::size(kMigrations));
static_assert(kMigrationCount == kSchemaVersion, "one migration per schema version");

void refuse_newer(const database& db, int version) {
  if (version > kSchemaVersion) {
    throw store_unusable(fmt::format(
        "{}: written by a newer harness (store schema {}, this build knows up to {}); it is "
        "left as it is: use that harness, or give another store",
        db.where(), version, kSchemaVersion));
  }
}

// Brings the store to kSchemaVersion in one transaction; a concurrent process may have done it
// first, so the version is read again under the write lock.
void migrate(database& db) {
  transaction t(db);
  // PostgreSQL's transactions do not serialise two first opens by themselves: both would see an
  // empty database and create the tables (8 runners starting at once did).
  db.lock("harness store schema");
  const int version = version_of(db);
  refuse_newer(db, version);
  if (version == kSchemaVersion) return;
  for (int step = version; step < kMigrationCount; ++step) {
    db.execute(kMigrations[step].sql);
    if (kMigrations[step].fill != nullptr) kMigrations[step].fill(db);
  }
  if (version == 0) {
    db.query("INSERT INTO harness_store (name, value) VALUES ('schema_version', $1)",
             {std::to_string(kSchemaVersion)});
  } else {
    db.query("UPDATE harness_store SET value = $1 WHERE name = 'schema_version'",
             {std::to_string(kSchemaVersion)});
  }
  t.commit();
}

// What is at a store's path, looked at before SQLite opens it: SQLite would open a FIFO and wait
// on it, and report a folder or a device only as "unable to open database file".
void check_path(const std::filesystem::path& path, bool may_create) {
  if (path.empty()) throw store_unusable("the store's path is empty");
  const platform::path_facts facts = platform::inspect_path(path);
  switch (facts.kind) {
    case platform::path_kind::regular:
      break;
    case platform::path_kind::missing: {
      if (!may_create)
        throw store_unusable(fmt::format("{}: no such store (it does not exist)", path.string()));
      const std::filesystem::path folder =
          path.parent_path().empty() ? std::filesystem::path(".") : path.parent_path();
      const platform::path_facts parent = platform::inspect_path(folder);
      if (parent.kind != platform::path_kind::directory) {
        throw store_unusable(fmt::format("{}: its folder '{}' {}", path.string(), folder.string(),
                                         parent.kind == platform::path_kind::missing
                                             ? "does not exist"
                                             : "is not a folder (" + parent.what + ")"));
      }
      break;
    }
    case platform::path_kind::unknown:
      throw store_unusable(
          fmt::format("{}: it cannot be looked at: {}", path.string(), facts.reason));
    default:
      throw store_unusable(
          fmt::format("{}: it is a {}, not a store file", path.string(), facts.what));
  }
  // SQLite writes its journal beside the file: the folder must take new files, the file writes.
  const std::filesystem::path folder =
      path.parent_path().empty() ? std::filesystem::path(".") : path.parent_path();
  if (const int err = platform::write_permission(folder); err != 0) {
    throw store_unusable(fmt::format("{}: its folder '{}' cannot be written: {}", path.string(),
                                     folder.string(), platform::errno_text(err)));
  }
  if (facts.kind == platform::path_kind::regular) {
    if (const int err = platform::read_permission(path); err != 0) {
      throw store_unusable(
          fmt::format("{}: it cannot be read: {}", path.string(), platform::errno_text(err)));
    }
    if (const int err = platform::write_permission(path); err != 0) {
      throw store_unusable(
          fmt::format("{}: it cannot be written: {}", path.string(), platform::errno_text(err)));
    }
  }
}

}  // namespace

const char* migration_sql(int version) {
  if (version < 0 || version >= kMigrationCount) return nullptr;
  return kMigrations[version].sql;
}

int version_of(database& db) {
  // Any table first, ours second: each read sees what was committed when it ran, and another
  // process's first open commits all the tables at once. Read the other way round, a commit
  // between the two reads looked like a database of something else (store_concurrency: 2 of 8
  // processes opening a new PostgreSQL database at once were refused).
  if (!db.has_any_table()) return 0;
  if (!db.has_table("harness_store")) {
    throw store_unusable(
        fmt::format("{}: not a harness results store (it holds tables of something else, and no "
                    "harness_store table); give a new file or an empty database",
                    db.where()));
  }
  const auto rows = db.query("SELECT value FROM harness_store WHERE name = 'schema_version'", {});
  int version = 0;
  const std::string text = rows.empty() ? "" : text_of(rows[0][0]);
  if (rows.empty() || std::sscanf(text.c_str(), "%d", &version) != 1 || version < 1) {
    throw store_unusable(fmt::format(
        "{}: not a harness results store (its harness_store table has no schema version)",
        db.where()));
  }
  return version;
}

transaction::~transaction() {
  if (done_) return;
  try {
    db_.execute("ROLLBACK");
  } catch (const store_failed&) {
    // The connection is gone: the server rolled the transaction back itself.
  }
}

void transaction::commit() {
  db_.execute("COMMIT");
  done_ = true;
}

bool store_available() {
  return true;
}

std::unique_ptr<results_store> open_store(const std::string& where, bool may_create) {
  std::unique_ptr<database> db;
  if (is_database_url(where)) {
    db = open_postgres(where);
  } else {
    check_path(where, may_create);
    db = open_sqlite(where, may_create);
  }
  // Read first, write only once the store is known to be ours and not newer: a corrupt file, a
  // database of something else or a newer store is left byte for byte as it was.
  try {
    const int version = version_of(*db);
    refuse_newer(*db, version);
    if (version < kSchemaVersion) migrate(*db);
    db->ready_for_writers();
  } catch (const store_failed& e) {
    // The first read of a file that is no SQLite database ("file is not a database"), a
    // database this user may not read.
    throw store_unusable(e.what());
  }
  return make_sql_store(std::move(db));
}

}  // namespace harness::store
