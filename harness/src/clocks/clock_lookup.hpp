// Looking a clock up by name in a list of sources, with the user-facing error. resolve_clock() is
// this over the registry; tests call it over a list of fakes.
#pragma once

#include <span>
#include <string_view>

#include "harness/clock.hpp"

namespace harness::clocks {

// The available source named `name` in `sources`; throws harness::usage_error otherwise.
const clock_source& resolve_clock_in(std::span<const clock_source* const> sources,
                                     std::string_view name);

}  // namespace harness::clocks
