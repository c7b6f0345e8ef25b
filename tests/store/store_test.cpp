// The results store (store.hpp), one suite run on both backends: SQLite in a temporary file, and
// a real PostgreSQL server when $HARNESS_TEST_POSTGRES names one (tests/store/with_postgres.sh
// starts it; ctest runs the suite once each way: store.sqlite, store.postgresql).
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <libpq-fe.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "store/database.hpp"
#include "store/store.hpp"
#include "store/store_internal.hpp"
#include "store_fixtures.hpp"

namespace harness::store {
namespace {

namespace fs = std::filesystem;

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Runs SQL on the backend directly, beside the store (to age, break or inspect it).
void raw_sql(const std::string& where, const std::string& sql) {
  if (is_database_url(where)) {
    PGconn* conn = PQconnectdb(where.c_str());
    ASSERT_EQ(PQstatus(conn), CONNECTION_OK) << PQerrorMessage(conn);
    PGresult* r = PQexec(conn, sql.c_str());
    const auto status = PQresultStatus(r);
    EXPECT_TRUE(status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK) << PQerrorMessage(conn);
    PQclear(r);
    PQfinish(conn);
  } else {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(where.c_str(), &db), SQLITE_OK);
    char* message = nullptr;
    EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &message), SQLITE_OK)
        << (message ? message : "");
    sqlite3_free(message);
    sqlite3_close(db);
  }
}

run_filter on_machine(std::string key) {
  run_filter f;
  f.machine = std::move(key);
  return f;
}

class StoreTest : public testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    // A parameterised test's name holds a '/' ("SavesARunWholeAndListsIt/sqlite"): as a path it
    // made a folder inside a folder, and TearDown removed only the inner one, leaving an empty
    // folder in the temporary folder per test and run.
    std::string name = testing::UnitTest::GetInstance()->current_test_info()->name();
    std::replace(name.begin(), name.end(), '/', '-');
    folder_ = fs::temp_directory_path() / fmt::format("harness-store-test-{}-{}", ::getpid(), name);
    fs::remove_all(folder_);
    fs::create_directories(folder_);
    if (GetParam() == "sqlite") {
      where_ = (folder_ / "results.db").string();
    } else {
      where_ = std::getenv("HARNESS_TEST_POSTGRES");
      // A fresh database for every test: the server's is emptied.
      raw_sql(where_, "DROP SCHEMA public CASCADE; CREATE SCHEMA public;");
    }
  }
  void TearDown() override { fs::remove_all(folder_); }

  bool sqlite() const { return GetParam() == "sqlite"; }

  fs::path folder_;
  std::string where_;
};

