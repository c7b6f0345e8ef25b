// Format templates: the small language in which users say how a measured line reads, shared by
// profile() and `harness run --line`, e.g. "{runs} runs in {time} s, {frequency} calls/s".
//
// A template is literal text with fields in braces. A field names a token of a token_set, either by
// name ({runs}) or by position ({0}), and may carry a format spec after a colon ({1:.6f},
// {runs:>8}). A named field without a spec prints its value for people, in the token's human_style
// ("1 234 567", "2.50"); a field with a spec, and every positional field without one, prints the
// plain value as fmt would. "{{" and "}}" print literal braces.
//
// Caveats:
// - The spec language is a deliberately small subset of fmt's: [[fill]align][sign][#][0][width]
//   [.precision][type], with an ASCII fill, no nested {} width, no locale 'L', and only the types
//   that suit the token's kind. Every spec accepted here renders without error (the fuzz target
//   checks this), so a template is rejected once, when parsed, never half-way through a run.
// - A value may be undefined (the frequency of zero runs, or of zero elapsed ticks) and a real
// value
//   may not be finite: either prints "n/a", padded to the spec's width, never "inf" or "nan".
// - When the template is a string literal, checked_template rejects it at compile time, as fmt's
//   format_string does; the compiler's diagnostic then names one of the functions in
//   detail::compile_time_diagnostics (e.g. template_names_an_unknown_token).
#pragma once

#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "harness/enum_names.hpp"
#include "harness/errors.hpp"

