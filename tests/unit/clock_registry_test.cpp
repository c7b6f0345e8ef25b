// The registry of this platform's clocks: the names the issue lists, lookup, and the errors of
// resolve_clock. Availability is checked as the machine reports it; no timing is asserted.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "clocks/clock_lookup.hpp"
#include "clocks/tsc.hpp"
#include "harness/clock.hpp"
#include "harness/errors.hpp"

namespace harness {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(ClockRegistry, ListsEveryLinuxSourceInOrder) {
  std::vector<std::string> names;
  for (const clock_source* source : all_clocks())
    names.emplace_back(source->name());
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
  EXPECT_EQ(names, expected);
}

TEST(ClockRegistry, EverySourceDescribesItselfAndReadsWhenAvailable) {
  for (const clock_source* source : all_clocks()) {
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
  for (const char* name : {"CLOCK_MONOTONIC", "CLOCK_MONOTONIC_RAW", "CLOCK_REALTIME",
                           "CLOCK_THREAD_CPUTIME_ID", "gettimeofday", "steady_clock"}) {
    const clock_source* source = find_clock(name);
    ASSERT_NE(source, nullptr) << name;
    EXPECT_TRUE(source->available()) << name << ": " << source->unavailable_reason();
  }
  EXPECT_EQ(find_clock("CLOCK_THREAD_CPUTIME_ID")->kind(), clock_kind::thread_cpu);
  EXPECT_EQ(find_clock("CLOCK_PROCESS_CPUTIME_ID")->kind(), clock_kind::process_cpu);
  EXPECT_FALSE(find_clock("CLOCK_REALTIME")->is_monotonic());
}

TEST(ClockRegistry, TscSourcesFollowCpuid) {
  const auto features = clocks::detect_tsc_features();
  EXPECT_EQ(find_clock("rdtsc")->available(), features.invariant);
  EXPECT_EQ(tsc_calibration().has_value(), features.invariant);
  if (const auto calibration = tsc_calibration()) {
    EXPECT_EQ(calibration->reference, "CLOCK_MONOTONIC_RAW");
    EXPECT_GT(calibration->ticks_per_second, 0.0);
    EXPECT_GE(calibration->rounds, 1);
    EXPECT_DOUBLE_EQ(find_clock("rdtsc")->ticks_per_second(), calibration->ticks_per_second);
  }
}

TEST(ClockRegistry, FindClockIsExact) {
  EXPECT_NE(find_clock("CLOCK_MONOTONIC"), nullptr);
  EXPECT_EQ(find_clock("clock_monotonic"), nullptr);
  EXPECT_EQ(find_clock(""), nullptr);
}

TEST(ClockRegistry, DefaultClockIsAnOrderedMonotonicWallClock) {
  const clock_source& chosen = default_clock();
  EXPECT_TRUE(chosen.available());
  EXPECT_TRUE(chosen.is_monotonic());
  EXPECT_TRUE(chosen.reads_in_order());
  EXPECT_EQ(chosen.kind(), clock_kind::wall);
  EXPECT_THAT(default_clock_reason(), HasSubstr(std::string(chosen.name())));
}

TEST(ResolveClock, ReturnsTheNamedSource) {
  EXPECT_EQ(&resolve_clock("CLOCK_MONOTONIC"), find_clock("CLOCK_MONOTONIC"));
}

TEST(ResolveClock, RejectsAnUnknownNameListingTheAvailableOnes) {
  try {
    resolve_clock("sundial");
    FAIL() << "no usage_error";
  } catch (const usage_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("'sundial'"));
    EXPECT_THAT(e.what(), HasSubstr("CLOCK_MONOTONIC"));
    EXPECT_THAT(e.what(), HasSubstr("steady_clock"));
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