TEST_P(StoreTest, SavesARunWholeAndListsIt) {
  auto store = open_store(where_, true);
  save_request request = fixtures::request("run", 100.0);
  request.commit = "abc123";
  request.branch = "main";
  request.tags = {{"os", "debian"}, {"runner", "ci-7"}};
  const std::string id = store->save(request);
  EXPECT_EQ(id.size(), 32u);

  const auto runs = store->runs({});
  ASSERT_EQ(runs.size(), 1u);
  const saved_run& run = runs[0];
  EXPECT_EQ(run.id, id);
  EXPECT_EQ(run.kind, "run");
  EXPECT_EQ(run.machine, request.machine.key());
  EXPECT_EQ(run.identity.cpu_model, "Test CPU");
  EXPECT_DOUBLE_EQ(run.identity.tsc_hz, 2.5e9);
  EXPECT_EQ(run.identity.host, "runner-1");
  EXPECT_EQ(run.build, "xxh3:0123456789abcdef");
  EXPECT_EQ(run.commit, "abc123");
  EXPECT_EQ(run.branch, "main");
  EXPECT_EQ(run.clock, "tsc");
  EXPECT_DOUBLE_EQ(run.ticks_per_second, 2.5e9);
  EXPECT_EQ(run.harness_version, "0.1.0");
  ASSERT_EQ(run.tags.size(), 2u);
  EXPECT_EQ(run.tags[1], (std::pair<std::string, std::string>{"runner", "ci-7"}));
  // The report is kept byte for byte.
  EXPECT_EQ(store->report_json(id), request.report_json);
  EXPECT_EQ(store->report_json("nope"), std::nullopt);
  EXPECT_TRUE(store->partial_runs().empty());

  const auto points = store->workload_history("sort/1000", "prepared", {});
  ASSERT_EQ(points.size(), 1u);
  const phase_row& p = points[0].phase;
  EXPECT_EQ(p.samples, 20);
  EXPECT_DOUBLE_EQ(*p.min_ticks, 100.0);
  EXPECT_DOUBLE_EQ(*p.median_ticks, 101.25);
  EXPECT_DOUBLE_EQ(*p.spread_percent, 1.5);
  EXPECT_DOUBLE_EQ(*p.floor_ticks, 100.0);
  // The floor's 95% interval, from the report's samples (100 and 100.125 the fastest two).
  ASSERT_TRUE(p.floor_lower && p.floor_upper);
  EXPECT_NEAR(*p.floor_lower, 97.625, 1e-9);
  EXPECT_DOUBLE_EQ(*p.floor_upper, 100.0);
  EXPECT_TRUE(p.floor_confirmed);
  EXPECT_EQ(p.floor_findings, "");
  EXPECT_EQ(p.verdict, "stable");
  EXPECT_EQ(points[0].run.tags.size(), 2u);
  const auto baseline = store->workload_history("sort/1000", "baseline", {});
  ASSERT_EQ(baseline.size(), 1u);
  EXPECT_FALSE(baseline[0].phase.floor_confirmed);
  EXPECT_EQ(baseline[0].phase.floor_findings, "too_few_blocks,no_agreement");
  EXPECT_NEAR(baseline[0].phase.floor_lower.value_or(-1), 72.0, 1e-9);
  EXPECT_DOUBLE_EQ(baseline[0].phase.floor_upper.value_or(-1), 110.0);
  // The first call is not kept.
  EXPECT_TRUE(store->workload_history("sort/1000", "first", {}).empty());
}

TEST_P(StoreTest, FiltersByMachineBranchTimeAndKind) {
  auto store = open_store(where_, true);
  save_request a = fixtures::request("run", 100.0);
  a.branch = "main";
  save_request b = fixtures::request("run", 105.0);
  b.machine.host = "runner-2";
  b.branch = "topic";
  store->save(a);
  store->save(b);
  store->save(fixtures::request("ab", 0));
  EXPECT_EQ(store->runs({}).size(), 3u);
  EXPECT_EQ(store->runs(on_machine(b.machine.key())).size(), 1u);
  run_filter f;
  f.branch = "main";
  EXPECT_EQ(store->runs(f).size(), 1u);
  f = {};
  f.kind = "ab";
  EXPECT_EQ(store->runs(f).size(), 1u);
  f = {};
  f.since_unix = 4102444800;  // 2100
  EXPECT_EQ(store->runs(f).size(), 0u);
  // The workloads saved, each once (two runs of sort/1000), by phase and filter: what a glob of
  // `harness history` is matched against.
  EXPECT_EQ(store->workload_names("prepared", {}), std::vector<std::string>{"sort/1000"});
  EXPECT_EQ(store->workload_names("baseline", on_machine(b.machine.key())),
            std::vector<std::string>{"sort/1000"});
  EXPECT_TRUE(store->workload_names("first", {}).empty());
  EXPECT_TRUE(store->workload_names("prepared", f).empty());  // since 2100
  const auto on_two = store->workload_history("sort/1000", "prepared", on_machine(b.machine.key()));
  ASSERT_EQ(on_two.size(), 1u);
  EXPECT_DOUBLE_EQ(*on_two[0].phase.floor_ticks, 105.0);
  EXPECT_EQ(on_two[0].run.branch, "topic");
}

TEST_P(StoreTest, KeepsAbAnswers) {
  auto store = open_store(where_, true);
  const std::string id = store->save(fixtures::request("ab", 0));
  const auto runs = store->runs({});
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].kind, "ab");
  EXPECT_TRUE(store->workload_history("sort/1000", "prepared", {}).empty());
  EXPECT_TRUE(store->partial_runs().empty());
  EXPECT_EQ(store->report_json(id), fixtures::ab_report());
}

