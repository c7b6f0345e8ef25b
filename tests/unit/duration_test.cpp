#include "harness/duration.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>

#include "harness/errors.hpp"

namespace harness {
namespace {

using namespace std::chrono_literals;
using ::testing::AllOf;
using ::testing::HasSubstr;

TEST(ParseDuration, AcceptsEveryUnit) {
  EXPECT_EQ(parse_duration("1200ms", "--warmup"), 1200ms);
  EXPECT_EQ(parse_duration("2s", "--warmup"), 2s);
  EXPECT_EQ(parse_duration("1.5s", "--warmup"), 1500ms);
  EXPECT_EQ(parse_duration("250us", "--warmup"), 250us);
  EXPECT_EQ(parse_duration("10ns", "--warmup"), 10ns);
  EXPECT_EQ(parse_duration("0.5ms", "--warmup"), 500us);
}

TEST(ParseDuration, ZeroWithOrWithoutUnitDisables) {
  EXPECT_EQ(parse_duration("0", "--warmup"), 0ns);
  EXPECT_EQ(parse_duration("0ms", "--warmup"), 0ns);
}

void expect_rejected(const std::string& text, const std::string& why) {
  try {
    parse_duration(text, "--warmup");
    ADD_FAILURE() << "accepted '" << text << "'";
  } catch (const usage_error& e) {
    EXPECT_THAT(e.what(), AllOf(HasSubstr("--warmup"), HasSubstr("'" + text + "'"), HasSubstr(why),
                                HasSubstr("ns, us, ms or s")));
  }
}

TEST(ParseDuration, RejectsBadInputNamingIt) {
  expect_rejected("", "empty");
  expect_rejected("-5ms", "negative");
  expect_rejected("5", "unit is missing");
  expect_rejected("5min", "'min' is unknown");
  expect_rejected("abc", "does not start with a number");
  expect_rejected("1.2.3ms", "malformed");
  expect_rejected("ms", "does not start with a number");
  expect_rejected("1e3s", "'e3s' is unknown");
  expect_rejected("99999999999s", "too large");
  // The int64 maximum and what rounds to it as a double (2^63) do not fit; the fuzz target found
  // the second read as a negative duration.
  expect_rejected("9223372036854775807ns", "too large");
  expect_rejected("0009223372036854775774ns", "too large");
  EXPECT_EQ(parse_duration("9223372036854774784ns", "--warmup").count(), 9223372036854774784);
}

TEST(FormatDuration, PicksAReadableUnit) {
  constexpr micro_spelling ascii = micro_spelling::ascii;
  EXPECT_EQ(format_duration(0ns, ascii), "0 s");
  EXPECT_EQ(format_duration(1200ms, ascii), "1200 ms");
  EXPECT_EQ(format_duration(2s, ascii), "2 s");
  EXPECT_EQ(format_duration(1500ms, ascii), "1500 ms");
  EXPECT_EQ(format_duration(1200345678ns, ascii), "1.200 s");
  EXPECT_EQ(format_duration(12345678ns, ascii), "12.346 ms");
  EXPECT_EQ(format_duration(1500ns, ascii), "1.500 us");
  EXPECT_EQ(format_duration(250us, ascii), "250 us");
  EXPECT_EQ(format_duration(10ns, ascii), "10 ns");
  EXPECT_EQ(format_duration(999ns, ascii), "999 ns");
  // Rounded as printed: 999.9996 us is a millisecond.
  EXPECT_EQ(format_duration(999'999'600ns, ascii), "1.000 s");
}

TEST(FormatDuration, SpellsTheMicrosecondAsAsked) {
  EXPECT_EQ(format_duration(250us, micro_spelling::unicode), "250 µs");
  EXPECT_EQ(format_duration(1500ns, micro_spelling::unicode), "1.500 µs");
}

// tests/data/duration_cases.json: the values common.js's durationText is checked against too
// (tests/e2e/duration_format_check.py), so the two print every duration alike.
TEST(FormatSeconds, PrintsEveryCaseThePageDoes) {
  std::ifstream in(std::string(HARNESS_TEST_DATA_DIR) + "/duration_cases.json");
  ASSERT_TRUE(in) << "tests/data/duration_cases.json is missing";
  const nlohmann::json cases = nlohmann::json::parse(in).at("cases");
  ASSERT_GE(cases.size(), 30U);
  for (const nlohmann::json& c : cases) {
    const double seconds = c.at("seconds").is_string() && c.at("seconds") == "inf"
                               ? std::numeric_limits<double>::infinity()
                               : c.at("seconds").get<double>();
    duration_format f;
    const std::string kind = c.at("kind");
    ASSERT_TRUE(kind == "decimals" || kind == "significant") << kind;
    f.kind = kind == "decimals" ? duration_format::digits_kind::decimals
                                : duration_format::digits_kind::significant;
    f.digits = c.at("digits");
    f.trim_zeros = c.at("trim_zeros");
    const std::string micro = c.at("micro");
    ASSERT_TRUE(micro == "unicode" || micro == "ascii") << micro;
    f.micro = micro == "unicode" ? micro_spelling::unicode : micro_spelling::ascii;
    EXPECT_EQ(format_seconds(seconds, f), c.at("text").get<std::string>()) << c.dump();
  }
}

}  // namespace
}  // namespace harness
