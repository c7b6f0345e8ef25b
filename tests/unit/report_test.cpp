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

}  // namespace
}  // namespace harness
