// profile(): quick in-code measurement of a callable, printed as one line in a format template.
//
// clang-format off
//   harness::profile([&] { parse(input); }, 1000,
//                    "{runs} parses in {time} s, {frequency} parses/s");
//   harness::profile([&] { return drain(queue); },      // the callable counts its own runs
//                    "{runs} items in {time} s");
//   harness::profile_with_first([&] { open_file(path); }, 100, "cold: {time} s",
//                               "warm: {runs} opens in {time} s, {frequency} opens/s");
// clang-format on
//
// Tokens (see format_template.hpp for specs and escapes):
//   {runs}        calls timed, grouped by thousands with spaces: "1 234 567"
//   {time}        elapsed seconds, two decimals, three significant digits below 0.1: "2.50",
//                 "0.00123"
//   {frequency}   calls per second, rounded and grouped: "493 827"; "n/a" when undefined
//   {ticks}       elapsed ticks of the clock, grouped
//   {ns_per_run}  nanoseconds per call, likewise; "n/a" when undefined
//   {per_run}     time per call in a readable unit: "12.3 µs"; "n/a" when undefined
//   {clock}       name of the clock source that measured
//   {0} {1} {2}   runs, seconds, calls per second as plain numbers; take specs: {1:.6f}
// A named token with a spec prints its plain value with that spec: {time:.6f}, {runs:>10}.
//
// Caveats:
// - This is a single timed loop: one reading of the clock before the first call and one after the
//   last, so clock cost and loop overhead are included, and a noisy moment of the machine lands
//   in the result. For figures you mean to compare, use the harness runner.
// - Frequency and per-call figures are undefined when no call ran or the clock did not advance
//   (the calls took less than one tick): they print "n/a" and calls_per_second is nullopt.
// - A clock that steps backwards (not monotonic) yields 0 elapsed ticks, not a wrapped value.
// - Each call's result is kept alive with benchmark::DoNotOptimize and memory is clobbered after
//   every call, so the compiler can neither drop a call nor merge the calls of the loop.
#pragma once

#include <benchmark/benchmark.h>

#include <array>
#include <concepts>
#include <cstdint>
#include <functional>
#include <iostream>
#include <optional>
#include <ostream>
#include <string>
#include <type_traits>
#include <utility>

#include "harness/clock.hpp"
#include "harness/errors.hpp"
#include "harness/format_template.hpp"
#include "harness/profile_tokens.hpp"

namespace harness {

// A profile template: a string literal checked at compile time, or runtime_format(text) checked
// when profile() runs (before any call is timed).
using profile_format = checked_template<profile_tokens>;

struct profile_result {
  std::uint64_t runs = 0;   // calls timed together
  std::uint64_t ticks = 0;  // elapsed, in native ticks of the clock named below
  double seconds = 0.0;     // ticks / the clock's ticks_per_second()
  // runs / seconds; nullopt when runs or ticks is zero (no frequency was measured).
  std::optional<double> calls_per_second;
  std::string clock;  // name() of the clock source that measured

