// Counters: the classic start()/stop()/get_*() interval timer over any clock.
//
// basic_counter<Ticks> holds two readings of a clock and converts their difference to seconds,
// milliseconds, microseconds or nanoseconds. Ticks is where the readings come from:
//   chrono_ticks<Clock>  any chrono-like clock type (rep, period, static now() returning a
//                        time_point or a count), the rate known at compile time;
//   source_ticks         a runtime harness::clock_source (its rate may be a calibrated estimate).
// chrono_counter<Clock> and counter name the two. initialized_counter starts at construction, so
// it is valid to stop and read at once; scoped_counter measures its enclosing scope and hands the
// finished counter over at scope exit, to a variable or a callback.
//
// Caveats: start() and stop() cost one clock read each, which is in the interval (see
// `harness clocks` for the cost of each source). Conversions truncate toward zero and are exact
// (128-bit intermediate) for integral rates, so spans of centuries at GHz rates do not overflow;
// a non-integral rate (the calibrated TSC) converts through double, whose 1e-16 relative error is
// far below the calibration's. An interval of a non-monotonic clock may be negative.
#pragma once

#include <chrono>
#include <cmath>
#include <concepts>
#include <cstdint>
#include <functional>
#include <limits>
#include <ratio>
#include <type_traits>
#include <utility>

#include "harness/clock.hpp"

namespace harness {

namespace counter_detail {

inline constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();

// floor(a * b / c) for c > 0 without overflow; kMax when the quotient does not fit 64 bits.
constexpr std::uint64_t mul_div(std::uint64_t a, std::uint64_t b, std::uint64_t c) noexcept {
  if (b == 0 || a <= kMax / b) return a * b / c;
  // The 128-bit product from 32-bit halves, then restoring division one bit at a time: only
  // spans too long for the direct product come here, never the sampling path.
  constexpr std::uint64_t kLow = 0xffffffffU;
  const std::uint64_t ll = (a & kLow) * (b & kLow);
  const std::uint64_t lh = (a & kLow) * (b >> 32);
  const std::uint64_t hl = (a >> 32) * (b & kLow);
  const std::uint64_t hh = (a >> 32) * (b >> 32);
  const std::uint64_t mid = (ll >> 32) + (lh & kLow) + (hl & kLow);
  const std::uint64_t lo = (ll & kLow) | (mid << 32);
  const std::uint64_t hi = hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
  if (hi >= c) return kMax;
  std::uint64_t quotient = 0;
  std::uint64_t remainder = hi;
  for (int i = 63; i >= 0; --i) {
    const bool carry = (remainder >> 63) != 0;
    remainder = (remainder << 1) | ((lo >> i) & 1U);
    quotient <<= 1;
    if (carry || remainder >= c) {
      remainder -= c;
      quotient |= 1U;
    }
  }
  return quotient;
}

// `ticks` at `ticks_per_second` expressed in units of 1/units_per_second s, truncated.
inline std::uint64_t scale_runtime(std::uint64_t ticks, double ticks_per_second,
                                   std::uint64_t units_per_second) noexcept {
  constexpr double kTwo63 = 9223372036854775808.0;
  if (ticks_per_second >= 1.0 && ticks_per_second < kTwo63 &&
      std::floor(ticks_per_second) == ticks_per_second) {
    return mul_div(ticks, units_per_second, static_cast<std::uint64_t>(ticks_per_second));
  }
  if (!(ticks_per_second > 0)) return 0;  // an unavailable source: nothing to convert
  const double value =
      static_cast<double>(ticks) / ticks_per_second * static_cast<double>(units_per_second);
  return value >= 2.0 * kTwo63 ? kMax : static_cast<std::uint64_t>(value);
}

// A signed interval converted through an unsigned magnitude scaling, saturated to int64.
template <class Scale>
std::int64_t scale_signed(std::int64_t interval, Scale&& scale) noexcept {
  const bool negative = interval < 0;
  const std::uint64_t magnitude =
      negative ? 0U - static_cast<std::uint64_t>(interval) : static_cast<std::uint64_t>(interval);
  const std::uint64_t scaled = scale(magnitude);
  constexpr auto kIntMax = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
  const std::int64_t value = static_cast<std::int64_t>(scaled > kIntMax ? kIntMax : scaled);
  return negative ? -value : value;
}

}  // namespace counter_detail

// A clock type in the manner of std::chrono: rep, period, and a static now() that returns a
// time_point or directly a count of ticks (as test fakes do).
template <class Clock>
concept chrono_like_clock = requires {
  typename Clock::rep;
  typename Clock::period;
  Clock::now();
};

template <chrono_like_clock Clock>
class chrono_ticks {
 public:
  static std::uint64_t read() noexcept {
    const auto t = Clock::now();
    if constexpr (requires { t.time_since_epoch(); }) {
      return static_cast<std::uint64_t>(t.time_since_epoch().count());
    } else {
      return static_cast<std::uint64_t>(t);
    }
  }
  template <std::uint64_t UnitsPerSecond>
  static std::uint64_t scale(std::uint64_t ticks) noexcept {
    // std::ratio reduces the fraction at compile time and refuses one that overflows.
    using factor = std::ratio_multiply<typename Clock::period,
                                       std::ratio<static_cast<std::intmax_t>(UnitsPerSecond)>>;
    return counter_detail::mul_div(ticks, static_cast<std::uint64_t>(factor::num),
                                   static_cast<std::uint64_t>(factor::den));
  }
  static double ticks_per_second() noexcept {
    return static_cast<double>(Clock::period::den) / static_cast<double>(Clock::period::num);
  }
};

class source_ticks {
 public:
  // Implicit, so that `counter c{default_clock()};` reads naturally.
  source_ticks(const clock_source& source) noexcept : source_(&source) {}  // NOLINT

