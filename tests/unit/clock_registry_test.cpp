// The registry of this platform's clocks: the names the issue lists, lookup, the errors of
// resolve_clock, and the default clock's reason. Every registry here is built from made-up TSC
// inputs (what cpuid says, a calibration with set figures), so nothing depends on the TSC of the
// machine the test runs on; no TSC source is read and no timing is asserted. The OS clocks are
// the real ones: whether they can be read is the platform's fact.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "clocks/clock_lookup.hpp"
#include "clocks/default_choice.hpp"
#include "clocks/tsc.hpp"
#include "harness/clock.hpp"
#include "harness/errors.hpp"

namespace harness {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// The TSC as the test says it is, and a calibration that returns set figures and counts its calls
// (it never reads the reference it is handed).
struct fake_tsc {
  clocks::tsc_features features;
  clock_calibration calibration;
  int calibrations = 0;

  explicit fake_tsc(bool invariant) {
    features.x86_64 = true;
    features.vendor = "TestVendor";
    features.tsc = true;
    features.invariant = invariant;
    features.rdtscp = true;
    features.lfence_serializing = true;
    features.lfence_basis = "the test says LFENCE serializes";
    calibration.ticks_per_second = 3e9;
    calibration.error_ppm = 2;
    calibration.duration_seconds = 0.008;
    calibration.rounds = 4;
    calibration.converged = true;
  }

