// harness ab's schedule, estimate, stop rule and verdict, driven by fake sides on a fake clock:
// every expectation is exact, and no test depends on this machine's speed or noise.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "harness/ab.hpp"
#include "harness/ab_report.hpp"

namespace harness {
namespace {

// ---- the schedule ----------------------------------------------------------------------------

TEST(AbSchedule, AlternatesABThenBA) {
  for (std::size_t i = 0; i < 10; ++i)
    EXPECT_EQ(a_goes_first(ab_order::alternate, 7, i), i % 2 == 0) << i;
}

TEST(AbSchedule, RandomOrderRepeatsWithItsSeedAndTakesBothOrders) {
  std::size_t a_first = 0;
  bool differs_from_other_seed = false;
  for (std::size_t i = 0; i < 1'000; ++i) {
    const bool first = a_goes_first(ab_order::random, 42, i);
    EXPECT_EQ(first, a_goes_first(ab_order::random, 42, i));
    a_first += first ? 1 : 0;
    differs_from_other_seed |= first != a_goes_first(ab_order::random, 43, i);
  }
  // A fair coin over 1,000 rounds: 500 +- 4.5 standard deviations.
  EXPECT_GT(a_first, 430U);
  EXPECT_LT(a_first, 570U);
  EXPECT_TRUE(differs_from_other_seed);
}

TEST(AbSchedule, BalancedStartsEveryRoundWithA) {
  for (std::size_t i = 0; i < 10; ++i)
    EXPECT_TRUE(a_goes_first(ab_order::balanced, 7, i)) << i;
}

TEST(AbSchedule, StretchesOfTheSizeAndTheRestOrAnEvenCountOfEvenStretchesWhenBalanced) {
  using ::testing::ElementsAre;
  for (const ab_order order : {ab_order::alternate, ab_order::random}) {
    EXPECT_THAT(ab_stretch_sizes(64, 10, order), ElementsAre(10, 10, 10, 10, 10, 10, 4));
    EXPECT_THAT(ab_stretch_sizes(3, 1, order), ElementsAre(1, 1, 1));
    EXPECT_THAT(ab_stretch_sizes(4, 4, order), ElementsAre(4));
  }
  // 7 stretches become 8, of 8 samples each; 3 become 4, of sizes within one of each other.
  EXPECT_THAT(ab_stretch_sizes(64, 10, ab_order::balanced), ElementsAre(8, 8, 8, 8, 8, 8, 8, 8));
  EXPECT_THAT(ab_stretch_sizes(9, 4, ab_order::balanced), ElementsAre(3, 2, 2, 2));
  EXPECT_THAT(ab_stretch_sizes(4, 4, ab_order::balanced), ElementsAre(2, 2));
  // Fewer samples than stretches: one sample a stretch, so a side takes one more.
  EXPECT_THAT(ab_stretch_sizes(3, 1, ab_order::balanced), ElementsAre(1, 1, 1, 1));
  EXPECT_THAT(ab_stretch_sizes(1, 1, ab_order::balanced), ElementsAre(1, 1));
  EXPECT_THAT(ab_stretch_sizes(0, 0, ab_order::balanced), ElementsAre(1, 1));
}

// ---- the estimate ----------------------------------------------------------------------------

ab_round round_of(double a, double b, std::uint64_t reference = 100, std::uint64_t switches = 0) {
  return ab_round{.a_first = true,
                  .a_min = a,
                  .b_min = b,
                  .reference = reference,
                  .switches = switches,
                  .disturbed = false};
}

TEST(AbEstimate, IsTheMedianOfTheRoundRatiosWithItsOrderStatisticInterval) {
  // Ratios 1.000, 1.001, ..., 1.010 (11 rounds, shuffled): the median 1.005; the 95% interval of
  // the median of 11 is [x(2), x(10)] (P(B <= 1) = 12/2048 <= 0.025 < P(B <= 2)).
  std::vector<ab_round> rounds;
  for (const int k : {5, 0, 10, 3, 7, 1, 9, 2, 8, 4, 6})
    rounds.push_back(round_of(1'000, 1'000 + k));
  const ab_estimate e = estimate_rounds(rounds, 1.3);
  ASSERT_TRUE(e.rounds.has_value());
  EXPECT_DOUBLE_EQ(e.rounds->ratio, 1.005);
  EXPECT_DOUBLE_EQ(e.rounds->lower, 1.001);
  EXPECT_DOUBLE_EQ(e.rounds->upper, 1.009);
  EXPECT_EQ(e.rounds->count, 11U);
  EXPECT_GE(e.rounds->level, 0.95);
  EXPECT_EQ(e.disturbed, 0U);
  ASSERT_TRUE(e.floor_ratio().has_value());
  EXPECT_DOUBLE_EQ(*e.floor_a, 1'000);
  EXPECT_DOUBLE_EQ(*e.floor_b, 1'000);
}

TEST(AbEstimate, MarksRoundsWithASlowReferenceOrAContextSwitchAndAnswersWithoutThemToo) {
  std::vector<ab_round> rounds;
  for (int i = 0; i < 10; ++i)
    rounds.push_back(round_of(1'000, 1'010));
  rounds.push_back(round_of(1'000, 1'500, 131));     // reference 1.31x the fastest: slowed
  rounds.push_back(round_of(1'000, 1'500, 130));     // 1.30x: not beyond the factor
  rounds.push_back(round_of(1'000, 1'500, 100, 1));  // preempted
  const ab_estimate e = estimate_rounds(rounds, 1.3);
  EXPECT_EQ(e.disturbed, 2U);
  EXPECT_TRUE(rounds[10].disturbed);
  EXPECT_FALSE(rounds[11].disturbed);
  EXPECT_TRUE(rounds[12].disturbed);
  ASSERT_TRUE(e.rounds && e.undisturbed);
  EXPECT_EQ(e.rounds->count, 13U);
  EXPECT_EQ(e.undisturbed->count, 11U);
  EXPECT_DOUBLE_EQ(e.rounds->ratio, 1.01);
}

TEST(AbEstimate, TheClocksResolutionWidensBothIntervalsAndLeavesTheRatio) {
  std::vector<ab_round> rounds;
  for (const int k : {5, 0, 10, 3, 7, 1, 9, 2, 8, 4, 6})
    rounds.push_back(round_of(1'000, 1'000 + k));
  std::vector<ab_round> same = rounds;
  const ab_estimate alone = estimate_rounds(same, 1.3);
  // Steps of 2 and 3 ticks a call over floors of 1000 and 1000: 0.5%.
  const ab_estimate e = estimate_rounds(rounds, 1.3, ab_steps{.a = 2, .b = 3});
  ASSERT_TRUE(alone.rounds && e.rounds && e.undisturbed);
  EXPECT_DOUBLE_EQ(alone.resolution, 0);
  EXPECT_DOUBLE_EQ(alone.rounds->resolution, 0);
  EXPECT_DOUBLE_EQ(e.resolution, 0.005);
  EXPECT_DOUBLE_EQ(e.rounds->ratio, 1.005);
  EXPECT_DOUBLE_EQ(e.rounds->lower, 1.001 * 0.995);
  EXPECT_DOUBLE_EQ(e.rounds->upper, 1.009 / 0.995);
  EXPECT_DOUBLE_EQ(e.rounds->resolution, 0.005);
  EXPECT_DOUBLE_EQ(e.undisturbed->lower, 1.001 * 0.995);
  // At least as wide as each side's share exactly: lower x (1 - e_b) / (1 + e_a), upper
  // x (1 + e_b) / (1 - e_a).
  EXPECT_LE(e.rounds->lower, 1.001 * (1 - 0.003) / (1 + 0.002));
  EXPECT_GE(e.rounds->upper, 1.009 * (1 + 0.003) / (1 - 0.002));
  EXPECT_DOUBLE_EQ(clock_resolution(ab_steps{.a = 2, .b = 3}, 0, 1'000), 0);
}

TEST(AbEstimate, TheIntervalReachesTheMediansOfTheRoundsEachSideRanFirst) {
  // One workload on both sides, on a host where running second slows B by 1.9% and A by 4.3%
  // (docs/ab.md): the rounds A ran first read about 1.019, the others about 0.9583, each
  // scattered +-5%. The median over all 200 lies between, and its own interval reaches neither.
  std::vector<ab_round> rounds;
  for (int j = 0; j < 100; ++j) {
    const double scatter = 0.95 + 0.1 * j / 99;
    for (const bool a_first : {true, false}) {
      ab_round r = round_of(1'000, 1'000 * scatter * (a_first ? 1.019 : 0.9583));
      r.a_first = a_first;
      rounds.push_back(r);
    }
  }
  const ab_estimate e = estimate_rounds(rounds, 1.3);
  ASSERT_TRUE(e.rounds && e.undisturbed && e.order_split);
  EXPECT_EQ(e.order_split->a_first_rounds, 100U);
  EXPECT_EQ(e.order_split->b_first_rounds, 100U);
  EXPECT_NEAR(e.order_split->a_first, 1.019, 1e-12);
  EXPECT_NEAR(e.order_split->b_first, 0.9583, 1e-12);
  EXPECT_DOUBLE_EQ(e.rounds->lower, e.order_split->b_first);
  EXPECT_DOUBLE_EQ(e.rounds->upper, e.order_split->a_first);
  ASSERT_TRUE(e.rounds->order.has_value());
  EXPECT_DOUBLE_EQ(e.rounds->order->a_first, e.order_split->a_first);
  EXPECT_TRUE(e.undisturbed->order.has_value());
  // Without the split (every round A first), the same ratios' own interval: the same median,
  // narrow, and wholly below -0.5%.
  std::vector<ab_round> all_a_first = rounds;
  for (ab_round& r : all_a_first)
    r.a_first = true;
  const ab_estimate unsplit = estimate_rounds(all_a_first, 1.3);
  ASSERT_TRUE(unsplit.rounds.has_value());
  EXPECT_FALSE(unsplit.order_split.has_value());
  EXPECT_FALSE(unsplit.rounds->order.has_value());
  EXPECT_DOUBLE_EQ(e.rounds->ratio, unsplit.rounds->ratio);
  EXPECT_EQ(decide(*unsplit.rounds, 0.005, std::nullopt).verdict, ab_verdict::faster);
  // Widened, the pair of one workload is not called faster, and the reason says why more time
  // would not help.
  const ab_decision d = decide(*e.rounds, 0.005, std::nullopt);
  EXPECT_EQ(d.verdict, ab_verdict::unsure);
  EXPECT_THAT(d.reason, ::testing::HasSubstr("the medians of the rounds A ran first (+1.90%) and "
                                             "of those B ran first (-4.17%)"));
}

TEST(AbEstimate, HalvesWithinTheIntervalLeaveIt) {
  // The rounds A ran first read 1.010 and 1.011 in turn, the others 1.011 and 1.010: the
  // halves' medians lie inside the interval over all, which stays the ratios' own.
  std::vector<ab_round> rounds;
  for (int i = 0; i < 20; ++i) {
    ab_round r = round_of(1'000, i % 4 < 2 ? 1'010 : 1'011);
    r.a_first = i % 2 == 0;
    rounds.push_back(r);
  }
  const ab_estimate e = estimate_rounds(rounds, 1.3);
  ASSERT_TRUE(e.rounds && e.order_split);
  EXPECT_FALSE(e.rounds->order.has_value());
  EXPECT_DOUBLE_EQ(e.rounds->lower, 1.010);
  EXPECT_DOUBLE_EQ(e.rounds->upper, 1.011);
  EXPECT_DOUBLE_EQ(e.order_split->a_first, 1.0105);
  EXPECT_DOUBLE_EQ(e.order_split->b_first, 1.0105);
}

TEST(AbEstimate, NeedsSixRoundsAndLeavesOutAnANotAboveZero) {
  std::vector<ab_round> five(5, round_of(1'000, 1'010));
  EXPECT_FALSE(estimate_rounds(five, 1.3).rounds.has_value());
  std::vector<ab_round> rounds(6, round_of(1'000, 1'010));
  rounds.push_back(round_of(0, 5));  // an empty workload: no ratio
  const ab_estimate e = estimate_rounds(rounds, 1.3);
  ASSERT_TRUE(e.rounds.has_value());
  EXPECT_EQ(e.rounds->count, 6U);
  EXPECT_DOUBLE_EQ(*e.floor_a, 0);
  EXPECT_FALSE(e.floor_ratio().has_value());
}

TEST(AbEstimate, SaysHowSlowTheHostRanEachSideAgainstItsFloorAndTheReferenceAgainstItsFastest) {
  // A's minimums 1000, 1100, 1300, 1400, 1500, 1600, 1700 (median 1400); B's 1% above; the
  // reference 100 in all but two. The host ran the workload 1.4x its floor, the reference 1.0x.
  std::vector<ab_round> rounds;
  for (const double a : {1'300.0, 1'000.0, 1'700.0, 1'400.0, 1'100.0, 1'600.0, 1'500.0})
    rounds.push_back(round_of(a, a * 1.01, a > 1'550 ? 120 : 100));
  const ab_estimate e = estimate_rounds(rounds, 1.3);
  ASSERT_TRUE(e.slow_a && e.slow_b && e.slow_reference);
  EXPECT_DOUBLE_EQ(*e.slow_a, 1.4);
  EXPECT_DOUBLE_EQ(*e.slow_b, 1.4);
  EXPECT_DOUBLE_EQ(*e.slow_reference, 1.0);
  EXPECT_TRUE(e.slowed_host());

  // Just under the mark on both sides: not slowed. Only B at it: slowed.
  std::vector<ab_round> at_mark;
  for (const double a : {1'000.0, 1'199.0, 1'199.0})
    at_mark.push_back(round_of(a, a));
  EXPECT_FALSE(estimate_rounds(at_mark, 1.3).slowed_host());
  at_mark[1].b_min = 1'200;
  at_mark[2].b_min = 1'200;
  const ab_estimate b_only = estimate_rounds(at_mark, 1.3);
  EXPECT_DOUBLE_EQ(*b_only.slow_a, 1.199);
  EXPECT_DOUBLE_EQ(*b_only.slow_b, 1.2);
  EXPECT_TRUE(b_only.slowed_host());

  // No reference (gbench --vs) and no round: nothing said.
  std::vector<ab_round> unwatched{round_of(1'000, 1'010, 0), round_of(1'100, 1'110, 0)};
  const ab_estimate u = estimate_rounds(unwatched, 1.3);
  EXPECT_FALSE(u.slow_reference.has_value());
  EXPECT_DOUBLE_EQ(*u.slow_a, 1.05);
  std::vector<ab_round> none;
  const ab_estimate n = estimate_rounds(none, 1.3);
  EXPECT_FALSE(n.slow_a || n.slow_b || n.slow_reference);
  EXPECT_FALSE(n.slowed_host());
}

TEST(AbCombinePairs, IsTheGeometricMeanWithStudentsTOverPairsJoinedWithThePooledInterval) {
  // Two pairs at 1.01 and 1.03: log mean at sqrt(1.01 * 1.03); t(0.975, 1) = 12.706.
  const std::vector<double> ratios{1.01, 1.03};
  const auto c = combine_pairs(ratios, std::nullopt);
  ASSERT_TRUE(c.has_value());
  EXPECT_NEAR(c->ratio, std::sqrt(1.01 * 1.03), 1e-12);
  const double sd = std::abs(std::log(1.03) - std::log(1.01)) / std::sqrt(2.0);
  const double half = 12.7062047361747 * sd / std::sqrt(2.0);
  EXPECT_NEAR(c->lower, std::exp(std::log(c->ratio) - half), 1e-9);
  EXPECT_NEAR(c->upper, std::exp(std::log(c->ratio) + half), 1e-9);
  EXPECT_EQ(c->count, 2U);
  // Pairs that agree exactly leave the pooled rounds' spread as the width.
  const std::vector<double> same{1.02, 1.02, 1.02};
  const ab_interval pooled{
      .ratio = 1.02, .lower = 1.015, .upper = 1.025, .level = 0.95, .count = 20, .method = "test"};
  const auto joined = combine_pairs(same, pooled);
  ASSERT_TRUE(joined.has_value());
  EXPECT_NEAR(joined->ratio, 1.02, 1e-12);
  EXPECT_DOUBLE_EQ(joined->lower, 1.015);
  EXPECT_DOUBLE_EQ(joined->upper, 1.025);
  EXPECT_FALSE(combine_pairs(std::vector<double>{1.0}, pooled).has_value());
}

// ---- the stop rule and the verdict -------------------------------------------------------------

ab_interval interval(double ratio, double lower, double upper) {
  return ab_interval{
      .ratio = ratio, .lower = lower, .upper = upper, .level = 0.95, .count = 20, .method = "test"};
}

TEST(AbTarget, IsTheHalfWidthRelativeToTheRatio) {
  EXPECT_TRUE(target_met(interval(1.0, 0.9996, 1.0004), 0.0005));   // half-width 0.04%
  EXPECT_FALSE(target_met(interval(1.0, 0.9994, 1.0006), 0.0005));  // 0.06%
  EXPECT_FALSE(target_met(interval(2.0, 1.5, 2.5), 0.25));          // exactly the target: not under
  EXPECT_TRUE(target_met(interval(2.0, 1.5, 2.5), 0.2500001));
}

TEST(AbDecide, SaysSlowerFasterSameOrUnsureAgainstTheThreshold) {
  EXPECT_EQ(decide(interval(1.01, 1.0098, 1.0102), 0.005, {}).verdict, ab_verdict::slower);
  EXPECT_EQ(decide(interval(0.98, 0.978, 0.982), 0.005, {}).verdict, ab_verdict::faster);
  EXPECT_EQ(decide(interval(1.0, 0.9997, 1.0004), 0.005, {}).verdict, ab_verdict::same);
  // A real difference under the threshold is the same, for this threshold.
  EXPECT_EQ(decide(interval(1.002, 1.001, 1.003), 0.005, {}).verdict, ab_verdict::same);
  const ab_decision unsure = decide(interval(1.005, 1.003, 1.008), 0.005, {});
  EXPECT_EQ(unsure.verdict, ab_verdict::unsure);
  EXPECT_NE(unsure.reason.find("[+0.30%, +0.80%]"), std::string::npos) << unsure.reason;
  EXPECT_NE(unsure.reason.find("+0.50%"), std::string::npos) << unsure.reason;
  EXPECT_EQ(decide(interval(1.0, 0.99, 1.01), 0.005, {}).verdict, ab_verdict::unsure);
  // With no threshold, any interval clear of 1 decides.
  EXPECT_EQ(decide(interval(1.001, 1.0005, 1.0015), 0, {}).verdict, ab_verdict::slower);
}

TEST(AbDecide, AnUnsureIntervalMostlyOfTheClocksStepAsksForLongerSamplesNotMoreTime) {
  using ::testing::HasSubstr;
  // [+0.25%, +0.55%]: the rounds' own +-0.05% around +0.40%, widened +-0.10% for the step
  // (the step at least the rounds' own half-width).
  const ab_interval rounds = interval(1.004, 1.0035, 1.0045);
  const ab_interval widened = widened_by_resolution(rounds, 0.001);
  const ab_decision d = decide(widened, 0.005, std::nullopt);
  EXPECT_EQ(d.verdict, ab_verdict::unsure);
  EXPECT_THAT(d.reason, HasSubstr("+-0.100% of it is the clock's step, which longer samples "
                                  "(--min-sample-time, or a larger --batch) narrow and more time "
                                  "does not"));
  // The rounds' spread making most of the width: more time.
  const ab_decision wide =
      decide(widened_by_resolution(interval(1.004, 0.999, 1.009), 0.001), 0.005, std::nullopt);
  EXPECT_EQ(wide.verdict, ab_verdict::unsure);
  EXPECT_THAT(wide.reason, HasSubstr("more time (--max-time) narrows it"));
}

TEST(AbDecide, TheGateFailsOnlyWhenTheWholeIntervalLiesAboveIt) {
  EXPECT_TRUE(decide(interval(1.02, 1.015, 1.025), 0.005, 0.01).gate_failed);
  EXPECT_FALSE(decide(interval(1.02, 1.005, 1.035), 0.005, 0.01).gate_failed);  // not sure
  EXPECT_FALSE(decide(interval(1.02, 1.015, 1.025), 0.005, 0.02).gate_failed);
  EXPECT_FALSE(decide(interval(1.02, 1.015, 1.025), 0.005, std::nullopt).gate_failed);
}

TEST(AbDecide, ASettledVerdictIsOneMoreRoundsWouldNotChange) {
  EXPECT_TRUE(verdict_settled(interval(1.02, 1.01, 1.03), 0.005, std::nullopt));     // slower
  EXPECT_TRUE(verdict_settled(interval(0.98, 0.97, 0.99), 0.005, std::nullopt));     // faster
  EXPECT_TRUE(verdict_settled(interval(1.0, 0.997, 1.004), 0.005, std::nullopt));    // same
  EXPECT_FALSE(verdict_settled(interval(1.004, 0.998, 1.01), 0.005, std::nullopt));  // unsure
  // The gate: failed, or passed with the whole interval at or below its limit; not one that
  // reaches across it.
  EXPECT_TRUE(verdict_settled(interval(1.02, 1.01, 1.03), 0.005, 0.005));
  EXPECT_TRUE(verdict_settled(interval(1.02, 1.01, 1.03), 0.005, 0.03));
  EXPECT_FALSE(verdict_settled(interval(1.02, 1.01, 1.03), 0.005, 0.02));
  EXPECT_FALSE(verdict_settled(interval(1.004, 0.998, 1.01), 0.005, 0.0));
}

// ---- the rounds, with fake sides on a fake clock
// -------------------------------------------------

// One fake time line in ns; the sides' clock runs at 1 GHz, so a tick is a nanosecond.
struct fake_host {
  std::uint64_t now_ns = 0;
  // The host's speed: a factor on every duration from `slow_from` for `slow_for` ns.
  std::uint64_t slow_from = 0;
  std::uint64_t slow_for = 0;
  double slow_factor = 1;
  std::vector<char> calls;  // which side sampled, in order
  // Each call's sample count and reference iterations, in the same order.
  std::vector<std::pair<std::size_t, std::uint32_t>> asked;

  double speed() const {
    return now_ns >= slow_from && now_ns < slow_from + slow_for ? slow_factor : 1.0;
  }
  std::uint64_t spend(double ns) {
    const auto taken = static_cast<std::uint64_t>(std::llround(ns * speed()));
    now_ns += taken;
    return taken;
  }
};

class fake_side final : public ab_side {
 public:
  fake_side(fake_host& host, char name, double per_call, std::uint64_t overhead,
            std::uint64_t batch_needed)
      : host_(host), name_(name), per_call_(per_call), overhead_(overhead), batch_(batch_needed) {
    facts_.workload = std::string(1, name);
    facts_.build = "fake";
    facts_.clock = "fake";
    facts_.ticks_per_second = 1e9;
    facts_.clock_step = 10;
  }
  const ab_side_facts& facts() const override { return facts_; }
  void declare_min_sample_ns(std::uint64_t ns) { facts_.min_sample_ns = ns; }
  void declare_min_batch(std::uint64_t calls) { facts_.min_batch = calls; }
  std::uint64_t measure_overhead(std::size_t) override { return overhead_; }
  std::uint64_t calibrate(std::uint64_t overhead, std::uint64_t min_ticks) override {
    calibrated_with = {overhead, min_ticks};
    facts_.call_ticks = call_ticks_;
    return batch_;
  }
  ab_side_samples sample(std::size_t count, std::uint64_t batch,
                         std::uint32_t reference_iterations) override {
    if (fail_at && host_.calls.size() >= *fail_at) throw ab_side_failure("fake: broke", true);
    host_.calls.push_back(name_);
    host_.asked.emplace_back(count, reference_iterations);
    ab_side_samples s;
    s.reference = host_.spend(1'000);
    for (std::size_t i = 0; i < count; ++i) {
      const std::uint64_t taken = host_.spend(per_call_ * static_cast<double>(batch));
      s.raw.push_back(taken / quantum_ * quantum_ + overhead_);
    }
    s.reference = std::max(s.reference, host_.spend(1'000));
    return s;
  }
  // What calibration says a call took alone, as a local side does (0: not said).
  void set_call_ticks(std::uint64_t ticks) { call_ticks_ = ticks; }
  // A clock that advances in quanta of `ticks`, which is also its step: a sample reads the
  // whole quanta it spanned (a TSC of 10 ns quanta).
  void set_quantum(std::uint64_t ticks) {
    quantum_ = ticks;
    facts_.clock_step = ticks;
  }
  std::pair<std::uint64_t, std::uint64_t> calibrated_with{};
  std::optional<std::size_t> fail_at;

 private:
  fake_host& host_;
  char name_;
  double per_call_;
  std::uint64_t overhead_;
  std::uint64_t batch_;
  std::uint64_t call_ticks_ = 0;
  std::uint64_t quantum_ = 1;
  ab_side_facts facts_;
};

ab_options fake_options(fake_host& host) {
  ab_options o;
  o.now_ns = [&host] { return host.now_ns; };
  o.warmup = std::chrono::milliseconds(10);
  o.max_time = std::chrono::milliseconds(500);
  return o;
}

// fake_options with the measured rounds' budget and the time of the first look at the verdict.
ab_options deciding_options(fake_host& host, std::chrono::milliseconds max_time,
                            std::chrono::milliseconds decide_after) {
  ab_options o = fake_options(host);
  o.max_time = max_time;
  o.decide_after = decide_after;
  return o;
}

// bench/soak.sh: `ab fresh_pages/4096 empty` gave fresh_pages empty's batch of thousands of calls,
// and its first sample ran for minutes, deaf to SIGINT. Refused before any sample now.
TEST(AbRounds, ABatchThatWouldMakeASampleOutlastMaxTimeIsRefusedBeforeAnySample) {
  fake_host host;
  fake_side slow(host, 'A', 5e6, 20, 1);  // 5 ms a call: one call fills a sample
  fake_side cheap(host, 'B', 10, 20, 2'000);
  slow.set_call_ticks(5'000'000);
  cheap.set_call_ticks(10);
  try {
    (void)run_rounds(slow, cheap, fake_options(host));
    ADD_FAILURE() << "not refused";
  } catch (const ab_batch_refused& e) {
    using ::testing::HasSubstr;
    EXPECT_THAT(e.what(), HasSubstr("A and B cannot share one batch: 2000 calls a sample, what B "
                                    "needs for a sample of 10000 ticks"));
    EXPECT_THAT(e.what(), HasSubstr("take about 10.0 s of A (5.00 ms a call)"));
    EXPECT_THAT(e.what(), HasSubstr("longer than --max-time 500 ms"));
  }
  EXPECT_TRUE(host.calls.empty());
  // A batch given that a sample of the slow side outlasts: refused the same way.
  ab_options o = fake_options(host);
  o.batch = 200;
  EXPECT_THROW((void)run_rounds(slow, cheap, o), ab_batch_refused);
  EXPECT_TRUE(host.calls.empty());
  // One call a sample: both fit, and the rounds run.
  o.batch = 1;
  EXPECT_FALSE(run_rounds(slow, cheap, o).rounds.empty());
}

TEST(AbRounds, OneBatchForBothTheLargerNeedAndRoundsSizedToTheRoundTime) {
  fake_host host;
  fake_side a(host, 'A', 1'000, 20, 3);
  fake_side b(host, 'B', 1'010, 30, 5);
  const ab_pair p = run_rounds(a, b, fake_options(host));
  EXPECT_EQ(p.batch, 5U);
  EXPECT_TRUE(p.batch_calibrated);
  // 1000 steps of the 10-tick clock, and each side its own overhead.
  EXPECT_EQ(a.calibrated_with, (std::pair<std::uint64_t, std::uint64_t>{20, 10'000}));
  EXPECT_EQ(b.calibrated_with, (std::pair<std::uint64_t, std::uint64_t>{30, 10'000}));
  EXPECT_EQ(p.overhead_a, 20U);
  EXPECT_EQ(p.overhead_b, 30U);
  // A round of 4 ms holds 4e6 / (5,000 + 20 + 5,050 + 30) = 396 samples a side: capped at 64.
  EXPECT_EQ(p.samples_per_side, 64U);
  // Every round's minimum is exact: (raw - overhead) / batch.
  ASSERT_FALSE(p.rounds.empty());
  for (const ab_round& r : p.rounds) {
    EXPECT_DOUBLE_EQ(r.a_min, 1'000);
    EXPECT_DOUBLE_EQ(r.b_min, 1'010);
  }
  ASSERT_TRUE(p.estimate.rounds.has_value());
  EXPECT_DOUBLE_EQ(p.estimate.rounds->ratio, 1.01);
  // The interval is a point: the target is met at the first two checks, rounds 20 and 30.
  EXPECT_EQ(p.stopped_by, ab_stop::target);
  EXPECT_EQ(p.rounds.size(), 30U);
  EXPECT_EQ(p.checks, 2U);
}

TEST(AbRounds, BothSidesTakeTheLongerSampleASideDeclaresUnlessTheOptionIsGiven) {
  fake_host host;
  fake_side a(host, 'A', 1'000, 20, 3);
  fake_side b(host, 'B', 1'010, 30, 5);
  b.declare_min_sample_ns(50'000);  // 50,000 ticks at 1e9/s, above 1000 steps of 10 ticks
  ab_pair p = run_rounds(a, b, fake_options(host));
  EXPECT_EQ(p.min_sample_ticks, 50'000U);
  EXPECT_EQ(p.min_sample_source, min_sample_origin::workload);
  EXPECT_EQ(a.calibrated_with, (std::pair<std::uint64_t, std::uint64_t>{20, 50'000}));
  EXPECT_EQ(b.calibrated_with, (std::pair<std::uint64_t, std::uint64_t>{30, 50'000}));
  // --min-sample-time decides, shorter or not.
  ab_options o = fake_options(host);
  o.min_sample_time = std::chrono::microseconds(2);
  p = run_rounds(a, b, o);
  EXPECT_EQ(p.min_sample_ticks, 2'000U);
  EXPECT_EQ(p.min_sample_source, min_sample_origin::option);
  EXPECT_EQ(a.calibrated_with, (std::pair<std::uint64_t, std::uint64_t>{20, 2'000}));
  // Shorter than the default: the default stays.
  b.declare_min_sample_ns(5'000);
  p = run_rounds(a, b, fake_options(host));
  EXPECT_EQ(p.min_sample_ticks, 10'000U);
  EXPECT_EQ(p.min_sample_source, min_sample_origin::clock_steps);
}

TEST(AbRounds, BothSidesTakeTheLargerBatchASideDeclaresUnlessBatchIsGiven) {
  fake_host host;
  fake_side a(host, 'A', 1'000, 20, 3);
  fake_side b(host, 'B', 1'010, 30, 5);
  a.declare_min_batch(8);
  ab_pair p = run_rounds(a, b, fake_options(host));
  EXPECT_EQ(p.batch, 8U);
  EXPECT_TRUE(p.batch_raised);
  EXPECT_EQ(p.a.min_batch, 8U);
  ASSERT_FALSE(p.rounds.empty());
  EXPECT_DOUBLE_EQ(p.rounds.front().a_min, 1'000);  // per call, over 8 calls
  // Fewer than a side's calibration needs: the calibrated batch stays.
  a.declare_min_batch(4);
  p = run_rounds(a, b, fake_options(host));
  EXPECT_EQ(p.batch, 5U);
  EXPECT_FALSE(p.batch_raised);
  // --batch decides.
  a.declare_min_batch(8);
  ab_options o = fake_options(host);
  o.batch = 2;
  p = run_rounds(a, b, o);
  EXPECT_EQ(p.batch, 2U);
  EXPECT_FALSE(p.batch_raised);
}

TEST(AbRounds, TheOrderAlternatesAndTheWarmupRunsFirst) {
  fake_host host;
  fake_side a(host, 'A', 100'000, 0, 1);
  fake_side b(host, 'B', 100'000, 0, 1);
  ab_options o = fake_options(host);
  o.order = ab_order::alternate;
  o.warmup = std::chrono::nanoseconds(0);  // one warmup round, to size the rounds
  const ab_pair p = run_rounds(a, b, o);
  EXPECT_EQ(p.warmup_rounds, 1U);
  // 4 ms / 200 us a round of one each: 20 samples a side.
  EXPECT_EQ(p.samples_per_side, 20U);
  const std::string order(host.calls.begin(), host.calls.end());
  // The warmup round (index 0: AB), then measured rounds 0, 1, 2...: AB, BA, AB, ...
  EXPECT_EQ(order.substr(0, 10), "ABABBAABBA");
  EXPECT_TRUE(p.rounds[0].a_first);
  EXPECT_FALSE(p.rounds[1].a_first);
}

TEST(AbRounds, WithinARoundTheSidesAlternateInStretchesWithTheReferenceAtTheEnds) {
  fake_host host;
  fake_side a(host, 'A', 10'000, 0, 1);
  fake_side b(host, 'B', 10'000, 0, 1);
  ab_options o = fake_options(host);
  o.order = ab_order::alternate;
  o.warmup = std::chrono::nanoseconds(0);
  const ab_pair p = run_rounds(a, b, o);
  // 4 ms / 20 us: 200 samples a side, capped at 64; 100 us stretches of 10 us samples: 10.
  EXPECT_EQ(p.samples_per_side, 64U);
  EXPECT_EQ(p.samples_per_stretch, 10U);
  // After the warmup round (AB, one sample each): round 0 in 7 stretches (6 of 10 and one of 4),
  // AB, BA, AB...; round 1 starts with B.
  const std::string order(host.calls.begin(), host.calls.end());
  EXPECT_EQ(order.substr(2, 16), "ABBAABBAABBAABBA");
  EXPECT_EQ(order.substr(16, 4), "BAAB");
  const std::uint32_t ref = ab_settings{}.reference_iterations;
  for (std::size_t i = 2; i < 16; ++i) {
    const std::size_t stretch = (i - 2) / 2;
    EXPECT_EQ(host.asked[i].first, stretch < 6 ? 10U : 4U) << i;
    // The reference loop runs around each side's first and last stretch only.
    EXPECT_EQ(host.asked[i].second, stretch == 0 || stretch == 6 ? ref : 0U) << i;
  }
  // Every round's minimum is exact.
  for (const ab_round& r : p.rounds) {
    EXPECT_DOUBLE_EQ(r.a_min, 10'000);
    EXPECT_DOUBLE_EQ(r.b_min, 10'000);
  }
}

TEST(AbRounds, SamplesLongerThanARoundStillGiveEachSideThreeARound) {
  // 5 ms a sample, longer than the 4 ms round: three samples a side, one a stretch, so each side
  // has one sample right after one of its own in every round (ABBAAB, then BAABBA).
  fake_host host;
  fake_side a(host, 'A', 5'000'000, 0, 1);
  fake_side b(host, 'B', 5'000'000, 0, 1);
  ab_options o = fake_options(host);
  o.order = ab_order::alternate;
  o.warmup = std::chrono::nanoseconds(0);
  o.max_time = std::chrono::milliseconds(100);
  const ab_pair p = run_rounds(a, b, o);
  EXPECT_EQ(p.samples_per_side, 3U);
  EXPECT_EQ(p.samples_per_stretch, 1U);
  const std::string order(host.calls.begin(), host.calls.end());
  // The warmup round (AB, one sample each), then rounds 0 and 1.
  EXPECT_EQ(order.substr(0, 14), "ABABBAABBAABBA");
  // One sample a round when asked for.
  fake_host one_host;
  fake_side one_a(one_host, 'A', 5'000'000, 0, 1);
  fake_side one_b(one_host, 'B', 5'000'000, 0, 1);
  o = fake_options(one_host);
  o.order = ab_order::alternate;
  o.max_time = std::chrono::milliseconds(100);
  o.tuning.min_samples_per_side = 1;
  o.order = ab_order::alternate;
  EXPECT_EQ(run_rounds(one_a, one_b, o).samples_per_side, 1U);
  // And never none.
  fake_host none_host;
  fake_side none_a(none_host, 'A', 5'000'000, 0, 1);
  fake_side none_b(none_host, 'B', 5'000'000, 0, 1);
  o = fake_options(none_host);
  o.order = ab_order::alternate;
  o.max_time = std::chrono::milliseconds(100);
  o.tuning.min_samples_per_side = 0;
  EXPECT_EQ(run_rounds(none_a, none_b, o).samples_per_side, 1U);
}

using per_side = std::pair<std::size_t, std::size_t>;  // A's, B's

// Per side, the samples taken right after one of the same side's (a sample after the first of
// its sample() call, or the first of a call that follows the same side's), over calls
// [begin, end) of the host's record.
per_side samples_after_their_own(const fake_host& host, std::size_t begin, std::size_t end) {
  per_side after_own{0, 0};
  for (std::size_t i = begin; i < end; ++i) {
    const std::size_t count = host.asked[i].first;
    const bool follows_own = i > 0 && host.calls[i - 1] == host.calls[i];
    (host.calls[i] == 'A' ? after_own.first : after_own.second) +=
        count - 1 + (follows_own ? 1 : 0);
  }
  return after_own;
}

TEST(AbRounds, BalancedRoundsGiveEachSideAsManySamplesRightAfterItsOwn) {
  // 5 ms a sample: three a side asked for, four taken (an even count of stretches), ABBA ABBA in
  // every round, the warmup's included, so every round starts after an A.
  fake_host host;
  fake_side a(host, 'A', 5'000'000, 0, 1);
  fake_side b(host, 'B', 5'000'000, 0, 1);
  ab_options o = fake_options(host);
  o.order = ab_order::balanced;
  o.warmup = std::chrono::nanoseconds(0);
  o.max_time = std::chrono::milliseconds(100);
  const ab_pair p = run_rounds(a, b, o);
  EXPECT_EQ(p.samples_per_side, 4U);
  EXPECT_EQ(p.samples_per_stretch, 1U);
  const std::string order(host.calls.begin(), host.calls.end());
  // The warmup round (ABBA, one sample a stretch), then rounds 0 and 1.
  EXPECT_EQ(order.substr(0, 20), "ABBAABBAABBAABBAABBA");
  for (std::size_t round = 0; round < 2; ++round) {
    const std::size_t begin = 4 + round * 8;
    EXPECT_EQ(samples_after_their_own(host, begin, begin + 8), per_side(2, 2)) << round;
  }
  // No round B ran first: nothing to split by order.
  for (const ab_round& r : p.rounds)
    EXPECT_TRUE(r.a_first);
  EXPECT_FALSE(p.estimate.order_split);
  // The alternate order, for contrast: round 1, BAABBA after round 0's ABBAAB, gives B two
  // samples right after its own, A one.
  fake_host alt_host;
  fake_side alt_a(alt_host, 'A', 5'000'000, 0, 1);
  fake_side alt_b(alt_host, 'B', 5'000'000, 0, 1);
  o = fake_options(alt_host);
  o.order = ab_order::alternate;
  o.warmup = std::chrono::nanoseconds(0);
  o.max_time = std::chrono::milliseconds(100);
  run_rounds(alt_a, alt_b, o);
  EXPECT_EQ(samples_after_their_own(alt_host, 8, 14), per_side(1, 2));
}

TEST(AbRounds, BalancedRoundsOfShortSamplesTakeAnEvenCountOfStretches) {
  fake_host host;
  fake_side a(host, 'A', 10'000, 0, 1);
  fake_side b(host, 'B', 10'000, 0, 1);
  ab_options o = fake_options(host);
  o.order = ab_order::balanced;
  o.warmup = std::chrono::nanoseconds(0);
  const ab_pair p = run_rounds(a, b, o);
  // 64 samples a side in stretches of 10 is 7 stretches: 8 of 8 instead.
  EXPECT_EQ(p.samples_per_side, 64U);
  EXPECT_EQ(p.samples_per_stretch, 8U);
  const std::string order(host.calls.begin(), host.calls.end());
  // After the warmup round (ABBA): rounds 0 and 1, each ABBA ABBA ABBA ABBA.
  EXPECT_EQ(order.substr(4, 32), "ABBAABBAABBAABBAABBAABBAABBAABBA");
  const std::uint32_t ref = ab_settings{}.reference_iterations;
  for (std::size_t i = 4; i < 20; ++i) {
    const std::size_t stretch = (i - 4) / 2;
    EXPECT_EQ(host.asked[i].first, 8U) << i;
    EXPECT_EQ(host.asked[i].second, stretch == 0 || stretch == 7 ? ref : 0U) << i;
  }
  EXPECT_EQ(samples_after_their_own(host, 4, 20), per_side(60, 60));
}

// A side whose cost per call alternates between two, sample() call by call: in rounds of one
// sample a side (ab_settings::min_samples_per_side 1) in the alternate order, one sample() call
// a side a round, the round ratios stay apart, so the interval stays wide.
struct wobbling_side final : public ab_side {
  fake_side inner_first, inner_second;
  std::size_t n = 0;
  wobbling_side(fake_host& h, double first, double second)
      : inner_first(h, 'B', first, 0, 1), inner_second(h, 'B', second, 0, 1) {}
  const ab_side_facts& facts() const override { return inner_first.facts(); }
  std::uint64_t measure_overhead(std::size_t s) override { return inner_first.measure_overhead(s); }
  std::uint64_t calibrate(std::uint64_t o, std::uint64_t m) override {
    return inner_first.calibrate(o, m);
  }
  ab_side_samples sample(std::size_t c, std::uint64_t b, std::uint32_t r) override {
    return (n++ % 2 == 0 ? inner_first : inner_second).sample(c, b, r);
  }
};

TEST(AbRounds, StopsAtMaxTimeWhenTheTargetIsNotMet) {
  // B alternates between 1% and 3% slower round by round: the interval stays wide.
  fake_host host;
  fake_side a(host, 'A', 1'000'000, 0, 1);
  wobbling_side b(host, 1'030'000, 1'010'000);
  ab_options o = fake_options(host);
  o.max_time = std::chrono::milliseconds(100);
  o.tuning.min_samples_per_side = 1;
  o.order = ab_order::alternate;
  const ab_pair p = run_rounds(a, b, o);
  EXPECT_EQ(p.stopped_by, ab_stop::max_time);
  EXPECT_GE(p.seconds, 0.1);
  EXPECT_GT(p.checks, 0U);
  ASSERT_TRUE(p.last_half_width.has_value());
  EXPECT_GT(*p.last_half_width, o.target);
}

TEST(AbRounds, AfterDecideAfterTheFirstCheckWithASettledVerdictStopsThem) {
  // B 1% to 3% slower: the interval stays wider than the target, but wholly above +0.5%.
  fake_host host;
  fake_side a(host, 'A', 1'000'000, 0, 1);
  wobbling_side b(host, 1'030'000, 1'010'000);
  ab_options o =
      deciding_options(host, std::chrono::milliseconds(500), std::chrono::milliseconds(100));
  o.tuning.min_samples_per_side = 1;
  o.order = ab_order::alternate;
  const ab_pair p = run_rounds(a, b, o);
  EXPECT_EQ(p.stopped_by, ab_stop::decided);
  EXPECT_GE(p.seconds, 0.1);
  EXPECT_LT(p.seconds, 0.2);  // at the first check after 100 ms (a check every 10 rounds of ~2 ms)
  ASSERT_TRUE(p.estimate.rounds.has_value());
  EXPECT_EQ(decide(*p.estimate.rounds, o.threshold, o.fail_if_slower).verdict, ab_verdict::slower);
  ASSERT_TRUE(p.last_half_width.has_value());
  EXPECT_GT(*p.last_half_width, o.target);

  // A gate at +2% lies inside the interval: not settled, so all of max_time.
  fake_host gated_host;
  fake_side gated_a(gated_host, 'A', 1'000'000, 0, 1);
  wobbling_side gated_b(gated_host, 1'030'000, 1'010'000);
  ab_options gated =
      deciding_options(gated_host, std::chrono::milliseconds(500), std::chrono::milliseconds(100));
  gated.fail_if_slower = 0.02;
  gated.tuning.min_samples_per_side = 1;
  gated.order = ab_order::alternate;
  const ab_pair g = run_rounds(gated_a, gated_b, gated);
  EXPECT_EQ(g.stopped_by, ab_stop::max_time);
  EXPECT_GE(g.seconds, 0.5);
}

// B wobbles 1% either side of A until `settle_at` ns of host time, then runs 1% slower.
struct settling_side final : public ab_side {
  fake_host& host;
  std::uint64_t settle_at;
  wobbling_side unsure;
  fake_side slower;
  settling_side(fake_host& h, std::uint64_t at)
      : host(h), settle_at(at), unsure(h, 1'010'000, 990'000), slower(h, 'B', 1'010'000, 0, 1) {}
  const ab_side_facts& facts() const override { return slower.facts(); }
  std::uint64_t measure_overhead(std::size_t s) override { return slower.measure_overhead(s); }
  std::uint64_t calibrate(std::uint64_t o, std::uint64_t m) override {
    return slower.calibrate(o, m);
  }
  ab_side_samples sample(std::size_t c, std::uint64_t b, std::uint32_t r) override {
    return host.now_ns < settle_at ? unsure.sample(c, b, r) : slower.sample(c, b, r);
  }
};

TEST(AbRounds, TheVerdictIsLookedAtAfterDecideAfterAndEachHalfOfItMoreNotAtEveryCheck) {
  // Rounds of 2 ms (a sample a side), half at -1% and half at +1% until 180 ms, then all at +1%: at
  // 200 ms the median's interval still reaches down to -1%; from ~220 ms (rounds enough at +1% to
  // move the interval's lower order statistic) it lies above +0.5%. Looked at every check, the
  // rounds would stop there; looked at 200, 300, 400... ms, they stop at the 300 ms look.
  fake_host host;
  fake_side a(host, 'A', 1'000'000, 0, 1);
  settling_side b(host, 180'000'000);
  // Looks at 200, 300, 400... ms.
  ab_options o = deciding_options(host, std::chrono::seconds(2), std::chrono::milliseconds(200));
  o.warmup = std::chrono::milliseconds(1);
  o.target = 0;  // never met (the rounds at +1% give an interval of no width)
  o.tuning.min_samples_per_side = 1;
  o.order = ab_order::alternate;
  const ab_pair p = run_rounds(a, b, o);
  EXPECT_EQ(p.stopped_by, ab_stop::decided) << to_string(p.stopped_by);
  const double ms = p.seconds * 1e3;
  EXPECT_GE(ms, 300);  // not settled at the first look
  // At the first check after a look (a check every 10 rounds of ~2 ms), never between looks.
  EXPECT_LT(std::fmod(ms, 100.0), 50.0) << ms;
}

TEST(AbRounds, AnUnsureVerdictRunsOnToMaxTime) {
  // B 1% faster and 1% slower in turn: the interval reaches across +-0.5%.
  fake_host host;
  fake_side a(host, 'A', 1'000'000, 0, 1);
  wobbling_side b(host, 1'010'000, 990'000);
  ab_options o =
      deciding_options(host, std::chrono::milliseconds(300), std::chrono::milliseconds(100));
  o.tuning.min_samples_per_side = 1;
  o.order = ab_order::alternate;
  const ab_pair p = run_rounds(a, b, o);
  EXPECT_EQ(p.stopped_by, ab_stop::max_time);
  EXPECT_GE(p.seconds, 0.3);
  ASSERT_TRUE(p.estimate.rounds.has_value());
  EXPECT_EQ(decide(*p.estimate.rounds, o.threshold, o.fail_if_slower).verdict, ab_verdict::unsure);
}

TEST(AbRounds, AHostSlowStretchFallsOnBothSidesOfARoundAndLeavesTheRatio) {
  // The host runs 1.5x slow for 40 ms in the middle of the rounds. The floors of a side measured
  // in that stretch alone would be 50% off; paired rounds keep B/A at 1.01.
  fake_host host;
  host.slow_from = 30'000'000;
  host.slow_for = 40'000'000;
  host.slow_factor = 1.5;
  fake_side a(host, 'A', 100'000, 0, 1);
  fake_side b(host, 'B', 101'000, 0, 1);
  ab_options o = fake_options(host);
  o.target = 1e-9;  // never met: all of max_time
  o.max_time = std::chrono::milliseconds(100);
  const ab_pair p = run_rounds(a, b, o);
  std::size_t slowed = 0;
  for (const ab_round& r : p.rounds)
    slowed += r.a_min > 100'000 ? 1 : 0;
  // 40 ms at 1.5x hold five or six whole rounds of 6 ms.
  EXPECT_GE(slowed, 5U);
  ASSERT_TRUE(p.estimate.rounds.has_value());
  EXPECT_NEAR(p.estimate.rounds->ratio, 1.01, 1e-9);
  EXPECT_GT(p.estimate.disturbed, 0U);  // the reference runs saw the stretch
}

// Measured: on a TSC of 10 ns quanta (24.5 ticks), `ab xor_loop/1000000 xor_loop/1010000` gave
// intervals like [+1.000087%, +1.000101%] in 6 of 12 processes: each side's minimum reads up to a
// quantum low, the same in every round, and more rounds do not move it.
TEST(AbRounds, AClockOfCoarseQuantaReadsBothFloorsLowAndTheIntervalStillHoldsTheTruth) {
  fake_host host;
  // 299,990 and 302,989.9 ns (B/A 1.01 exactly) read as 299,975 and 302,975 on 25 ns quanta.
  fake_side a(host, 'A', 299'990, 0, 1);
  fake_side b(host, 'B', 302'989.9, 0, 1);
  a.set_quantum(25);
  b.set_quantum(25);
  const ab_pair p = run_rounds(a, b, fake_options(host));
  ASSERT_TRUE(p.estimate.rounds.has_value());
  const ab_interval& i = *p.estimate.rounds;
  EXPECT_DOUBLE_EQ(i.ratio, 302'975.0 / 299'975.0);  // 1.0100008: every round alike
  EXPECT_NE(i.ratio, 1.01);
  // The round ratios alone are a point, which the stop rule meets at its first two checks.
  EXPECT_EQ(p.stopped_by, ab_stop::target);
  ASSERT_TRUE(p.last_half_width.has_value());
  EXPECT_DOUBLE_EQ(*p.last_half_width, 0);
  // The answer carries a step of each side's clock over its floor, and so holds the truth.
  const double resolution = 25 / 299'975.0 + 25 / 302'975.0;
  EXPECT_DOUBLE_EQ(p.estimate.resolution, resolution);
  EXPECT_DOUBLE_EQ(i.resolution, resolution);
  EXPECT_DOUBLE_EQ(i.lower, i.ratio * (1 - resolution));
  EXPECT_DOUBLE_EQ(i.upper, i.ratio / (1 - resolution));
  EXPECT_LT(i.lower, 1.01);
  EXPECT_GT(i.upper, 1.01);
  ASSERT_TRUE(p.estimate.undisturbed.has_value());
  EXPECT_DOUBLE_EQ(p.estimate.undisturbed->resolution, resolution);
}

TEST(AbRounds, SamplesNoLongerThanAStepOfTheClockGiveNoAnswer) {
  fake_host host;
  fake_side a(host, 'A', 30, 0, 1);
  fake_side b(host, 'B', 30, 0, 1);
  a.set_quantum(25);
  b.set_quantum(25);
  ab_options o = fake_options(host);
  o.batch = 1;  // a sample of one 30 ns call, on 25 ns quanta
  const ab_pair p = run_rounds(a, b, o);
  EXPECT_FALSE(p.rounds.empty());
  EXPECT_DOUBLE_EQ(p.estimate.resolution, 2.0);  // 25 / 25 each side
  EXPECT_FALSE(p.estimate.rounds.has_value());
  EXPECT_FALSE(p.estimate.undisturbed.has_value());
}

TEST(AbRounds, ASideFailureLeavesRunRounds) {
  fake_host host;
  fake_side a(host, 'A', 1'000, 0, 1);
  fake_side b(host, 'B', 1'000, 0, 1);
  b.fail_at = 7;
  EXPECT_THROW(run_rounds(a, b, fake_options(host)), ab_side_failure);
}

// ---- the report ------------------------------------------------------------------------------

TEST(AbReport, ConcludesOnePairFromItsRoundsAndSeveralOverPairs) {
  ab_report report;
  report.options.threshold = 0.005;
  ab_pair one;
  for (int i = 0; i < 20; ++i)
    one.rounds.push_back(round_of(1'000, 1'010));
  one.estimate = estimate_rounds(one.rounds, 1.3);
  report.pairs = {one};
  conclude(report);
  ASSERT_TRUE(report.answer && report.decision);
  EXPECT_DOUBLE_EQ(report.answer->ratio, 1.01);
  EXPECT_EQ(report.decision->verdict, ab_verdict::slower);
  EXPECT_EQ(ab_headline(*report.answer), "B is 1.00% slower than A");

  ab_pair other = one;
  for (auto& r : other.rounds)
    r.b_min = 1'012;
  other.estimate = estimate_rounds(other.rounds, 1.3);
  report.pairs = {one, other};
  conclude(report);
  ASSERT_EQ(report.pair_ratios.size(), 2U);
  ASSERT_TRUE(report.answer.has_value());
  EXPECT_NEAR(report.answer->ratio, std::sqrt(1.01 * 1.012), 1e-12);
  EXPECT_EQ(report.answer->count, 2U);
  EXPECT_DOUBLE_EQ(report.answer->resolution, 0);

  // Pairs that carry the clock's resolution: the answer over them is widened by the widest.
  const ab_steps steps{.a = 1, .b = 1};
  one.estimate = estimate_rounds(one.rounds, 1.3, steps);
  other.estimate = estimate_rounds(other.rounds, 1.3, ab_steps{.a = 2, .b = 2});
  report.pairs = {one, other};
  conclude(report);
  const double widest = 2 / 1'000.0 + 2 / 1'012.0;
  EXPECT_DOUBLE_EQ(other.estimate.resolution, widest);
  ASSERT_TRUE(report.answer && report.between_pairs && report.pooled_rounds);
  EXPECT_DOUBLE_EQ(report.answer->resolution, widest);
  EXPECT_DOUBLE_EQ(
      report.answer->lower,
      std::min(report.between_pairs->lower, report.pooled_rounds->lower) * (1 - widest));
  EXPECT_DOUBLE_EQ(
      report.answer->upper,
      std::max(report.between_pairs->upper, report.pooled_rounds->upper) / (1 - widest));
  // A pair whose samples are no longer than a step of the clock leaves no answer.
  other.estimate = estimate_rounds(other.rounds, 1.3, ab_steps{.a = 600, .b = 600});
  report.pairs = {one, other};
  conclude(report);
  EXPECT_FALSE(report.answer.has_value());
  EXPECT_FALSE(report.decision.has_value());
}

TEST(AbReport, TheMarkdownHostCellIsEachSidesHighestOverThePairs) {
  ab_report report;
  report.mode = ab_mode::builds;
  ab_pair one;  // A's rounds at a median 1.00x its floor, B's at 1.20x
  for (const auto& [a, b] : {std::pair{1'000.0, 1'000.0}, {1'000.0, 1'200.0}, {1'300.0, 1'200.0}})
    one.rounds.push_back(round_of(a, b));
  one.estimate = estimate_rounds(one.rounds, 1.3);
  ab_pair other;  // A's at 1.30x, B's at 1.00x
  for (const auto& [a, b] : {std::pair{1'000.0, 1'000.0}, {1'300.0, 1'000.0}, {1'300.0, 1'100.0}})
    other.rounds.push_back(round_of(a, b));
  other.estimate = estimate_rounds(other.rounds, 1.3);
  report.pairs = {one, other};
  conclude(report);
  std::ostringstream out;
  write_ab_report(out, report, report_format::markdown);
  EXPECT_THAT(out.str(), ::testing::HasSubstr("| disturbed | host A / B |\n"));
  EXPECT_THAT(out.str(), ::testing::EndsWith(" | 6 | 0 | 1.30x / 1.20x |\n"));
  // A pair without the figures (no rounds above 0) leaves the cell n/a.
  other.rounds = {round_of(0, 0)};
  other.estimate = estimate_rounds(other.rounds, 1.3);
  report.pairs = {one, other};
  conclude(report);
  out.str("");
  write_ab_report(out, report, report_format::markdown);
  EXPECT_THAT(out.str(), ::testing::EndsWith(" | n/a |\n"));
}

TEST(AbReport, HeadlinesSayFasterSlowerAndSmallChangesWithThreeDecimals) {
  EXPECT_EQ(ab_headline(interval(0.975, 0.97, 0.98)), "B is 2.50% faster than A");
  EXPECT_EQ(ab_headline(interval(1.00004, 1.0, 1.0001)), "B is 0.004% slower than A");
  EXPECT_EQ(ab_headline(interval(1.0, 0.999, 1.001)), "B and A take the same time");
}

}  // namespace
}  // namespace harness
