// The PostgreSQL backend, through libpq (Debian's libpq-dev): the store a fleet of runners shares.
// Plain libpq rather than libpqxx 6.4: the store needs a handful of calls (connect, a
// parameterised statement, its rows as text), which libpq gives in C with no exceptions of its
// own to translate and no second library for the .deb to depend on; libpqxx would wrap the same
// calls in its own error types.
#include <fmt/format.h>
#include <libpq-fe.h>

#include <charconv>
#include <cstdlib>
#include <memory>

#include "store/database.hpp"
#include "store/store.hpp"

namespace harness::store {
namespace {

// Type oids of the columns the schema uses (PostgreSQL's catalog/pg_type.dat; stable across
// versions): read as numbers, everything else as text.
constexpr Oid kInt8 = 20;
constexpr Oid kInt2 = 21;
constexpr Oid kInt4 = 23;
constexpr Oid kFloat4 = 700;
constexpr Oid kFloat8 = 701;
constexpr Oid kNumeric = 1700;

// How long connecting may take when the URL does not say (connect_timeout): a server that is
// down answers at once; a host that drops packets would otherwise hold the run for minutes.
constexpr const char* kConnectTimeoutSeconds = "10";

struct result_deleter {
  void operator()(PGresult* r) const { PQclear(r); }
};
using result_ptr = std::unique_ptr<PGresult, result_deleter>;

std::string trimmed(const char* message) {
  std::string s = message ? message : "";
  while (!s.empty() && (s.back() == '\n' || s.back() == ' '))
    s.pop_back();
  for (char& c : s) {
    if (c == '\n') c = ' ';
  }
  return s;
}

// Notices ("relation already exists, skipping") are not the user's business.
void quiet(void*, const char*) {}

class postgres_database final : public database {
 public:
  postgres_database(PGconn* conn, std::string url) : conn_(conn), where_(std::move(url)) {}
  ~postgres_database() override { PQfinish(conn_); }
  postgres_database(const postgres_database&) = delete;
  postgres_database& operator=(const postgres_database&) = delete;

  std::string where() const override { return where_; }

  void execute(const std::string& sql) override { check(result_ptr(PQexec(conn_, sql.c_str()))); }

  std::vector<row> query(const std::string& sql, const std::vector<value>& params) override {
    std::vector<std::string> texts(params.size());
    std::vector<const char*> pointers(params.size(), nullptr);
    for (std::size_t i = 0; i < params.size(); ++i) {
      const value& v = params[i];
      if (std::holds_alternative<std::monostate>(v)) continue;
      if (const auto* n = std::get_if<std::int64_t>(&v)) {
        texts[i] = std::to_string(*n);
      } else if (const auto* d = std::get_if<double>(&v)) {
        texts[i] = fmt::format("{}", *d);  // the shortest text that reads back exactly
      } else {
        texts[i] = std::get<std::string>(v);
      }
      pointers[i] = texts[i].c_str();
    }
    const result_ptr result(PQexecParams(conn_, sql.c_str(), static_cast<int>(params.size()),
                                         nullptr, pointers.data(), nullptr, nullptr, 0));
    check(result);
    std::vector<row> rows;
    const int columns = PQnfields(result.get());
    for (int r = 0; r < PQntuples(result.get()); ++r) {
      row out;
      for (int c = 0; c < columns; ++c)
        out.push_back(column(result.get(), r, c));
      rows.push_back(std::move(out));
    }
    return rows;
  }

  void begin_write() override { execute("BEGIN"); }

  void lock(std::string_view key) override {
    query("SELECT pg_advisory_xact_lock(hashtext($1))", {std::string(key)});
  }

  bool has_table(std::string_view name) override {
    return !query(
                "SELECT 1 FROM pg_catalog.pg_tables WHERE schemaname = current_schema() AND "
                "tablename = $1",
                {std::string(name)})
                .empty();
  }
  bool has_any_table() override {
    return !query("SELECT 1 FROM pg_catalog.pg_tables WHERE schemaname = current_schema()", {})
                .empty();
  }

 private:
  static value column(const PGresult* result, int r, int c) {
    if (PQgetisnull(result, r, c)) return {};
    const char* text = PQgetvalue(result, r, c);
    const std::size_t size = static_cast<std::size_t>(PQgetlength(result, r, c));
    switch (PQftype(result, c)) {
      case kInt2:
      case kInt4:
      case kInt8: {
        std::int64_t n = 0;
        std::from_chars(text, text + size, n);
        return n;
      }
      case kFloat4:
      case kFloat8:
      case kNumeric:
        return std::strtod(text, nullptr);  // also "NaN", "Infinity"
      default:
        return std::string(text, size);
    }
  }

  void check(const result_ptr& result) const {
    const ExecStatusType status = result ? PQresultStatus(result.get()) : PGRES_FATAL_ERROR;
    if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK) return;
    // A connection lost mid-run (the server stopped) says so here.
    const std::string why =
        trimmed(result ? PQresultErrorMessage(result.get()) : PQerrorMessage(conn_));
    throw store_failed(
        fmt::format("{}: {}", where_, why.empty() ? trimmed(PQerrorMessage(conn_)) : why));
  }

  PGconn* conn_;
  std::string where_;
};

}  // namespace

std::unique_ptr<database> open_postgres(const std::string& url) {
  // The URL's own settings win: connect_timeout and application_name come first, the URL
  // (expanded) after them.
  const char* keys[] = {"connect_timeout", "application_name", "dbname", nullptr};
  const char* values[] = {kConnectTimeoutSeconds, "harness", url.c_str(), nullptr};
  PGconn* conn = PQconnectdbParams(keys, values, 1);
  const std::string where = url_without_password(url);
  if (conn == nullptr) throw store_unusable(fmt::format("{}: out of memory connecting", where));
  if (PQstatus(conn) != CONNECTION_OK) {
    const std::string why = trimmed(PQerrorMessage(conn));
    PQfinish(conn);
    throw store_unusable(fmt::format("{}: cannot connect: {}", where, why));
  }
  PQsetNoticeProcessor(conn, quiet, nullptr);
  return std::make_unique<postgres_database>(conn, where);
}

}  // namespace harness::store
