// The SQLite backend (libsqlite3): the default store, one file. Several processes may save into
// one file at once: the file is in WAL mode (readers never wait for a writer), a writer takes the
// write lock when its transaction begins (BEGIN IMMEDIATE) and waits up to a minute for another
// writer's transaction to end (busy_timeout) instead of failing.
#include <fmt/format.h>
#include <sqlite3.h>

#include <chrono>
#include <cstring>
#include <thread>

#include "platform/files.hpp"
#include "store/database.hpp"
#include "store/store.hpp"

namespace harness::store {
namespace {

// How long a writer waits for another's transaction: 8 processes saving 50 runs each into one
// file wait for each other's milliseconds, a long transaction of another program for longer.
constexpr int kBusyTimeoutMs = 60000;

// $1, $2... as SQLite's ?1, ?2...: the same numbered parameters.
std::string sqlite_sql(const std::string& sql) {
  std::string out = sql;
  for (char& c : out) {
    if (c == '$') c = '?';
  }
  return out;
}

class sqlite_database final : public database {
 public:
  sqlite_database(sqlite3* db, std::filesystem::path path) : db_(db), path_(std::move(path)) {}
  ~sqlite_database() override { sqlite3_close_v2(db_); }
  sqlite_database(const sqlite_database&) = delete;
  sqlite_database& operator=(const sqlite_database&) = delete;

  std::string where() const override { return path_.string(); }

  void execute(const std::string& sql) override {
    char* message = nullptr;
    const int rc = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &message);
    if (rc != SQLITE_OK) {
      const std::string why = message ? message : sqlite3_errstr(rc);
      sqlite3_free(message);
      fail(rc, why);
    }
  }

  std::vector<row> query(const std::string& sql, const std::vector<value>& params) override {
    sqlite3_stmt* statement = nullptr;
    const std::string text = sqlite_sql(sql);
    int rc =
        sqlite3_prepare_v2(db_, text.c_str(), static_cast<int>(text.size()), &statement, nullptr);
    if (rc != SQLITE_OK) fail(rc, sqlite3_errmsg(db_));
    const statement_guard guard{statement};
    for (std::size_t i = 0; i < params.size(); ++i) {
      const int at = static_cast<int>(i) + 1;
      const value& v = params[i];
      if (std::holds_alternative<std::monostate>(v)) {
        rc = sqlite3_bind_null(statement, at);
      } else if (const auto* n = std::get_if<std::int64_t>(&v)) {
        rc = sqlite3_bind_int64(statement, at, *n);
      } else if (const auto* d = std::get_if<double>(&v)) {
        rc = sqlite3_bind_double(statement, at, *d);
      } else {
        const std::string& s = std::get<std::string>(v);
        rc = sqlite3_bind_text64(statement, at, s.data(), s.size(), SQLITE_TRANSIENT, SQLITE_UTF8);
      }
      if (rc != SQLITE_OK) fail(rc, sqlite3_errmsg(db_));
    }
    std::vector<row> rows;
    while ((rc = sqlite3_step(statement)) == SQLITE_ROW) {
      const int columns = sqlite3_column_count(statement);
      row r;
      r.reserve(static_cast<std::size_t>(columns));
      for (int c = 0; c < columns; ++c)
        r.push_back(column(statement, c));
      rows.push_back(std::move(r));
    }
    if (rc != SQLITE_DONE) fail(rc, sqlite3_errmsg(db_));
    return rows;
  }

  void begin_write() override { execute("BEGIN IMMEDIATE"); }
  void lock(std::string_view) override {}

  bool has_table(std::string_view name) override {
    return !query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = $1",
                  {std::string(name)})
                .empty();
  }
  bool has_any_table() override {
    return !query("SELECT 1 FROM sqlite_master WHERE type = 'table'", {}).empty();
  }

  // WAL, so that readers do not wait for writers and a writer does not wait for readers. Set
  // once the file is known to be a current harness store: it changes the file's header. Another
  // process switching it at the same moment is waited for.
  void ready_for_writers() override {
    const auto deadline =
        std::chrono::steady_clock::now() + std::chrono::milliseconds(kBusyTimeoutMs);
    while (true) {
      try {
        const auto rows = query("PRAGMA journal_mode = WAL", {});
        if (!rows.empty() && text_of(rows[0][0]) == "wal") return;
        throw store_failed(fmt::format("{}: could not switch to WAL mode (it stays in {})", where(),
                                       rows.empty() ? "?" : text_of(rows[0][0])));
      } catch (const store_failed&) {
        if ((sqlite3_errcode(db_) & 0xff) != SQLITE_BUSY ||
            std::chrono::steady_clock::now() > deadline)
          throw;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
    }
  }

 private:
  struct statement_guard {
    sqlite3_stmt* statement;
    ~statement_guard() { sqlite3_finalize(statement); }
  };

  static value column(sqlite3_stmt* statement, int c) {
    switch (sqlite3_column_type(statement, c)) {
      case SQLITE_NULL:
        return {};
      case SQLITE_INTEGER:
        return static_cast<std::int64_t>(sqlite3_column_int64(statement, c));
      case SQLITE_FLOAT:
        return sqlite3_column_double(statement, c);
      default: {
        const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(statement, c));
        return std::string(text ? text : "",
                           static_cast<std::size_t>(sqlite3_column_bytes(statement, c)));
      }
    }
  }

  [[noreturn]] void fail(int rc, const std::string& why) const {
    // The system's reason too, when an I/O call failed (a full disk, a file removed).
    const int err = sqlite3_system_errno(db_);
    const int primary = rc & 0xff;
    if (err != 0 && (primary == SQLITE_IOERR || primary == SQLITE_CANTOPEN ||
                     primary == SQLITE_FULL || primary == SQLITE_READONLY)) {
      throw store_failed(fmt::format("{}: {} ({})", where(), why, platform::errno_text(err)));
    }
    throw store_failed(fmt::format("{}: {}", where(), why));
  }

  sqlite3* db_;
  std::filesystem::path path_;
};

}  // namespace

std::unique_ptr<database> open_sqlite(const std::filesystem::path& path, bool may_create) {
  sqlite3* db = nullptr;
  const int flags = SQLITE_OPEN_READWRITE | (may_create ? SQLITE_OPEN_CREATE : 0);
  const int rc = sqlite3_open_v2(path.string().c_str(), &db, flags, nullptr);
  if (rc != SQLITE_OK) {
    const int err = db ? sqlite3_system_errno(db) : 0;
    const std::string why = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    sqlite3_close_v2(db);
    throw store_unusable(fmt::format("{}: it cannot be opened: {}{}", path.string(), why,
                                     err ? fmt::format(" ({})", platform::errno_text(err)) : ""));
  }
  sqlite3_extended_result_codes(db, 1);
  sqlite3_busy_timeout(db, kBusyTimeoutMs);
  if (sqlite3_db_readonly(db, "main") == 1) {
    sqlite3_close_v2(db);
    throw store_unusable(
        fmt::format("{}: it can be read but not written by this user", path.string()));
  }
  return std::make_unique<sqlite_database>(db, path);
}

}  // namespace harness::store
