// The TSC calibration with a fake TSC and a fake monotonic reference on one fake time line, so
// the true rate is known and the calibration's rounds and time bound are exact; and the TSC
// sources made from made-up cpuid features and calibration, never from this CPU's.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

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

// What cpuid says, as the test sets it: an invariant TSC with RDTSCP and a serializing LFENCE.
tsc_features invariant_tsc() {
  tsc_features f;
  f.x86_64 = true;
  f.tsc = true;
  f.invariant = true;
  f.rdtscp = true;
  f.lfence_serializing = true;
  f.lfence_basis = "the test says so";
  return f;
}

// The TSC sources made from `features` and a calibration at `rate` that counts its calls; no
// source is read, so nothing here depends on this CPU's TSC.
struct made_tsc {
  int calibrations = 0;
  std::uint64_t reference_read = 1;  // what the calibration read from the reference it was given
  std::vector<std::unique_ptr<clock_source>> clocks;

  made_tsc(const tsc_features& features, double rate) {
    fake_world world;
    const tsc_inputs inputs{features, [this, rate](const tick_reader& reference) {
                              ++calibrations;
                              clock_calibration c;
                              c.ticks_per_second = rate;
                              reference_read = reference();
                              return c;
                            }};
    clocks = make_tsc_clocks(inputs, fake_reference(world), "fake reference");
  }
};

TEST(TscClocks, ComeInTheDocumentedOrderSharingOneCalibration) {
  tsc_features f = invariant_tsc();
  made_tsc tsc(f, 3e9);
  EXPECT_EQ(tsc.calibrations, 1);
  EXPECT_EQ(tsc.reference_read, 0U);  // the fake reference's first reading: it was handed on
  ASSERT_EQ(tsc.clocks.size(), 3U);
  EXPECT_EQ(tsc.clocks[0]->name(), "rdtsc");
  EXPECT_EQ(tsc.clocks[1]->name(), "rdtscp");
  EXPECT_EQ(tsc.clocks[2]->name(), "lfence_rdtsc");
  EXPECT_FALSE(tsc.clocks[0]->reads_in_order());
  EXPECT_TRUE(tsc.clocks[1]->reads_in_order());
  EXPECT_TRUE(tsc.clocks[2]->reads_in_order());
  for (const auto& clock : tsc.clocks) {
    SCOPED_TRACE(std::string(clock->name()));
    EXPECT_TRUE(clock->available()) << clock->unavailable_reason();
    EXPECT_EQ(clock->kind(), clock_kind::wall);
    EXPECT_DOUBLE_EQ(clock->ticks_per_second(), 3e9);
    const auto* base = dynamic_cast<const tsc_clock_base*>(clock.get());
    ASSERT_NE(base, nullptr);
    ASSERT_NE(base->calibration(), nullptr);
    EXPECT_EQ(base->calibration()->source, "rdtsc");
    EXPECT_EQ(base->calibration()->reference, "fake reference");
  }
  // Without a serializing LFENCE, lfence_rdtsc is listed as not reading in order.
  f.lfence_serializing = false;
  EXPECT_FALSE(made_tsc(f, 3e9).clocks[2]->reads_in_order());
}

TEST(TscClocks, SayWhyWhenUnavailable) {
  struct tsc_case {
    const char* what;
    void (*change)(tsc_features&);
    double rate;
    int calibrations;
    const char* reason;         // of rdtsc and lfence_rdtsc
    const char* rdtscp_reason;  // of rdtscp
  };
  const tsc_case cases[] = {
      {"not x86-64", [](tsc_features& f) { f.x86_64 = false; }, 3e9, 0, "not an x86-64 CPU",
       "not an x86-64 CPU"},
      {"no TSC", [](tsc_features& f) { f.tsc = false; }, 3e9, 0,
       "cpuid does not advertise a TSC (leaf 1 EDX bit 4)",
       "cpuid does not advertise a TSC (leaf 1 EDX bit 4)"},
      {"not invariant", [](tsc_features& f) { f.invariant = false; }, 3e9, 0,
       "the TSC is not invariant (cpuid 0x80000007 EDX bit 8 clear): its rate may change",
       "the TSC is not invariant (cpuid 0x80000007 EDX bit 8 clear): its rate may change"},
      {"no RDTSCP", [](tsc_features& f) { f.rdtscp = false; }, 3e9, 1, "",
       "cpuid does not advertise RDTSCP (0x80000001 EDX bit 27), so it may fault"},
      {"calibration failed", [](tsc_features&) {}, 0.0, 1,
       "TSC calibration against fake reference failed",
       "TSC calibration against fake reference failed"},
  };
  for (const tsc_case& c : cases) {
    SCOPED_TRACE(c.what);
    tsc_features f = invariant_tsc();
    c.change(f);
    const made_tsc tsc(f, c.rate);
    EXPECT_EQ(tsc.calibrations, c.calibrations);
    ASSERT_EQ(tsc.clocks.size(), 3U);
    EXPECT_EQ(tsc.clocks[0]->unavailable_reason(), c.reason);
    EXPECT_EQ(tsc.clocks[1]->unavailable_reason(), c.rdtscp_reason);
    EXPECT_EQ(tsc.clocks[2]->unavailable_reason(), c.reason);
    for (const auto& clock : tsc.clocks)
      EXPECT_EQ(clock->available(), clock->unavailable_reason().empty()) << clock->name();
  }
}

}  // namespace
}  // namespace harness::clocks