TEST_P(StoreTest, AFailedSaveLeavesNothing) {
  auto store = open_store(where_, true);
  save_request request = fixtures::request("run", 100.0);
  // The second tag breaks the tags' primary key after the run's row went in: all rolled back.
  request.tags = {{"k", "1"}, {"k", "2"}};
  EXPECT_THROW(store->save(request), store_failed);
  EXPECT_TRUE(store->runs({}).empty());
  request.tags = {};
  request.report_json = "{\"not\": \"a report\"}";
  EXPECT_THROW(store->save(request), store_failed);
  EXPECT_TRUE(store->runs({}).empty());
  // And the store goes on.
  store->save(fixtures::request("run", 100.0));
  EXPECT_EQ(store->runs({}).size(), 1u);
}

TEST_P(StoreTest, ReopensAndMigratesOnce) {
  open_store(where_, true)->save(fixtures::request("run", 100.0));
  auto again = open_store(where_, false);
  EXPECT_EQ(again->runs({}).size(), 1u);
}

// Runs saved one after the other come back in that order, also within one second (saved_unix's
// unit): history_e2e's commits came back in the order of their random ids when two saves fell in
// the same second.
TEST_P(StoreTest, RunsSavedInOneSecondKeepTheirOrder) {
  auto store = open_store(where_, true);
  std::vector<std::string> saved;
  for (int i = 0; i < 6; ++i)
    saved.push_back(store->save(fixtures::request("run", 100.0 + i)));
  std::vector<std::string> listed;
  for (const saved_run& r : store->runs({}))
    listed.push_back(r.id);
  EXPECT_EQ(listed, saved);
  const auto points = store->workload_history("sort/1000", "prepared", {});
  ASSERT_EQ(points.size(), saved.size());
  for (std::size_t i = 0; i < points.size(); ++i)
    EXPECT_EQ(points[i].run.id, saved[i]);
}

