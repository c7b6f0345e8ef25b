#include "harness/report.hpp"

#include <gtest/gtest.h>

namespace harness {
namespace {

TEST(CompareSpread, NarrowingFactorAndUndefinedCases) {
  stats::phase_statistics base, prep;
  base.spread_percent = 42.0;
  prep.spread_percent = 0.02;
  auto c = compare_spread(base, prep);
  ASSERT_TRUE(c && c->factor);
  EXPECT_DOUBLE_EQ(*c->factor, 2100.0);
  prep.spread_percent = 0.0;  // no spread left: no ratio
  c = compare_spread(base, prep);
  ASSERT_TRUE(c);
  EXPECT_FALSE(c->factor.has_value());
  base.spread_percent = 0.0;  // nothing to narrow: no ratio either, never a division by zero
  prep.spread_percent = 3.0;
  c = compare_spread(base, prep);
  ASSERT_TRUE(c);
  EXPECT_FALSE(c->factor.has_value());
  prep.spread_percent.reset();
  EXPECT_FALSE(compare_spread(base, prep).has_value());
}

TEST(CompareHostSpeed, RatioOfTheSlowerPhaseAndWhichOneItWas) {
  phase_result base, prep;
  base.reference_best = 4500;
  prep.reference_best = 3000;
  auto c = compare_host_speed(base, prep);
  ASSERT_TRUE(c);
  EXPECT_DOUBLE_EQ(c->ratio, 1.5);
  EXPECT_TRUE(c->baseline_slower);
  EXPECT_EQ(c->baseline_best, 4500u);
  EXPECT_EQ(c->prepared_best, 3000u);
  prep.reference_best = 9000;  // the prepared phase ran on the slowed host
  c = compare_host_speed(base, prep);
  ASSERT_TRUE(c);
  EXPECT_DOUBLE_EQ(c->ratio, 2.0);
  EXPECT_FALSE(c->baseline_slower);
  base.reference_best = 0;  // no reference run in the baseline: nothing to compare
  EXPECT_FALSE(compare_host_speed(base, prep).has_value());
}

}  // namespace
}  // namespace harness
