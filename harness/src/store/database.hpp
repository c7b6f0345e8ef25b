// A connection to the store's database: what the SQLite and PostgreSQL backends each provide, so
// that the schema, the migrations and every query (store.cpp) are written once. Internal header
// of the store layer.
//
// SQL is written once for both: parameters are $1, $2... in ascending order (SQLite reads them
// as ?1, ?2...), types are TEXT, BIGINT, INTEGER and DOUBLE PRECISION, and nothing relies on a
// backend's own extensions.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace harness::store {

// A parameter or a column's value.
using value = std::variant<std::monostate, std::int64_t, double, std::string>;
using row = std::vector<value>;

// A value that may be null, for parameters.
template <class T>
value maybe(const std::optional<T>& v) {
  return v ? value(*v) : value();
}

// Reading a column: text (null as ""), integer, real (an integer column read as one too). A value
// that is not what the column holds (text that is not a number, a fraction or one beyond 64 bits
// where an integer belongs, a negative count) throws store_failed naming `column` and the value.
std::string text_of(const value& v);
std::int64_t integer_of(const value& v, std::string_view column);
std::uint64_t count_of(const value& v, std::string_view column);         // an integer, 0 or more
std::optional<double> real_of(const value& v, std::string_view column);  // null as nullopt
std::optional<std::int64_t> optional_integer_of(const value& v, std::string_view column);
std::optional<std::string> optional_text_of(const value& v);

class database {
 public:
  virtual ~database() = default;
  // The store for people (store.hpp's where()).
  virtual std::string where() const = 0;
  // Statements without parameters, possibly several (the schema). Throws store_failed.
  virtual void execute(const std::string& sql) = 0;
  // One statement; its rows. Throws store_failed.
  virtual std::vector<row> query(const std::string& sql, const std::vector<value>& params) = 0;
  // Starts a transaction that will write: SQLite takes the write lock at once (BEGIN IMMEDIATE,
  // waiting for other writers), so two writers never deadlock upgrading a read.
  virtual void begin_write() = 0;
  // Serialises read-modify-write transactions on `key` across processes: PostgreSQL takes a
  // transaction-level advisory lock; SQLite's write transaction already holds the whole file.
  virtual void lock(std::string_view key) = 0;
  // Whether the database holds a table of this name, and whether it holds any table at all.
  virtual bool has_table(std::string_view name) = 0;
  virtual bool has_any_table() = 0;
  // Called once the database is known to hold a current harness store, before the first write:
  // SQLite switches the file to WAL mode here (it changes the file's header, so never before).
  virtual void ready_for_writers() {}
};

// Commits at the end, rolls back when left by an exception (or never committed).
class transaction {
 public:
  explicit transaction(database& db) : db_(db) { db_.begin_write(); }
  transaction(const transaction&) = delete;
  transaction& operator=(const transaction&) = delete;
  ~transaction();
  void commit();

 private:
  database& db_;
  bool done_ = false;
};

// The backends. Each throws store_unusable when the database cannot be opened or reached.
// SQLite: `path` must be a regular file or missing (then created when `may_create`); store.cpp has
// looked at it first.
std::unique_ptr<database> open_sqlite(const std::filesystem::path& path, bool may_create);
std::unique_ptr<database> open_postgres(const std::string& url);

// A URL without its password ("postgresql://ci:***@db/perf").
std::string url_without_password(std::string_view url);

}  // namespace harness::store
