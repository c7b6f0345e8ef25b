// A counter's count between two readings (cpu_counters.hpp).
#include "harness/cpu_counters.hpp"

namespace harness {

std::optional<counted> count_between(const counter_reading& before, const counter_reading& after) {
  const std::uint64_t value = after.value - before.value;
  const std::uint64_t enabled = after.enabled - before.enabled;
  const std::uint64_t running = after.running - before.running;
  if (running >= enabled) return counted{static_cast<double>(value), false};
  if (running == 0) return std::nullopt;
  // The kernel counted for running of enabled ns: the count over the whole interval is estimated
  // at the same rate (perf stat's scaling).
  return counted{
      static_cast<double>(value) * static_cast<double>(enabled) / static_cast<double>(running),
      true};
}

}  // namespace harness
