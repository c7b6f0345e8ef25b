// The survey estimators driven by fake clocks whose cost, rate and step the test sets, so every
// expectation is exact.
//
// Why one file of ~500 lines: the survey's estimators share the fake clocks defined here, and each
// estimator is tested against the same few clocks.
#include "harness/clock_survey.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <initializer_list>
#include <map>
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

// --- back-to-back readings: the step and the read cost ---

TEST(ReadBackToBack, CountsEveryPairWithinABufferOfReadings) {
  for (const std::uint64_t increment : {1U, 26U, 1'000U}) {
    counting_clock clock{increment};
    std::uint64_t reference = 0;
    const auto r = read_back_to_back(
        clock, [&] { return reference; }, step_settings{10'000, 1, 1.0});
    // Buffers of 1,024 readings until 10,000 were taken; the pair across two buffers is left out.
    EXPECT_EQ(r.reads, 10'240U);
    EXPECT_EQ(r.differences.changes(), 10U * 1'023U);
    ASSERT_EQ(r.differences.counts().size(), 1U);
    EXPECT_EQ(r.differences.counts().begin()->first, increment);
    EXPECT_EQ(r.differences.zeros(), 0U);
  }
}

TEST(ReadBackToBack, StopsAtTheBudgetWhenTheClockDoesNotMove) {
  fake_world world;
  const fake_clock clock{&world, 100 * kPsPerNs, 1'000'000'000 * kPsPerNs, 1};
  world.now_ps = 1'000 * kPsPerNs;
  const auto r = read_back_to_back(
      clock, [&] { return world.reference_ns(); }, step_settings{1'000, 1, 0.001});
  EXPECT_EQ(r.differences.changes(), 0U);
  // 1 ms of 100 ns reads, checked every buffer of 1,024: 10 buffers (1.024 ms).
  EXPECT_EQ(r.reads, 10'240U);
  EXPECT_DOUBLE_EQ(r.searched_seconds, 0.001024);
  EXPECT_FALSE(analyse_step(r.differences, {}).ticks.has_value());
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

TEST(ReadBackToBack, ReadsOnUntilEnoughChangesSoALateTickIsNotTheStep) {
  fake_world first;
  const auto once = read_back_to_back(
      late_tick_clock{&first}, [&] { return first.reference_ns(); }, step_settings{100, 1, 1.0});
  EXPECT_EQ(once.differences.changes(), 1U);
  const step_analysis alone = analyse_step(once.differences, {});
  ASSERT_TRUE(alone.ticks.has_value());
  EXPECT_EQ(*alone.ticks, 20'000'000U);
  EXPECT_EQ(alone.rule, step_rule::seen);

  fake_world again;
  const auto enough = read_back_to_back(
      late_tick_clock{&again}, [&] { return again.reference_ns(); }, step_settings{100, 3, 1.0});
  EXPECT_EQ(enough.differences.changes(), 3U);
  const step_analysis step = analyse_step(enough.differences, {});
  ASSERT_TRUE(step.ticks.has_value());
  EXPECT_EQ(*step.ticks, 4'000'000U);  // seen twice; the late 20 ms once
  EXPECT_EQ(step.rule, step_rule::often);
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

TEST(DifferenceHistogram, CountsForwardZeroAndBackwardPairsApart) {
  difference_histogram h;
  h.add_pair(1'000, 1'050);
  h.add_pair(1'050, 40);  // a calendar clock set back
  h.add_pair(40, 40);
  h.add_pair(90, 100);
  h.add_pair(100, 110);
  h.add(10, 3);
  h.add(0, 2);
  h.add(7, 0);
  EXPECT_EQ(h.changes(), 6U);
  EXPECT_EQ(h.zeros(), 3U);
  EXPECT_EQ(h.backward(), 1U);
  const std::map<std::uint64_t, std::uint64_t> expected{{10, 5}, {50, 1}};
  EXPECT_EQ(h.counts(), expected);
}

// A histogram of back-to-back differences: value -> count, and the zeros.
difference_histogram histogram(
    std::initializer_list<std::pair<std::uint64_t, std::uint64_t>> counts,
    std::uint64_t zeros = 0) {
  difference_histogram h;
  for (const auto& [d, n] : counts)
    h.add(d, n);
  h.add(0, zeros);
  return h;
}

granularity_analysis quantum_of(double ticks) {
  return {.ticks = ticks, .advances_every_tick = false, .groups = 0};
}
const granularity_analysis kEveryTick{.ticks = 1.0, .advances_every_tick = true, .groups = 0};

TEST(AnalyseStep, IsTheQuantumHoweverOftenAHostCorrectionShowsAsOneTick) {
  // 100,000 changes of 21 ticks, a few of 42, and 1-tick differences from 1 in a million (one
  // host) to 1 in 10 (ten times the worst seen): below one quantum, never a step of the clock.
  for (const std::uint64_t strays : {0U, 1U, 3U, 10U, 1'000U, 10'000U}) {
    const auto h = histogram({{1, strays}, {21, 100'000}, {42, 2'000}}, 50'000);
    const step_analysis step = analyse_step(h, quantum_of(21.0));
    ASSERT_TRUE(step.ticks.has_value());
    EXPECT_EQ(*step.ticks, 21U) << strays << " strays";
    EXPECT_EQ(step.rule, step_rule::quantum);
  }
}

TEST(AnalyseStep, IsTheQuantumRoundedWhenItIsNotAWholeNumberOfTicks) {
  // 20.96 ticks read as 20 (4%) or 21; 25.96 as 25 or 26: the step is one quantum, rounded.
  const step_analysis a = analyse_step(histogram({{20, 40}, {21, 960}}, 900), quantum_of(20.96));
  ASSERT_TRUE(a.ticks.has_value());
  EXPECT_EQ(*a.ticks, 21U);
  const step_analysis b =
      analyse_step(histogram({{25, 232}, {26, 47'040}, {51, 1}, {52, 39'820}}), quantum_of(25.96));
  ASSERT_TRUE(b.ticks.has_value());
  EXPECT_EQ(*b.ticks, 26U);
}

TEST(AnalyseStep, IsTheSmallestMultipleSeenOftenWhenAReadSpansSeveralQuanta) {
  // A 24 ns read of 10 ns quanta (rdtscp): 2 or 3 quanta, and once a stray single quantum.
  const auto h = histogram({{26, 1}, {51, 300}, {52, 69'700}, {77, 100}, {78, 29'900}});
  const step_analysis step = analyse_step(h, quantum_of(25.96));
  ASSERT_TRUE(step.ticks.has_value());
  EXPECT_EQ(*step.ticks, 52U);
  EXPECT_EQ(step.rule, step_rule::quantum);
  // Off the lattice (a correction of 13 ticks) is no multiple either.
  const step_analysis off = analyse_step(histogram({{13, 5'000}, {52, 70'000}}), quantum_of(25.96));
  ASSERT_TRUE(off.ticks.has_value());
  EXPECT_EQ(*off.ticks, 52U);
}

TEST(AnalyseStep, IsTheSmallestDifferenceSeenOftenOnAClockAdvancingEveryTick) {
  // Back-to-back reads 20-40 ticks apart, and a stray 5 seen once and a 12 seen twice.
  difference_histogram h = histogram({{5, 1}, {12, 2}});
  for (std::uint64_t d = 20; d <= 40; ++d)
    h.add(d, 1'000 + 200 * (d - 20));  // the commonest (40) 5,000 times: often is 50 or more
  h.add(19, 49);
  const step_analysis step = analyse_step(h, kEveryTick);
  ASSERT_TRUE(step.ticks.has_value());
  EXPECT_EQ(*step.ticks, 20U);
  EXPECT_EQ(step.rule, step_rule::often);
  h.add(19, 1);
  EXPECT_EQ(*analyse_step(h, kEveryTick).ticks, 19U);  // 50 times: often
}

TEST(AnalyseStep, FallsBackToTheSmallestSeenWhenNothingIsSeenTwice) {
  const step_analysis step = analyse_step(histogram({{30, 1}, {20, 1}, {11, 1}}), {});
  ASSERT_TRUE(step.ticks.has_value());
  EXPECT_EQ(*step.ticks, 11U);
  EXPECT_EQ(step.rule, step_rule::seen);
  // ... and a lattice seen once each likewise.
  const step_analysis lattice = analyse_step(histogram({{52, 1}, {78, 1}}), quantum_of(25.96));
  ASSERT_TRUE(lattice.ticks.has_value());
  EXPECT_EQ(*lattice.ticks, 52U);
  EXPECT_EQ(lattice.rule, step_rule::seen);
}

TEST(AnalyseStep, FindsTheQuantumInBackToBackReadingsAlone) {
  // No spins (measure_step): the back-to-back differences' own lattice, 20/21 beside zeros.
  const clock_shape shape =
      analyse_clock_shape(histogram({{1, 30}, {20, 400}, {21, 9'600}}, 9'000), {}, 64);
  ASSERT_TRUE(shape.granularity.ticks.has_value());
  EXPECT_NEAR(*shape.granularity.ticks, 20.96, 1e-9);
  ASSERT_TRUE(shape.step.ticks.has_value());
  EXPECT_EQ(*shape.step.ticks, 21U);
  EXPECT_EQ(shape.step.rule, step_rule::quantum);
}

TEST(AnalyseReadCost, IsTheMeanDifferenceZerosIncluded) {
  // A 10-tick read of a 21-tick quantum: 0 or 21, 10 on average.
  const auto cost = analyse_read_cost(histogram({{21, 47'620}}, 52'380), 21.0);
  ASSERT_TRUE(cost.has_value());
  EXPECT_DOUBLE_EQ(*cost, 21.0 * 47'620 / 100'000);
}

TEST(AnalyseReadCost, LeavesOutPairsAnInterruptionSplit) {
  // 30 ticks a read, and three interruptions of 2.6 million ticks (1 ms).
  const auto cost = analyse_read_cost(histogram({{29, 5'000}, {31, 5'000}, {2'600'000, 3}}), 1.0);
  ASSERT_TRUE(cost.has_value());
  EXPECT_DOUBLE_EQ(*cost, 30.0);
  // Within 16 times the median (or the quantum) a slow pair counts: 480 ticks is no interruption.
  const auto slow = analyse_read_cost(histogram({{30, 9'999}, {480, 1}}), 1.0);
  ASSERT_TRUE(slow.has_value());
  EXPECT_DOUBLE_EQ(*slow, (30.0 * 9'999 + 480) / 10'000);
}

TEST(AnalyseReadCost, IsNotCountedFromFewChangesOrWithoutAGranularity) {
  // A 4 ms clock read 5 million times in 20 ms moves 5 times: the mean would rest on 5 pairs.
  EXPECT_FALSE(analyse_read_cost(histogram({{4'000'000, 5}}, 5'000'000), 4e6).has_value());
  EXPECT_FALSE(analyse_read_cost(histogram({{21, 999}}, 1'000), 21.0).has_value());
  EXPECT_TRUE(analyse_read_cost(histogram({{21, 1'000}}, 1'000), 21.0).has_value());
  EXPECT_FALSE(analyse_read_cost(histogram({{21, 5'000}}, 1'000), std::nullopt).has_value());
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

// measure_shape over fake clocks: both readings, and what they make.
shape_estimate shape_of(auto clock, tick_world& world) {
  return measure_shape(
      clock, [&] { return world.reference_ns(); }, step_settings{}, granularity_settings{},
      fine_spin_of(world));
}

TEST(MeasureShape, IsTheQuantumOfAVmTscNotItsReadCost) {
  tick_world world;
  const shape_estimate s = shape_of(quantized_clock{&world, 2'100, 1'000}, world);
  const granularity_estimate& g = s.granularity;
  ASSERT_TRUE(g.ticks.has_value());
  EXPECT_NEAR(*g.ticks, 21.0, 0.01);
  EXPECT_FALSE(g.advances_every_tick);
  ASSERT_TRUE(g.read_cost_ticks.has_value());
  EXPECT_NEAR(*g.read_cost_ticks, 10.0, 0.01);  // reads of 0 or 21 ticks, 10 on average
  EXPECT_GE(g.changes, 2'048U);
  EXPECT_GE(g.sweeps, 4U);
  EXPECT_GE(g.groups, 9U);  // 10..199 ticks: 1 to 9 quanta
  ASSERT_TRUE(s.step.ticks.has_value());
  EXPECT_EQ(*s.step.ticks, 21U);
  EXPECT_EQ(s.step.rule, step_rule::quantum);
  EXPECT_EQ(s.step.reads, 100'352U);  // 98 buffers of 1,024
}

TEST(MeasureShape, IsAFractionalQuantumSeenAsStepsOf20And21) {
  tick_world world;
  const shape_estimate s = shape_of(quantized_clock{&world, 2'096, 1'000}, world);
  ASSERT_TRUE(s.granularity.ticks.has_value());
  EXPECT_NEAR(*s.granularity.ticks, 20.96, 0.01);  // total ticks over total quanta, not 20 or 21
  ASSERT_TRUE(s.granularity.read_cost_ticks.has_value());
  EXPECT_NEAR(*s.granularity.read_cost_ticks, 10.0, 0.01);
  ASSERT_TRUE(s.step.ticks.has_value());
  EXPECT_EQ(*s.step.ticks, 21U);  // one quantum, rounded
}

TEST(MeasureShape, IsOneTickOnBareMetalWhereTheStepIsTheReadCost) {
  tick_world world;
  const shape_estimate s = shape_of(every_tick_clock{&world}, world);
  ASSERT_TRUE(s.granularity.ticks.has_value());
  EXPECT_EQ(*s.granularity.ticks, 1.0);
  EXPECT_TRUE(s.granularity.advances_every_tick);
  ASSERT_TRUE(s.granularity.read_cost_ticks.has_value());
  EXPECT_NEAR(*s.granularity.read_cost_ticks, 30.0, 0.01);
  // The smallest back-to-back difference seen often: the cheapest read, 27.1 ticks, begins 0.9
  // of a tick past a tick in every cycle of the pattern, so it always reads 28.
  ASSERT_TRUE(s.step.ticks.has_value());
  EXPECT_EQ(*s.step.ticks, 28U);
  EXPECT_EQ(s.step.rule, step_rule::often);
}

TEST(MeasureShape, GivesACoarseClockItsStepButNoGranularityOrCountedCost) {
  // Ticks in ns, 6 ns a read, the spin 1 ns an iteration: a 4 ms clock moves a dozen times in
  // the 50 ms of back-to-back reads, two or three in the 10 ms around the spins.
  fake_world world;
  world.now_ps = 1'000 * kPsPerNs;  // not on a step boundary
  const fake_clock clock{&world, 6 * kPsPerNs, 4'000'000 * kPsPerNs, 4'000'000};
  const auto spin = [&](int n) { world.now_ps += static_cast<std::uint64_t>(n) * kPsPerNs; };
  const shape_estimate s = measure_shape(
      clock, [&] { return world.reference_ns(); }, step_settings{}, granularity_settings{}, spin);
  ASSERT_TRUE(s.step.ticks.has_value());
  EXPECT_EQ(*s.step.ticks, 4'000'000U);
  EXPECT_EQ(s.step.rule, step_rule::often);
  EXPECT_GE(s.step.changes, 5U);
  EXPECT_LT(s.step.searched_seconds, 0.05);  // five changes came within 24 ms
  EXPECT_FALSE(s.granularity.ticks.has_value());
  EXPECT_FALSE(s.granularity.read_cost_ticks.has_value());
  EXPECT_LE(s.granularity.changes, 3U);
  EXPECT_GE(s.granularity.searched_seconds, 0.01);
  EXPECT_LT(s.granularity.searched_seconds, 0.01 + 0.0001);  // checked every 64 pairs (~17 us)
}

TEST(MeasureShape, SaysNothingOfAClockThatNeverMoves) {
  fake_world world;
  world.now_ps = 1'000 * kPsPerNs;
  const fake_clock clock{&world, 6 * kPsPerNs, 1'000'000'000 * kPsPerNs, 1};
  const auto spin = [&](int n) { world.now_ps += static_cast<std::uint64_t>(n) * kPsPerNs; };
  const shape_estimate s = measure_shape(
      clock, [&] { return world.reference_ns(); }, step_settings{}, granularity_settings{}, spin);
  EXPECT_FALSE(s.step.ticks.has_value());
  EXPECT_EQ(s.step.rule, step_rule::none);
  EXPECT_FALSE(s.granularity.ticks.has_value());
  EXPECT_EQ(s.granularity.changes, 0U);
}

TEST(MeasureShape, CountsTheReadCostOfAMicrosecondClockFromEnoughChanges) {
  // A microsecond clock read in 30 ns: 3% of 100,000 back-to-back pairs see it move, 3,000 changes,
  // enough for the mean: 0.03 microseconds a read.
  fake_world world;
  const fake_clock clock{&world, 30 * kPsPerNs, 1'000 * kPsPerNs, 1};
  const auto spin = [&](int n) { world.now_ps += static_cast<std::uint64_t>(n) * kPsPerNs; };
  const shape_estimate s = measure_shape(
      clock, [&] { return world.reference_ns(); }, step_settings{}, granularity_settings{}, spin);
  ASSERT_TRUE(s.granularity.ticks.has_value());
  EXPECT_EQ(*s.granularity.ticks, 1.0);  // one group {1} beside zeros: one tick, the microsecond
  EXPECT_TRUE(s.granularity.advances_every_tick);
  ASSERT_TRUE(s.granularity.read_cost_ticks.has_value());
  EXPECT_NEAR(*s.granularity.read_cost_ticks, 0.03, 0.0005);
  ASSERT_TRUE(s.step.ticks.has_value());
  EXPECT_EQ(*s.step.ticks, 1U);
}

// Differences `value` repeated `count` times.
void add(difference_histogram& differences, std::uint64_t value, std::uint64_t count) {
  differences.add(value, count);
}

TEST(ClockSurveyAnalyseDifferences, TakesAConvertedQuantumOf9To11AsTen) {
  // vDSO nanoseconds from a 20.96-tick TSC quantum: m quanta read as 10m - 1, 10m or 10m + 1 ns.
  difference_histogram d;
  for (std::uint64_t m = 3; m <= 15; ++m) {
    add(d, 10 * m - 1, 20);
    add(d, 10 * m, 60);
    add(d, 10 * m + 1, 20);
  }
  const auto a = analyse_differences(d, 64);
  ASSERT_TRUE(a.ticks.has_value());
  EXPECT_DOUBLE_EQ(*a.ticks, 10.0);
  EXPECT_FALSE(a.advances_every_tick);
  EXPECT_EQ(a.groups, 13U);
  // The step of back-to-back reads 29-31 ns apart is three quanta.
  const step_analysis step = analyse_step(histogram({{29, 20}, {30, 60}, {31, 20}}), a);
  ASSERT_TRUE(step.ticks.has_value());
  EXPECT_EQ(*step.ticks, 30U);
}

TEST(ClockSurveyAnalyseDifferences, IgnoresStraysAndInterruptions) {
  difference_histogram d;
  for (std::uint64_t m = 1; m <= 9; ++m)
    add(d, 21 * m, 100);
  add(d, 31, 1);      // one odd value, a clock correction
  add(d, 52'500, 1);  // an interruption between two reads
  add(d, 0, 500);
  const auto a = analyse_differences(d, 64);
  ASSERT_TRUE(a.ticks.has_value());
  EXPECT_DOUBLE_EQ(*a.ticks, 21.0);
  EXPECT_EQ(a.groups, 11U);
}

TEST(ClockSurveyAnalyseDifferences, SaysEveryTickDespiteGapsInASparseRange) {
  // Every tick value from 30 to 300 but every seventh: runs of six values.
  difference_histogram d;
  for (std::uint64_t v = 30; v <= 300; ++v) {
    if (v % 7 != 0) add(d, v, 2);
  }
  const auto a = analyse_differences(d, 64);
  ASSERT_TRUE(a.ticks.has_value());
  EXPECT_EQ(*a.ticks, 1.0);
  EXPECT_TRUE(a.advances_every_tick);
}

TEST(ClockSurveyAnalyseDifferences, FindsNoQuantumInALatticeOffTheOrigin) {
  // A clock advancing every tick timed around delays 4.6 ticks apart with no jitter: differences
  // of 29.9 + 4.6 n ticks, rounded either way. They are evenly spaced, but a quantum's multiples
  // start at 0, and these do not: no quantum, rather than a false 4.6.
  difference_histogram d;
  for (int n = 0; n <= 40; ++n) {
    for (int phase = 0; phase < 10; ++phase) {
      d.add(static_cast<std::uint64_t>(29.9 + 4.6 * n + 0.1 * phase));
    }
  }
  const auto a = analyse_differences(d, 64);
  EXPECT_FALSE(a.ticks.has_value());
  EXPECT_FALSE(a.advances_every_tick);
}

TEST(ClockSurveyAnalyseDifferences, TakesOneGroupAsOneQuantumOnlyBesideZeros) {
  difference_histogram d;
  add(d, 20, 4);
  add(d, 21, 96);
  // Without zeros the pairs never spanned less than a quantum: 20.96 could be several.
  EXPECT_FALSE(analyse_differences(d, 64).ticks.has_value());
  difference_histogram with_zeros = d;
  add(with_zeros, 0, 110);
  const auto a = analyse_differences(with_zeros, 64);
  ASSERT_TRUE(a.ticks.has_value());
  EXPECT_DOUBLE_EQ(*a.ticks, 20.96);
  // ... unless it is 1 tick, the smallest quantum there is (a clock counting its reads).
  difference_histogram ones;
  add(ones, 1, 100);
  const auto one = analyse_differences(ones, 64);
  ASSERT_TRUE(one.ticks.has_value());
  EXPECT_TRUE(one.advances_every_tick);
  // Too few differences say nothing.
  EXPECT_FALSE(analyse_differences(with_zeros, 101).ticks.has_value());
  difference_histogram only_zeros;
  add(only_zeros, 0, 1'000);
  EXPECT_FALSE(analyse_differences(only_zeros, 0).ticks.has_value());
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

TEST(MeasureClockShape, ReadsASourceAndSkipsAnUnavailableOne) {
  const counting_source counting(true);
  const clock_shape_measurement shape = measure_clock_shape(counting);
  const clock_granularity& g = shape.granularity;
  ASSERT_TRUE(g.granularity_ticks.has_value());
  EXPECT_EQ(*g.granularity_ticks, 1.0);
  EXPECT_TRUE(g.advances_every_tick);
  EXPECT_TRUE(g.read_cost_counted);
  EXPECT_DOUBLE_EQ(g.read_cost_ticks, 1.0);
  EXPECT_GT(g.reads, 0U);
  EXPECT_GE(g.changes, granularity_settings{}.min_changes);
  ASSERT_TRUE(shape.step.ticks.has_value());
  EXPECT_EQ(*shape.step.ticks, 1U);

  const counting_source unavailable(false);
  const clock_shape_measurement none = measure_clock_shape(unavailable);
  EXPECT_FALSE(none.granularity.granularity_ticks.has_value());
  EXPECT_EQ(none.granularity.reads, 0U);
  EXPECT_FALSE(none.step.ticks.has_value());
}

}  // namespace
}  // namespace harness
