// What the CPU did while the workload ran: the kernel's counters (Linux perf_event_open), their
// names, and what the OS layer says of each (opened, or why not). The OS layer opens and reads
// them (platform.hpp: os_interface::open_counters); the sampler reads them around each sample,
// outside the clock reads (run_results.hpp keeps the readings). Free of OS headers.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "harness/enum_names.hpp"

namespace harness {

// The counters, in report order: the kernel's software events (any Linux machine counts them),
// then the hardware events (only where a PMU exists: not on most cloud VMs). The ids are perf's.
enum class cpu_counter {
  task_clock,        // ns the thread ran (PERF_COUNT_SW_TASK_CLOCK)
  page_faults,       // PERF_COUNT_SW_PAGE_FAULTS: minor and major
  minor_faults,      // PERF_COUNT_SW_PAGE_FAULTS_MIN: served without I/O
  major_faults,      // PERF_COUNT_SW_PAGE_FAULTS_MAJ: served with I/O
  context_switches,  // PERF_COUNT_SW_CONTEXT_SWITCHES, voluntary and involuntary
  cpu_migrations,    // PERF_COUNT_SW_CPU_MIGRATIONS: moves to another CPU
  cycles,            // PERF_COUNT_HW_CPU_CYCLES
  instructions,      // PERF_COUNT_HW_INSTRUCTIONS (retired)
  branches,          // PERF_COUNT_HW_BRANCH_INSTRUCTIONS
  branch_misses,     // PERF_COUNT_HW_BRANCH_MISSES
  cache_references,  // PERF_COUNT_HW_CACHE_REFERENCES (usually the last-level cache)
  cache_misses,      // PERF_COUNT_HW_CACHE_MISSES
};
inline constexpr std::size_t kCpuCounterCount = 12;
inline constexpr enum_table<cpu_counter, cpu_counter::cache_misses> kCpuCounterNames{{
    {cpu_counter::task_clock, "task-clock", "task clock (ns)"},
    {cpu_counter::page_faults, "page-faults", "page faults"},
    {cpu_counter::minor_faults, "minor-faults", "minor page faults"},
    {cpu_counter::major_faults, "major-faults", "major page faults"},
    {cpu_counter::context_switches, "context-switches", "context switches"},
    {cpu_counter::cpu_migrations, "cpu-migrations", "CPU migrations"},
    {cpu_counter::cycles, "cycles"},
    {cpu_counter::instructions, "instructions"},
    {cpu_counter::branches, "branches"},
    {cpu_counter::branch_misses, "branch-misses", "branch misses"},
    {cpu_counter::cache_references, "cache-references", "cache references"},
    {cpu_counter::cache_misses, "cache-misses", "cache misses"},
}};
constexpr const auto& enum_names(cpu_counter) noexcept {
  return kCpuCounterNames;
}
static_assert(kCpuCounterNames.size == kCpuCounterCount);

constexpr bool is_hardware(cpu_counter c) noexcept {
  return c >= cpu_counter::cycles;
}
constexpr std::size_t index_of(cpu_counter c) noexcept {
  return static_cast<std::size_t>(c);
}

// Every counter, in report order: the default selection (the software set, and the hardware
// counters that open; those that do not are reported with their reason).
inline std::vector<cpu_counter> all_cpu_counters() {
  std::vector<cpu_counter> all;
  for (std::size_t i = 0; i < kCpuCounterCount; ++i)
    all.push_back(static_cast<cpu_counter>(i));
  return all;
}

// What the OS layer said of one counter asked for.
struct counter_status {
  cpu_counter counter = cpu_counter::task_clock;
  bool available = false;
  // Why not, when not: the kernel's errno name and text and what it means here ("No such file or
  // directory (ENOENT): the kernel knows no such event on this CPU (no PMU)"); empty when
  // available.
  std::string reason;
  int error_code = 0;  // errno (or the platform's code) when refused; 0 otherwise
};

// One counter's value as the kernel keeps it: the count, and how long it was enabled and how long
// it was really counting (time_enabled and time_running of perf_event_open's read_format, ns).
// When a PMU has fewer counters than events, the kernel takes turns (multiplexes): then running <
// enabled and the count covers only the running share.
struct counter_reading {
  std::uint64_t value = 0;
  std::uint64_t enabled = 0;
  std::uint64_t running = 0;
};
// Every counter's reading at one instant, indexed by index_of(counter); those not opened stay 0.
using counter_snapshot = std::array<counter_reading, kCpuCounterCount>;

// The opened counters of the calling thread, read together.
class counter_reader {
 public:
  virtual ~counter_reader() = default;
  // Reads every opened counter into `out` (the others untouched). false: a read failed, and `out`
  // holds nothing to use. Cheap (one read(2) a group) and allocation-free: the sampler calls it
  // right before and right after each sample's clock reads.
  virtual bool read(counter_snapshot& out) noexcept = 0;
};

// What opening counters gave: a status for each counter asked for, in the order asked, and the
// reader of those that opened (nullptr when none did).
struct counter_opening {
  std::vector<counter_status> status;
  std::unique_ptr<counter_reader> reader;
};

// One counter's count over an interval between two snapshots, scaled when the kernel multiplexed
// it: value x enabled / running. nullopt when it never ran in the interval (running did not
// advance) while it was enabled, so no count can be given.
struct counted {
  double value = 0;
  bool scaled = false;  // multiplexed: time_running < time_enabled, the value is an estimate
};
std::optional<counted> count_between(const counter_reading& before, const counter_reading& after);

}  // namespace harness
