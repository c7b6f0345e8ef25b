// What every build of the store layer has, with or without a database behind it: a machine's
// key, where the default store lies, what a URL is, and reading a column's value.
#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <string_view>

#include "store/database.hpp"
#include "store/store.hpp"

namespace harness::store {

std::string machine_identity::key() const {
  return fmt::format("{} | {} | {} | {}", cpu_model.empty() ? "unknown CPU" : cpu_model,
                     tsc_hz > 0 ? fmt::format("TSC {:.0f} MHz", tsc_hz / 1e6) : "no TSC",
                     kernel.empty() ? "unknown kernel" : kernel,
                     host.empty() ? "unknown host" : host);
}

std::string text_of(const value& v) {
  if (const auto* s = std::get_if<std::string>(&v)) return *s;
  if (const auto* n = std::get_if<std::int64_t>(&v)) return std::to_string(*n);
  if (const auto* d = std::get_if<double>(&v)) return fmt::format("{}", *d);
  return {};
}

std::optional<std::string> optional_text_of(const value& v) {
  if (std::holds_alternative<std::monostate>(v)) return std::nullopt;
  return text_of(v);
}

namespace {
// A column's value that is not what its column holds: a store edited by hand or damaged. The
// value and the column are named, and nothing is read on from it.
[[noreturn]] void not_a(std::string_view what, const value& v, std::string_view column) {
  throw store_failed(
      fmt::format("column {} holds '{}', which is not {}", column, text_of(v), what));
}
}  // namespace

std::int64_t integer_of(const value& v, std::string_view column) {
  if (const auto* n = std::get_if<std::int64_t>(&v)) return *n;
  if (const auto* d = std::get_if<double>(&v)) {
    // 2^63 itself is out of range; every double below it in magnitude that is whole converts.
    if (std::trunc(*d) == *d && std::fabs(*d) < 0x1p63) return static_cast<std::int64_t>(*d);
  } else if (const auto* s = std::get_if<std::string>(&v)) {
    std::int64_t n = 0;
    const char* end = s->data() + s->size();
    const auto [stop, error] = std::from_chars(s->data(), end, n);
    if (error == std::errc() && stop == end && !s->empty()) return n;
  }
  not_a("an integer", v, column);
}

std::uint64_t count_of(const value& v, std::string_view column) {
  const std::int64_t n = integer_of(v, column);
  if (n < 0) not_a("a count (0 or more)", v, column);
  return static_cast<std::uint64_t>(n);
}

std::optional<std::int64_t> optional_integer_of(const value& v, std::string_view column) {
  if (std::holds_alternative<std::monostate>(v)) return std::nullopt;
  return integer_of(v, column);
}

std::optional<double> real_of(const value& v, std::string_view column) {
  if (const auto* d = std::get_if<double>(&v)) return *d;
  if (const auto* n = std::get_if<std::int64_t>(&v)) return static_cast<double>(*n);
  if (const auto* s = std::get_if<std::string>(&v)) {
    // strtod, as PostgreSQL's own text for NaN and Infinity reads with it; the whole text.
    char* stop = nullptr;
    const double d = std::strtod(s->c_str(), &stop);
    if (s->empty() || stop != s->c_str() + s->size()) not_a("a number", v, column);
    return d;
  }
  return std::nullopt;
}

bool is_database_url(std::string_view where) {
  return where.starts_with("postgresql://") || where.starts_with("postgres://");
}

std::string url_without_password(std::string_view url) {
  const std::size_t scheme = url.find("://");
  const std::size_t at = url.find('@');
  if (scheme == std::string_view::npos || at == std::string_view::npos || at < scheme) {
    return std::string(url);
  }
  const std::size_t colon = url.find(':', scheme + 3);
  if (colon == std::string_view::npos || colon > at) return std::string(url);
  return fmt::format("{}:***{}", url.substr(0, colon), url.substr(at));
}

std::filesystem::path default_store_path(const std::filesystem::path& state_directory) {
  return state_directory.empty() ? state_directory : state_directory / "harness" / "results.db";
}

}  // namespace harness::store