  clocks::tsc_inputs inputs() {
    return {features, [this](const clocks::tick_reader&) {
              ++calibrations;
              return calibration;
            }};
  }
};

TEST(ClockRegistry, ListsEveryLinuxSourceInOrder) {
  const std::vector<std::string> expected = {"rdtsc",
                                             "rdtscp",
                                             "lfence_rdtsc",
                                             "CLOCK_MONOTONIC",
                                             "CLOCK_MONOTONIC_RAW",
                                             "CLOCK_MONOTONIC_COARSE",
                                             "CLOCK_BOOTTIME",
                                             "CLOCK_REALTIME",
                                             "CLOCK_REALTIME_COARSE",
                                             "CLOCK_PROCESS_CPUTIME_ID",
                                             "CLOCK_THREAD_CPUTIME_ID",
                                             "gettimeofday",
                                             "time",
                                             "times",
                                             "getrusage_thread",
                                             "steady_clock",
                                             "system_clock",
                                             "high_resolution_clock"};
  // The list is the same whether the TSC can be used or not: an unusable source stays, saying why.
  for (const bool invariant : {true, false}) {
    SCOPED_TRACE(invariant ? "invariant TSC" : "no invariant TSC");
    fake_tsc tsc(invariant);
    const clocks::clock_registry registry(tsc.inputs());
    std::vector<std::string> names;
    for (const clock_source* source : registry.all())
      names.emplace_back(source->name());
    EXPECT_EQ(names, expected);
  }
}

TEST(ClockRegistry, EverySourceDescribesItselfAndReadsWhenAvailable) {
  // No invariant TSC: the TSC sources are unavailable and never read (the made-up features may
  // claim instructions this CPU does not have).
  fake_tsc tsc(false);
  const clocks::clock_registry registry(tsc.inputs());
  for (const clock_source* source : registry.all()) {
    SCOPED_TRACE(std::string(source->name()));
    EXPECT_FALSE(source->description().empty());
    if (!source->available()) {
      EXPECT_FALSE(source->unavailable_reason().empty());
      continue;
    }
    EXPECT_TRUE(source->unavailable_reason().empty());
    EXPECT_GT(source->ticks_per_second(), 0.0);
    if (const auto declared = source->declared_resolution()) {
      EXPECT_GT(*declared, 0.0);
    }
    if (source->is_monotonic()) {
      const std::uint64_t first = source->now();
      EXPECT_GE(source->now(), first);
    }
  }
}

TEST(ClockRegistry, OsClocksAreAvailableOnLinux) {
  fake_tsc tsc(false);
  const clocks::clock_registry registry(tsc.inputs());
  for (const char* name : {"CLOCK_MONOTONIC", "CLOCK_MONOTONIC_RAW", "CLOCK_REALTIME",
                           "CLOCK_THREAD_CPUTIME_ID", "gettimeofday", "steady_clock"}) {
    const clock_source* source = registry.find(name);
    ASSERT_NE(source, nullptr) << name;
    EXPECT_TRUE(source->available()) << name << ": " << source->unavailable_reason();
  }
  EXPECT_EQ(registry.find("CLOCK_THREAD_CPUTIME_ID")->kind(), clock_kind::thread_cpu);
  EXPECT_EQ(registry.find("CLOCK_PROCESS_CPUTIME_ID")->kind(), clock_kind::process_cpu);
  EXPECT_FALSE(registry.find("CLOCK_REALTIME")->is_monotonic());
}

TEST(ClockRegistry, TscSourcesShareTheCalibrationAgainstTheRawMonotonicClock) {
  fake_tsc tsc(true);
  const clocks::clock_registry registry(tsc.inputs());
  EXPECT_EQ(tsc.calibrations, 1);  // once for the three sources
  const auto calibration = registry.tsc_calibration();
  ASSERT_TRUE(calibration.has_value());
  EXPECT_EQ(calibration->source, "rdtsc");
  EXPECT_EQ(calibration->reference, "CLOCK_MONOTONIC_RAW");
  EXPECT_DOUBLE_EQ(calibration->ticks_per_second, 3e9);
  EXPECT_EQ(calibration->rounds, 4);
  for (const char* name : {"rdtsc", "rdtscp", "lfence_rdtsc"}) {
    const clock_source* source = registry.find(name);
    ASSERT_NE(source, nullptr) << name;
    EXPECT_TRUE(source->available()) << name << ": " << source->unavailable_reason();
    EXPECT_DOUBLE_EQ(source->ticks_per_second(), 3e9) << name;
  }
}

TEST(ClockRegistry, WithoutAnInvariantTscNothingIsCalibrated) {
  fake_tsc tsc(false);
  const clocks::clock_registry registry(tsc.inputs());
  EXPECT_EQ(tsc.calibrations, 0);
  EXPECT_FALSE(registry.tsc_calibration().has_value());
  const clock_source* rdtsc = registry.find("rdtsc");
  ASSERT_NE(rdtsc, nullptr);
  EXPECT_FALSE(rdtsc->available());
  EXPECT_THAT(rdtsc->unavailable_reason(), HasSubstr("the TSC is not invariant"));
}

TEST(ClockRegistry, FindIsExact) {
  fake_tsc tsc(true);
  const clocks::clock_registry registry(tsc.inputs());
  EXPECT_NE(registry.find("CLOCK_MONOTONIC"), nullptr);
  EXPECT_EQ(registry.find("clock_monotonic"), nullptr);
  EXPECT_EQ(registry.find(""), nullptr);
}

// The candidates of the default clock as the probe would make them from `registry`, with the costs
// and steps the test gives by name; a source not named was not measured.
std::vector<clocks::default_candidate> candidates_of(const clocks::clock_registry& registry,
                                                     const std::map<std::string, double>& cost_ns) {
  std::vector<clocks::default_candidate> candidates;
  for (const clock_source* source : registry.all()) {
    clocks::default_candidate c;
    c.source = source;
    c.name = std::string(source->name());
    c.kind = source->kind();
    c.monotonic = source->is_monotonic();
    c.available = source->available();
    c.in_order = source->reads_in_order();
    if (const auto it = cost_ns.find(c.name); it != cost_ns.end()) {
      c.cost_ns = it->second;
      c.step_ns = 10.0;
    }
    candidates.push_back(std::move(c));
  }
  return candidates;
}

TEST(DefaultClock, IsAnOrderedMonotonicWallClockAndSaysHowTheTscWasCalibrated) {
  fake_tsc tsc(true);
  const clocks::clock_registry registry(tsc.inputs());
  // Plain rdtsc is the cheapest but its reads may be reordered; rdtscp was not measured.
  const auto pick = clocks::pick_default(
      registry,
      candidates_of(registry,
                    {{"rdtsc", 10.0}, {"lfence_rdtsc", 15.0}, {"CLOCK_MONOTONIC", 25.0}}));
  ASSERT_EQ(pick.source, registry.find("lfence_rdtsc"));
  EXPECT_TRUE(pick.source->available());
  EXPECT_TRUE(pick.source->is_monotonic());
  EXPECT_TRUE(pick.source->reads_in_order());
  EXPECT_EQ(pick.source->kind(), clock_kind::wall);
  EXPECT_THAT(pick.reason, HasSubstr("lfence_rdtsc: the cheapest monotonic wall-clock source"));
  EXPECT_THAT(pick.reason, HasSubstr("rdtsc (10.0 ns) its reads may be reordered by the CPU"));
  EXPECT_THAT(pick.reason, HasSubstr("(the test says LFENCE serializes)"));
  EXPECT_THAT(pick.reason, HasSubstr("; TSC rate 3000.000000 MHz calibrated against "
                                     "CLOCK_MONOTONIC_RAW in 8.00 ms (4 rounds, error within "
                                     "2.00 ppm)"));
}

TEST(DefaultClock, AnOsClockNeedsNoTscNote) {
  fake_tsc tsc(true);
  const clocks::clock_registry registry(tsc.inputs());
  const auto pick =
      clocks::pick_default(registry, candidates_of(registry, {{"CLOCK_MONOTONIC", 25.0}}));
  ASSERT_EQ(pick.source, registry.find("CLOCK_MONOTONIC"));
  EXPECT_THAT(pick.reason, HasSubstr("CLOCK_MONOTONIC: the cheapest"));
  EXPECT_THAT(pick.reason, Not(HasSubstr("TSC")));
}

TEST(DefaultClock, FallsBackToSteadyClockWhenNothingQualifies) {
  fake_tsc tsc(false);
  const clocks::clock_registry registry(tsc.inputs());
  const auto pick = clocks::pick_default(registry, candidates_of(registry, {}));
  ASSERT_EQ(pick.source, registry.find("steady_clock"));
  EXPECT_THAT(pick.reason, HasSubstr("no monotonic wall-clock source that reads in order"));
  EXPECT_THAT(pick.reason, HasSubstr("; falling back to steady_clock"));
}

TEST(ResolveClock, ReturnsTheNamedSource) {
  fake_tsc tsc(true);
  const clocks::clock_registry registry(tsc.inputs());
  EXPECT_EQ(&registry.resolve("CLOCK_MONOTONIC"), registry.find("CLOCK_MONOTONIC"));
  EXPECT_EQ(&registry.resolve("lfence_rdtsc"), registry.find("lfence_rdtsc"));
}

TEST(ResolveClock, RejectsAnUnknownNameListingTheAvailableOnes) {
  fake_tsc tsc(true);
  const clocks::clock_registry registry(tsc.inputs());
  try {
    registry.resolve("sundial");
    FAIL() << "no usage_error";
  } catch (const usage_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("unknown clock 'sundial'; available clocks: rdtsc, rdtscp, "
                                    "lfence_rdtsc, CLOCK_MONOTONIC, "));
    EXPECT_THAT(e.what(), HasSubstr("steady_clock"));
  }
}

