// Counters: arithmetic at several rates, spans of years at GHz rates, the initialized and scoped
// counters, over compile-time (chrono-like, returning a count or a time_point) and runtime
// (clock_source) clocks. The clocks are set by hand, so every expectation is exact; no real clock
// is read.
#include "harness/counter.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <limits>

namespace harness {
namespace {

__extension__ using u128 = unsigned __int128;  // the exact reference for the arithmetic

// A chrono-like clock at Hz ticks per second that reads whatever the test set.
template <std::intmax_t Hz>
struct manual_clock {
  using rep = std::uint64_t;
  using period = std::ratio<1, Hz>;
  static inline rep value = 0;
  static rep now() { return value; }
};

// A runtime clock source that reads whatever the test set.
class manual_source final : public clock_source {
 public:
  explicit manual_source(double ticks_per_second) : tps_(ticks_per_second) {}
  std::string_view name() const noexcept override { return "manual"; }
  std::string_view description() const noexcept override { return "test clock"; }
  clock_kind kind() const noexcept override { return clock_kind::wall; }
  bool is_monotonic() const noexcept override { return true; }
  double ticks_per_second() const noexcept override { return tps_; }
  std::optional<double> declared_resolution() const noexcept override { return 1 / tps_; }
  std::uint64_t now() const noexcept override { return value; }
  bool available() const noexcept override { return true; }
  mutable std::uint64_t value = 0;

 private:
  double tps_;
};

constexpr std::uint64_t kYear = 365ULL * 24 * 3600;

template <std::intmax_t Hz>
void expect_exact_conversions(std::uint64_t start, std::uint64_t ticks) {
  using clock = manual_clock<Hz>;
  chrono_counter<clock> c;
  clock::value = start;
  c.start();
  clock::value = start + ticks;
  c.stop();
  const auto exact = [&](u128 units) {
    return static_cast<std::int64_t>(static_cast<u128>(ticks) * units / static_cast<u128>(Hz));
  };
  SCOPED_TRACE(::testing::Message() << Hz << " Hz, " << ticks << " ticks");
  EXPECT_EQ(c.get_period_count(), static_cast<std::int64_t>(ticks));
  EXPECT_EQ(c.get_seconds(), exact(1));
  EXPECT_EQ(c.get_milliseconds(), exact(1'000));
  EXPECT_EQ(c.get_microseconds(), exact(1'000'000));
  EXPECT_EQ(c.get_nanoseconds(), exact(1'000'000'000));
}

TEST(ChronoCounter, ConvertsExactlyAtSeveralRates) {
  for (const std::uint64_t seconds : {0ULL, 1ULL, 3'600ULL}) {
    expect_exact_conversions<1>(7, seconds);
    expect_exact_conversions<100>(7, seconds * 100 + 99);
    expect_exact_conversions<10'000'000>(7, seconds * 10'000'000 + 12'345);
    expect_exact_conversions<1'000'000'000>(7, seconds * 1'000'000'000 + 999);
    expect_exact_conversions<3'000'000'000>(7, seconds * 3'000'000'000 + 2);
    // A prime rate: nothing cancels, so the conversion takes the 128-bit path for long spans.
    expect_exact_conversions<3'999'999'979>(7, seconds * 3'999'999'979ULL + 5);
  }
}

TEST(ChronoCounter, SpansYearsAtGigahertzRatesWithoutOverflow) {
  expect_exact_conversions<1'000'000'000>(0, 100 * kYear * 1'000'000'000ULL);
  expect_exact_conversions<3'000'000'000>(123, 10 * kYear * 3'000'000'000ULL);
  expect_exact_conversions<3'999'999'979>(0, 10 * kYear * 3'999'999'979ULL);
  expect_exact_conversions<4'294'967'296>(0, 4 * kYear * 4'294'967'296ULL);

