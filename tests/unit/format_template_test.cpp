// Tests of the format-template engine: every human style, spec, escape, undefined value and error
// message, over a token set shaped like the CLI's `--line` set (text, durations, percentages).
//
// Why ~400 lines: one token set shaped like --line's serves every case.
#include "harness/format_template.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace harness {
namespace {

using ::testing::HasSubstr;

namespace slot {
constexpr std::size_t count = 0;
constexpr std::size_t time = 1;
constexpr std::size_t rate = 2;
constexpr std::size_t name = 3;
constexpr std::size_t min = 4;
constexpr std::size_t spread = 5;
constexpr std::size_t total = 6;
}  // namespace slot

constexpr std::array<value_kind, slot::total> kSlots{value_kind::integer, value_kind::real,
                                                     value_kind::real,    value_kind::text,
                                                     value_kind::real,    value_kind::real};
constexpr std::array<named_token, 7> kNamed{{
    {"count", slot::count, human_style::grouped},
    {"time", slot::time, human_style::two_decimals},
    {"rate", slot::rate, human_style::grouped},
    {"name", slot::name, human_style::plain},
    {"min", slot::min, human_style::duration},
    {"spread", slot::spread, human_style::percent},
    {"raw", slot::time, human_style::plain},
}};
constexpr std::array<std::size_t, 4> kPositional{slot::count, slot::time, slot::rate, slot::name};
constexpr token_set kTokens{kSlots, kNamed, kPositional};

constexpr std::string_view kTokenList =
    "{count} {time} {rate} {name} {min} {spread} {raw} {0} {1} {2} {3}";

struct values {
  template_value count = std::int64_t{1234567};
  template_value time = 2.5;
  template_value rate = 493826.8;
  template_value name = "parse";
  template_value min = 2.5e-6;
  template_value spread = 0.0125;

