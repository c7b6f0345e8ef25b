// Compile-time rejection of profile() templates. HARNESS_COMPILE_FAIL_CASE picks one case; case 0
// is valid and must compile, every other case must fail with the diagnostic CMakeLists.txt expects.
// Cases are numbered, not named, so that the compile command echoed on failure cannot match the
// expected diagnostic by itself.
#include <string>

#include "harness/profile.hpp"

#ifndef HARNESS_COMPILE_FAIL_CASE
#error "define HARNESS_COMPILE_FAIL_CASE"
#endif

void compile_fail_case() {
  int calls = 0;
  auto once = [&] { ++calls; };
  auto counted = [&] { return ++calls; };
#if HARNESS_COMPILE_FAIL_CASE == 0
  harness::profile(once, 10, "{runs} runs in {time} s, {frequency}/s {0} {1:.6f} {2:>8.1f} {{}}");
  harness::profile(counted, "{runs:>6} {ticks} {ns_per_run} {per_run} {clock:<10}");
  harness::profile_with_first(once, 10, "cold {time}", "warm {frequency}");
  const std::string from_user = "{bogus}";  // not checked here: it is not a constant
  harness::profile(once, 10, harness::runtime_format(from_user));
#elif HARNESS_COMPILE_FAIL_CASE == 1
  harness::profile(once, 10, "{bogus}");
#elif HARNESS_COMPILE_FAIL_CASE == 2
  harness::profile(once, 10, "{runs");
#elif HARNESS_COMPILE_FAIL_CASE == 3
  harness::profile(once, 10, "{0:.2f}");
#elif HARNESS_COMPILE_FAIL_CASE == 4
  harness::profile(once, 10, "{3}");
#elif HARNESS_COMPILE_FAIL_CASE == 5
  harness::profile_with_first(once, 10, "{time}", "}");
#elif HARNESS_COMPILE_FAIL_CASE == 6
  harness::profile(counted, "{runs:q}");
#else
#error "unknown HARNESS_COMPILE_FAIL_CASE"
#endif
}
