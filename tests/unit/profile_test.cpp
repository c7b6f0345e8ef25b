// Tests of profile(), profile(count) and profile_with_first(): golden lines from a fake clock whose
// every reading advances by a step the test sets, so each figure is exact; zero runs, zero ticks,
// a clock going backwards, bad runs and bad templates.
#include "harness/profile.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <sstream>
#include <string>

namespace harness {
namespace {

using ::testing::HasSubstr;

// A clock that reads `start`, then `start + step`, `start + 2 * step`, ...
class profile_clock final : public clock_source {
 public:
  profile_clock(std::int64_t step, double ticks_per_second, std::uint64_t start = 1000)
      : step_(step), ticks_per_second_(ticks_per_second), next_(start) {}

  std::string_view name() const noexcept override { return "fake-step"; }
  std::string_view description() const noexcept override { return "advances by a set step"; }
  clock_kind kind() const noexcept override { return clock_kind::wall; }
  bool is_monotonic() const noexcept override { return step_ >= 0; }
  double ticks_per_second() const noexcept override { return ticks_per_second_; }
  std::optional<double> declared_resolution() const noexcept override { return std::nullopt; }
  std::uint64_t now() const noexcept override {
    const std::uint64_t reading = next_;
    next_ += static_cast<std::uint64_t>(step_);
    ++reads_;
    return reading;
  }
  bool available() const noexcept override { return true; }

  int reads() const { return reads_; }

