// The TSC calibration with a fake TSC and a fake monotonic reference on one fake time line, so
// the true rate is known and the calibration's rounds and time bound are exact.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>

#include "clocks/tsc.hpp"

namespace harness::clocks {
namespace {

struct fake_world {
  std::uint64_t now_ps = 0;
};

// Reading the TSC costs 10 ns; its value is now * ticks_per_ns_num / ticks_per_ns_den.
tick_reader fake_tsc(fake_world& world, std::uint64_t num, std::uint64_t den) {
  return [&world, num, den] {
    const std::uint64_t value = world.now_ps * num / (den * 1'000);
    world.now_ps += 10'000;
    return value;
  };
}

// Reading the reference costs 20 ns; its value is the true time in ns.
tick_reader fake_reference(fake_world& world) {
  return [&world] {
    const std::uint64_t value = world.now_ps / 1'000;
    world.now_ps += 20'000;
    return value;
  };
}

double ppm_off(double estimate, double truth) {
  return std::abs(estimate - truth) / truth * 1e6;
}

TEST(CalibrateTsc, FindsTheFakeRateWithinTenPpm) {
  struct rate {
    std::uint64_t num, den;
  };
  for (const rate r : {rate{5, 2}, rate{3, 1}, rate{2'596'130, 1'000'000}}) {
    fake_world world;
    const auto c = calibrate_tsc(fake_tsc(world, r.num, r.den), fake_reference(world));
    const double truth = 1e9 * static_cast<double>(r.num) / static_cast<double>(r.den);
    EXPECT_TRUE(c.converged);
    EXPECT_LE(ppm_off(c.ticks_per_second, truth), 10.0) << truth;
    EXPECT_LE(c.error_ppm, 10.0);
    // Brackets are 30 ns wide, plus the reference's apparent 20 ns step (its read cost): two
    // 25 ns halves, under 10 ppm from a 5 ms span on, so rounds of 1, 2, 4 and 8 ms are taken.
    EXPECT_EQ(c.rounds, 4);
    EXPECT_GT(c.duration_seconds, 0.008);
    EXPECT_LT(c.duration_seconds, 0.009);
  }
}

TEST(CalibrateTsc, DiscardsABracketHitByAStall) {
  fake_world world;
  int reads = 0;
  const tick_reader reference = [&] {
    // The end of the anchor's first bracket comes after a 1 ms stall: read 1 starts the clock,
    // reads 2-258 find the reference's step, 259 opens the bracket and 260 closes it.
    if (++reads == 260) world.now_ps += 1'000'000'000;
    const std::uint64_t value = world.now_ps / 1'000;
    world.now_ps += 20'000;
    return value;
  };
  const auto c = calibrate_tsc(fake_tsc(world, 3, 1), reference);
  EXPECT_TRUE(c.converged);
  EXPECT_LE(ppm_off(c.ticks_per_second, 3e9), 10.0);
  EXPECT_EQ(c.rounds, 4);
}

TEST(CalibrateTsc, StopsAtTheTimeLimitWhenEstimatesNeverAgree) {
  // A TSC whose rate keeps rising: successive estimates always differ by far more than 10 ppm.
  fake_world world;
  const tick_reader drifting_tsc = [&world] {
    const std::uint64_t ns = world.now_ps / 1'000;
    world.now_ps += 10'000;
    return 3 * ns + ns * ns / 1'000'000;
  };
  tsc_calibration_settings settings;
  settings.time_limit_ns = 10'000'000;
  const auto c = calibrate_tsc(drifting_tsc, fake_reference(world), settings);
  EXPECT_FALSE(c.converged);
  // Rounds end 1, 2, 4 and 8 ms after the anchor; a 16 ms one would pass the 10 ms limit.
  EXPECT_EQ(c.rounds, 4);
  EXPECT_LE(c.duration_seconds, 0.010);
  EXPECT_GT(c.error_ppm, 10.0);
  EXPECT_GT(c.ticks_per_second, 0.0);
}

TEST(CalibrateTsc, DefaultTimeLimitBoundsAnUnconvergedCalibration) {
  fake_world world;
  const tick_reader drifting_tsc = [&world] {
    const std::uint64_t ns = world.now_ps / 1'000;
    world.now_ps += 10'000;
    return 3 * ns + ns * ns / 1'000'000;
  };
  const auto c = calibrate_tsc(drifting_tsc, fake_reference(world));
  EXPECT_FALSE(c.converged);
  EXPECT_LE(c.duration_seconds, tsc_calibration_settings{}.time_limit_ns / 1e9);
  EXPECT_EQ(c.rounds, 7);  // 1..64 ms; the 128 ms round would pass 100 ms
}

TEST(TscClocks, ComeInTheDocumentedOrderAndSayWhyWhenUnavailable) {
  fake_world world;
  const auto clocks = make_tsc_clocks(fake_reference(world), "fake reference");
  ASSERT_EQ(clocks.size(), 3U);
  EXPECT_EQ(clocks[0]->name(), "rdtsc");
  EXPECT_EQ(clocks[1]->name(), "rdtscp");
  EXPECT_EQ(clocks[2]->name(), "lfence_rdtsc");
  EXPECT_FALSE(clocks[0]->reads_in_order());
  EXPECT_TRUE(clocks[1]->reads_in_order());
  const tsc_features f = detect_tsc_features();
  for (const auto& clock : clocks) {
    EXPECT_EQ(clock->available(), clock->unavailable_reason().empty()) << clock->name();
    EXPECT_EQ(clock->kind(), clock_kind::wall);
    if (!f.invariant) {
      EXPECT_FALSE(clock->available()) << clock->name();
    }
  }
  EXPECT_EQ(clocks[1]->available(), f.invariant && f.rdtscp);
}

}  // namespace
}  // namespace harness::clocks