namespace harness {

// What a token's value is; decides which specs it accepts.
enum class value_kind : std::uint8_t {
  integer,  // std::int64_t or std::uint64_t
  real,     // double; undefined or non-finite prints "n/a"
  text,     // a string
};
// Its identifier and, for messages, what a value of it is ("for an integer: use one of ...").
inline constexpr enum_table<value_kind, value_kind::text> kValueKindNames{{
    {value_kind::integer, "integer", "an integer"},
    {value_kind::real, "real", "a real number"},
    {value_kind::text, "text"},
}};
constexpr const auto& enum_names(value_kind) noexcept {
  return kValueKindNames;
}

// How a named field without a spec prints its value.
enum class human_style : std::uint8_t {
  plain,    // as fmt prints it by default: 1234567, 0.25, text
  grouped,  // integers, and reals rounded to integers, with a space every three digits: "1 234 567"
  two_decimals,  // two decimals, or three significant digits when that shows more: "2.50",
                 // "0.00123", never "0.00" for a value that is not 0
  duration,  // a number of seconds in the unit (ns, µs, ms, s) that puts it in [1, 1000): "12.3 µs"
  percent,    // a fraction as a percentage with two decimals: 0.0125 prints "1.25%"
  item_rate,  // per second, with an SI prefix and four significant digits: "12.35 M items/s"
  byte_rate,  // bytes per second, with a binary prefix: "87.08 GiB/s" (1 GiB = 2^30 bytes)
};

// A value as a named field without a spec prints it: human_text(1.25e-5, human_style::duration)
// is "12.5 µs"; "n/a" when it is not finite.
std::string human_text(double value, human_style style);
// Appends the same to `out`.
void append_human_real(std::string& out, double value, human_style style);

struct named_token {
  std::string_view name;  // as written between the braces
  std::size_t slot;       // index of the value it prints in the span given to render()
  human_style style;
};

// The tokens a template may use. Define one as `inline constexpr` over constexpr arrays so that
// checked_template can take it as a template argument.
struct token_set {
  std::span<const value_kind> slots;        // the kind of each value render() receives
  std::span<const named_token> named;       // {name} tokens
  std::span<const std::size_t> positional;  // {i} prints slot positional[i], as a plain value
};

// `first` followed by `rest`: a token table that extends another (the --line tokens start with
// profile()'s) is written as the other plus what it adds.
template <typename T, std::size_t N, std::size_t M>
constexpr std::array<T, N + M> join_tables(const std::array<T, N>& first,
                                           const std::array<T, M>& rest) {
  std::array<T, N + M> out{};
  for (std::size_t i = 0; i < N; ++i)
    out[i] = first[i];
  for (std::size_t i = 0; i < M; ++i)
    out[N + i] = rest[i];
  return out;
}

// What is wrong with a template; the position says where.
enum class template_errc : std::uint8_t {
  ok,
  unclosed_field,         // '{' with no '}' after it
  unmatched_close,        // '}' that closes no field and is not "}}"
  empty_field,            // "{}" or "{:...}": no token named
  brace_in_field,         // '{' inside a field (nested fields, dynamic widths)
  unknown_token,          // a name that is not in the token set
  index_out_of_range,     // {7} when there are fewer positional tokens
  bad_fill,               // a fill character that is not printable ASCII
  sign_not_allowed,       // '+', '-' or ' ' on a text token
  alternate_not_allowed,  // '#' on a text token
  zero_not_allowed,       // '0' padding on a text token
  precision_not_allowed,  // ".N" on an integer token
  missing_precision,      // '.' not followed by digits
  width_too_large,        // width above format_limits::max_width
  precision_too_large,    // precision above format_limits::max_precision
  bad_type,               // a presentation type unknown or unsuited to the token's kind
  trailing_characters,    // characters after the presentation type
};
// Its identifier and the start of template_error's message for it (what describe_problem adds
// after it: the token, the valid indexes, the limit, the types that suit).
inline constexpr enum_table<template_errc, template_errc::trailing_characters> kTemplateErrcNames{{
    {template_errc::ok, "ok", "no problem"},
    {template_errc::unclosed_field, "unclosed_field",
     "'{' opens a field that is never closed (write {{ for a literal brace)"},
    {template_errc::unmatched_close, "unmatched_close",
     "'}' closes no field (write }} for a literal brace)"},
    {template_errc::empty_field, "empty_field", "empty field: name a token between the braces"},
    {template_errc::brace_in_field, "brace_in_field",
     "'{' inside a field (nested fields and dynamic widths are not supported)"},
    {template_errc::unknown_token, "unknown_token", "unknown token"},
    {template_errc::index_out_of_range, "index_out_of_range", "positional token out of range"},
    {template_errc::bad_fill, "bad_fill", "the fill character must be printable ASCII"},
    {template_errc::sign_not_allowed, "sign_not_allowed",
     "a sign ('+', '-', ' ') applies to numbers, not to text"},
    {template_errc::alternate_not_allowed, "alternate_not_allowed",
     "'#' applies to numbers, not to text"},
    {template_errc::zero_not_allowed, "zero_not_allowed",
     "'0' padding applies to numbers, not to text"},
    {template_errc::precision_not_allowed, "precision_not_allowed",
     "a precision ('.N') applies to real numbers and text, not to integers"},
    {template_errc::missing_precision, "missing_precision",
     "'.' must be followed by the number of digits"},
    {template_errc::width_too_large, "width_too_large", "width too large"},
    {template_errc::precision_too_large, "precision_too_large", "precision too large"},
    {template_errc::bad_type, "bad_type", "bad presentation type"},
    {template_errc::trailing_characters, "trailing_characters",
     "unexpected characters at the end of the format spec"},
}};
constexpr const auto& enum_names(template_errc) noexcept {
  return kTemplateErrcNames;
}

struct template_problem {
  template_errc code = template_errc::ok;
  std::size_t position = 0;  // byte offset into the template
};

// Bounds on specs.
struct format_limits {
  // Wider than any terminal line, yet small enough that no template can make a line of megabytes
  // or bring width arithmetic near overflow.
  static constexpr unsigned max_width = 255;
  // 17 significant digits already round-trip a double, and 64 decimals show one in fixed notation
  // down to 1e-47; more would only lengthen lines.
  static constexpr unsigned max_precision = 64;
};

// A bad template: a user's mistake. what() quotes the template, marks the position with a caret
// line and lists the valid tokens.
class template_error : public usage_error {
 public:
  template_error(const std::string& message, template_errc code, std::size_t position)
      : usage_error(message), code_(code), position_(position) {}
  template_errc code() const noexcept { return code_; }
  std::size_t position() const noexcept { return position_; }

