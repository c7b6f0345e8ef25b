// How harness and the Google Benchmark it links were built.
//
// harness's own flags are those this file was compiled with, which are the harness library's
// (CMake compiles all its sources alike). Google Benchmark 1.7.1 declares its build only inside the
// JSON context it prints ("library_build_type", from its own NDEBUG), so that is read by running
// its JSON reporter's context into a string.
// Caveat: __OPTIMIZE__ is GCC's and Clang's; MSVC builds report "not optimised" until a Windows
// backend passes its own definition.
#include <benchmark/benchmark.h>

#include <sstream>

#include "harness/doctor.hpp"

namespace harness::doctor {

build_info harness_build_info() {
  build_info build;
#ifdef NDEBUG
  build.ndebug = true;
#endif
#ifdef __OPTIMIZE__
  build.optimized = true;
#endif
#ifdef HARNESS_BUILD_TYPE
  build.build_type = HARNESS_BUILD_TYPE;
#endif
  return build;
}

std::optional<std::string> benchmark_library_build_type() {
  std::ostringstream text;
  benchmark::JSONReporter reporter;
  reporter.SetOutputStream(&text);
  reporter.SetErrorStream(&text);
  const benchmark::BenchmarkReporter::Context context;
  reporter.ReportContext(context);
  const std::string json = std::move(text).str();
  constexpr std::string_view kKey = "\"library_build_type\": \"";
  const auto start = json.find(kKey);
  if (start == std::string::npos) return std::nullopt;
  const auto value = start + kKey.size();
  const auto end = json.find('"', value);
  if (end == std::string::npos) return std::nullopt;
  return json.substr(value, end - value);
}

}  // namespace harness::doctor
