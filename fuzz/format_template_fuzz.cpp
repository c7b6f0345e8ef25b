// libFuzzer target for the format-template parser and renderer.
//
// For every input, used as a template against the profile token set and against a set shaped like
// the CLI's `--line` tokens, it checks that:
// - the compile-time checker and the run-time parser agree (same code, same position);
// - a rejected template throws template_error only, at a position inside the text, with a message
//   that lists the valid tokens;
// - an accepted template renders every row of values without any exception (fmt's own format_error
//   included): the spec subset must never let through a spec fmt refuses;
// - non-finite reals render exactly as undefined values do ("n/a"), never as "inf" or "nan".
// A failed check aborts, which libFuzzer reports with the input.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <string_view>

#include "harness/format_template.hpp"
#include "harness/profile.hpp"

namespace {

using harness::human_style;
using harness::named_token;
using harness::template_value;
using harness::value_kind;

// The shape of the CLI's line: text, durations, a spread as a fraction, counts.
constexpr std::array<value_kind, 9> kLineSlots{
    value_kind::text, value_kind::text, value_kind::integer, value_kind::real, value_kind::real,
    value_kind::real, value_kind::real, value_kind::real,    value_kind::real};
constexpr std::array<named_token, 9> kLineNamed{{
    {"workload", 0, human_style::plain},
    {"phase", 1, human_style::plain},
    {"runs", 2, human_style::grouped},
    {"time", 3, human_style::two_decimals},
    {"frequency", 4, human_style::grouped},
    {"min", 5, human_style::duration},
    {"max", 6, human_style::duration},
    {"median", 7, human_style::duration},
    {"spread", 8, human_style::percent},
}};
constexpr std::array<std::size_t, 3> kLinePositional{2, 3, 4};
constexpr harness::token_set kLineTokens{kLineSlots, kLineNamed, kLinePositional};

[[noreturn]] void fail(const char* what, std::string_view text) {
  std::fprintf(stderr, "format_template_fuzz: %s for template of %zu bytes\n", what, text.size());
  std::abort();
}

// Rows of values for a token set: typical figures, extremes, and every real replaced.
template <std::size_t N>
void render_rows(const harness::format_template& parsed, const harness::token_set& tokens,
                 std::string_view text) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
  const std::string long_text(300, 'w');
  const auto row_of = [&](std::int64_t integer, double real, std::string_view words) {
    std::array<template_value, N> row;
    for (std::size_t i = 0; i < N; ++i) {
      switch (tokens.slots[i]) {
        case value_kind::integer:
          row[i] = integer;
          break;
        case value_kind::real:
          row[i] = real;
          break;
        case value_kind::text:
          row[i] = words;
          break;
      }
    }
    return row;
  };
  // Past the int64 range but not near DBL_MAX: fixed notation of 1e308 costs ~120 µs per field in
  // fmt (exact decimal expansion), which would slow the fuzzer more than it finds.
  const double reals[] = {0.0, -0.0, 2.5, -1234.5678, 1.8e19, -1.8e19, 4.9e-324, 1e-9, 123456789.0};
  const std::int64_t integers[] = {0, -1, 1234567, std::numeric_limits<std::int64_t>::min(),
                                   std::numeric_limits<std::int64_t>::max()};
  std::size_t k = 0;
  for (const double real : reals) {
    const std::int64_t integer = integers[k++ % std::size(integers)];
    (void)parsed.render(row_of(integer, real, k % 2 == 0 ? std::string_view("parse") : long_text));
  }
  std::array<template_value, N> unsigned_row = row_of(0, 1.0, "");
  for (std::size_t i = 0; i < N; ++i) {
    if (tokens.slots[i] == value_kind::integer) {
      unsigned_row[i] = std::numeric_limits<std::uint64_t>::max();
    }
  }
  (void)parsed.render(unsigned_row);

  std::array<template_value, N> undefined = row_of(7, 0.0, "x");
  for (std::size_t i = 0; i < N; ++i) {
    if (tokens.slots[i] == value_kind::real) undefined[i] = template_value{};
  }
  const std::string expected = parsed.render(undefined);
  for (const double bad : {kInf, -kInf, kNan}) {
    if (parsed.render(row_of(7, bad, "x")) != expected) {
      fail("a non-finite real rendered unlike an undefined value", text);
    }
  }
}

template <std::size_t N>
void check(std::string_view text, const harness::token_set& tokens) {
  const harness::template_problem problem = harness::detail::check_template(text, tokens);
  try {
    const harness::format_template parsed(text, tokens);
    if (problem.code != harness::template_errc::ok) fail("accepted at run time only", text);
    render_rows<N>(parsed, tokens, text);
  } catch (const harness::template_error& e) {
    if (problem.code == harness::template_errc::ok) fail("rejected at run time only", text);
    if (e.code() != problem.code || e.position() != problem.position) {
      fail("run time and compile time disagree", text);
    }
    if (e.position() > text.size()) fail("position past the end", text);
    const std::string message = e.what();
    if (message.find(harness::describe_tokens(tokens)) == std::string::npos) {
      fail("message does not list the tokens", text);
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  check<harness::profile_slot::count>(text, harness::profile_tokens);
  check<kLineSlots.size()>(text, kLineTokens);
  return 0;
}
