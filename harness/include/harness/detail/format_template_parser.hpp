// The parser of format templates (format_template.hpp), in constexpr code so that a template
// given as a string literal is checked at compile time.
//
// Not part of the public API: names here may change without notice. It is a header only because
// checked_template's consteval constructor must see the parser; include format_template.hpp,
// which includes this after the types it needs.
#pragma once

#include <cstddef>
#include <string_view>

#include "harness/format_template.hpp"

namespace harness {

namespace detail {

// A parsed spec: the text between ':' and '}' and the parts "n/a" padding reuses.
struct field_spec {
  bool present = false;
  std::string_view text;  // without the ':'
  char fill = ' ';
  char align = '\0';  // '<', '>', '^' or '\0' when not given
  unsigned width = 0;
  std::size_t sign_offset = std::string_view::npos;  // where the sign is in `text`, if any
};

constexpr bool is_digit(char c) noexcept {
  return c >= '0' && c <= '9';
}
constexpr bool is_align(char c) noexcept {
  return c == '<' || c == '>' || c == '^';
}

constexpr bool type_suits(char type, value_kind kind) noexcept {
  constexpr std::string_view integer_types = "dbBoxX";
  constexpr std::string_view real_types = "aAeEfFgG";
  switch (kind) {
    case value_kind::integer:
      return integer_types.find(type) != std::string_view::npos;
    case value_kind::real:
      return real_types.find(type) != std::string_view::npos;
    case value_kind::text:
      return type == 's';
  }
  return false;
}

// Reads digits at text[i...] into `value`; false when the number exceeds `limit`.
// fmt refuses a width or precision written with more than 9 digits ("number is too big") even
// when leading zeros keep its value small, so such a spec is refused here, at parse time.
inline constexpr std::size_t kMaxSpecDigits = 9;

constexpr bool read_number(std::string_view text, std::size_t& i, unsigned limit,
                           unsigned& value) noexcept {
  value = 0;
  const std::size_t first = i;
  for (; i < text.size() && is_digit(text[i]); ++i) {
    value = value * 10 + static_cast<unsigned>(text[i] - '0');
    if (value > limit || i - first >= kMaxSpecDigits) return false;
  }
  return true;
}

// Checks spec = text[begin, end) for a value of `kind`.
constexpr template_problem parse_spec(std::string_view text, std::size_t begin, std::size_t end,
                                      value_kind kind, field_spec& spec) noexcept {
  spec.present = true;
  spec.text = text.substr(begin, end - begin);
  std::size_t i = begin;
  if (end - i >= 2 && is_align(text[i + 1])) {
    const char fill = text[i];
    if (fill < ' ' || fill > '~') return {template_errc::bad_fill, i};
    spec.fill = fill;
    spec.align = text[i + 1];
    i += 2;
  } else if (i < end && is_align(text[i])) {
    spec.align = text[i];
    ++i;
  }
  if (i < end && (text[i] == '+' || text[i] == '-' || text[i] == ' ')) {
    if (kind == value_kind::text) return {template_errc::sign_not_allowed, i};
    spec.sign_offset = i - begin;
    ++i;
  }
  if (i < end && text[i] == '#') {
    if (kind == value_kind::text) return {template_errc::alternate_not_allowed, i};
    ++i;
  }
  if (i < end && text[i] == '0') {
    if (kind == value_kind::text) return {template_errc::zero_not_allowed, i};
    ++i;
  }
  const std::size_t width_begin = i;
  if (!read_number(text.substr(0, end), i, format_limits::max_width, spec.width)) {
    return {template_errc::width_too_large, width_begin};
  }
  if (i < end && text[i] == '.') {
    if (kind == value_kind::integer) return {template_errc::precision_not_allowed, i};
    ++i;
    if (i == end || !is_digit(text[i])) return {template_errc::missing_precision, i};
    const std::size_t precision_begin = i;
    unsigned precision = 0;
    if (!read_number(text.substr(0, end), i, format_limits::max_precision, precision)) {
      return {template_errc::precision_too_large, precision_begin};
    }
  }
  if (i < end) {
    if (!type_suits(text[i], kind)) return {template_errc::bad_type, i};
    ++i;
  }
  if (i < end) return {template_errc::trailing_characters, i};
  return {};
}

// Parses the field whose '{' is at text[open]; on success `next` is the index after its '}'.
template <typename Handler>
constexpr template_problem parse_field(std::string_view text, std::size_t open,
                                       const token_set& tokens, Handler& handler,
                                       std::size_t& next) {
  const std::size_t id_begin = open + 1;
  std::size_t i = id_begin;
  while (i < text.size() && text[i] != ':' && text[i] != '}' && text[i] != '{')
    ++i;
  if (i == text.size()) return {template_errc::unclosed_field, open};
  if (text[i] == '{') return {template_errc::brace_in_field, i};
  const std::string_view id = text.substr(id_begin, i - id_begin);
  if (id.empty()) return {template_errc::empty_field, open};

  std::size_t slot = 0;
  const named_token* named = nullptr;
  bool all_digits = true;
  for (const char c : id)
    all_digits = all_digits && is_digit(c);
  if (all_digits) {
    // Three digits bound the number before it can overflow; no token set has 1000 positions.
    std::size_t index = 0;
    for (const char c : id)
      index = index * 10 + static_cast<std::size_t>(c - '0');
    if (id.size() > 3 || index >= tokens.positional.size()) {
      return {template_errc::index_out_of_range, id_begin};
    }
    slot = tokens.positional[index];
  } else {
    for (const named_token& token : tokens.named) {
      if (token.name == id) named = &token;
    }
    if (named == nullptr) return {template_errc::unknown_token, id_begin};
    slot = named->slot;
  }

  field_spec spec;
  if (text[i] == ':') {
    const std::size_t spec_begin = i + 1;
    std::size_t close = spec_begin;
    while (close < text.size() && text[close] != '}' && text[close] != '{')
      ++close;
    if (close == text.size()) return {template_errc::unclosed_field, open};
    if (text[close] == '{') return {template_errc::brace_in_field, close};
    const template_problem problem = parse_spec(text, spec_begin, close, tokens.slots[slot], spec);
    if (problem.code != template_errc::ok) return problem;
    i = close;
  }
  handler.field(slot, named, spec);
  next = i + 1;
  return {};
}

// Walks `text`, calling handler.literal(string_view) and handler.field(slot, named_token*,
// field_spec) in order; stops at the first problem. Usable at compile time.
template <typename Handler>
constexpr template_problem parse_template(std::string_view text, const token_set& tokens,
                                          Handler& handler) {
  std::size_t literal_begin = 0;
  std::size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    if (c != '{' && c != '}') {
      ++i;
      continue;
    }
    const bool doubled = i + 1 < text.size() && text[i + 1] == c;
    if (doubled) {
      // Keep one brace of the pair as literal text.
      handler.literal(text.substr(literal_begin, i + 1 - literal_begin));
      i += 2;
      literal_begin = i;
      continue;
    }
    if (c == '}') return {template_errc::unmatched_close, i};
    if (i > literal_begin) handler.literal(text.substr(literal_begin, i - literal_begin));
    std::size_t next = 0;
    const template_problem problem = parse_field(text, i, tokens, handler, next);
    if (problem.code != template_errc::ok) return problem;
    i = next;
    literal_begin = i;
  }
  if (i > literal_begin) handler.literal(text.substr(literal_begin, i - literal_begin));
  return {};
}

struct ignore_pieces {
  constexpr void literal(std::string_view) const noexcept {}
  constexpr void field(std::size_t, const named_token*, const field_spec&) const noexcept {}
};

constexpr template_problem check_template(std::string_view text, const token_set& tokens) {
  ignore_pieces ignore;
  return parse_template(text, tokens, ignore);
}

// Deliberately not constexpr: reaching one while checking a template at compile time stops the
// compiler, and its diagnostic names the function, which says what is wrong.
namespace compile_time_diagnostics {
inline void template_has_an_unclosed_brace() {}
inline void template_has_an_unmatched_closing_brace() {}
inline void template_has_an_empty_field() {}
inline void template_has_a_brace_inside_a_field() {}
inline void template_names_an_unknown_token() {}
inline void template_positional_index_out_of_range() {}
inline void template_spec_has_a_bad_fill_character() {}
inline void template_spec_sign_on_text() {}
inline void template_spec_alternate_form_on_text() {}
inline void template_spec_zero_padding_on_text() {}
inline void template_spec_precision_on_integer() {}
inline void template_spec_dot_without_precision() {}
inline void template_spec_width_too_large() {}
inline void template_spec_precision_too_large() {}
inline void template_spec_bad_presentation_type() {}
inline void template_spec_has_trailing_characters() {}
}  // namespace compile_time_diagnostics

consteval void fail_at_compile_time(template_errc code) {
  namespace d = compile_time_diagnostics;
  switch (code) {
    case template_errc::ok:
      break;
    case template_errc::unclosed_field:
      d::template_has_an_unclosed_brace();
      break;
    case template_errc::unmatched_close:
      d::template_has_an_unmatched_closing_brace();
      break;
    case template_errc::empty_field:
      d::template_has_an_empty_field();
      break;
    case template_errc::brace_in_field:
      d::template_has_a_brace_inside_a_field();
      break;
    case template_errc::unknown_token:
      d::template_names_an_unknown_token();
      break;
    case template_errc::index_out_of_range:
      d::template_positional_index_out_of_range();
      break;
    case template_errc::bad_fill:
      d::template_spec_has_a_bad_fill_character();
      break;
    case template_errc::sign_not_allowed:
      d::template_spec_sign_on_text();
      break;
    case template_errc::alternate_not_allowed:
      d::template_spec_alternate_form_on_text();
      break;
    case template_errc::zero_not_allowed:
      d::template_spec_zero_padding_on_text();
      break;
    case template_errc::precision_not_allowed:
      d::template_spec_precision_on_integer();
      break;
    case template_errc::missing_precision:
      d::template_spec_dot_without_precision();
      break;
    case template_errc::width_too_large:
      d::template_spec_width_too_large();
      break;
    case template_errc::precision_too_large:
      d::template_spec_precision_too_large();
      break;
    case template_errc::bad_type:
      d::template_spec_bad_presentation_type();
      break;
    case template_errc::trailing_characters:
      d::template_spec_has_trailing_characters();
      break;
  }
}

}  // namespace detail

}  // namespace harness
