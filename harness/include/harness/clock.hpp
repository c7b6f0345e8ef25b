// Clock sources: one interface over every timer of the platform.
//
// A clock source reads a counter in its own native ticks. Everything the harness prints in "ticks"
// is in the native ticks of the source that produced it; ticks_per_second() converts. Sources are
// created once, at start-up, by the platform's registry (see clock_registry below); a source that
// exists on the platform but cannot be used here (no invariant TSC, a call that fails at run time)
// stays in the registry, marked unavailable with the reason, so `harness clocks` can say why.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include "harness/enum_names.hpp"

namespace harness {

// What a clock's ticks count.
enum class clock_kind {
  wall,         // elapsed real time
  thread_cpu,   // CPU time consumed by the calling thread
  process_cpu,  // CPU time consumed by the whole process
};

// As the reports name it.
inline constexpr enum_table<clock_kind, clock_kind::process_cpu> kClockKindNames{{
    {clock_kind::wall, "wall"},
    {clock_kind::thread_cpu, "thread_cpu"},
    {clock_kind::process_cpu, "process_cpu"},
}};
constexpr const auto& enum_names(clock_kind) noexcept {
  return kClockKindNames;
}

class clock_source {
 public:
  virtual ~clock_source() = default;

  // Short identifier used on the command line (`--clock NAME`), e.g. "rdtsc", "CLOCK_MONOTONIC".
  virtual std::string_view name() const noexcept = 0;
  // One line for people: what the source is and how it is read.
  virtual std::string_view description() const noexcept = 0;
  virtual clock_kind kind() const noexcept = 0;
  // True when successive readings never go backwards (steady).
  virtual bool is_monotonic() const noexcept = 0;
  // Native ticks per second. For calibrated sources (the TSC) this is the calibrated estimate.
  virtual double ticks_per_second() const noexcept = 0;
  // Resolution the platform documents or declares (clock_getres, QueryPerformanceFrequency...),
  // in seconds; nullopt when the platform declares none.
  virtual std::optional<double> declared_resolution() const noexcept = 0;
  // Current reading in native ticks. Must be cheap: it is called on the sampling path.
  virtual std::uint64_t now() const noexcept = 0;
  // Whether the source can be used on this machine; when not, unavailable_reason() says why.
  virtual bool available() const noexcept = 0;
  virtual std::string unavailable_reason() const { return {}; }
  // True when a reading cannot be reordered by the CPU with the code around it (a system call, a
  // serialized instruction). Plain rdtsc is the exception: the CPU may execute it early or late by
  // up to its reorder window, so it is never chosen for start/stop sampling by default.
  virtual bool reads_in_order() const noexcept { return true; }

  double to_seconds(std::uint64_t ticks) const noexcept {
    return static_cast<double>(ticks) / ticks_per_second();
  }
};

// Every clock source of this platform, available or not, in a stable order. Built on first use
// (TSC calibration happens then), lives until exit.
std::span<const clock_source* const> all_clocks();

// The source named `name` (exact match), or nullptr.
const clock_source* find_clock(std::string_view name);

// The available source named `name`. Throws harness::usage_error naming the bad value and listing
// the available sources when `name` is unknown or the source is unavailable here (with its reason).
const clock_source& resolve_clock(std::string_view name);

// The source the harness samples with unless told otherwise, and one line saying why it was chosen.
// Chosen on first use from short measurements of the candidates (a few milliseconds).
const clock_source& default_clock();
std::string default_clock_reason();

// The result of calibrating a clock whose rate is not declared (the TSC) against a reference.
struct clock_calibration {
  std::string source;           // the calibrated clock, e.g. "rdtsc" (every TSC source shares it)
  std::string reference;        // the monotonic clock it was measured against
  double ticks_per_second = 0;  // the estimate every TSC source reports
  double error_ppm = 0;         // bound on the estimate's error: bracket widths and disagreement
  double duration_seconds = 0;  // time spent calibrating
  int rounds = 0;               // estimates taken
  bool converged = false;       // two successive estimates agreed within the tolerance in time
};

// The TSC calibration done at start-up, or nullopt when there is no usable TSC here.
std::optional<clock_calibration> tsc_calibration();

}  // namespace harness
