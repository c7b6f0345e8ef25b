// Compile-time rejection of enum tables (harness/enum_names.hpp) that do not name every enumerator
// once, in order. HARNESS_COMPILE_FAIL_CASE picks one case; case 0 is valid and must compile, every
// other case must fail with the diagnostic CMakeLists.txt expects.
#include "harness/enum_names.hpp"

#ifndef HARNESS_COMPILE_FAIL_CASE
#error "define HARNESS_COMPILE_FAIL_CASE"
#endif

namespace {

enum class colour { red, green, dark_blue };

#if HARNESS_COMPILE_FAIL_CASE == 0
constexpr harness::enum_table<colour, colour::dark_blue> kNames{{
    {colour::red, "red"},
    {colour::green, "green"},
    {colour::dark_blue, "dark_blue", "dark blue"},
}};
#elif HARNESS_COMPILE_FAIL_CASE == 1  // an enumerator left out
constexpr harness::enum_table<colour, colour::dark_blue> kNames{{
    {colour::red, "red"},
    {colour::green, "green"},
}};
#elif HARNESS_COMPILE_FAIL_CASE == 2  // out of the enum's order
constexpr harness::enum_table<colour, colour::dark_blue> kNames{{
    {colour::green, "green"},
    {colour::red, "red"},
    {colour::dark_blue, "dark_blue"},
}};
#elif HARNESS_COMPILE_FAIL_CASE == 3  // one id twice
constexpr harness::enum_table<colour, colour::dark_blue> kNames{{
    {colour::red, "red"},
    {colour::green, "red"},
    {colour::dark_blue, "dark_blue"},
}};
#elif HARNESS_COMPILE_FAIL_CASE == 4  // an empty id
constexpr harness::enum_table<colour, colour::dark_blue> kNames{{
    {colour::red, "red"},
    {colour::green, ""},
    {colour::dark_blue, "dark_blue"},
}};
#endif

[[maybe_unused]] constexpr const auto& enum_names(colour) noexcept {
  return kNames;
}

}  // namespace

static_assert(harness::id_of(colour::dark_blue) == "dark_blue");
