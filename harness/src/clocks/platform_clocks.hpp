// The seam between the platform-independent clock registry and each platform's clock sources.
//
// Exactly one of linux_clocks.cpp / windows_clocks.cpp is compiled (CMake chooses), and it defines
// make_platform_clocks(). The registry appends the std::chrono clocks, which are the same
// everywhere. Sources that exist on the platform but cannot be used here are still returned,
// unavailable with their reason, so `harness clocks` can list them.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "harness/clock.hpp"

namespace harness::clocks {

// What every OS clock source shares: its fixed facts and whether it can be used here. Subclasses
// give now() and, where the platform declares one, the resolution.
class basic_clock : public clock_source {
 public:
  basic_clock(std::string_view name, std::string_view description, clock_kind kind, bool monotonic,
              double ticks_per_second)
      : name_(name),
        description_(description),
        kind_(kind),
        monotonic_(monotonic),
        ticks_per_second_(ticks_per_second) {}

  std::string_view name() const noexcept override { return name_; }
  std::string_view description() const noexcept override { return description_; }
  clock_kind kind() const noexcept override { return kind_; }
  bool is_monotonic() const noexcept override { return monotonic_; }
  double ticks_per_second() const noexcept override { return ticks_per_second_; }
  bool available() const noexcept override { return unavailable_reason_.empty(); }
  std::string unavailable_reason() const override { return unavailable_reason_; }

 protected:
  void set_unavailable(std::string reason) { unavailable_reason_ = std::move(reason); }
  void set_ticks_per_second(double tps) { ticks_per_second_ = tps; }

 private:
  std::string_view name_;
  std::string_view description_;
  clock_kind kind_;
  bool monotonic_;
  double ticks_per_second_;
  std::string unavailable_reason_;
};

struct tsc_inputs;

// This platform's sources in a stable order, cheapest and finest first (the order breaks ties
// when the default clock is chosen): TSC sources first, made from `tsc` (see tsc.hpp), then the
// OS clocks.
std::vector<std::unique_ptr<clock_source>> make_platform_clocks(const tsc_inputs& tsc);

// std::chrono::steady_clock, system_clock and high_resolution_clock (chrono_clocks.cpp).
std::vector<std::unique_ptr<clock_source>> make_chrono_clocks();

}  // namespace harness::clocks
