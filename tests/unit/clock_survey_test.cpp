// The survey estimators driven by fake clocks whose cost, rate and step the test sets, so every
// expectation is exact.
#include "harness/clock_survey.hpp"

#include <gtest/gtest.h>

#include <cstdint>

namespace harness {
namespace {

// One fake time line in picoseconds, shared by the clock under test and the reference.
struct fake_world {
  std::uint64_t now_ps = 0;
  std::uint64_t reference_ns() const { return now_ps / 1000; }  // reading it costs nothing
};

// A clock that costs `cost_ps` of fake time per read and whose value moves by `ticks_per_step`
// every `ps_per_step` (a TSC stepping 26 ticks per 10 ns, a coarse clock stepping 4 ms...).
struct fake_clock {
  fake_world* world;
  std::uint64_t cost_ps;
  std::uint64_t ps_per_step;
  std::uint64_t ticks_per_step;
  std::uint64_t operator()() const {
    const std::uint64_t value = world->now_ps / ps_per_step * ticks_per_step;
    world->now_ps += cost_ps;
    return value;
  }
};

// A counting clock: every read returns the previous reading plus `increment`.
struct counting_clock {
  std::uint64_t increment;
  std::uint64_t value = 0;
  std::uint64_t operator()() { return value += increment; }
};

constexpr std::uint64_t kPsPerNs = 1'000;

TEST(MeasureCallCost, GivesTheFakeCostPerCall) {
  for (const std::uint64_t cost_ns : {3U, 12U, 30U, 700U}) {
    fake_world world;
    const fake_clock clock{&world, cost_ns * kPsPerNs, 1, 1};
    const auto cost = measure_call_cost(
        clock, [&] { return world.reference_ns(); }, 1'000);
    EXPECT_EQ(cost.pairs, 1'000U);
    EXPECT_DOUBLE_EQ(cost.ns_per_call, static_cast<double>(cost_ns));
    EXPECT_DOUBLE_EQ(cost.seconds, 2'000.0 * static_cast<double>(cost_ns) / 1e9);
  }
}

TEST(MeasureCallCost, KeepsTheSecondPass) {
  // The first 2,000 reads (the first pass of 1,000 pairs) are slow, as a cold cache would be.
  fake_world world;
  std::uint64_t reads = 0;
  const auto clock = [&] {
    world.now_ps += (reads++ < 2'000 ? 100 : 25) * kPsPerNs;
    return world.now_ps;
  };
  const auto cost = measure_call_cost(
      clock, [&] { return world.reference_ns(); }, 1'000);
  EXPECT_DOUBLE_EQ(cost.ns_per_call, 25.0);
  EXPECT_EQ(reads, 4'000U);
}

TEST(PlanPairs, CutsSlowSourcesToTheBudget) {
  EXPECT_EQ(plan_pairs(30.0, 1'000'000, 0.1, 200), 1'000'000U);   // cheap: the full count
  EXPECT_EQ(plan_pairs(150.0, 1'000'000, 0.1, 200), 1'000'000U);  // cheap though over budget
  EXPECT_EQ(plan_pairs(700.0, 1'000'000, 0.1, 200), 71'428U);     // 0.1 s / 1.4 us
  EXPECT_EQ(plan_pairs(1e12, 1'000'000, 0.1, 200), 1U);           // never zero
  EXPECT_EQ(plan_pairs(0.0, 1'000'000, 0.1, 200), 1'000'000U);    // too fast to time
  EXPECT_EQ(plan_pairs(210.0, 10, 1.0, 200), 10U);                // never over the count
}

TEST(MeasureCallCostBounded, RunsTheFullCountForCheapClocks) {
  fake_world world;
  const fake_clock clock{&world, 30 * kPsPerNs, 1, 1};
  const auto cost = measure_call_cost_bounded(
      clock, [&] { return world.reference_ns(); }, survey_settings{});
  EXPECT_EQ(cost.pairs, 1'000'000U);
  EXPECT_FALSE(cost.bounded_by_time);
  EXPECT_DOUBLE_EQ(cost.ns_per_call, 30.0);
}

TEST(MeasureCallCostBounded, PlansFromTheCheapestOfThreePilots) {
  // The first pilot (2,000 reads) is interrupted: 1 ms lands on its first read.
  fake_world world;
  std::uint64_t reads = 0;
  const auto clock = [&] {
    world.now_ps += (reads++ == 0 ? 1'000'000 : 30) * kPsPerNs;
    return world.now_ps;
  };
  const auto cost = measure_call_cost_bounded(
      clock, [&] { return world.reference_ns(); }, survey_settings{});
  EXPECT_EQ(cost.pairs, 1'000'000U);
  EXPECT_FALSE(cost.bounded_by_time);
  EXPECT_DOUBLE_EQ(cost.ns_per_call, 30.0);
}

TEST(MeasureCallCostBounded, BoundsSlowClocksByTimeAndSaysSo) {
  fake_world world;
  const fake_clock clock{&world, 700 * kPsPerNs, 1, 1};
  const auto cost = measure_call_cost_bounded(
      clock, [&] { return world.reference_ns(); }, survey_settings{});
  EXPECT_EQ(cost.pairs, 71'428U);
  EXPECT_TRUE(cost.bounded_by_time);
  EXPECT_DOUBLE_EQ(cost.ns_per_call, 700.0);
}

TEST(MeasureResolution, FindsOneQuantumOfASteppingTsc) {
  // 26 ticks every 10 ns, 12 ns a read: a start/stop pair spans one or two quanta.
  fake_world world;
  const fake_clock clock{&world, 12 * kPsPerNs, 10 * kPsPerNs, 26};
  const auto spin = [&](int n) { world.now_ps += static_cast<std::uint64_t>(n) * kPsPerNs; };
  const auto r = measure_resolution(
      clock, [&] { return world.reference_ns(); }, 2047, 1, 0.03, spin);
  ASSERT_TRUE(r.ticks.has_value());
  EXPECT_EQ(*r.ticks, 26U);
  EXPECT_EQ(r.sweeps, 1U);
}

TEST(MeasureResolution, IsTheCallCostForAClockFinerThanItsCost) {
  // A nanosecond clock costing 700 ns (a CPU-time system call): nothing shorter than a call.
  fake_world world;
  const fake_clock clock{&world, 700 * kPsPerNs, kPsPerNs, 1};
  const auto r = measure_resolution(
      clock, [&] { return world.reference_ns(); }, 2047, 1, 0.03);
  ASSERT_TRUE(r.ticks.has_value());
  EXPECT_EQ(*r.ticks, 700U);
}

TEST(MeasureResolution, SweepsAgainUntilACoarseClockMoves) {
  // A 4 ms clock (ticks in ns): one sweep lasts ~2.1 ms, so it takes more than one.
  fake_world world;
  const fake_clock clock{&world, 6 * kPsPerNs, 4'000'000 * kPsPerNs, 4'000'000};
  const auto spin = [&](int n) { world.now_ps += static_cast<std::uint64_t>(n) * kPsPerNs; };
  const auto r = measure_resolution(
      clock, [&] { return world.reference_ns(); }, 2047, 1, 0.03, spin);
  ASSERT_TRUE(r.ticks.has_value());
  EXPECT_EQ(*r.ticks, 4'000'000U);
  EXPECT_GE(r.sweeps, 2U);
  EXPECT_LE(r.searched_seconds, 0.03);
}

TEST(MeasureResolution, ReportsNoneForAClockCoarserThanTheBudget) {
  fake_world world;
  const fake_clock clock{&world, 6 * kPsPerNs, 1'000'000'000 * kPsPerNs, 1};
  const auto spin = [&](int n) { world.now_ps += static_cast<std::uint64_t>(n) * kPsPerNs; };
  world.now_ps = 1'000 * kPsPerNs;  // not on a step boundary
  const auto r = measure_resolution(
      clock, [&] { return world.reference_ns(); }, 2047, 1, 0.01, spin);
  EXPECT_FALSE(r.ticks.has_value());
  EXPECT_GE(r.searched_seconds, 0.01);
  EXPECT_LT(r.searched_seconds, 0.01 + 0.003);  // at most one sweep (~2.1 ms) past the budget
}

TEST(MeasureStep, IsTheCountingIncrement) {
  for (const std::uint64_t increment : {1U, 26U, 1'000U}) {
    counting_clock clock{increment};
    std::uint64_t reference = 0;
    const auto s = measure_step(
        clock, [&] { return reference; }, 10'000, 1, 1.0);
    ASSERT_TRUE(s.ticks.has_value());
    EXPECT_EQ(*s.ticks, increment);
    EXPECT_EQ(s.reads, 10'000U);
    EXPECT_EQ(s.changes, 9'999U);
  }
}

TEST(MeasureStep, FindsTheQuantumOfASteppingTsc) {
  fake_world world;
  const fake_clock clock{&world, 12 * kPsPerNs, 10 * kPsPerNs, 26};
  const auto s = measure_step(
      clock, [&] { return world.reference_ns(); }, 10'000, 1, 1.0);
  ASSERT_TRUE(s.ticks.has_value());
  EXPECT_EQ(*s.ticks, 26U);
}

TEST(MeasureStep, StopsAtTheBudgetWhenTheClockDoesNotMove) {
  fake_world world;
  const fake_clock clock{&world, 100 * kPsPerNs, 1'000'000'000 * kPsPerNs, 1};
  world.now_ps = 1'000 * kPsPerNs;
  const auto s = measure_step(
      clock, [&] { return world.reference_ns(); }, 1'000, 1, 0.001);
  EXPECT_FALSE(s.ticks.has_value());
  EXPECT_EQ(s.changes, 0U);
  // 1 ms of 100 ns reads, checked every 64 reads: 10,000 reads rounded up to a multiple of 64.
  EXPECT_EQ(s.reads, 10'048U);
}

// A tick-driven clock whose first update came late: it jumped 20 ms at 4 ms, then moves by 4 ms
// every 4 ms. Time is in ns; each read costs 1 us.
struct late_tick_clock {
  fake_world* world;
  std::uint64_t operator()() const {
    const std::uint64_t ns = world->now_ps / kPsPerNs;
    world->now_ps += 1'000 * kPsPerNs;
    if (ns < 4'000'000) return 0;
    if (ns < 8'000'000) return 20'000'000;
    return 20'000'000 + (ns - 4'000'000) / 4'000'000 * 4'000'000;
  }
};

TEST(MeasureStep, ReadsOnUntilEnoughChangesSoALateTickIsNotTheStep) {
  fake_world first;
  const auto once = measure_step(
      late_tick_clock{&first}, [&] { return first.reference_ns(); }, 100, 1, 1.0);
  ASSERT_TRUE(once.ticks.has_value());
  EXPECT_EQ(*once.ticks, 20'000'000U);
  EXPECT_EQ(once.changes, 1U);

  fake_world again;
  const auto enough = measure_step(
      late_tick_clock{&again}, [&] { return again.reference_ns(); }, 100, 3, 1.0);
  ASSERT_TRUE(enough.ticks.has_value());
  EXPECT_EQ(*enough.ticks, 4'000'000U);
  EXPECT_EQ(enough.changes, 3U);
}

TEST(MeasureResolution, SweepsUntilEnoughIntervalsSoALateTickIsNotTheResolution) {
  // Each inner loop lasts 1 us whatever its length: with 1 us reads a pair spans 2 us of every 3.
  const auto spin_for = [](fake_world& world) {
    return [&world](int) { world.now_ps += 1'000 * kPsPerNs; };
  };
  fake_world first;
  const auto once = measure_resolution(
      late_tick_clock{&first}, [&] { return first.reference_ns(); }, 2047, 1, 1.0, spin_for(first));
  ASSERT_TRUE(once.ticks.has_value());
  EXPECT_EQ(*once.ticks, 20'000'000U);
  EXPECT_EQ(once.sweeps, 1U);

  fake_world again;
  const auto enough = measure_resolution(
      late_tick_clock{&again}, [&] { return again.reference_ns(); }, 2047, 3, 1.0, spin_for(again));
  ASSERT_TRUE(enough.ticks.has_value());
  EXPECT_EQ(*enough.ticks, 4'000'000U);
  EXPECT_EQ(enough.sweeps, 3U);
}

TEST(MeasureStep, IgnoresBackwardJumps) {
  std::uint64_t values[] = {1'000, 1'050, 40, 90, 140, 150};
  std::size_t next = 0;
  const auto clock = [&] { return values[next++]; };
  std::uint64_t reference = 0;
  const auto s = measure_step(
      clock, [&] { return reference; }, 6, 1, 1.0);
  ASSERT_TRUE(s.ticks.has_value());
  EXPECT_EQ(*s.ticks, 10U);
  EXPECT_EQ(s.changes, 5U);
}

}  // namespace
}  // namespace harness
