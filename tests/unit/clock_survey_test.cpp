// The survey estimators driven by fake clocks whose cost, rate and step the test sets, so every
// expectation is exact.
//
// Why one file of ~500 lines: the survey's estimators share the fake clocks defined here, and each
// estimator is tested against the same few clocks.
#include "harness/clock_survey.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <vector>

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
  std::uint64_t values[] = {1'000, 1'050, 40, 90, 100, 110};
  std::size_t next = 0;
  const auto clock = [&] { return values[next++]; };
  std::uint64_t reference = 0;
  const auto s = measure_step(
      clock, [&] { return reference; }, 6, 1, 1.0);
  ASSERT_TRUE(s.ticks.has_value());
  EXPECT_EQ(*s.ticks, 10U);
  EXPECT_EQ(s.changes, 5U);
}

TEST(MeasureStep, ADifferenceSeenOnceIsNotTheStepWhenAnotherIsSeenTwice) {
  // A TSC in quanta of 20.96 ticks (differences of 20 and 21) and one stray 1-tick difference,
  // as seen once on this VM: the step is 20. A difference seen once stands only when no other
  // is seen twice.
  std::uint64_t values[] = {0, 21, 42, 43, 64, 84, 105, 125};
  std::size_t next = 0;
  const auto clock = [&] { return values[next++]; };
  std::uint64_t reference = 0;
  const auto s = measure_step(
      clock, [&] { return reference; }, 8, 1, 1.0);
  ASSERT_TRUE(s.ticks.has_value());
  EXPECT_EQ(*s.ticks, 20U);
  std::uint64_t distinct[] = {0, 30, 50, 61};  // 30, 20, 11: each once
  next = 0;
  const auto other = [&] { return distinct[next++]; };
  const auto t = measure_step(
      other, [&] { return reference; }, 4, 1, 1.0);
  ASSERT_TRUE(t.ticks.has_value());
  EXPECT_EQ(*t.ticks, 11U);
}