 private:
  std::int64_t step_;
  double ticks_per_second_;
  mutable std::uint64_t next_;
  mutable int reads_ = 0;
};

// 2.5 s per pair of readings at 1 GHz.
constexpr std::int64_t kProfileStep = 2'500'000'000;
constexpr double kGigahertz = 1e9;

TEST(Profile, GoldenLineWithEveryToken) {
  profile_clock clock(kProfileStep, kGigahertz);
  std::ostringstream out;
  std::int64_t calls = 0;
  const profile_result result = profile(
      [&] { ++calls; }, 1234567,
      "{runs} runs in {time} s, {frequency} calls/s, {ticks} ticks, {ns_per_run} ns, {per_run}, "
      "{clock} | {0} {1:.6f} {2:.1f} {2} {{ok}}",
      out, clock);
  EXPECT_EQ(out.str(),
            "1 234 567 runs in 2.50 s, 493 827 calls/s, 2 500 000 000 ticks, 2025.00 ns, 2.03 µs, "
            "fake-step | 1234567 2.500000 493826.8 493826.8 {ok}\n");
  EXPECT_EQ(calls, 1234567);
  EXPECT_EQ(clock.reads(), 2);
  EXPECT_EQ(result.runs, 1234567u);
  EXPECT_EQ(result.ticks, 2'500'000'000u);
  EXPECT_DOUBLE_EQ(result.seconds, 2.5);
  ASSERT_TRUE(result.calls_per_second.has_value());
  EXPECT_DOUBLE_EQ(*result.calls_per_second, 493826.8);
  ASSERT_TRUE(result.seconds_per_run().has_value());
  EXPECT_DOUBLE_EQ(*result.seconds_per_run(), 2.5 / 1234567);
  EXPECT_EQ(result.clock, "fake-step");
}

TEST(Profile, TicksAreConvertedWithTheClocksRate) {
  profile_clock clock(3'000, 2'000.0);  // 1.5 s
  std::ostringstream out;
  const profile_result result = profile([] {}, 3, "{time} {1} {frequency} {ticks}", out, clock);
  EXPECT_EQ(out.str(), "1.50 1.5 2 3 000\n");
  EXPECT_DOUBLE_EQ(result.seconds, 1.5);
}

TEST(Profile, NamedTokensTakeSpecs) {
  profile_clock clock(kProfileStep, kGigahertz);
  std::ostringstream out;
  profile([] {}, 1000, "[{runs:>6}] [{time:.3f}] [{frequency:.0f}] [{clock:<10}]", out, clock);
  EXPECT_EQ(out.str(), "[  1000] [2.500] [400] [fake-step ]\n");
}

TEST(Profile, ZeroRunsHasNoFrequency) {
  profile_clock clock(kProfileStep, kGigahertz);
  std::ostringstream out;
  int calls = 0;
  const profile_result result = profile(
      [&] { ++calls; }, 0,
      "{runs} runs in {time} s, {frequency}/s, {2:>6.1f}|{per_run}|{ns_per_run}", out, clock);
  EXPECT_EQ(out.str(), "0 runs in 2.50 s, n/a/s,    n/a|n/a|n/a\n");
  EXPECT_EQ(calls, 0);
  EXPECT_EQ(result.runs, 0u);
  EXPECT_FALSE(result.calls_per_second.has_value());
  EXPECT_FALSE(result.seconds_per_run().has_value());
}

TEST(Profile, ZeroTicksHasNoFrequency) {
  profile_clock clock(0, kGigahertz);
  std::ostringstream out;
  const profile_result result =
      profile([] {}, 10, "{runs} runs in {time} s, {frequency}/s, {1} {2}", out, clock);
  EXPECT_EQ(out.str(), "10 runs in 0.00 s, n/a/s, 0 n/a\n");
  EXPECT_EQ(result.ticks, 0u);
  EXPECT_FALSE(result.calls_per_second.has_value());
}

TEST(Profile, ClockGoingBackwardsGivesZeroTicks) {
  profile_clock clock(-5, kGigahertz);
  std::ostringstream out;
  const profile_result result = profile([] {}, 2, "{ticks} {frequency}", out, clock);
  EXPECT_EQ(out.str(), "0 n/a\n");
  EXPECT_EQ(result.ticks, 0u);
}

TEST(Profile, NegativeRunsIsAUsageError) {
  profile_clock clock(kProfileStep, kGigahertz);
  std::ostringstream out;
  int calls = 0;
  try {
    profile([&] { ++calls; }, -3, "{runs}", out, clock);
    FAIL() << "accepted";
  } catch (const usage_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("runs must be >= 0, got -3"));
  }
  EXPECT_EQ(calls, 0);
  EXPECT_EQ(out.str(), "");
}

TEST(Profile, BadRuntimeTemplateThrowsBeforeAnyCall) {
  profile_clock clock(kProfileStep, kGigahertz);
  std::ostringstream out;
  int calls = 0;
  const std::string from_user = "{runs} in {secs}";
  try {
    profile([&] { ++calls; }, 5, runtime_format(from_user), out, clock);
    FAIL() << "accepted";
  } catch (const template_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("unknown token {secs}"));
    EXPECT_THAT(e.what(), HasSubstr("\"{runs} in {secs}\""));
    EXPECT_THAT(e.what(), HasSubstr("{runs} {time} {frequency} {ticks} {ns_per_run} {per_run} "
                                    "{clock} {0} {1} {2}"));
  }
  EXPECT_EQ(calls, 0);
  EXPECT_EQ(clock.reads(), 0);
  EXPECT_EQ(out.str(), "");
}

TEST(Profile, RuntimeTemplateRenders) {
  profile_clock clock(kProfileStep, kGigahertz);
  std::ostringstream out;
  const std::string from_user = "{0} in {1:.1f}";
  profile([] {}, 4, runtime_format(from_user), out, clock);
  EXPECT_EQ(out.str(), "4 in 2.5\n");
}

TEST(Profile, ResultOfTheCallableIsAccepted) {
  profile_clock clock(kProfileStep, kGigahertz);
  std::ostringstream out;
  std::string text;
  const profile_result result = profile(
      [&] {
        text += 'x';
        return text.size();
      },
      3, "{runs}", out, clock);
  EXPECT_EQ(text, "xxx");
  EXPECT_EQ(result.runs, 3u);
}

TEST(ProfileCount, RunsComeFromTheReturnedCount) {
  profile_clock clock(kProfileStep, kGigahertz);
  std::ostringstream out;
  int calls = 0;
  const profile_result result = profile(
      [&] {
        ++calls;
        return 500;
      },
      "{runs} items in {time} s, {frequency} items/s", out, clock);
  EXPECT_EQ(out.str(), "500 items in 2.50 s, 200 items/s\n");
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(result.runs, 500u);
  EXPECT_EQ(clock.reads(), 2);
}

TEST(ProfileCount, ZeroCountHasNoFrequency) {
  profile_clock clock(kProfileStep, kGigahertz);
  std::ostringstream out;
  const profile_result result = profile([] { return 0u; }, "{runs} {frequency}", out, clock);
  EXPECT_EQ(out.str(), "0 n/a\n");
  EXPECT_FALSE(result.calls_per_second.has_value());
}

TEST(ProfileCount, NegativeCountIsAUsageError) {
  profile_clock clock(kProfileStep, kGigahertz);
  std::ostringstream out;
  try {
    profile([] { return -2; }, "{runs}", out, clock);
    FAIL() << "accepted";
  } catch (const usage_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("returned -2 runs"));
  }
  EXPECT_EQ(out.str(), "");
}