  std::uint64_t read() const noexcept { return source_->now(); }
  template <std::uint64_t UnitsPerSecond>
  std::uint64_t scale(std::uint64_t ticks) const noexcept {
    return counter_detail::scale_runtime(ticks, source_->ticks_per_second(), UnitsPerSecond);
  }
  double ticks_per_second() const noexcept { return source_->ticks_per_second(); }
  const clock_source& source() const noexcept { return *source_; }

 private:
  const clock_source* source_;
};

template <class Ticks>
class basic_counter {
 public:
  using ticks_type = Ticks;
  using epoch_type = std::uint64_t;    // one reading, in the clock's native ticks
  using interval_type = std::int64_t;  // stop - start, in native ticks or converted

  basic_counter() requires std::default_initializable<Ticks>
  = default;
  explicit basic_counter(Ticks ticks) noexcept : ticks_(std::move(ticks)) {}

  void start() noexcept { start_ = ticks_.read(); }
  void stop() noexcept { stop_ = ticks_.read(); }

  epoch_type get_start() const noexcept { return start_; }
  epoch_type get_stop() const noexcept { return stop_; }
  // The interval in the clock's native ticks; negative if a non-monotonic clock went back.
  interval_type get_period_count() const noexcept {
    return static_cast<interval_type>(stop_ - start_);
  }
  double get_ticks_per_second() const noexcept { return ticks_.ticks_per_second(); }

  interval_type get_seconds() const noexcept { return in_units<1>(); }
  interval_type get_milliseconds() const noexcept { return in_units<1'000>(); }
  interval_type get_microseconds() const noexcept { return in_units<1'000'000>(); }
  interval_type get_nanoseconds() const noexcept { return in_units<1'000'000'000>(); }

  const Ticks& ticks() const noexcept { return ticks_; }

 private:
  template <std::uint64_t UnitsPerSecond>
  interval_type in_units() const noexcept {
    return counter_detail::scale_signed(get_period_count(), [this](std::uint64_t magnitude) {
      return ticks_.template scale<UnitsPerSecond>(magnitude);
    });
  }

  Ticks ticks_{};
  epoch_type start_ = 0;
  epoch_type stop_ = 0;
};

template <chrono_like_clock Clock>
using chrono_counter = basic_counter<chrono_ticks<Clock>>;

// A counter over a runtime clock source: `counter c{default_clock()};`.
using counter = basic_counter<source_ticks>;

// A counter started at construction: stop() and the get_*() functions are valid at once (before
// the first stop() the interval is the one between the two reads made by the constructor).
template <class Counter>
class initialized_counter : public Counter {
 public:
  template <class... Args>
  requires std::constructible_from<Counter, Args&&...>
  explicit initialized_counter(Args&&... args) : Counter(std::forward<Args>(args)...) {
    this->start();
    this->stop();
  }
};

// Measures the scope it lives in: starts at construction, and at scope exit stops and hands the
// finished counter either to `result` (assigned) or to `on_exit` (called). The hand-over happens
// after the stop reading, so its cost is not in the interval. on_exit must not throw.
template <class Counter>
class scoped_counter {
 public:
  explicit scoped_counter(Counter& result) : counter_(result), result_(&result) {
    counter_.start();
  }
  scoped_counter(Counter timer, std::function<void(const Counter&)> on_exit)
      : counter_(std::move(timer)), on_exit_(std::move(on_exit)) {
    counter_.start();
  }
  scoped_counter(const scoped_counter&) = delete;
  scoped_counter& operator=(const scoped_counter&) = delete;
  ~scoped_counter() {
    counter_.stop();
    if (result_ != nullptr) {
      *result_ = counter_;
    } else if (on_exit_) {
      on_exit_(counter_);
    }
  }

 private:
  Counter counter_;
  Counter* result_ = nullptr;
  std::function<void(const Counter&)> on_exit_;
};

template <class Counter, class OnExit>
scoped_counter(Counter, OnExit) -> scoped_counter<Counter>;

}  // namespace harness
