// The registry of clock sources as a value, and looking a clock up by name in a list of sources,
// with the user-facing error.
//
// The process has one registry, built on first use from the real cpuid and TSC calibration:
// all_clocks(), find_clock(), resolve_clock() and tsc_calibration() (clock.hpp) read it. Tests
// build their own from made-up TSC inputs (tsc.hpp's tsc_inputs), so the names, the lookup and
// the errors are checked without depending on the machine's TSC.
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "clocks/tsc.hpp"
#include "harness/clock.hpp"

namespace harness::clocks {

// The available source named `name` in `sources`; throws harness::usage_error otherwise.
const clock_source& resolve_clock_in(std::span<const clock_source* const> sources,
                                     std::string_view name);

// The platform's sources (the TSC ones made from the given inputs), then the std::chrono clocks,
// in a stable order; each lives as long as the registry.
class clock_registry {
 public:
  explicit clock_registry(const tsc_inputs& tsc);

  std::span<const clock_source* const> all() const noexcept { return view_; }
  // The source named `name` (exact match), or nullptr.
  const clock_source* find(std::string_view name) const;
  // resolve_clock_in over all().
  const clock_source& resolve(std::string_view name) const;
  // The calibration the TSC sources share, or nullopt when they have none (no invariant TSC).
  std::optional<clock_calibration> tsc_calibration() const;
  // What the TSC sources were made from: how the default clock's reason explains their ordering.
  const tsc_features& features() const noexcept { return features_; }

 private:
  tsc_features features_;
  std::vector<std::unique_ptr<clock_source>> owned_;
  std::vector<const clock_source*> view_;
};

// The process's registry, built on first use from real_tsc_inputs() (the TSC calibration runs
// then); lives until exit.
const clock_registry& process_registry();

}  // namespace harness::clocks