TEST(ProfileWithFirst, FirstCallIsTimedAlone) {
  profile_clock clock(1'000'000, kGigahertz);  // 1 ms between readings
  std::ostringstream out;
  int calls = 0;
  const profile_with_first_result result = profile_with_first(
      [&] { ++calls; }, 11, "cold: {runs} call in {per_run}",
      "warm: {runs} calls in {time:.3f} s, {frequency} calls/s, {per_run} each", out, clock);
  EXPECT_EQ(out.str(),
            "cold: 1 call in 1.00 ms\n"
            "warm: 10 calls in 0.001 s, 10 000 calls/s, 100 µs each\n");
  EXPECT_EQ(calls, 11);
  EXPECT_EQ(clock.reads(), 4);
  EXPECT_EQ(result.first.runs, 1u);
  EXPECT_EQ(result.first.ticks, 1'000'000u);
  EXPECT_EQ(result.other.runs, 10u);
  EXPECT_EQ(result.other.ticks, 1'000'000u);
}

TEST(ProfileWithFirst, OneRunLeavesTheOthersEmpty) {
  profile_clock clock(kProfileStep, kGigahertz);
  std::ostringstream out;
  const profile_with_first_result result = profile_with_first(
      [] {}, 1, "first {runs} {frequency}", "other {runs} {frequency}", out, clock);
  EXPECT_EQ(out.str(), "first 1 0\nother 0 n/a\n");
  EXPECT_EQ(result.other.runs, 0u);
  EXPECT_FALSE(result.other.calls_per_second.has_value());
}

TEST(ProfileWithFirst, ZeroRunsIsAUsageError) {
  profile_clock clock(kProfileStep, kGigahertz);
  std::ostringstream out;
  int calls = 0;
  EXPECT_THROW(profile_with_first([&] { ++calls; }, 0, "a", "b", out, clock), usage_error);
  EXPECT_EQ(calls, 0);
  EXPECT_EQ(out.str(), "");
}

TEST(ProfileWithFirst, BadSecondTemplateThrowsBeforeAnyCall) {
  profile_clock clock(kProfileStep, kGigahertz);
  std::ostringstream out;
  int calls = 0;
  const std::string other = "{runs";
  EXPECT_THROW(profile_with_first([&] { ++calls; }, 3, "{runs}", runtime_format(other), out, clock),
               template_error);
  EXPECT_EQ(calls, 0);
  EXPECT_EQ(out.str(), "");
}

TEST(ProfileOverloads, ClockWithoutStreamWritesToStandardOutput) {
  profile_clock clock(kProfileStep, kGigahertz);
  ::testing::internal::CaptureStdout();
  profile([] {}, 2, "a {runs}", clock);
  profile([] { return 3; }, "b {runs}", clock);
  profile_with_first([] {}, 2, "c {runs}", "d {runs}", clock);
  EXPECT_EQ(::testing::internal::GetCapturedStdout(), "a 2\nb 3\nc 1\nd 1\n");
}

TEST(ProfileOverloads, DefaultClockIsTheHarnessDefault) {
  std::ostringstream out;
  const profile_result result = profile([] {}, 3, "{runs} {clock}", out);
  EXPECT_EQ(result.clock, std::string(default_clock().name()));
  EXPECT_EQ(out.str(), "3 " + result.clock + "\n");
}

TEST(ProfileFormat, LineOfAResult) {
  profile_result result;
  result.runs = 2000;
  result.ticks = 4;
  result.seconds = 0.004;
  result.calls_per_second = 500000.0;
  result.clock = "c";
  EXPECT_EQ(format_profile_line(
                result, format_template("{runs}|{per_run}|{ns_per_run}|{2:g}", profile_tokens)),
            "2 000|2.00 µs|2000.00|500000");
}

}  // namespace
}  // namespace harness
