// Reading a JSON document someone may have edited (a report given to `compare` or `report`, the
// history file): every value taken is checked for its type, and a refusal is a usage_error naming
// the file and where the value lies in it, as in
//
//   r.json: benchmarks[3].real_time: expected a number, got a string
//
// A json_field is a value of the document and its way from the root. A field made from another
// keeps a pointer to it, so a field is a named variable (or a loop's element) while its children
// are in use: at() and find() refuse a temporary (`doc.at("a").at("b")` does not compile). The
// path's text is made only when a value is refused, so reading a million rows costs no string.
// Internal to the harness.
#pragma once

#include <fmt/format.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

#include "harness/errors.hpp"

namespace harness {

// "a string", "an object", "null": what a JSON value is, for "got ...".
template <class Json>
std::string json_kind(const Json& value) {
  if (value.is_null()) return "null";
  if (value.is_object()) return "an object";
  if (value.is_array()) return "an array";
  if (value.is_string()) return "a string";
  if (value.is_boolean()) return value.template get<bool>() ? "true" : "false";
  if (value.is_number()) return fmt::format("the number {}", value.dump());
  return fmt::format("a {}", value.type_name());
}

// nlohmann's message without its "[json.exception.parse_error.101] " prefix: "parse error at line
// 1, column 2: syntax error while parsing value - invalid literal; last read: 'n'".
inline std::string json_error_text(const std::exception& e) {
  std::string_view text = e.what();
  if (text.starts_with("[json.exception.")) {
    if (const auto end = text.find("] "); end != std::string_view::npos)
      text.remove_prefix(end + 2);
  }
  return std::string(text);
}

template <class Json>
class json_field {
 public:
  // The document itself, read from `source` (the file's name, for messages); or, with `place`, a
  // value taken from a document still being parsed, at that place in it ("benchmarks[7]"). All
  // three must outlive the field and every field made from it.
  json_field(const Json& document, const std::string& source, std::string_view place = {}) noexcept
      : value_(&document), source_(&source), key_(place) {}

  const Json& json() const noexcept { return *value_; }

  // Where the value lies: "harness.workloads[2].phases[0].batch"; empty for the document.
  std::string path() const {
    if (parent_ == nullptr) return std::string(key_);
    std::string above = parent_->path();
    if (indexed_) return fmt::format("{}[{}]", above, index_);
    return above.empty() ? std::string(key_) : fmt::format("{}.{}", above, key_);
  }

  // Throws usage_error "SOURCE: PATH: WHY".
  [[noreturn]] void refuse(std::string_view why) const {
    const std::string where = path();
    throw usage_error(where.empty() ? fmt::format("{}: {}", *source_, why)
                                    : fmt::format("{}: {}: {}", *source_, where, why));
  }

  // The member `key` of this object: refused when this is not an object or has no such member.
  // `key` must outlive the field made (a string literal).
  json_field at(std::string_view key) const& {
    const Json& object = this->object();
    const auto found = object.find(key);
    if (found == object.end()) json_field(*value_, *this, key).refuse("missing");
    return json_field(*found, *this, key);
  }
  // A member that may be left out: nullopt when it is missing or null (the writers' "not
  // measured", "none"); anything else is the field, whose reads check its type.
  std::optional<json_field> find(std::string_view key) const& {
    const Json& object = this->object();
    const auto found = object.find(key);
    if (found == object.end() || found->is_null()) return std::nullopt;
    return json_field(*found, *this, key);
  }
  json_field at(std::string_view) const&& = delete;
  std::optional<json_field> find(std::string_view) const&& = delete;

  // This value as an object, an array: refused otherwise.
  const Json& object() const {
    if (!value_->is_object()) expected("an object");
    return *value_;
  }
  const Json& array() const {
    if (!value_->is_array()) expected("an array");
    return *value_;
  }
  // Element `i` of this array: refused when this is not an array or is shorter.
  json_field element(std::size_t i) const& {
    if (i >= array().size())
      json_field(*value_, *this, i)
          .refuse(fmt::format("missing: the array has {}", array().size()));
    return json_field((*value_)[i], *this, i);
  }
  json_field element(std::size_t) const&& = delete;
  // Calls f(element) for each element of this array, element a json_field.
  template <class F>
  void each(F&& f) const& {
    std::size_t i = 0;
    for (const Json& element : array())
      f(json_field(element, *this, i++));
  }

  // This value as a number, a whole number of 0 or more, a string, a boolean: refused otherwise
  // ("expected a number, got a string").
  double number() const {
    if (!value_->is_number()) expected("a number");
    // The parser refuses what a double cannot hold (1e400), so every number read is finite.
    return value_->template get<double>();
  }
  std::uint64_t count() const {
    if (value_->is_number_unsigned()) return value_->template get<std::uint64_t>();
    if (value_->is_number_float()) {
      // 2.0 as a Python script may write it; not 2.5, -1 or 1e30.
      const double x = value_->template get<double>();
      if (x >= 0 && x < 0x1p64 && std::floor(x) == x) return static_cast<std::uint64_t>(x);
    }
    expected("a whole number of 0 or more");
  }
  std::int64_t integer() const {
    if (value_->is_number_unsigned() &&
        value_->template get<std::uint64_t>() <=
            static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
      return value_->template get<std::int64_t>();
    }
    if (value_->is_number_integer() && !value_->is_number_unsigned())
      return value_->template get<std::int64_t>();
    if (value_->is_number_float()) {
      const double x = value_->template get<double>();
      if (x >= -0x1p63 && x < 0x1p63 && std::floor(x) == x) return static_cast<std::int64_t>(x);
    }
    expected("a whole number");
  }
  std::string text() const {
    if (!value_->is_string()) expected("a string");
    return value_->template get<std::string>();
  }
  bool flag() const {
    if (!value_->is_boolean()) expected("true or false");
    return value_->template get<bool>();
  }

  // Refuses the value: "expected WHAT, got a string".
  [[noreturn]] void expected(std::string_view what) const {
    refuse(fmt::format("expected {}, got {}", what, json_kind(*value_)));
  }

 private:
  json_field(const Json& value, const json_field& parent, std::string_view key) noexcept
      : value_(&value), source_(parent.source_), parent_(&parent), key_(key) {}
  json_field(const Json& value, const json_field& parent, std::size_t index) noexcept
      : value_(&value), source_(parent.source_), parent_(&parent), index_(index), indexed_(true) {}

  const Json* value_;
  const std::string* source_;
  const json_field* parent_ = nullptr;
  std::string_view key_;
  std::size_t index_ = 0;
  bool indexed_ = false;
};

}  // namespace harness