  // seconds / runs; nullopt when runs or ticks is zero.
  std::optional<double> seconds_per_run() const {
    if (runs == 0 || ticks == 0) return std::nullopt;
    return seconds / static_cast<double>(runs);
  }
};

struct profile_with_first_result {
  profile_result first;  // the first call, alone: cold caches, lazy initialisation
  profile_result other;  // the remaining runs - 1 calls
};

// The line `format` prints for `result` (without a newline).
inline std::string format_profile_line(const profile_result& result,
                                       const format_template& format) {
  const std::optional<double> per_run = result.seconds_per_run();
  const std::array<template_value, profile_slot::count> values{
      result.runs,
      result.seconds,
      result.calls_per_second,
      result.ticks,
      per_run ? std::optional<double>(*per_run * 1e9) : std::nullopt,
      per_run,
      std::string_view(result.clock),
  };
  return format.render(values);
}

// A callable profile() can call repeatedly; what it returns is kept from the optimiser.
template <typename F>
concept profilable = std::invocable<F&>;

// A callable that makes its own iterations and returns how many (any integer type but bool).
template <typename F>
concept count_returning = std::invocable<F&> && std::integral<std::invoke_result_t<F&>> &&
    !std::same_as<std::invoke_result_t<F&>, bool>;

namespace detail {

inline std::uint64_t checked_runs(std::int64_t runs, const char* function) {
  if (runs < 0) {
    throw usage_error(std::string(function) + ": runs must be >= 0, got " + std::to_string(runs));
  }
  return static_cast<std::uint64_t>(runs);
}

template <typename F>
inline void call_kept(F& fn) {
  if constexpr (std::is_void_v<std::invoke_result_t<F&>>) {
    std::invoke(fn);
  } else {
    decltype(auto) result = std::invoke(fn);
    benchmark::DoNotOptimize(result);
  }
  benchmark::ClobberMemory();
}

inline profile_result make_profile_result(std::uint64_t runs, std::uint64_t start,
                                          std::uint64_t stop, const clock_source& clock) {
  profile_result result;
  result.runs = runs;
  result.ticks = stop > start ? stop - start : 0;
  result.seconds = clock.to_seconds(result.ticks);
  if (runs > 0 && result.ticks > 0) {
    result.calls_per_second = static_cast<double>(runs) / result.seconds;
  }
  result.clock = std::string(clock.name());
  return result;
}

inline void print_profile_line(const profile_result& result, const format_template& format,
                               std::ostream& out) {
  out << format_profile_line(result, format) << '\n';
}

template <typename F>
profile_result profile_loop(F& fn, std::uint64_t runs, const clock_source& clock) {
  const std::uint64_t start = clock.now();
  for (std::uint64_t i = 0; i < runs; ++i)
    call_kept(fn);
  const std::uint64_t stop = clock.now();
  return make_profile_result(runs, start, stop, clock);
}

}  // namespace detail

// Calls fn() `runs` times in one timed loop and prints one line. Throws usage_error for runs < 0
// and template_error for a bad runtime_format template (before any call).
template <profilable F>
profile_result profile(F&& fn, std::int64_t runs, profile_format format,
                       std::ostream& out = std::cout, const clock_source& clock = default_clock()) {
  const format_template parsed = format.parse();
  const profile_result result =
      detail::profile_loop(fn, detail::checked_runs(runs, "profile"), clock);
  detail::print_profile_line(result, parsed, out);
  return result;
}

template <profilable F>
profile_result profile(F&& fn, std::int64_t runs, profile_format format,
                       const clock_source& clock) {
  return profile(fn, runs, format, std::cout, clock);
}

// Calls fn() once, timed, and takes the number of runs from what it returns (the iterations it
// made itself). Throws usage_error, after the call, when the count is negative.
template <count_returning F>
profile_result profile(F&& fn, profile_format format, std::ostream& out = std::cout,
                       const clock_source& clock = default_clock()) {
  const format_template parsed = format.parse();
  const std::uint64_t start = clock.now();
  auto count = std::invoke(fn);
  benchmark::DoNotOptimize(count);
  benchmark::ClobberMemory();
  const std::uint64_t stop = clock.now();
  if constexpr (std::is_signed_v<decltype(count)>) {
    if (count < 0) {
      throw usage_error("profile: the function returned " + std::to_string(count) +
                        " runs; the count it returns must be >= 0");
    }
  }
  const profile_result result =
      detail::make_profile_result(static_cast<std::uint64_t>(count), start, stop, clock);
  detail::print_profile_line(result, parsed, out);
  return result;
}

template <count_returning F>
profile_result profile(F&& fn, profile_format format, const clock_source& clock) {
  return profile(fn, format, std::cout, clock);
}

// Times the first call alone and prints it with `format_first`, then times the other runs - 1
// calls together and prints them with `format_other`. Throws usage_error for runs < 1.
template <profilable F>
profile_with_first_result profile_with_first(F&& fn, std::int64_t runs, profile_format format_first,
                                             profile_format format_other,
                                             std::ostream& out = std::cout,
                                             const clock_source& clock = default_clock()) {
  if (runs < 1) {
    throw usage_error(
        "profile_with_first: runs must be >= 1 (the first call is one of them), got " +
        std::to_string(runs));
  }
  // Both templates are checked before the first call, so a bad one never leaves half a report.
  const format_template first_parsed = format_first.parse();
  const format_template other_parsed = format_other.parse();
  profile_with_first_result result;
  result.first = detail::profile_loop(fn, 1, clock);
  detail::print_profile_line(result.first, first_parsed, out);
  result.other = detail::profile_loop(fn, static_cast<std::uint64_t>(runs - 1), clock);
  detail::print_profile_line(result.other, other_parsed, out);
  return result;
}

template <profilable F>
profile_with_first_result profile_with_first(F&& fn, std::int64_t runs, profile_format format_first,
                                             profile_format format_other,
                                             const clock_source& clock) {
  return profile_with_first(fn, runs, format_first, format_other, std::cout, clock);
}

}  // namespace harness