// A store made as a harness of schema 1 made it: its SQL, its version, and one run's rows as
// that harness saved them (no floor interval columns).
void make_version_1_store(database& db, const std::vector<std::string>& reports) {
  db.execute(migration_sql(0));
  db.query("INSERT INTO harness_store (name, value) VALUES ('schema_version', '1')", {});
  const machine_identity m{"Test CPU", 2.5e9, "Linux 6.1.0", "runner-1"};
  for (std::size_t i = 0; i < reports.size(); ++i) {
    const std::string id = fmt::format("{:032x}", i + 1);
    const report_rows rows = rows_of_report(reports[i]);
    db.query(
        "INSERT INTO runs (id, kind, saved_unix, saved_at, machine, cpu_model, tsc_hz, kernel, "
        "host, build, commit_sha, branch, clock, ticks_per_second, harness_version, "
        "phase_count, ab_count, tag_count, report_json) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, "
        "$9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19)",
        {id, rows.kind, static_cast<std::int64_t>(1'700'000'000 + i), "2023-11-14T22:13:20Z",
         m.key(), m.cpu_model, m.tsc_hz, m.kernel, m.host, "xxh3:1", fmt::format("c{}", i), "main",
         rows.clock, rows.ticks_per_second, rows.harness_version,
         static_cast<std::int64_t>(rows.phases.size()), std::int64_t{0}, std::int64_t{0},
         reports[i]});
    for (const phase_row& p : rows.phases) {
      db.query(
          "INSERT INTO phases (run_id, workload, phase, samples, min_ticks, median_ticks, "
          "spread_percent, floor_ticks, floor_confirmed, floor_findings, verdict) VALUES ($1, "
          "$2, $3, $4, $5, $6, $7, $8, $9, $10, $11)",
          {id, p.workload, p.phase, p.samples, maybe(p.min_ticks), maybe(p.median_ticks),
           maybe(p.spread_percent), maybe(p.floor_ticks),
           static_cast<std::int64_t>(p.floor_confirmed), p.floor_findings, p.verdict});
    }
  }
}

std::unique_ptr<database> open_raw(const std::string& where) {
  return is_database_url(where) ? open_postgres(where) : open_sqlite(where, true);
}

TEST_P(StoreTest, MigratesAVersion1StoreInPlace) {
  // Two runs: one whose report has its sample rows, one whose report has none.
  make_version_1_store(*open_raw(where_),
                       {fixtures::run_report(100.0), fixtures::run_report(200.0, false)});
  {
    auto store = open_store(where_, false);
    const auto points = store->workload_history("sort/1000", "prepared", {});
    ASSERT_EQ(points.size(), 2u);
    // The old rows kept what they held and gained the interval from their reports' samples.
    EXPECT_EQ(points[0].run.commit, "c0");
    EXPECT_DOUBLE_EQ(points[0].phase.floor_ticks.value_or(-1), 100.0);
    EXPECT_TRUE(points[0].phase.floor_confirmed);
    EXPECT_NEAR(points[0].phase.floor_lower.value_or(-1), 97.625, 1e-9);
    EXPECT_DOUBLE_EQ(points[0].phase.floor_upper.value_or(-1), 100.0);
    // And the floor's CPU from the report (schema 3), where the report says it.
    EXPECT_EQ(points[0].phase.floor_cpu, std::optional<std::int64_t>(1));
    EXPECT_EQ(points[1].phase.floor_cpu, std::optional<std::int64_t>(1));
    // No samples in the report: no interval (NULL), the rest as it was.
    EXPECT_DOUBLE_EQ(points[1].phase.floor_ticks.value_or(-1), 200.0);
    EXPECT_EQ(points[1].phase.floor_lower, std::nullopt);
    EXPECT_EQ(points[1].phase.floor_upper, std::nullopt);
    const auto baseline = store->workload_history("sort/1000", "baseline", {});
    ASSERT_EQ(baseline.size(), 2u);
    EXPECT_NEAR(baseline[0].phase.floor_lower.value_or(-1), 72.0, 1e-9);
    EXPECT_EQ(baseline[0].phase.floor_cpu, std::nullopt);
    EXPECT_TRUE(store->partial_runs().empty());
    // And a run saved after the migration has its interval.
    store->save(fixtures::request("run", 300.0));
    const auto after = store->workload_history("sort/1000", "prepared", {});
    ASSERT_EQ(after.size(), 3u);
    EXPECT_DOUBLE_EQ(after[2].phase.floor_upper.value_or(-1), 300.0);
    EXPECT_EQ(after[2].phase.floor_cpu, std::optional<std::int64_t>(1));
  }
  auto db = open_raw(where_);
  EXPECT_EQ(version_of(*db), 3);
  EXPECT_EQ(kSchemaVersion, 3);
  // Opened again: nothing more to migrate.
  db.reset();
  EXPECT_EQ(open_store(where_, false)->runs({}).size(), 3u);
}

TEST_P(StoreTest, RefusesANewerSchemaUnchanged) {
  open_store(where_, true);
  const int newer = kSchemaVersion + 1;
  raw_sql(where_, fmt::format("UPDATE harness_store SET value = '{}' WHERE name = "
                              "'schema_version'",
                              newer));
  const std::string before = sqlite() ? slurp(where_) : "";
  try {
    open_store(where_, true);
    FAIL() << "a store of schema " << newer << " was opened";
  } catch (const store_unusable& e) {
    EXPECT_NE(
        std::string(e.what()).find(fmt::format(
            "newer harness (store schema {}, this build knows up to {})", newer, kSchemaVersion)),
        std::string::npos)
        << e.what();
  }
  if (sqlite()) {
    EXPECT_EQ(slurp(where_), before);
  }
}

TEST_P(StoreTest, RefusesADatabaseOfSomethingElse) {
  raw_sql(where_, "CREATE TABLE customers (name TEXT)");
  const std::string before = sqlite() ? slurp(where_) : "";
  try {
    open_store(where_, true);
    FAIL() << "a foreign database was opened";
  } catch (const store_unusable& e) {
    EXPECT_NE(std::string(e.what()).find("not a harness results store"), std::string::npos)
        << e.what();
  }
  if (sqlite()) {
    EXPECT_EQ(slurp(where_), before);
  }
}

TEST_P(StoreTest, KeepsTheFloorHistoryPerMachine) {
  auto store = open_store(where_, true);
  const run_history::moment t0{1'700'000'000, "2023-11-14T22:13:20Z"};
  history_notes notes;
  notes.references = {{"m1", 1000}, {"m2", 2000}};
  notes.floors = {{"m1", "xxh3:1", "sort/1000", 4, 123.5, {}}};
  store->note_history(notes, t0);
  // A lower value replaces a live record; a higher one leaves it.
  store->note_history({{{"m1", 900}, {"m2", 2500}}, {}}, {t0.unix_seconds + 60, "later"});
  const run_history h = store->load_history({"m1", "m2"});
  ASSERT_EQ(h.speeds().size(), 2u);
  const auto m1 = h.fastest_reference("m1", {t0.unix_seconds + 60, ""});
  ASSERT_TRUE(m1);
  EXPECT_EQ(m1->reference_ticks, 900u);
  EXPECT_EQ(h.fastest_reference("m2", {t0.unix_seconds + 60, ""})->reference_ticks, 2000u);
  const auto floor = h.floor("m1", "xxh3:1", "sort/1000", 4, {t0.unix_seconds, ""});
  ASSERT_TRUE(floor);
  EXPECT_DOUBLE_EQ(floor->floor, 123.5);
  EXPECT_EQ(store->load_history({"m3"}).speeds().size(), 0u);
  EXPECT_EQ(store->load_history({"m2"}).floors().size(), 0u);

  // A history file is imported once.
  run_history file;
  file.note_reference("m3", 777, t0);
  EXPECT_TRUE(store->import_history("/home/u/.local/state/harness/history.json", file));
  EXPECT_FALSE(store->import_history("/home/u/.local/state/harness/history.json", file));
  EXPECT_EQ(store->load_history({"m3"}).speeds().at(0).reference_ticks, 777u);
}

// A value its column cannot hold (a store edited by hand, or damaged) is refused, naming the
// column and the value, instead of read as 0 or wrapped around.
TEST_P(StoreTest, RefusesAValueItsColumnCannotHold) {
  auto store = open_store(where_, true);
  store->save(fixtures::request("run", 100.0));
  store->note_history({{{"m1", 900}}, {}}, {1'700'000'000, "2023-11-14T22:13:20Z"});
  const auto refused = [&](const std::string& sql, const auto& read, const std::string& why) {
    raw_sql(where_, sql);
    try {
      read();
      ADD_FAILURE() << "read after " << sql;
    } catch (const store_failed& e) {
      EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what();
    }
  };
  const auto history = [&] { return store->load_history({"m1"}); };
  const auto runs = [&] { return store->runs({}); };
  const auto phases = [&] { return store->workload_history("sort/1000", "prepared", {}); };
  refused("UPDATE history_speeds SET reference_ticks = -5", history,
          "column history_speeds.reference_ticks holds '-5', which is not a count (0 or more)");
  if (!sqlite()) return;  // PostgreSQL's typed columns refuse the rest themselves.
  refused("UPDATE runs SET saved_unix = 'yesterday'", runs,
          "column runs.saved_unix holds 'yesterday', which is not an integer");
  refused("UPDATE runs SET saved_unix = 1e300", runs,
          "column runs.saved_unix holds '1e+300', which is not an integer");
  refused("UPDATE runs SET saved_unix = 1.5", runs,
          "column runs.saved_unix holds '1.5', which is not an integer");
  raw_sql(where_, "UPDATE runs SET saved_unix = 1700000000");
  EXPECT_EQ(runs().size(), 1u);
  refused("UPDATE phases SET min_ticks = 'fast'", phases,
          "column phases.min_ticks holds 'fast', which is not a number");
}

std::vector<std::string> backends() {
  std::vector<std::string> b{"sqlite"};
  if (const char* url = std::getenv("HARNESS_TEST_POSTGRES"); url && *url)
    b.push_back("postgresql");
  return b;
}

INSTANTIATE_TEST_SUITE_P(Backends, StoreTest, testing::ValuesIn(backends()),
                         [](const testing::TestParamInfo<std::string>& p) { return p.param; });

}  // namespace
}  // namespace harness::store

namespace harness::store {
namespace {

// What is at an SQLite store's path is looked at before SQLite opens it.
TEST(SqliteStore, RefusesWhatIsNoStoreFile) {
  namespace fs = std::filesystem;
  const fs::path folder =
      fs::temp_directory_path() / fmt::format("harness-store-paths-{}", ::getpid());
  fs::remove_all(folder);
  fs::create_directories(folder / "sub");
  const auto refused = [](const fs::path& p, const std::string& why) {
    try {
      open_store(p.string(), true);
      ADD_FAILURE() << p << " was opened";
    } catch (const store_unusable& e) {
      EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what();
    }
  };
  refused(folder / "sub", "it is a directory, not a store file");
  ASSERT_EQ(::mkfifo((folder / "fifo").c_str(), 0600), 0);
  refused(folder / "fifo", "it is a FIFO, not a store file");
  refused(folder / "missing" / "r.db",
          "its folder '" + (folder / "missing").string() + "' does not exist");
  refused("", "the store's path is empty");
  {
    std::ofstream(folder / "corrupt.db")
        << "this is not an SQLite database, but it is long enough to "
           "look like a header of one to nobody\n";
  }
  const std::string before = slurp(folder / "corrupt.db");
  refused(folder / "corrupt.db", "file is not a database");
  EXPECT_EQ(slurp(folder / "corrupt.db"), before);
  EXPECT_THROW(open_store((folder / "absent.db").string(), false), store_unusable);
  EXPECT_FALSE(fs::exists(folder / "absent.db"));
  fs::remove_all(folder);
}

// A database that another process makes a harness store of (all its tables in one commit) right
// after the first read of the catalog: what one of 8 processes opening a new PostgreSQL database
// at once saw.
class store_created_meanwhile : public database {
 public:
  std::string where() const override { return "fake"; }
  void execute(const std::string&) override {}
  std::vector<row> query(const std::string& sql, const std::vector<value>&) override {
    if (sql.find("schema_version") != std::string::npos && committed_) return {{value("3")}};
    return {};
  }
  void begin_write() override {}
  void lock(std::string_view) override {}
  bool has_table(std::string_view name) override {
    return read_catalog() && name == "harness_store";
  }
  bool has_any_table() override { return read_catalog(); }

 private:
  // What this read sees; the other process commits after it.
  bool read_catalog() {
    const bool seen = committed_;
    committed_ = true;
    return seen;
  }
  bool committed_ = false;
};

TEST(StoreSchema, AStoreCreatedBetweenTwoReadsIsNotTakenForSomethingElse) {
  store_created_meanwhile db;
  int version = -1;
  EXPECT_NO_THROW(version = version_of(db));
  // Empty when first read: the migration reads it again under the lock and finds the store.
  EXPECT_EQ(version, 0);
  EXPECT_EQ(version_of(db), 3);
}

TEST(StoreUrls, HidesThePasswordAndKnowsAUrl) {
  EXPECT_EQ(url_without_password("postgresql://ci:s3cret@db.example/perf"),
            "postgresql://ci:***@db.example/perf");
  EXPECT_EQ(url_without_password("postgresql://ci@db/perf"), "postgresql://ci@db/perf");
  EXPECT_TRUE(is_database_url("postgres://db/perf"));
  EXPECT_FALSE(is_database_url("results.db"));
  EXPECT_EQ(default_store_path("/home/u/.local/state"),
            std::filesystem::path("/home/u/.local/state/harness/results.db"));
  EXPECT_EQ((machine_identity{"CPU X", 2994.4e6, "Linux 6.1", "h"}).key(),
            "CPU X | TSC 2994 MHz | Linux 6.1 | h");
}

TEST(StoreRows, TakesTheFiguresOfAReport) {
  const report_rows rows = rows_of_report(fixtures::run_report(100));
  EXPECT_EQ(rows.kind, "run");
  ASSERT_EQ(rows.phases.size(), 2u);
  EXPECT_EQ(rows.phases[1].phase, "prepared");
  EXPECT_NEAR(rows.phases[1].floor_lower.value_or(-1), 97.625, 1e-9);
  EXPECT_DOUBLE_EQ(rows.phases[1].floor_upper.value_or(-1), 100.0);
  // A report without its sample rows gives no interval.
  const report_rows bare = rows_of_report(fixtures::run_report(100, false));
  ASSERT_EQ(bare.phases.size(), 2u);
  EXPECT_EQ(bare.phases[1].floor_lower, std::nullopt);
  EXPECT_EQ(bare.phases[1].floor_upper, std::nullopt);
  const report_rows ab = rows_of_report(fixtures::ab_report());
  ASSERT_EQ(ab.ab.size(), 1u);
  EXPECT_EQ(ab.ab[0].b, "sort/2000");
  EXPECT_DOUBLE_EQ(*ab.ab[0].upper, 1.03);
  EXPECT_EQ(ab.ab[0].count, 40);
  EXPECT_THROW(rows_of_report("[1, 2"), store_failed);
  EXPECT_THROW(rows_of_report("{}"), store_failed);
}

}  // namespace
}  // namespace harness::store
