// Every recorded or modelled host shape of clock_shape_fixtures.hpp through the step, granularity
// and read cost rules: each expects the exact step and rule, and the granularity and read cost to
// the last few digits (their sums run in one order, so the figures repeat exactly).
#include <gtest/gtest.h>

#include <cctype>
#include <cmath>
#include <string>

#include "clock_shape_fixtures.hpp"
#include "harness/clock_survey.hpp"

namespace harness {
namespace {

// The granularity search's threshold, as a run uses it.
const std::uint64_t kMinChanges = granularity_settings{}.min_changes;

void expect_near(const std::optional<double>& actual, const std::optional<double>& expected,
                 std::string_view what) {
  ASSERT_EQ(actual.has_value(), expected.has_value()) << what;
  if (expected) {
    EXPECT_NEAR(*actual, *expected, 1e-9 * std::abs(*expected)) << what;
  }
}

class ClockShapes : public ::testing::TestWithParam<testing::clock_shape_fixture> {};

TEST_P(ClockShapes, GiveTheirStepGranularityAndReadCost) {
  const testing::clock_shape_fixture& f = GetParam();
  const clock_shape shape =
      analyse_clock_shape(f.back_to_back.histogram(), f.around_spins.histogram(), kMinChanges);
  EXPECT_EQ(shape.step.ticks, f.step);
  EXPECT_EQ(shape.step.rule, f.rule) << to_string(shape.step.rule);
  expect_near(shape.granularity.ticks, f.granularity, "granularity");
  expect_near(shape.read_cost_ticks, f.read_cost, "read cost");
  // What clocks_check.py asserts of a real run: the granularity is at most the step.
  if (shape.granularity.ticks && shape.step.ticks) {
    EXPECT_LE(*shape.granularity.ticks, static_cast<double>(*shape.step.ticks) * 1.01 + 2);
  }
}

// The test's name: the fixture's up to its first space, in letters, digits and underscores.
std::string test_name(const ::testing::TestParamInfo<testing::clock_shape_fixture>& param) {
  std::string name;
  for (const char c : param.param.name) {
    if (c == ' ') break;
    name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  }
  return name;
}

INSTANTIATE_TEST_SUITE_P(Hosts, ClockShapes, ::testing::ValuesIn(testing::clock_shape_fixtures()),
                         test_name);

}  // namespace
}  // namespace harness
