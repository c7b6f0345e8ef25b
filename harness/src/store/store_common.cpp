// What every build of the store layer has, with or without a database behind it: a machine's
// key, where the default store lies, what a URL is, and reading a column's value.
#include <fmt/format.h>

#include <cstdlib>

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

std::int64_t integer_of(const value& v) {
  if (const auto* n = std::get_if<std::int64_t>(&v)) return *n;
  if (const auto* d = std::get_if<double>(&v)) return static_cast<std::int64_t>(*d);
  if (const auto* s = std::get_if<std::string>(&v)) return std::strtoll(s->c_str(), nullptr, 10);
  return 0;
}

std::optional<std::int64_t> optional_integer_of(const value& v) {
  if (std::holds_alternative<std::monostate>(v)) return std::nullopt;
  return integer_of(v);
}

std::optional<double> real_of(const value& v) {
  if (const auto* d = std::get_if<double>(&v)) return *d;
  if (const auto* n = std::get_if<std::int64_t>(&v)) return static_cast<double>(*n);
  if (const auto* s = std::get_if<std::string>(&v)) return std::strtod(s->c_str(), nullptr);
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
