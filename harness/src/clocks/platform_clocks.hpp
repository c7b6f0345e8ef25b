// The seam between the platform-independent clock registry and each platform's clock sources.
//
// Exactly one of linux_clocks.cpp / windows_clocks.cpp is compiled (CMake chooses), and it defines
// make_platform_clocks(). The registry appends the std::chrono clocks, which are the same
// everywhere. Sources that exist on the platform but cannot be used here are still returned,
// unavailable with their reason, so `harness clocks` can list them.
#pragma once

#include <memory>
#include <vector>

#include "harness/clock.hpp"

namespace harness::clocks {

// This platform's sources in a stable order, cheapest and finest first (the order breaks ties
// when the default clock is chosen): TSC sources first (see tsc.hpp), then the OS clocks.
std::vector<std::unique_ptr<clock_source>> make_platform_clocks();

// std::chrono::steady_clock, system_clock and high_resolution_clock (chrono_clocks.cpp).
std::vector<std::unique_ptr<clock_source>> make_chrono_clocks();

}  // namespace harness::clocks
