// The floor's confirmation from blocks, and each cross-check, with exact values.
#include "harness/floor.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <vector>

namespace harness {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// Five blocks 0.1 s apart at a floor of 1,000,000 ticks; the reference loop at 3000 in each.
std::vector<block_view> quiet_blocks() {
  return {{1'000'300, 0.0, 3000, {}},
          {1'000'000, 0.1, 3000, {}},
          {1'000'200, 0.2, 3000, {}},
          {1'000'100, 0.3, 3000, {}},
          {1'000'400, 0.4, 3000, {}}};
}

floor_context granular(double granularity) {
  floor_context c;
  c.granularity = granularity;
  return c;
}

TEST(Floor, ToleranceIsTheLargerOfTwoStepsAndTheRelativeShare) {
  const floor_settings s;
  EXPECT_DOUBLE_EQ(floor_tolerance(1e6, 21, s), 500);  // 0.05% of 1e6 > 2 x 21
  EXPECT_DOUBLE_EQ(floor_tolerance(1e4, 21, s), 42);   // 2 x 21 > 0.05% of 1e4 (5)
  EXPECT_DOUBLE_EQ(floor_tolerance(1e4, 0, s), 5);     // granularity unknown
}

TEST(Floor, TwoAgreeingBlocksFarApartConfirm) {
  const floor_check c = check_floor(quiet_blocks(), granular(21));
  EXPECT_TRUE(c.confirmed) << c.reason;
  EXPECT_DOUBLE_EQ(c.floor, 1'000'000);
  EXPECT_EQ(c.floor_block, 1u);
  EXPECT_DOUBLE_EQ(c.tolerance, 500);
  EXPECT_THAT(c.agreeing, ElementsAre(0, 1, 2, 3, 4));
  ASSERT_TRUE(c.confirmed_by);
  // The lowest block's own pairs come first; block 1 (0-based) is 0.1 s from block 0.
  EXPECT_EQ(*c.confirmed_by, std::make_pair(std::size_t{0}, std::size_t{1}));
  EXPECT_TRUE(c.findings.empty());
  EXPECT_EQ(c.reason, "blocks 1 and 2 (100 ms apart) agree within 500 (0.05%)");
  EXPECT_TRUE(c.recommendation.empty());
}

TEST(Floor, OneBlockCannotConfirm) {
  const std::vector<block_view> one{{1'000'000, 0.0, 3000, {}}};
  const floor_check c = check_floor(one, granular(21));
  EXPECT_FALSE(c.confirmed);
  EXPECT_THAT(c.findings, ElementsAre(floor_finding::too_few_blocks));
  EXPECT_THAT(c.recommendation, HasSubstr("--blocks"));
}

TEST(Floor, NoBlocksIsAFailedCheck) {
  EXPECT_DEATH(check_floor({}, granular(21)), "check failed: .*check_floor: no blocks");
}

TEST(Floor, ABlockSlowedByHalfDoesNotCountAndOneLowBlockAloneIsNotConfirmed) {
  // Every block but one ran 1.5x slow: the lowest stands alone.
  std::vector<block_view> b = quiet_blocks();
  for (block_view& v : b)
    v.minimum *= 1.5;
  b[3].minimum = 1'000'000;
  const floor_check c = check_floor(b, granular(21));
  EXPECT_FALSE(c.confirmed);
  EXPECT_THAT(c.findings, ElementsAre(floor_finding::no_agreement));
  EXPECT_THAT(c.agreeing, ElementsAre(3));
  EXPECT_THAT(c.reason, HasSubstr("no other block came within 500 (0.05%) of the lowest minimum "
                                  "1000000 (block 4)"));
}

TEST(Floor, AgreeingBlocksTooCloseInTimeDoNotConfirm) {
  std::vector<block_view> b = {
      {1'000'000, 0.0, 3000, {}}, {1'000'100, 0.05, 3000, {}}, {1'500'000, 0.2, 3000, {}}};
  const floor_check c = check_floor(b, granular(21));
  EXPECT_FALSE(c.confirmed);
  EXPECT_THAT(c.findings, ElementsAre(floor_finding::too_close));
  EXPECT_THAT(c.reason, HasSubstr("blocks 1 and 2 agree, but began less than 100 ms apart"));
  // With a shorter separation they confirm.
  floor_settings close_by;
  close_by.min_separation = std::chrono::milliseconds(50);
  EXPECT_TRUE(check_floor(b, granular(21), close_by).confirmed);
}

TEST(Floor, BlocksAtALowerHostSpeedDoNotConfirm) {
  // All blocks agree, but their reference loop ran 3.4% slower than the fastest known: a lower
  // boost level moves every loop together, so their agreement proves nothing.
  floor_context c = granular(21);
  c.fastest_reference = 2900;
  c.fastest_reference_remembered = true;
  const floor_check f = check_floor(quiet_blocks(), c);
  EXPECT_FALSE(f.confirmed);
  EXPECT_THAT(f.findings, ElementsAre(floor_finding::below_full_speed));
  EXPECT_THAT(f.reason, HasSubstr("at best 3000 ticks, 3.45% slower than the fastest known (2900 "
                                  "ticks, remembered from an earlier run here)"));
  // Within the speed tolerance (1%) they count as full speed.
  c.fastest_reference = 2980;
  EXPECT_TRUE(check_floor(quiet_blocks(), c).confirmed);
}

TEST(Floor, OnlyBlocksAtFullSpeedConfirm) {
  // Blocks 1 and 3 (1-based) agree far apart but block 1 ran slow; blocks 3 and 5 confirm.
  std::vector<block_view> b = quiet_blocks();
  b[0].reference_best = 3100;
  floor_context c = granular(21);
  c.fastest_reference = 3000;
  const floor_check f = check_floor(b, c);
  EXPECT_TRUE(f.confirmed) << f.reason;
  EXPECT_EQ(*f.confirmed_by, std::make_pair(std::size_t{1}, std::size_t{2}));
  EXPECT_THAT(f.reason, HasSubstr("at the fastest reference-loop speed known"));
}

TEST(Floor, APreparedFloorAboveTheBaselineIsSlowed) {
  floor_context c = granular(21);
  c.baseline_floor = 1'000'000 / 1.5;
  const floor_check f = check_floor(quiet_blocks(), c);
  EXPECT_FALSE(f.confirmed);
  EXPECT_THAT(f.findings, ElementsAre(floor_finding::above_baseline));
  ASSERT_TRUE(f.confirmed_by);  // the blocks alone would have confirmed it
  EXPECT_THAT(f.reason,
              HasSubstr("the floor lies 50.00% above the unprepared baseline's (666666.67)"));
  // The baseline's lowest sample on the same CPU as this floor's: the general reason still.
  std::vector<block_view> on_cpu = quiet_blocks();
  for (block_view& v : on_cpu)
    v.cpu = 1;
  c.baseline_floor_cpu = 1;
  EXPECT_THAT(check_floor(on_cpu, c).reason,
              HasSubstr("baseline's (666666.67), both on CPU 1: this phase was slowed, or "
                        "preparation hurt"));
  EXPECT_EQ(baseline_on_another_cpu(check_floor(on_cpu, c)), std::nullopt);
  // On another CPU: both named, and the CPU to pin to.
  c.baseline_floor_cpu = 0;
  const floor_check other = check_floor(on_cpu, c);
  EXPECT_EQ(other.floor_cpu, 1);
  EXPECT_EQ(baseline_on_another_cpu(other), 0);
  EXPECT_THAT(other.reason, HasSubstr("whose lowest sample ran on CPU 0 and this one on CPU 1"));
  // A baseline within the tolerance, or above, is no objection.
  c.baseline_floor_cpu.reset();
  c.baseline_floor = 999'600;
  EXPECT_TRUE(check_floor(quiet_blocks(), c).confirmed);
  c.baseline_floor = 1'200'000;
  EXPECT_TRUE(check_floor(quiet_blocks(), c).confirmed);
}

TEST(Floor, AFloorAboveTheRememberedOneIsSlowedAsAWhole) {
  // The whole run ran 1.5x slow, every block alike: only the history sees it.
  std::vector<block_view> b = quiet_blocks();
  for (block_view& v : b)
    v.minimum *= 1.5;
  floor_context c = granular(21);
  c.remembered_floor = 1'000'000;
  const floor_check f = check_floor(b, c);
  EXPECT_FALSE(f.confirmed);
  EXPECT_THAT(f.findings, ElementsAre(floor_finding::above_remembered));
  EXPECT_FALSE(only_another_run_can_confirm(f));  // a later block may still come lower
  EXPECT_THAT(f.reason, HasSubstr("50.00% above the 1000000 this build showed on this machine"));
  EXPECT_THAT(f.recommendation, HasSubstr("--max-time"));
  // Floors are remembered per CPU the prepared phase is pinned to: the reason names it.
  c.remembered_cpu = 1;
  EXPECT_THAT(check_floor(b, c).reason,
              HasSubstr("50.00% above the 1000000 this build showed on CPU 1 of this machine"));
}

TEST(Floor, FullSpeedAllowsOneClockStepOfTheReferenceRun) {
  // Measured here: the fastest reference run ever seen 2247 ticks; at the same host speed a
  // block's few runs read 2289 at best, two steps of the 21-tick clock above it (1.9%).
  const floor_settings s;
  EXPECT_TRUE(at_full_speed(2289, 2247, 21, s));   // 2247 x 1.01 + 21 = 2290.5
  EXPECT_FALSE(at_full_speed(2310, 2247, 21, s));  // the next step: a slower host
  EXPECT_FALSE(at_full_speed(2289, 2247, 0, s));   // without the step: 1% only
  EXPECT_TRUE(at_full_speed(2269, 2247, 0, s));
  EXPECT_FALSE(at_full_speed(0, 2247, 21, s));  // no reference run: not known to be at speed
  std::vector<block_view> b = quiet_blocks();
  for (block_view& v : b)
    v.reference_best = 2289;
  floor_context c = granular(21);
  c.fastest_reference = 2247;
  EXPECT_THAT(check_floor(b, c).findings, ElementsAre(floor_finding::below_full_speed));
  c.reference_step = 21;
  EXPECT_TRUE(check_floor(b, c).confirmed);
}

TEST(Floor, TheAgreedFloorIsTheLowestLevelTwoBlocksReached) {
  floor_context c = granular(21);
  // The floor's own block has company: the floor.
  EXPECT_EQ(agreed_floor(check_floor(quiet_blocks(), c)), 1'000'000.0);
  // One lucky block 0.2% below the others (tolerance 500): the others' lowest level.
  std::vector<block_view> b = quiet_blocks();
  b[2].minimum = 998'000;
  const floor_check lucky = check_floor(b, c);
  EXPECT_DOUBLE_EQ(lucky.floor, 998'000);
  EXPECT_EQ(agreed_floor(lucky), 1'000'000.0);
  // No two blocks agree, or one block: none.
  const std::vector<block_view> apart = {{1'000'000, 0.0, 3000, {}}, {1'010'000, 0.1, 3000, {}}};
  EXPECT_EQ(agreed_floor(check_floor(apart, c)), std::nullopt);
  EXPECT_EQ(agreed_floor(check_floor(std::vector<block_view>{{1'000'000, 0.0, 3000, {}}}, c)),
            std::nullopt);
}

TEST(Floor, WithAHistoryTheFirstRunOfABuildIsNotConfirmed) {
  // The blocks agree, far apart, at full speed: within the run nothing objects. But a history is
  // kept and holds no floor of this build: nothing shows the host was not slower for all of it.
  floor_context c = granular(21);
  c.remembers_floors = true;
  const floor_check f = check_floor(quiet_blocks(), c);
  EXPECT_FALSE(f.confirmed);
  EXPECT_THAT(f.findings, ElementsAre(floor_finding::first_of_build));
  ASSERT_TRUE(f.confirmed_by);  // the blocks alone would have confirmed it
  EXPECT_THAT(f.reason, HasSubstr("no earlier run of this build showed a floor on this machine"));
  EXPECT_THAT(f.recommendation, HasSubstr("run it again"));
  EXPECT_EQ(id_of(floor_finding::first_of_build), "first_of_build");
  EXPECT_TRUE(only_another_run_can_confirm(f));
  // Without a history there is nothing to ask: the run's own checks decide.
  c.remembers_floors = false;
  EXPECT_TRUE(check_floor(quiet_blocks(), c).confirmed);
}

TEST(Floor, OnlyAFloorThatAgreesWithTheRememberedOneIsConfirmed) {
  floor_context c = granular(21);
  c.remembers_floors = true;
  // Lower than every earlier run by 5%: new, not reproduced by a second process.
  c.remembered_floor = 1'000'000 / 0.95;
  const floor_check low = check_floor(quiet_blocks(), c);
  EXPECT_FALSE(low.confirmed);
  EXPECT_THAT(low.findings, ElementsAre(floor_finding::below_remembered));
  EXPECT_THAT(low.reason, HasSubstr("5.00% below the 1052631.58 earlier runs of this build"));
  EXPECT_THAT(low.recommendation, HasSubstr("run it again"));
  EXPECT_EQ(id_of(floor_finding::below_remembered), "below_remembered");
  EXPECT_TRUE(only_another_run_can_confirm(low));
  // Within the tolerance (500 ticks here), below or above: reproduced, confirmed.
  for (const double remembered : {1'000'499.0, 999'501.0, 1'000'000.0}) {
    c.remembered_floor = remembered;
    const floor_check f = check_floor(quiet_blocks(), c);
    EXPECT_TRUE(f.confirmed) << remembered << ": " << f.reason;
    EXPECT_FALSE(only_another_run_can_confirm(f));
    EXPECT_THAT(f.reason, HasSubstr("agreeing with the floor this build showed before"));
  }
}

TEST(Floor, SeveralFindingsAreAllNamed) {
  std::vector<block_view> b = {{1'500'000, 0.0, 3000, {}}, {1'000'000, 0.1, 3000, {}}};
  floor_context c = granular(21);
  c.baseline_floor = 900'000;
  c.remembered_floor = 950'000;
  const floor_check f = check_floor(b, c);
  EXPECT_THAT(f.findings, ElementsAre(floor_finding::no_agreement, floor_finding::above_baseline,
                                      floor_finding::above_remembered));
  EXPECT_EQ(id_of(floor_finding::above_remembered), "above_remembered");
}

TEST(Floor, BatchedFiguresKeepTheirFraction) {
  const std::vector<block_view> b = {{10.25, 0.0, 3000, {}}, {10.25, 0.2, 3000, {}}};
  const floor_check f = check_floor(b, granular(0.5));
  EXPECT_TRUE(f.confirmed);
  EXPECT_DOUBLE_EQ(f.tolerance, 1.0);
  EXPECT_THAT(f.reason, HasSubstr("agree within 1 (9.76%)"));
}

}  // namespace
}  // namespace harness