  std::array<template_value, slot::total> all() const {
    return {count, time, rate, name, min, spread};
  }
};

std::string render(std::string_view text, const values& v = {}) {
  return format_template(text, kTokens).render(v.all());
}

TEST(FormatTemplate, LiteralTextAndEmptyTemplate) {
  EXPECT_EQ(render(""), "");
  EXPECT_EQ(render("no fields here"), "no fields here");
}

TEST(FormatTemplate, DoubledBracesAreLiteral) {
  EXPECT_EQ(render("{{}}"), "{}");
  EXPECT_EQ(render("a{{b}}c"), "a{b}c");
  EXPECT_EQ(render("{{{count}}}"), "{1 234 567}");
  EXPECT_EQ(render("}}{{"), "}{");
}

TEST(FormatTemplate, NamedTokensUseTheirHumanStyle) {
  EXPECT_EQ(render("{count} runs in {time} s, {rate}/s, {name}, {min}, {spread}, {raw}"),
            "1 234 567 runs in 2.50 s, 493 827/s, parse, 2.50 µs, 1.25%, 2.5");
}

TEST(FormatTemplate, GroupedIntegers) {
  const auto grouped = [](template_value v) {
    values vals;
    vals.count = v;
    return render("{count}", vals);
  };
  EXPECT_EQ(grouped(0), "0");
  EXPECT_EQ(grouped(999), "999");
  EXPECT_EQ(grouped(1000), "1 000");
  EXPECT_EQ(grouped(-1234567), "-1 234 567");
  EXPECT_EQ(grouped(-100), "-100");
  EXPECT_EQ(grouped(std::numeric_limits<std::uint64_t>::max()), "18 446 744 073 709 551 615");
}

TEST(FormatTemplate, GroupedRealsAreRounded) {
  const auto grouped = [](double v) {
    values vals;
    vals.rate = v;
    return render("{rate}", vals);
  };
  EXPECT_EQ(grouped(999.6), "1 000");
  EXPECT_EQ(grouped(0.4), "0");
  EXPECT_EQ(grouped(-0.4), "0");
  EXPECT_EQ(grouped(-1234.6), "-1 235");
  EXPECT_EQ(grouped(1e15), "1 000 000 000 000 000");
}

TEST(FormatTemplate, DurationPicksTheUnit) {
  const auto duration = [](double seconds) {
    values vals;
    vals.min = seconds;
    return render("{min}", vals);
  };
  EXPECT_EQ(duration(1.5e-8), "15.0 ns");
  EXPECT_EQ(duration(999e-9), "999 ns");
  EXPECT_EQ(duration(2.5e-6), "2.50 µs");
  EXPECT_EQ(duration(0.1234), "123 ms");
  EXPECT_EQ(duration(12.0), "12.0 s");
  EXPECT_EQ(duration(1234.0), "1234 s");
  EXPECT_EQ(duration(0.0), "0.00 ns");
}

TEST(FormatTemplate, PercentAndFixed) {
  values vals;
  vals.spread = 0.5;
  vals.time = 1.234;
  EXPECT_EQ(render("{spread} {time}", vals), "50.00% 1.23");
  // A short phase's time is never 0.00: three significant digits below 0.1.
  const auto time = [](double t) {
    values v;
    v.time = t;
    return render("{time}", v);
  };
  EXPECT_EQ(time(0.1), "0.10");
  EXPECT_EQ(time(0.0123), "0.0123");
  EXPECT_EQ(time(0.00123456), "0.00123");
  EXPECT_EQ(time(1.5e-7), "1.5e-07");
  EXPECT_EQ(time(0.0), "0.00");
  EXPECT_EQ(time(-0.05), "-0.05");
}

TEST(FormatTemplate, PositionalTokensArePlainValues) {
  EXPECT_EQ(render("{0} {1} {2} {3}"), "1234567 2.5 493826.8 parse");
  EXPECT_EQ(render("{1}{1}"), "2.52.5");
}

TEST(FormatTemplate, SpecsOnNumbers) {
  EXPECT_EQ(render("{1:.6f}"), "2.500000");
  EXPECT_EQ(render("{1:}"), "2.5");
  EXPECT_EQ(render("{1:e}"), "2.500000e+00");
  EXPECT_EQ(render("{1:.3g}"), "2.5");
  EXPECT_EQ(render("{1:+.1f}"), "+2.5");
  EXPECT_EQ(render("{1:8.2f}|"), "    2.50|");
  EXPECT_EQ(render("{1:<8.2f}|"), "2.50    |");
  EXPECT_EQ(render("{1:08.2f}"), "00002.50");
  EXPECT_EQ(render("{1:#.0f}"), "2.");
  EXPECT_EQ(render("{0:>9}"), "  1234567");
  EXPECT_EQ(render("{0:*^11}"), "**1234567**");
  EXPECT_EQ(render("{0:010}"), "0001234567");
  EXPECT_EQ(render("{0:x} {0:#X} {0:o} {0:b}"), "12d687 0X12D687 4553207 100101101011010000111");
  EXPECT_EQ(render("{0: d}"), " 1234567");
}

TEST(FormatTemplate, SignedSpecsOnUnsignedValues) {
  values vals;
  vals.count = std::uint64_t{7};
  EXPECT_EQ(render("{0:+} {0: } {0:-}", vals), "+7  7 7");
  vals.count = std::numeric_limits<std::uint64_t>::max();
  EXPECT_EQ(render("{0:+} {count:+x}", vals), "+18446744073709551615 +ffffffffffffffff");
}

TEST(FormatTemplate, SpecsOnText) {
  EXPECT_EQ(render("{3:<8}|"), "parse   |");
  EXPECT_EQ(render("{3:>8}|"), "   parse|");
  EXPECT_EQ(render("{3:-^9}"), "--parse--");
  EXPECT_EQ(render("{3:.3}"), "par");
  EXPECT_EQ(render("{name:s}"), "parse");
}

TEST(FormatTemplate, NamedTokenWithSpecPrintsThePlainValue) {
  EXPECT_EQ(render("{count:>9}"), "  1234567");
  EXPECT_EQ(render("{time:.4f}"), "2.5000");
  EXPECT_EQ(render("{min:.1e}"), "2.5e-06");
  EXPECT_EQ(render("{name:>7}"), "  parse");
}

TEST(FormatTemplate, UndefinedPrintsNotAvailablePaddedToTheWidth) {
  values vals;
  vals.rate = std::optional<double>{};
  EXPECT_EQ(render("{rate}", vals), "n/a");
  EXPECT_EQ(render("{2}", vals), "n/a");
  EXPECT_EQ(render("{2:.1f}", vals), "n/a");
  EXPECT_EQ(render("{2:>8.1f}|", vals), "     n/a|");
  EXPECT_EQ(render("{2:8}|", vals), "     n/a|");
  EXPECT_EQ(render("{2:<6}|", vals), "n/a   |");
  EXPECT_EQ(render("{2:*^7}", vals), "**n/a**");
  EXPECT_EQ(render("{2:08.1f}", vals), "     n/a");
  vals.count = template_value{};
  EXPECT_EQ(render("{count} {0:5}", vals), "n/a   n/a");
}

TEST(FormatTemplate, NonFiniteRealsAreNeverPrintedAsFigures) {
  for (const double bad :
       {std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(),
        std::numeric_limits<double>::quiet_NaN()}) {
    values vals;
    vals.rate = bad;
    vals.min = bad;
    EXPECT_EQ(render("{rate} {2} {2:e} {min} {min:>4}", vals), "n/a n/a n/a n/a  n/a");
  }
}

TEST(FormatTemplate, IntegerValueForARealSlotIsConverted) {
  values vals;
  vals.time = 3;
  EXPECT_EQ(render("{time} {1:.1f}", vals), "3.00 3.0");
}

TEST(FormatTemplate, ParsedOnceRenderedManyTimes) {
  const format_template parsed("{name}: {count}", kTokens);
  values a;
  values b;
  b.name = "open";
  b.count = 7;
  EXPECT_EQ(parsed.render(a.all()), "parse: 1 234 567");
  EXPECT_EQ(parsed.render(b.all()), "open: 7");
  std::string out = "> ";
  parsed.render_to(out, b.all());
  EXPECT_EQ(out, "> open: 7");
  EXPECT_EQ(parsed.text(), "{name}: {count}");
}

TEST(FormatTemplate, UsesReportsTheSlotsPrinted) {
  const format_template parsed("{name} {1:.2f} {raw}", kTokens);
  EXPECT_TRUE(parsed.uses(slot::name));
  EXPECT_TRUE(parsed.uses(slot::time));
  EXPECT_FALSE(parsed.uses(slot::count));
  EXPECT_FALSE(parsed.uses(slot::min));
}

// A value of the wrong kind, or the wrong number of values, is the caller's bug: a failed check
// that names the slot and what it was given (docs/errors.md), not an exception to catch.
TEST(FormatTemplate, CallerBugsAreFailedChecks) {
  const format_template parsed("{count} {name} {time}", kTokens);
  using row = std::array<template_value, slot::total>;
  const row wrong_text{1, 2.0, 3.0, 4, 5.0, 6.0};
  EXPECT_DEATH(parsed.render(wrong_text),
               "check failed: field.kind == given: format_template::render: slot 3 holds text, "
               "given an integer");
  const row wrong_integer{1.5, 2.0, 3.0, "x", 5.0, 6.0};
  EXPECT_DEATH(parsed.render(wrong_integer),
               "check failed: .*: slot 0 holds an integer, given a real number");
  const row wrong_real{1, "x", 3.0, "x", 5.0, 6.0};
  EXPECT_DEATH(parsed.render(wrong_real),
               "check failed: .*: slot 1 holds a real number, given text");
  const std::array<template_value, 2> too_few{1, 2.0};
  EXPECT_DEATH(parsed.render(too_few),
               "check failed: values.size\\(\\) == slot_count_: format_template::render: 2 "
               "values for 6 slots");
}

TEST(FormatTemplate, DescribeTokensListsNamedThenPositional) {
  EXPECT_EQ(describe_tokens(kTokens), kTokenList);
}

struct bad_case {
  std::string_view text;
  template_errc code;
  std::size_t position;
  std::string_view summary;
};

// One template per problem, with where it is and what the message says about it.
const bad_case kBadCases[] = {
    {"runs {count", template_errc::unclosed_field, 5, "'{' opens a field that is never closed"},
    {"{count:>8", template_errc::unclosed_field, 0, "never closed"},
    {"a } b", template_errc::unmatched_close, 2, "'}' closes no field"},
    {"{}", template_errc::empty_field, 0, "empty field"},
    {"x {:.2f}", template_errc::empty_field, 2, "empty field"},
    {"{cou{nt}", template_errc::brace_in_field, 4, "'{' inside a field"},
    {"{1:{}}", template_errc::brace_in_field, 3, "'{' inside a field"},
    {"ok {bogus} ok", template_errc::unknown_token, 4, "unknown token {bogus}"},
    {"{Count}", template_errc::unknown_token, 1, "unknown token {Count}"},
    {"{ count}", template_errc::unknown_token, 1, "unknown token { count}"},
    {"{4}", template_errc::index_out_of_range, 1,
     "positional token out of range {4}: valid indexes are 0 to 3"},
    {"{1000000000000000000000}", template_errc::index_out_of_range, 1, "out of range"},
    {"{1:\x01>5}", template_errc::bad_fill, 3, "fill character"},
    {"{3:+}", template_errc::sign_not_allowed, 3, "sign"},
    {"{name:#}", template_errc::alternate_not_allowed, 6, "'#'"},
    {"{3:05}", template_errc::zero_not_allowed, 3, "'0' padding"},
    {"{0:.3}", template_errc::precision_not_allowed, 3, "precision"},
    {"{count:8.1f}", template_errc::precision_not_allowed, 8, "not to integers"},
    {"{1:.f}", template_errc::missing_precision, 4, "'.' must be followed"},
    {"{1:.}", template_errc::missing_precision, 4, "'.' must be followed"},
    {"{1:256}", template_errc::width_too_large, 3, "width too large (at most 255)"},
    // Found by the fuzzer: a small value in too many digits, which fmt refuses at render time.
    {"{0:0000000000000000000}", template_errc::width_too_large, 4, "width too large"},
    {"{1:.0000000000}", template_errc::precision_too_large, 4, "precision too large"},
    {"{1:.65}", template_errc::precision_too_large, 4, "precision too large (at most 64)"},
    {"{1:.6q}", template_errc::bad_type, 5,
     "bad presentation type 'q' for a real number: use one of a A e E f F g G"},
    {"{0:f}", template_errc::bad_type, 3,
     "bad presentation type 'f' for an integer: use one of d b B o x X"},
    {"{name:d}", template_errc::bad_type, 6, "'d' for text: use one of s"},
    {"{0:L}", template_errc::bad_type, 3, "bad presentation type 'L'"},
    {"{1:.2ff}", template_errc::trailing_characters, 6, "unexpected characters"},
};

TEST(FormatTemplateErrors, EachProblemHasItsCodePositionAndMessage) {
  for (const bad_case& c : kBadCases) {
    SCOPED_TRACE(c.text);
    try {
      format_template parsed(c.text, kTokens);
      ADD_FAILURE() << "accepted";
    } catch (const template_error& e) {
      EXPECT_EQ(e.code(), c.code);
      EXPECT_EQ(e.position(), c.position);
      const std::string message = e.what();
      EXPECT_THAT(message, HasSubstr(c.summary));
      EXPECT_THAT(message, HasSubstr(std::string(kTokenList)));
    }
  }
}

TEST(FormatTemplateErrors, TheSameProblemsAreFoundAtCompileTimeAndAtRunTime) {
  for (const bad_case& c : kBadCases) {
    SCOPED_TRACE(c.text);
    const template_problem problem = detail::check_template(c.text, kTokens);
    EXPECT_EQ(problem.code, c.code);
    EXPECT_EQ(problem.position, c.position);
  }
}

TEST(FormatTemplateErrors, MessageQuotesTheTemplateAndPointsAtThePosition) {
  try {
    format_template parsed("{count} in {tme} s", kTokens);
    FAIL() << "accepted";
  } catch (const template_error& e) {
    EXPECT_EQ(std::string(e.what()),
              "bad format template: unknown token {tme} (at offset 12)\n"
              "  \"{count} in {tme} s\"\n"
              "               ^\n"
              "valid tokens: {count} {time} {rate} {name} {min} {spread} {raw} {0} {1} {2} {3}; "
              "{{ and }} print literal braces");
  }
}

TEST(FormatTemplateErrors, CaretAccountsForEscapesAndMultibyteCharacters) {
  const auto caret_line = [](std::string_view text) {
    try {
      format_template parsed(text, kTokens);
    } catch (const template_error& e) {
      const std::string message = e.what();
      const auto first = message.find('\n');
      const auto second = message.find('\n', first + 1);
      const auto third = message.find('\n', second + 1);
      return std::make_pair(message.substr(first + 1, second - first - 1),
                            message.substr(second + 1, third - second - 1));
    }
    return std::make_pair(std::string("accepted"), std::string());
  };
  const auto [tab_quote, tab_caret] = caret_line("a\tb}");
  EXPECT_EQ(tab_quote, "  \"a\\tb}\"");
  EXPECT_EQ(tab_caret, "       ^");
  const auto [utf8_quote, utf8_caret] = caret_line("µs }");
  EXPECT_EQ(utf8_quote, "  \"µs }\"");
  EXPECT_EQ(utf8_caret, "      ^");
  const auto [control_quote, control_caret] = caret_line("\x02{");
  EXPECT_EQ(control_quote, "  \"\\x02{\"");
  EXPECT_EQ(control_caret, "       ^");
}

TEST(FormatTemplateErrors, ControlAndMultibyteCharactersAreEscapedInTheSummary) {
  using namespace std::string_literals;
  try {
    format_template parsed("{a\0b}"s, kTokens);
    FAIL() << "accepted";
  } catch (const template_error& e) {
    // what() is a C string: an unescaped NUL would cut the message short.
    EXPECT_THAT(e.what(), HasSubstr("unknown token {a\\x00b}"));
    EXPECT_THAT(e.what(), HasSubstr(std::string(kTokenList)));
  }
  try {
    format_template parsed("{1:\xc3\xa9}", kTokens);
    FAIL() << "accepted";
  } catch (const template_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("bad presentation type '\\xc3'"));
  }
}