 private:
  template_errc code_;
  std::size_t position_;
};

// The valid tokens, for messages and --help: "{runs} {time} ... {0} {1} {2}".
std::string describe_tokens(const token_set& tokens);

// The full template_error message for `problem` in `text`.
std::string describe_problem(std::string_view text, const token_set& tokens,
                             template_problem problem);

namespace detail {
template <typename T>
concept integer_value = std::integral<T> && !std::same_as<T, bool>;
}  // namespace detail

// One value handed to render(). Holds a view for text: the string must outlive the call.
class template_value {
 public:
  // Undefined: prints "n/a".
  constexpr template_value() noexcept = default;
  template <detail::integer_value T>
  constexpr template_value(T value) noexcept {  // NOLINT: implicit on purpose, values are listed
    if constexpr (std::is_signed_v<T>) {
      value_ = static_cast<std::int64_t>(value);
    } else {
      value_ = static_cast<std::uint64_t>(value);
    }
  }
  constexpr template_value(double value) noexcept : value_(value) {}
  constexpr template_value(std::optional<double> value) noexcept {
    if (value) value_ = *value;
  }
  constexpr template_value(std::string_view value) noexcept : value_(value) {}
  constexpr template_value(const char* value) noexcept : value_(std::string_view(value)) {}
  template_value(const std::string& value) noexcept : value_(std::string_view(value)) {}

  using storage =
      std::variant<std::monostate, std::int64_t, std::uint64_t, double, std::string_view>;
  constexpr const storage& get() const noexcept { return value_; }

 private:
  storage value_;
};

// A template parsed once against a token set, rendered many times.
class format_template {
 public:
  // Throws template_error when `text` is not a valid template for `tokens`. Keeps what it needs of
  // `tokens`, which need not outlive it.
  format_template(std::string_view text, const token_set& tokens);

  // Appends the rendered line to `out`. values[i] is the value of slot i of the token set; too
  // few or too many values, or a value whose type does not suit its slot, is a bug in the caller:
  // a failed HARNESS_CHECK ends the process saying which (docs/errors.md; an integer is accepted
  // for a real slot).
  void render_to(std::string& out, std::span<const template_value> values) const;
  std::string render(std::span<const template_value> values) const;

  // The template as given.
  const std::string& text() const noexcept { return text_; }
  // Whether any field prints slot `slot`, so callers can skip computing values nobody prints.
  bool uses(std::size_t slot) const noexcept;

 private:
  struct piece {
    std::string literal;  // literal text, when slot == no_slot
    std::size_t slot = no_slot;
    value_kind kind = value_kind::text;
    human_style style = human_style::plain;
    bool human = false;       // a named field without a spec
    std::string spec_format;  // "{:<spec>}" for fmt
    // The spec without its sign, for an unsigned value above INT64_MAX where the compiler has no
    // 128-bit integer: fmt refuses a sign on an unsigned argument.
    std::string unsigned_spec_format;
    std::string na_format;  // "{:<fill><align><width>}" for "n/a"; empty: no padding
  };
  static constexpr std::size_t no_slot = static_cast<std::size_t>(-1);

  void render_field(std::string& out, const piece& field, const template_value& value) const;

  std::string text_;
  std::size_t slot_count_ = 0;
  std::vector<piece> pieces_;
};

}  // namespace harness

// The parser's internals, which checked_template's compile-time check needs.
#include "harness/detail/format_template_parser.hpp"

namespace harness {

// A template text that is only known at run time; checked when used. Like fmt::runtime().
struct runtime_template {
  std::string_view text;
};
constexpr runtime_template runtime_format(std::string_view text) noexcept {
  return {text};
}

// A template for the token set `Tokens`, checked at compile time when built from a constant
// string (a literal), or at run time, by parse(), when built from runtime_format(text).
template <const token_set& Tokens>
class checked_template {
 public:
  template <typename S>
  requires std::convertible_to<const S&, std::string_view>
  consteval checked_template(const S& text)  // NOLINT: implicit, as fmt's format_string
      : text_(text) {
    const template_problem problem = detail::check_template(text_, Tokens);
    if (problem.code != template_errc::ok) detail::fail_at_compile_time(problem.code);
  }
  constexpr checked_template(runtime_template text) noexcept : text_(text.text) {}

  constexpr std::string_view text() const noexcept { return text_; }
  // Throws template_error for a bad runtime_format text; a literal was checked already.
  format_template parse() const { return format_template(text_, Tokens); }

 private:
  std::string_view text_;
};

}  // namespace harness
