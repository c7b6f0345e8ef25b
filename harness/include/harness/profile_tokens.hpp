// The tokens of profile()'s format template (profile.hpp documents them): its slots and the token
// set. Apart from profile.hpp so that the run report's --line (report_line.hpp), which begins with
// the same slots, does not need the profile() templates and Google Benchmark's header.
#pragma once

#include <array>
#include <cstddef>

#include "harness/format_template.hpp"

namespace harness {

// The values a profile template can print, by slot.
namespace profile_slot {
inline constexpr std::size_t runs = 0;
inline constexpr std::size_t seconds = 1;
inline constexpr std::size_t frequency = 2;
inline constexpr std::size_t ticks = 3;
inline constexpr std::size_t ns_per_run = 4;
inline constexpr std::size_t seconds_per_run = 5;
inline constexpr std::size_t clock = 6;
inline constexpr std::size_t count = 7;
}  // namespace profile_slot

namespace detail {
inline constexpr std::array<value_kind, profile_slot::count> kProfileSlots{
    value_kind::integer, value_kind::real, value_kind::real, value_kind::integer,
    value_kind::real,    value_kind::real, value_kind::text};
inline constexpr std::array<named_token, 7> kProfileNamed{{
    {"runs", profile_slot::runs, human_style::grouped},
    {"time", profile_slot::seconds, human_style::two_decimals},
    {"frequency", profile_slot::frequency, human_style::grouped},
    {"ticks", profile_slot::ticks, human_style::grouped},
    {"ns_per_run", profile_slot::ns_per_run, human_style::two_decimals},
    {"per_run", profile_slot::seconds_per_run, human_style::duration},
    {"clock", profile_slot::clock, human_style::plain},
}};
inline constexpr std::array<std::size_t, 3> kProfilePositional{
    profile_slot::runs, profile_slot::seconds, profile_slot::frequency};
}  // namespace detail

inline constexpr token_set profile_tokens{detail::kProfileSlots, detail::kProfileNamed,
                                          detail::kProfilePositional};

}  // namespace harness