TEST(ResolveClock, RejectsATscThatIsNotInvariantWithTheReason) {
  fake_tsc tsc(false);
  const clocks::clock_registry registry(tsc.inputs());
  try {
    registry.resolve("rdtsc");
    FAIL() << "no usage_error";
  } catch (const usage_error& e) {
    const std::string message = e.what();
    EXPECT_THAT(message, HasSubstr("clock 'rdtsc' is not available here (the TSC is not "
                                   "invariant"));
    EXPECT_THAT(message, HasSubstr("; available clocks: CLOCK_MONOTONIC, "));
  }
}

// A source that exists but cannot be used, as rdtscp is when cpuid hides it.
class unusable_clock final : public clock_source {
 public:
  explicit unusable_clock(bool available) : available_(available) {}
  std::string_view name() const noexcept override { return available_ ? "usable" : "unusable"; }
  std::string_view description() const noexcept override { return "test clock"; }
  clock_kind kind() const noexcept override { return clock_kind::wall; }
  bool is_monotonic() const noexcept override { return true; }
  double ticks_per_second() const noexcept override { return 1e9; }
  std::optional<double> declared_resolution() const noexcept override { return std::nullopt; }
  std::uint64_t now() const noexcept override { return 0; }
  bool available() const noexcept override { return available_; }
  std::string unavailable_reason() const override {
    return available_ ? "" : "the test says it cannot be read";
  }

 private:
  bool available_;
};

TEST(ResolveClock, RejectsAnUnavailableSourceWithItsReason) {
  const unusable_clock usable(true);
  const unusable_clock unusable(false);
  const clock_source* sources[] = {&usable, &unusable};
  EXPECT_EQ(&clocks::resolve_clock_in(sources, "usable"), &usable);
  try {
    clocks::resolve_clock_in(sources, "unusable");
    FAIL() << "no usage_error";
  } catch (const usage_error& e) {
    const std::string message = e.what();
    EXPECT_THAT(message, HasSubstr("'unusable' is not available"));
    EXPECT_THAT(message, HasSubstr("the test says it cannot be read"));
    EXPECT_THAT(message, HasSubstr("available clocks: usable"));
    EXPECT_THAT(message, Not(HasSubstr("usable, unusable")));
  }
}

TEST(ClockKind, HasNames) {
  EXPECT_EQ(to_string(clock_kind::wall), "wall");
  EXPECT_EQ(to_string(clock_kind::thread_cpu), "thread_cpu");
  EXPECT_EQ(to_string(clock_kind::process_cpu), "process_cpu");
}

}  // namespace
}  // namespace harness