  using clock = manual_clock<3'000'000'000>;
  chrono_counter<clock> c;
  clock::value = 0;
  c.start();
  clock::value = 10 * kYear * 3'000'000'000ULL;
  c.stop();
  EXPECT_EQ(c.get_seconds(), 315'360'000);
  EXPECT_EQ(c.get_nanoseconds(), 315'360'000'000'000'000);
}

TEST(ChronoCounter, StartAndStopAcrossTheWrapOfTheCounter) {
  using clock = manual_clock<1'000'000'000>;
  chrono_counter<clock> c;
  clock::value = std::numeric_limits<std::uint64_t>::max() - 9;
  c.start();
  clock::value = 10;  // 20 ticks later, past the wrap
  c.stop();
  EXPECT_EQ(c.get_period_count(), 20);
  EXPECT_EQ(c.get_nanoseconds(), 20);
}

TEST(ChronoCounter, ANegativeIntervalConvertsWithItsSign) {
  using clock = manual_clock<1'000>;
  chrono_counter<clock> c;
  clock::value = 5'000;
  c.start();
  clock::value = 2'500;  // a calendar clock set back
  c.stop();
  EXPECT_EQ(c.get_period_count(), -2'500);
  EXPECT_EQ(c.get_seconds(), -2);
  EXPECT_EQ(c.get_milliseconds(), -2'500);
  EXPECT_EQ(c.get_nanoseconds(), -2'500'000'000);
}

TEST(ChronoCounter, SaturatesWhatInt64CannotHold) {
  using clock = manual_clock<1>;
  chrono_counter<clock> c;
  clock::value = 0;
  c.start();
  clock::value = 1'000 * kYear;  // 1000 years of nanoseconds overflow int64
  c.stop();
  EXPECT_EQ(c.get_seconds(), static_cast<std::int64_t>(1'000 * kYear));
  EXPECT_EQ(c.get_nanoseconds(), std::numeric_limits<std::int64_t>::max());
}

// A clock shaped like the standard ones (now() returns a time_point of its own duration) that
// reads whatever the test set.
struct time_point_clock {
  using rep = std::int64_t;
  using period = std::micro;
  using duration = std::chrono::duration<rep, period>;
  using time_point = std::chrono::time_point<time_point_clock>;
  [[maybe_unused]] static constexpr bool is_steady = true;  // a Clock has it; clang sees no use
  static inline rep value = 0;
  static time_point now() { return time_point(duration(value)); }
};

TEST(ChronoCounter, ReadsAClockThatReturnsATimePoint) {
  chrono_counter<time_point_clock> c;
  time_point_clock::value = 1'000;
  c.start();
  time_point_clock::value = 3'500;
  c.stop();
  EXPECT_EQ(c.get_start(), 1'000U);
  EXPECT_EQ(c.get_stop(), 3'500U);
  EXPECT_EQ(c.get_period_count(), 2'500);
  EXPECT_EQ(c.get_milliseconds(), 2);
  EXPECT_EQ(c.get_nanoseconds(), 2'500'000);
  EXPECT_DOUBLE_EQ(c.get_ticks_per_second(), 1e6);
}

TEST(ChronoCounter, TakesTheStandardClocks) {
  static_assert(chrono_like_clock<std::chrono::steady_clock>);
  static_assert(chrono_like_clock<std::chrono::system_clock>);
  // The rate comes from the clock's period, without reading the clock.
  EXPECT_DOUBLE_EQ(chrono_counter<std::chrono::steady_clock>().get_ticks_per_second(),
                   1e9);  // libstdc++ and MSVC count nanoseconds
}

TEST(MulDiv, MatchesA128BitReference) {
  const std::uint64_t values[] = {0,
                                  1,
                                  3,
                                  999'999'937,
                                  1'000'000'000,
                                  3'999'999'979,
                                  0xffffffffULL,
                                  0x100000000ULL,
                                  0x123456789abcdefULL,
                                  std::numeric_limits<std::uint64_t>::max() / 3,
                                  std::numeric_limits<std::uint64_t>::max()};
  for (const auto a : values) {
    for (const auto b : values) {
      for (const auto c : values) {
        if (c == 0) continue;
        const u128 exact = static_cast<u128>(a) * b / c;
        const std::uint64_t expected = exact > std::numeric_limits<std::uint64_t>::max()
                                           ? std::numeric_limits<std::uint64_t>::max()
                                           : static_cast<std::uint64_t>(exact);
        EXPECT_EQ(counter_detail::mul_div(a, b, c), expected) << a << " * " << b << " / " << c;
      }
    }
  }
}

TEST(SourceCounter, ConvertsIntegralRatesExactly) {
  for (const double tps : {1.0, 100.0, 1e6, 1e9}) {
    manual_source source(tps);
    counter c{source};
    source.value = 11;
    c.start();
    const auto ticks = static_cast<std::uint64_t>(tps) * 10 * kYear + 1;
    source.value = 11 + ticks;
    c.stop();
    SCOPED_TRACE(tps);
    EXPECT_EQ(c.get_period_count(), static_cast<std::int64_t>(ticks));
    EXPECT_EQ(c.get_seconds(), static_cast<std::int64_t>(ticks / static_cast<std::uint64_t>(tps)));
    const auto exact_ns = static_cast<std::int64_t>(static_cast<u128>(ticks) * 1'000'000'000 /
                                                    static_cast<std::uint64_t>(tps));
    EXPECT_EQ(c.get_nanoseconds(), exact_ns);
  }
}

TEST(SourceCounter, ConvertsACalibratedRateThroughDouble) {
  manual_source source(2'596'130'123.5);  // a TSC estimate is not a whole number
  counter c{source};
  source.value = 0;
  c.start();
  source.value = 5'192'260'247;  // exactly 2 s
  c.stop();
  EXPECT_EQ(c.get_seconds(), 2);
  EXPECT_EQ(c.get_milliseconds(), 2'000);
  EXPECT_EQ(c.get_nanoseconds(), 2'000'000'000);

  source.value = 0;
  c.start();
  source.value = 10 * kYear * 2'596'130'123ULL;  // ten years: no overflow, relative error < 1e-12
  c.stop();
  const double expected_ns = 10.0 * kYear * 2'596'130'123.0 / 2'596'130'123.5 * 1e9;
  EXPECT_NEAR(static_cast<double>(c.get_nanoseconds()), expected_ns, expected_ns * 1e-12);
  EXPECT_GT(c.get_nanoseconds(), 0);
}

TEST(InitializedCounter, IsValidFromConstruction) {
  using clock = manual_clock<1'000'000>;
  clock::value = 500;
  initialized_counter<chrono_counter<clock>> c;
  EXPECT_EQ(c.get_period_count(), 0);  // readable before any stop()
  EXPECT_EQ(c.get_start(), 500U);
  clock::value = 1'750;
  c.stop();
  EXPECT_EQ(c.get_microseconds(), 1'250);
  EXPECT_EQ(c.get_milliseconds(), 1);

  manual_source source(1e9);
  source.value = 40;
  initialized_counter<counter> runtime{source};
  EXPECT_EQ(runtime.get_period_count(), 0);
  source.value = 1'040;
  runtime.stop();
  EXPECT_EQ(runtime.get_nanoseconds(), 1'000);
}

TEST(ScopedCounter, HandsTheResultToAVariable) {
  using clock = manual_clock<1'000>;
  chrono_counter<clock> result;
  clock::value = 100;
  {
    scoped_counter scope{result};
    clock::value = 350;
  }
  EXPECT_EQ(result.get_period_count(), 250);
  EXPECT_EQ(result.get_milliseconds(), 250);
}

TEST(ScopedCounter, HandsTheResultToACallback) {
  manual_source source(1e6);
  std::int64_t microseconds = -1;
  int calls = 0;
  source.value = 1'000;
  {
    scoped_counter scope{counter{source}, [&](const counter& c) {
                           microseconds = c.get_microseconds();
                           ++calls;
                         }};
    source.value = 4'500;
    EXPECT_EQ(calls, 0);
  }
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(microseconds, 3'500);
}

}  // namespace
}  // namespace harness
