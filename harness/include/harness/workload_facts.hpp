// What a workload's result says of it, without the workload itself: how its file was compiled and
// which setup it declared. Free of the workload templates and Google Benchmark (workload.hpp), so
// the results, the analysis and the writers can carry them.
#pragma once

#include <cstdint>
#include <optional>

#include "harness/enum_names.hpp"

namespace harness {

// How the file that registered a workload was compiled, as HARNESS_WORKLOAD records it where it is
// expanded: the user's build type, not the harness library's. nullopt: not recorded (a workload
// made without the macro, or a compiler that says nothing of its optimisation, like MSVC).
struct workload_build {
  std::optional<bool> optimized;   // __OPTIMIZE__ was defined (GCC, Clang)
  std::optional<bool> assertions;  // NDEBUG was not defined when workload.hpp was included

  // Known to be compiled without optimisation, or with assertions on: its times are not those of
  // a release build.
  bool suspect() const noexcept {
    return (optimized && !*optimized) || (assertions && *assertions);
  }
};

// Setups declared (with_setup: once per argument; with_fresh_input: before each sample), for
// `harness list` and the report.
enum class setup_kind { none, per_argument, per_call };
// As JSON's "setup" says it (null for none) and as `harness list` tags a workload.
inline constexpr enum_table<setup_kind, setup_kind::per_call> kSetupKindNames{{
    {setup_kind::none, "none"},
    {setup_kind::per_argument, "per_argument", "setup per argument"},
    {setup_kind::per_call, "per_call", "fresh input per call"},
}};
constexpr const auto& enum_names(setup_kind) noexcept {
  return kSetupKindNames;
}

// Where the sample length that batching aims for came from: 1000 steps of the clock (the
// default), --min-sample-time, or the workload's own min_sample_time() when longer than the
// default. As JSON's "min_sample_source" says it.
enum class min_sample_origin { clock_steps, option, workload };
inline constexpr enum_table<min_sample_origin, min_sample_origin::workload> kMinSampleOriginNames{{
    {min_sample_origin::clock_steps, "clock_steps", "1000 steps of the clock"},
    {min_sample_origin::option, "option", "--min-sample-time"},
    {min_sample_origin::workload, "workload", "the workload's min_sample_time()"},
}};
constexpr const auto& enum_names(min_sample_origin) noexcept {
  return kMinSampleOriginNames;
}

// The sample length batching aims for, ticks, and where it came from: `option_ticks`
// (--min-sample-time) when given; else the longer of `default_ticks` (1000 steps of the clock) and
// `declared_ticks` (the workload's min_sample_time(); 0: none). `harness run` and `harness ab`
// both choose by it.
struct min_sample_length {
  std::uint64_t ticks = 0;
  min_sample_origin origin = min_sample_origin::clock_steps;
};
constexpr min_sample_length choose_min_sample(std::optional<std::uint64_t> option_ticks,
                                              std::uint64_t default_ticks,
                                              std::uint64_t declared_ticks) noexcept {
  if (option_ticks) return {*option_ticks, min_sample_origin::option};
  if (declared_ticks > default_ticks) return {declared_ticks, min_sample_origin::workload};
  return {default_ticks, min_sample_origin::clock_steps};
}

// The calls a sample holds once the workload's own count (workload::min_batch; 0: none) is
// applied to `batch`, the batch the sample length asked for, and whether that raised it. --batch
// decides over both, so callers apply this only without it. `harness run` and `harness ab` both
// choose by it.
struct raised_batch {
  std::uint64_t batch = 1;
  bool raised = false;
};
constexpr raised_batch raise_to_min_batch(std::uint64_t batch, std::uint64_t declared) noexcept {
  if (declared > batch) return {declared, true};
  return {batch, false};
}

}  // namespace harness