TEST(FormatTemplateErrors, FormatErrorIsAUsageError) {
  EXPECT_THROW(format_template("{bogus}", kTokens), usage_error);
}

TEST(FormatTemplateErrors, NoPositionalTokensIsSaidSo) {
  constexpr std::array<std::size_t, 0> none{};
  constexpr token_set only_named{kSlots, kNamed, none};
  try {
    format_template parsed("{0}", only_named);
    FAIL() << "accepted";
  } catch (const template_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("{0}: there are no positional tokens"));
  }
}

// The compile-time check runs in constant evaluation: these are checked by the compiler.
static_assert(detail::check_template("{count} {1:.6f} {{}}", kTokens).code == template_errc::ok);
static_assert(detail::check_template("{bogus}", kTokens).code == template_errc::unknown_token);
static_assert(detail::check_template("{0:.2}", kTokens).position == 3);

TEST(CheckedTemplate, LiteralAndRuntimeTextsBothParse) {
  static constexpr checked_template<kTokens> literal = "{count:>5} {1:.1f}";
  EXPECT_EQ(literal.text(), "{count:>5} {1:.1f}");
  EXPECT_EQ(literal.parse().render(values{}.all()), "1234567 2.5");
  const std::string from_user = "{name}";
  const checked_template<kTokens> runtime = runtime_format(from_user);
  EXPECT_EQ(runtime.parse().render(values{}.all()), "parse");
  const std::string bad = "{nope}";
  const checked_template<kTokens> runtime_bad = runtime_format(bad);
  EXPECT_THROW(runtime_bad.parse(), template_error);
}

}  // namespace
}  // namespace harness
