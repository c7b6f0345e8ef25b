// Format templates at run time: building the pieces of a parsed template, rendering values with
// fmt, and the messages of template_error.
//
// Caveat: the caret line under a quoted template counts one column per code point and per escape
// (\n, \t, \xNN), which matches a terminal for ASCII and most of UTF-8, not for wide characters.
#include "harness/format_template.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <iterator>
#include <limits>
#include <type_traits>

#include "base/check.hpp"
#include "base/numbers.hpp"
#include "harness/duration.hpp"

namespace harness {
namespace {

constexpr std::string_view kUndefined = "n/a";

std::string_view types_for(value_kind kind) {
  switch (kind) {
    case value_kind::integer:
      return "d b B o x X";
    case value_kind::real:
      return "a A e E f F g G";
    case value_kind::text:
      return "s";
  }
  return "";
}

// "-1234567" -> "-1 234 567".
std::string group_thousands(std::string_view digits) {
  std::string out;
  std::size_t begin = 0;
  if (!digits.empty() && digits.front() == '-') {
    out += '-';
    begin = 1;
  }
  const std::size_t count = digits.size() - begin;
  for (std::size_t i = 0; i < count; ++i) {
    if (i > 0 && (count - i) % 3 == 0) out += ' ';
    out += digits[begin + i];
  }
  return out;
}

// A rate with the prefix that puts it in [1, base) ("" k M G T P, or "" Ki Mi Gi Ti Pi), about
// four significant digits: "87.08 GiB/s", "12.35 M items/s", "512.0 B/s".
void append_rate(std::string& out, double per_second, bool binary) {
  static constexpr std::string_view kDecimal[] = {"", "k", "M", "G", "T", "P"};
  static constexpr std::string_view kBinary[] = {"", "Ki", "Mi", "Gi", "Ti", "Pi"};
  const double base = binary ? 1024.0 : 1000.0;
  double scaled = per_second;
  std::size_t prefix = 0;
  const auto decimals = [](double v) {
    const double m = std::fabs(v);
    return m < 10 ? 3 : (m < 100 ? 2 : 1);
  };
  // Rounded as printed, so 999.96 k becomes 1.000 M rather than "1000.0 k".
  const auto rounded = [&decimals](double v) {
    const double scale = std::pow(10.0, decimals(v));
    return std::round(v * scale) / scale;
  };
  while (prefix + 1 < std::size(kDecimal) && std::fabs(rounded(scaled)) >= base) {
    scaled /= base;
    ++prefix;
  }
  const std::string_view name = binary ? kBinary[prefix] : kDecimal[prefix];
  if (binary) {
    fmt::format_to(std::back_inserter(out), "{:.{}f} {}B/s", scaled, decimals(scaled), name);
  } else {
    fmt::format_to(std::back_inserter(out), "{:.{}f} {}{}items/s", scaled, decimals(scaled), name,
                   name.empty() ? "" : " ");
  }
}

}  // namespace

void append_human_real(std::string& out, double value, human_style style) {
  switch (style) {
    case human_style::plain:
      fmt::format_to(std::back_inserter(out), "{}", value);
      return;
    case human_style::grouped: {
      std::string rounded = fixed_text(value, 0);
      if (rounded == "-0") rounded = "0";
      out += group_thousands(rounded);
      return;
    }
    case human_style::two_decimals:
      // Below 0.1, two decimals would drop digits a short phase's figure needs.
      out +=
          value == 0 || std::fabs(value) >= 0.1 ? fixed_text(value, 2) : significant_text(value, 3);
      return;
    case human_style::duration:
      // About three significant digits: what a person compares at a glance.
      out += format_seconds(
          value, {duration_format::digits_kind::significant, 3, false, micro_spelling::unicode});
      return;
    case human_style::percent:
      out += percent_text(value, 2);
      return;
    case human_style::item_rate:
      append_rate(out, value, false);
      return;
    case human_style::byte_rate:
      append_rate(out, value, true);
      return;
  }
}

std::string human_text(double value, human_style style) {
  std::string out;
  if (!std::isfinite(value)) return "n/a";
  append_human_real(out, value, style);
  return out;
}

namespace {

template <typename Integer>
void append_human_integer(std::string& out, Integer value, human_style style) {
  switch (style) {
    case human_style::plain:
      fmt::format_to(std::back_inserter(out), "{}", value);
      return;
    case human_style::grouped:
      out += group_thousands(fmt::format("{}", value));
      return;
    default:
      append_human_real(out, static_cast<double>(value), style);
      return;
  }
}

// The id of the field around `position` (the token name or index as written).
std::string_view field_id_at(std::string_view text, std::size_t position) {
  const std::size_t end = text.find_first_of(":{}", position);
  return text.substr(position,
                     end == std::string_view::npos ? text.size() - position : end - position);
}

// The slot whose spec contains `position`: the token opened by the last '{' before it.
std::optional<std::size_t> slot_of_spec_at(std::string_view text, const token_set& tokens,
                                           std::size_t position) {
  const std::size_t open = text.rfind('{', position);
  if (open == std::string_view::npos) return std::nullopt;
  const std::string_view id = field_id_at(text, open + 1);
  for (const named_token& token : tokens.named) {
    if (token.name == id) return token.slot;
  }
  std::size_t index = 0;
  for (const char c : id) {
    if (!detail::is_digit(c) || index > tokens.positional.size()) return std::nullopt;
    index = index * 10 + static_cast<std::size_t>(c - '0');
  }
  if (id.empty() || index >= tokens.positional.size()) return std::nullopt;
  return tokens.positional[index];
}

// `text` on one line, control bytes escaped (\n, \t, \xNN), with the column of every byte.
struct escaped_text {
  std::string line;
  std::vector<std::size_t> columns;  // columns[i]: column of byte i; columns[size]: past the end
};

escaped_text escape(std::string_view text) {
  escaped_text escaped;
  std::size_t column = 0;
  for (const char c : text) {
    escaped.columns.push_back(column);
    const auto byte = static_cast<unsigned char>(c);
    if (c == '\n') {
      escaped.line += "\\n";
      column += 2;
    } else if (c == '\t') {
      escaped.line += "\\t";
      column += 2;
    } else if (byte < 0x20 || byte == 0x7f) {
      escaped.line += fmt::format("\\x{:02x}", byte);
      column += 4;
    } else {
      escaped.line += c;
      // UTF-8 continuation bytes share the column of their lead byte.
      if ((byte & 0xC0) != 0x80) ++column;
    }
  }
  escaped.columns.push_back(column);
  return escaped;
}

}  // namespace

std::string describe_tokens(const token_set& tokens) {
  std::string out;
  for (const named_token& token : tokens.named) {
    if (!out.empty()) out += ' ';
    fmt::format_to(std::back_inserter(out), "{{{}}}", token.name);
  }
  for (std::size_t i = 0; i < tokens.positional.size(); ++i) {
    if (!out.empty()) out += ' ';
    fmt::format_to(std::back_inserter(out), "{{{}}}", i);
  }
  return out;
}

std::string describe_problem(std::string_view text, const token_set& tokens,
                             template_problem problem) {
  std::string summary(to_string(problem.code));
  switch (problem.code) {
    case template_errc::unknown_token:
      summary += fmt::format(" {{{}}}", escape(field_id_at(text, problem.position)).line);
      break;
    case template_errc::index_out_of_range:
      summary += fmt::format(" {{{}}}: ", escape(field_id_at(text, problem.position)).line);
      summary += tokens.positional.empty()
                     ? std::string("there are no positional tokens")
                     : fmt::format("valid indexes are 0 to {}", tokens.positional.size() - 1);
      break;
    case template_errc::width_too_large:
    case template_errc::precision_too_large:
      summary += fmt::format(" (at most {})", problem.code == template_errc::width_too_large
                                                  ? format_limits::max_width
                                                  : format_limits::max_precision);
      break;
    case template_errc::bad_type: {
      const auto slot = slot_of_spec_at(text, tokens, problem.position);
      const auto byte = static_cast<unsigned char>(text[problem.position]);
      // A lone byte of a multibyte character would make the message invalid UTF-8.
      summary += byte >= 0x80 ? fmt::format(" '\\x{:02x}'", byte)
                              : fmt::format(" '{}'", escape(text.substr(problem.position, 1)).line);
      if (slot) {
        const value_kind kind = tokens.slots[*slot];
        summary += fmt::format(" for {}: use one of {}", to_string(kind), types_for(kind));
      }
      break;
    }
    default:
      break;
  }
  const escaped_text quoted = escape(text);
  // One more column for the opening quote.
  const std::size_t column = 1 + quoted.columns[std::min(problem.position, text.size())];
  return fmt::format(
      "bad format template: {} (at offset {})\n  \"{}\"\n  {}^\nvalid tokens: {}; {{{{ and }}}} "
      "print literal braces",
      summary, problem.position, quoted.line, std::string(column, ' '), describe_tokens(tokens));
}

format_template::format_template(std::string_view text, const token_set& tokens)
    : text_(text), slot_count_(tokens.slots.size()) {
  struct builder {
    const token_set& tokens;
    std::vector<piece>& pieces;

    void literal(std::string_view part) {
      if (!pieces.empty() && pieces.back().slot == no_slot) {
        pieces.back().literal += part;
      } else {
        piece p;
        p.literal = std::string(part);
        pieces.push_back(std::move(p));
      }
    }
    void field(std::size_t slot, const named_token* named, const detail::field_spec& spec) {
      piece p;
      p.slot = slot;
      p.kind = tokens.slots[slot];
      p.style = named != nullptr ? named->style : human_style::plain;
      p.human = named != nullptr && !spec.present;
      p.spec_format = fmt::format("{{:{}}}", spec.text);
      p.unsigned_spec_format = p.spec_format;
      if (spec.sign_offset != std::string_view::npos) {
        p.unsigned_spec_format.erase(2 + spec.sign_offset, 1);  // after "{:"
      }
      if (spec.width > 0) {
        // "n/a" keeps the width and alignment of the spec, right-aligned like a number by default.
        p.na_format = fmt::format("{{:{}{}{}}}", spec.fill, spec.align == '\0' ? '>' : spec.align,
                                  spec.width);
      }
      pieces.push_back(std::move(p));
    }
  };
  builder build{tokens, pieces_};
  const template_problem problem = detail::parse_template(text_, tokens, build);
  if (problem.code != template_errc::ok) {
    throw template_error(describe_problem(text_, tokens, problem), problem.code, problem.position);
  }
}

bool format_template::uses(std::size_t slot) const noexcept {
  for (const piece& p : pieces_) {
    if (p.slot == slot) return true;
  }
  return false;
}

std::string format_template::render(std::span<const template_value> values) const {
  std::string out;
  render_to(out, values);
  return out;
}

void format_template::render_to(std::string& out, std::span<const template_value> values) const {
  HARNESS_CHECK(values.size() == slot_count_, "format_template::render: {} values for {} slots",
                values.size(), slot_count_);
  for (const piece& p : pieces_) {
    if (p.slot == no_slot) {
      out += p.literal;
    } else {
      render_field(out, p, values[p.slot]);
    }
  }
}

void format_template::render_field(std::string& out, const piece& field,
                                   const template_value& value) const {
  const auto undefined = [&] {
    if (field.na_format.empty()) {
      out += kUndefined;
    } else {
      fmt::format_to(std::back_inserter(out), fmt::runtime(field.na_format), kUndefined);
    }
  };
  // A value of another kind than its slot's is the caller's bug (format_template.hpp).
  const auto check_kind = [&](value_kind given) {
    HARNESS_CHECK(field.kind == given, "format_template::render: slot {} holds {}, given {}",
                  field.slot, to_string(field.kind), to_string(given));
  };
  const auto with_spec = [&](const auto& v) {
    fmt::format_to(std::back_inserter(out), fmt::runtime(field.spec_format), v);
  };
  const auto real = [&](double v) {
    if (!std::isfinite(v)) return undefined();
    if (field.human) return append_human_real(out, v, field.style);
    with_spec(v);
  };
  const auto integer = [&](auto v) {
    if (field.kind == value_kind::real) return real(static_cast<double>(v));
    check_kind(value_kind::integer);
    if (field.human) return append_human_integer(out, v, field.style);
    if constexpr (std::is_unsigned_v<decltype(v)>) {
      // fmt refuses a sign ('+', ' ') in the spec of an unsigned argument: pass a signed one.
      if (v <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
        return with_spec(static_cast<std::int64_t>(v));
      }
#ifdef __SIZEOF_INT128__
      __extension__ using int128 = __int128;
      return with_spec(static_cast<int128>(v));
#else
      fmt::format_to(std::back_inserter(out), fmt::runtime(field.unsigned_spec_format), v);
      return;
#endif
    }
    with_spec(v);
  };

  const auto& stored = value.get();
  if (std::holds_alternative<std::monostate>(stored)) return undefined();
  if (const auto* i = std::get_if<std::int64_t>(&stored)) return integer(*i);
  if (const auto* u = std::get_if<std::uint64_t>(&stored)) return integer(*u);
  if (const auto* d = std::get_if<double>(&stored)) {
    check_kind(value_kind::real);
    return real(*d);
  }
  const std::string_view text = std::get<std::string_view>(stored);
  check_kind(value_kind::text);
  if (field.human) {
    out += text;
  } else {
    with_spec(text);
  }
}

}  // namespace harness
