#include "harness/duration.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

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
}

TEST(FormatDuration, PicksAReadableUnit) {
  EXPECT_EQ(format_duration(0ns), "0 s");
  EXPECT_EQ(format_duration(1200ms), "1200 ms");
  EXPECT_EQ(format_duration(2s), "2 s");
  EXPECT_EQ(format_duration(1500ms), "1500 ms");
  EXPECT_EQ(format_duration(1200345678ns), "1.200 s");
  EXPECT_EQ(format_duration(12345678ns), "12.346 ms");
  EXPECT_EQ(format_duration(1500ns), "1.500 us");
  EXPECT_EQ(format_duration(250us), "250 us");
  EXPECT_EQ(format_duration(10ns), "10 ns");
}

}  // namespace
}  // namespace harness