TEST(MeasureStep, StrayDifferencesSeenAFewTimesAmongManyAreNotTheStep) {
  // 100,000 changes of 21 ticks with a 1-tick difference in `strays` of them: seen in fewer than
  // one change in kStepStrayShare (10 here) it is the host adjusting the TSC, not the step; seen
  // more often, it is part of how the clock reads.
  const auto step_with = [](std::uint64_t strays) {
    std::uint64_t value = 0;
    std::uint64_t n = 0;
    const auto clock = [&] {
      ++n;
      value += n % 9'973 == 0 && n / 9'973 <= strays ? 1 : 21;
      return value;
    };
    std::uint64_t reference = 0;
    return measure_step(
        clock, [&] { return reference; }, 100'000, 1, 1.0);
  };
  const auto few = step_with(3);
  ASSERT_TRUE(few.ticks.has_value());
  EXPECT_EQ(few.changes, 99'999U);
  EXPECT_EQ(*few.ticks, 21U);
  const auto many = step_with(10);
  ASSERT_TRUE(many.ticks.has_value());
  EXPECT_EQ(*many.ticks, 1U);
}

// --- granularity: the smallest amount the value advances by, apart from what a read costs ---

// One fake time line in hundredths of a tick of the clock under test, so that a 10-tick read and a
// 20.96-tick quantum are exact; the reference reads it in ns at 2.096 ticks a ns (a 2.096 GHz TSC).
struct tick_world {
  std::uint64_t now_centiticks = 0;
  std::uint64_t reference_ns() const { return now_centiticks * 10 / 2'096; }
};

// A VM's TSC: the value advances by `quantum_centiticks` / 100 ticks at a time, read as
// floor(k * quantum) (2'100: 21 ticks; 2'096: 20.96 ticks, so steps of 20 or 21), and a read costs
// `cost_centiticks`.
struct quantized_clock {
  tick_world* world;
  std::uint64_t quantum_centiticks;
  std::uint64_t cost_centiticks;
  std::uint64_t operator()() const {
    const std::uint64_t k = world->now_centiticks / quantum_centiticks;
    world->now_centiticks += cost_centiticks;
    return k * quantum_centiticks / 100;
  }
};

// A bare-metal TSC: the value advances every tick, and a read costs 30 ticks give or take 3, the
// jitter cycling through a fixed pattern (mean 30 ticks exactly; of odd length, so that the first
// reads of the pairs, whose costs the pairs time, go through all of it).
struct every_tick_clock {
  static constexpr std::array<std::uint64_t, 7> kCostCentiticks = {3'000, 3'130, 2'870, 3'290,
                                                                   2'710, 3'060, 2'940};
  tick_world* world;
  std::size_t next = 0;
  std::uint64_t operator()() {
    const std::uint64_t value = world->now_centiticks / 100;
    world->now_centiticks += kCostCentiticks[next++ % kCostCentiticks.size()];
    return value;
  }
};

// The delay between a pair's reads: 0.37 ticks an iteration, as a one-cycle loop on a core a bit
// faster than the TSC, so 0..511 iterations span ~190 ticks.
auto fine_spin_of(tick_world& world) {
  return [&world](int n) { world.now_centiticks += static_cast<std::uint64_t>(n) * 37; };
}

TEST(ClockSurveyGranularity, IsTheQuantumOfAVmTscNotItsReadCost) {
  tick_world world;
  const quantized_clock clock{&world, 2'100, 1'000};
  const auto g = measure_granularity(
      clock, [&] { return world.reference_ns(); }, granularity_settings{}, fine_spin_of(world));
  ASSERT_TRUE(g.ticks.has_value());
  EXPECT_NEAR(*g.ticks, 21.0, 0.01);
  EXPECT_FALSE(g.advances_every_tick);
  ASSERT_TRUE(g.read_cost_ticks.has_value());
  EXPECT_NEAR(*g.read_cost_ticks, 10.0, 0.25);  // reads of 0 or 21 ticks, 10 on average
  EXPECT_GE(g.changes, 2'048U);
  EXPECT_GE(g.sweeps, 4U);
  EXPECT_GE(g.groups, 9U);  // 10..199 ticks: 1 to 9 quanta
  // Here the old step is the quantum too: the read is cheaper than one.
  tick_world again;
  const auto step = measure_step(
      quantized_clock{&again, 2'100, 1'000}, [&] { return again.reference_ns(); }, 10'000, 1, 1.0);
  ASSERT_TRUE(step.ticks.has_value());
  EXPECT_EQ(*step.ticks, 21U);
}

TEST(ClockSurveyGranularity, IsAFractionalQuantumSeenAsStepsOf20And21) {
  tick_world world;
  const quantized_clock clock{&world, 2'096, 1'000};
  const auto g = measure_granularity(
      clock, [&] { return world.reference_ns(); }, granularity_settings{}, fine_spin_of(world));
  ASSERT_TRUE(g.ticks.has_value());
  EXPECT_NEAR(*g.ticks, 20.96, 0.01);  // total ticks over total quanta, not 20 or 21
  EXPECT_FALSE(g.advances_every_tick);
  ASSERT_TRUE(g.read_cost_ticks.has_value());
  EXPECT_NEAR(*g.read_cost_ticks, 10.0, 0.25);
  tick_world again;
  const auto step = measure_step(
      quantized_clock{&again, 2'096, 1'000}, [&] { return again.reference_ns(); }, 10'000, 1, 1.0);
  ASSERT_TRUE(step.ticks.has_value());
  EXPECT_EQ(*step.ticks, 20U);  // the old step: the smaller of the two roundings
}

TEST(ClockSurveyGranularity, IsOneTickOnBareMetalWhereTheOldStepIsTheReadCost) {
  tick_world world;
  every_tick_clock clock{&world};
  const auto g = measure_granularity(
      clock, [&] { return world.reference_ns(); }, granularity_settings{}, fine_spin_of(world));
  ASSERT_TRUE(g.ticks.has_value());
  EXPECT_EQ(*g.ticks, 1.0);
  EXPECT_TRUE(g.advances_every_tick);
  ASSERT_TRUE(g.read_cost_ticks.has_value());
  EXPECT_NEAR(*g.read_cost_ticks, 30.0, 0.25);
  // The old step takes the read cost for the granularity: 27 to 33 ticks, never 1.
  tick_world again;
  const auto step = measure_step(
      every_tick_clock{&again}, [&] { return again.reference_ns(); }, 10'000, 1, 1.0);
  ASSERT_TRUE(step.ticks.has_value());
  EXPECT_NEAR(static_cast<double>(*step.ticks), 30.0, 3.0);
}

TEST(ClockSurveyGranularity, IsNoneForA4MsClockWithinASmallBudget) {
  // Ticks in ns, 6 ns a read, the spin 1 ns an iteration; the clock never moves in 2 ms.
  fake_world world;
  world.now_ps = 1'000 * kPsPerNs;  // not on a step boundary
  const fake_clock clock{&world, 6 * kPsPerNs, 4'000'000 * kPsPerNs, 4'000'000};
  const auto spin = [&](int n) { world.now_ps += static_cast<std::uint64_t>(n) * kPsPerNs; };
  granularity_settings settings;
  settings.budget_seconds = 0.002;
  const auto g = measure_granularity(
      clock, [&] { return world.reference_ns(); }, settings, spin);
  EXPECT_FALSE(g.ticks.has_value());
  EXPECT_FALSE(g.read_cost_ticks.has_value());
  EXPECT_EQ(g.changes, 0U);
  EXPECT_GE(g.searched_seconds, 0.002);
  EXPECT_LT(g.searched_seconds, 0.002 + 0.0001);  // checked every 64 pairs (~17 us here)
}

TEST(ClockSurveyGranularity, IsNoneForAClockThatMovesOnlyAFewTimesInTheBudget) {
  // 20 ms of a 4 ms clock: it moves four or five times, far from enough to say anything.
  fake_world world;
  const fake_clock clock{&world, 6 * kPsPerNs, 4'000'000 * kPsPerNs, 4'000'000};
  const auto spin = [&](int n) { world.now_ps += static_cast<std::uint64_t>(n) * kPsPerNs; };
  granularity_settings settings;
  settings.budget_seconds = 0.02;
  const auto g = measure_granularity(
      clock, [&] { return world.reference_ns(); }, settings, spin);
  EXPECT_FALSE(g.ticks.has_value());
  EXPECT_GE(g.changes, 4U);
  EXPECT_LE(g.changes, 5U);
  EXPECT_LT(g.searched_seconds, 0.02 + 0.0001);

  // A 1 s clock likewise.
  fake_world slow;
  slow.now_ps = 1'000 * kPsPerNs;
  const auto none = measure_granularity(
      fake_clock{&slow, 6 * kPsPerNs, 1'000'000'000 * kPsPerNs, 1},
      [&] { return slow.reference_ns(); }, settings,
      [&](int n) { slow.now_ps += static_cast<std::uint64_t>(n) * kPsPerNs; });
  EXPECT_FALSE(none.ticks.has_value());
  EXPECT_EQ(none.changes, 0U);
}

TEST(ClockSurveyGranularity, LeavesTheReadCostUncountedWhenTheQuantumDwarfsIt) {
  // A microsecond clock read in 30 ns: a pair sees it move 3% of the time, too rarely to count.
  fake_world world;
  const fake_clock clock{&world, 30 * kPsPerNs, 1'000 * kPsPerNs, 1};
  const auto spin = [&](int n) { world.now_ps += static_cast<std::uint64_t>(n) * kPsPerNs; };
  const auto g = measure_granularity(
      clock, [&] { return world.reference_ns(); }, granularity_settings{}, spin);
  ASSERT_TRUE(g.ticks.has_value());
  EXPECT_EQ(*g.ticks, 1.0);  // one group {1} beside zeros: one tick, the microsecond
  EXPECT_TRUE(g.advances_every_tick);
  EXPECT_FALSE(g.read_cost_ticks.has_value());
}

// Differences `value` repeated `count` times.
void add(std::vector<std::uint64_t>& differences, std::uint64_t value, std::size_t count) {
  differences.insert(differences.end(), count, value);
}

TEST(ClockSurveyAnalyseDifferences, TakesAConvertedQuantumOf9To11AsTen) {
  // vDSO nanoseconds from a 20.96-tick TSC quantum: m quanta read as 10m - 1, 10m or 10m + 1 ns.
  std::vector<std::uint64_t> d;
  for (std::uint64_t m = 3; m <= 15; ++m) {
    add(d, 10 * m - 1, 20);
    add(d, 10 * m, 60);
    add(d, 10 * m + 1, 20);
  }
  const auto a = analyse_differences(d, 0, 64);
  ASSERT_TRUE(a.ticks.has_value());
  EXPECT_DOUBLE_EQ(*a.ticks, 10.0);
  EXPECT_FALSE(a.advances_every_tick);
  EXPECT_EQ(a.groups, 13U);
}

TEST(ClockSurveyAnalyseDifferences, IgnoresStraysAndInterruptions) {
  std::vector<std::uint64_t> d;
  for (std::uint64_t m = 1; m <= 9; ++m)
    add(d, 21 * m, 100);
  add(d, 31, 1);      // one odd value, a clock correction
  add(d, 52'500, 1);  // an interruption between two reads
  const auto a = analyse_differences(d, 500, 64);
  ASSERT_TRUE(a.ticks.has_value());
  EXPECT_DOUBLE_EQ(*a.ticks, 21.0);
  EXPECT_EQ(a.groups, 11U);
}

TEST(ClockSurveyAnalyseDifferences, SaysEveryTickDespiteGapsInASparseRange) {
  // Every tick value from 30 to 300 but every seventh: runs of six values.
  std::vector<std::uint64_t> d;
  for (std::uint64_t v = 30; v <= 300; ++v) {
    if (v % 7 != 0) add(d, v, 2);
  }
  const auto a = analyse_differences(d, 0, 64);
  ASSERT_TRUE(a.ticks.has_value());
  EXPECT_EQ(*a.ticks, 1.0);
  EXPECT_TRUE(a.advances_every_tick);
}

TEST(ClockSurveyAnalyseDifferences, FindsNoQuantumInALatticeOffTheOrigin) {
  // A clock advancing every tick timed around delays 4.6 ticks apart with no jitter: differences
  // of 29.9 + 4.6 n ticks, rounded either way. They are evenly spaced, but a quantum's multiples
  // start at 0, and these do not: no quantum, rather than a false 4.6.
  std::vector<std::uint64_t> d;
  for (int n = 0; n <= 40; ++n) {
    for (int phase = 0; phase < 10; ++phase) {
      d.push_back(static_cast<std::uint64_t>(29.9 + 4.6 * n + 0.1 * phase));
    }
  }
  const auto a = analyse_differences(d, 0, 64);
  EXPECT_FALSE(a.ticks.has_value());
  EXPECT_FALSE(a.advances_every_tick);
}

TEST(ClockSurveyAnalyseDifferences, TakesOneGroupAsOneQuantumOnlyBesideZeros) {
  std::vector<std::uint64_t> d;
  add(d, 20, 4);
  add(d, 21, 96);
  const auto with_zeros = analyse_differences(d, 110, 64);
  ASSERT_TRUE(with_zeros.ticks.has_value());
  EXPECT_DOUBLE_EQ(*with_zeros.ticks, 20.96);
  // Without zeros the pairs never spanned less than a quantum: 20.96 could be several.
  EXPECT_FALSE(analyse_differences(d, 0, 64).ticks.has_value());
  // ... unless it is 1 tick, the smallest quantum there is (a clock counting its reads).
  const auto ones = analyse_differences(std::vector<std::uint64_t>(100, 1), 0, 64);
  ASSERT_TRUE(ones.ticks.has_value());
  EXPECT_TRUE(ones.advances_every_tick);
  // Too few differences say nothing.
  EXPECT_FALSE(analyse_differences(d, 110, 101).ticks.has_value());
  EXPECT_FALSE(analyse_differences({}, 1'000, 0).ticks.has_value());
}

// A clock_source counting its own reads: every read is one tick after the one before.
class counting_source final : public clock_source {
 public:
  explicit counting_source(bool available) : available_(available) {}
  std::string_view name() const noexcept override { return "counting"; }
  std::string_view description() const noexcept override { return "test clock"; }
  clock_kind kind() const noexcept override { return clock_kind::wall; }
  bool is_monotonic() const noexcept override { return true; }
  double ticks_per_second() const noexcept override { return 1e9; }
  std::optional<double> declared_resolution() const noexcept override { return std::nullopt; }
  std::uint64_t now() const noexcept override { return ++value_; }
  bool available() const noexcept override { return available_; }

 private:
  bool available_;
  mutable std::uint64_t value_ = 0;
};

TEST(ClockSurveyGranularity, MeasureClockGranularityReadsASourceAndSkipsAnUnavailableOne) {
  const counting_source counting(true);
  const clock_granularity g = measure_clock_granularity(counting);
  ASSERT_TRUE(g.granularity_ticks.has_value());
  EXPECT_EQ(*g.granularity_ticks, 1.0);
  EXPECT_TRUE(g.advances_every_tick);
  EXPECT_TRUE(g.read_cost_counted);
  EXPECT_DOUBLE_EQ(g.read_cost_ticks, 1.0);
  EXPECT_GT(g.reads, 0U);
  EXPECT_GE(g.changes, granularity_settings{}.min_changes);

  const counting_source unavailable(false);
  const clock_granularity none = measure_clock_granularity(unavailable);
  EXPECT_FALSE(none.granularity_ticks.has_value());
  EXPECT_EQ(none.reads, 0U);
}

}  // namespace
}  // namespace harness
