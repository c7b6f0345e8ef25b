// The context block of a report: when, where and by what a run was made.
//
// The CPU facts come from Google Benchmark's own CPUInfo and SystemInfo, so a harness JSON file
// and a Google Benchmark JSON file taken on one machine describe it alike.
// Caveats: CPUInfo reads the CPU frequency once per process, the first time it is asked (on some
// machines Google Benchmark estimates it by spinning for a moment); the executable's path is the
// OS layer's, empty where it cannot be read.
#include <benchmark/benchmark.h>
#include <fmt/chrono.h>
#include <fmt/format.h>

#include <ctime>
#include <filesystem>
#include <system_error>

#include "harness/platform.hpp"
#include "harness/report.hpp"

namespace harness {
namespace {

// ISO 8601 with a colon in the offset, as Google Benchmark 1.7.1 writes `date`.
std::string local_date_now() {
  const std::time_t now = std::time(nullptr);
  std::string text = fmt::format("{:%Y-%m-%dT%H:%M:%S%z}", fmt::localtime(now));
  // %z gives "+0200"; insert the colon before the minutes.
  if (text.size() >= 5) text.insert(text.size() - 2, ":");
  return text;
}

}  // namespace

run_context collect_run_context(std::optional<doctor::doctor_summary> doctor) {
  run_context c;
  c.date = local_date_now();
  c.executable = platform::executable_path().string();
  const benchmark::CPUInfo& cpu = benchmark::CPUInfo::Get();
  c.host_name = benchmark::SystemInfo::Get().name;
  c.num_cpus = cpu.num_cpus;
  c.mhz_per_cpu = cpu.cycles_per_second / 1e6;
  c.cpu_scaling_enabled = cpu.scaling == benchmark::CPUInfo::ENABLED;
  for (const auto& cache : cpu.caches) {
    c.caches.push_back({cache.type, cache.level, cache.size, cache.num_sharing});
  }
  c.load_avg = cpu.load_avg;
  const doctor::build_info build = doctor::harness_build_info();
  // Google Benchmark calls its own build "debug" unless NDEBUG was defined; the same rule here.
  c.library_build_type = build.ndebug ? "release" : "debug";
  c.harness_version = HARNESS_VERSION;
  c.doctor = std::move(doctor);
  return c;
}

}  // namespace harness
