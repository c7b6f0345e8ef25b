// One convention for an enum's names (issue 28). Beside each named enum E, in its header:
//
//   enum class colour : std::uint8_t { red, dark_blue };
//   inline constexpr enum_table<colour, colour::dark_blue> kColourNames{{
//       {colour::red, "red"},
//       {colour::dark_blue, "dark_blue", "dark blue"},
//   }};
//   constexpr const auto& enum_names(colour) noexcept { return kColourNames; }
//
// Each row holds the enumerator, its identifier (for JSON, CSV, --line and scripts: it never
// changes) and, when it differs, its wording for people. The table is checked when it is compiled:
// one row per enumerator from the first to the last one named in its type, in the enum's order,
// every identifier and wording non-empty and no identifier twice. Then, for every such enum:
//   id_of(e)         "dark_blue"
//   to_string(e)     "dark blue" (the identifier when the row gives no wording)
//   parse_id<E>(s)   the enumerator whose identifier is s, or nullopt
// An enum declared in a namespace below harness brings them in with
// `using harness::id_of; using harness::to_string;`.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string_view>
#include <type_traits>

namespace harness {

template <typename E>
struct enum_name {
  E value{};
  std::string_view id;
  std::string_view label;  // the id when the row gives no wording

  constexpr enum_name() = default;
  constexpr enum_name(E v, std::string_view identifier, std::string_view wording = {})
      : value(v), id(identifier), label(wording.empty() ? identifier : wording) {}
};

// The names of every enumerator of E up to `Last`, checked at compile time (a constant whose
// rows are out of order, missing, empty or repeated does not compile).
template <typename E, E Last>
struct enum_table {
  static_assert(std::is_enum_v<E>);
  static constexpr std::size_t size = static_cast<std::size_t>(Last) + 1;
  std::array<enum_name<E>, size> rows;

  template <std::size_t N>
  consteval enum_table(const enum_name<E> (&list)[N]) : rows{} {  // NOLINT: implicit by design
    static_assert(N == size, "an enum_table needs one row per enumerator up to its last");
    for (std::size_t i = 0; i < N; ++i) {
      // A throw in a consteval constructor is a compile error naming this line.
      if (static_cast<std::size_t>(list[i].value) != i) {
        throw std::logic_error("enum_table: rows out of the enum's order");
      }
      if (list[i].id.empty()) throw std::logic_error("enum_table: an empty id");
      for (std::size_t j = 0; j < i; ++j) {
        if (list[j].id == list[i].id) throw std::logic_error("enum_table: an id twice");
      }
      rows[i] = list[i];
    }
  }
};

// An enum with a table: enum_names(e) found by argument-dependent lookup.
template <typename E>
concept named_enum = std::is_enum_v<E> && requires(E e) {
  {enum_names(e).rows};
};

template <named_enum E>
constexpr const auto& names_table() noexcept {
  return enum_names(E{}).rows;
}

// An enumerator's identifier. A value outside the enum (a cast bug) throws std::out_of_range.
template <named_enum E>
constexpr std::string_view id_of(E e) {
  return names_table<E>().at(static_cast<std::size_t>(e)).id;
}

// An enumerator's wording for people.
template <named_enum E>
constexpr std::string_view to_string(E e) {
  return names_table<E>().at(static_cast<std::size_t>(e)).label;
}

template <named_enum E>
constexpr std::optional<E> parse_id(std::string_view id) noexcept {
  for (const enum_name<E>& row : names_table<E>()) {
    if (row.id == id) return row.value;
  }
  return std::nullopt;
}

}  // namespace harness
