// HARNESS_CHECK: the one way a bug in the harness's own code ends the process (docs/errors.md).
//
//   HARNESS_CHECK(condition);
//   HARNESS_CHECK(condition, "fmt format {}", args...);
//
// When `condition` is false it prints "FILE:LINE: check failed: CONDITION: MESSAGE" to stderr and
// calls std::abort(): no exception to catch, no exit code to map, a core dump where one is kept.
// Use it for what our own code guarantees (a value the harness produced itself, a precondition of
// an internal function), never for what a user or the machine can get wrong: a user's mistake is a
// usage_error (errors.hpp) raised at the edge, a shortfall of the machine a finding in the report.
// The condition is evaluated once; the message (a format string checked at compile time and its
// arguments) only when the check fails. A condition with a top-level comma needs parentheses.
#pragma once

#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>

namespace harness::detail {

[[noreturn]] inline void check_failed_text(const std::string& text) noexcept {
  std::fputs(text.c_str(), stderr);
  std::fflush(stderr);
  std::abort();
}

[[noreturn]] inline void check_failed(const char* file, int line, const char* condition) noexcept {
  // noexcept: should formatting itself fail (out of memory), std::terminate ends the process too.
  check_failed_text(fmt::format("{}:{}: check failed: {}\n", file, line, condition));
}

template <class... Args>
[[noreturn]] void check_failed(const char* file, int line, const char* condition,
                               fmt::format_string<Args...> format, Args&&... args) noexcept {
  check_failed_text(fmt::format("{}:{}: check failed: {}: {}\n", file, line, condition,
                                fmt::format(format, std::forward<Args>(args)...)));
}

}  // namespace harness::detail

#define HARNESS_CHECK(condition, ...)                                                             \
  do {                                                                                            \
    if (!(condition)) [[unlikely]] {                                                              \
      ::harness::detail::check_failed(__FILE__, __LINE__, #condition __VA_OPT__(, ) __VA_ARGS__); \
    }                                                                                             \
  } while (false)
