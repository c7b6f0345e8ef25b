// The doctor's checks, one function each, and the thresholds they judge by.
//
// Internal to the doctor; declared here so tests can drive each check on a fake tree. Each check
// reads only through system_probe (or the values handed in), so none of them touches the real
// machine in a test.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "doctor/probe.hpp"
#include "harness/doctor.hpp"

namespace harness::doctor::detail {

// "CPU 3 12.5%": a CPU's share of the window busy (`fraction`), as every check names a load.
std::string cpu_load_text(int cpu, double fraction);
// "over 200 ms": the window the loads were read over (format_seconds, kSpanFormat).
std::string window_text(double seconds);

// Tuning constants of the checks.
// ~200 ms (the figure): 20 USER_HZ ticks per CPU, enough to see a busy CPU, short
// enough to run before every measurement.
inline constexpr std::chrono::milliseconds kLoadWindow{200};
// A CPU busier than this over the window competes with the measurement (its SMT sibling shares
// the core's pipelines; the measured CPU itself would time-share). Two ticks of the 200 ms window.
inline constexpr double kBusyFraction = 0.10;
// Steal above 1% of CPU time means the host takes CPUs away often enough to land in samples.
inline constexpr double kStealFraction = 0.01;
// Loads within one USER_HZ tick of the 200 ms window (1/20) cannot be told apart.
inline constexpr double kLoadTieTolerance = 0.05;
// CPU 0 serves the boot-time IRQ routing, timers and most kernel housekeeping: count it this much
// busier so another CPU is preferred unless CPU 0 is clearly less loaded.
inline constexpr double kCpu0Penalty = 0.10;
// nice -20 needs RLIMIT_NICE of 40 (the limit is 20 - nice).
inline constexpr std::uint64_t kNiceLimitForMinus20 = 40;
// CAP_SYS_NICE's bit in the capability masks of /proc/<pid>/status.
inline constexpr int kCapSysNiceBit = 23;
// perf_event_paranoid at or below this lets a user count events of their own process.
inline constexpr int kPerfParanoidUserCounting = 2;
// ADDR_NO_RANDOMIZE in /proc/<pid>/personality (setarch -R).
inline constexpr unsigned long kAddrNoRandomize = 0x0040000;

// Throws harness::usage_error when the user's CPU is negative or not one of `online` (an empty
// `online` is unknown and accepts any CPU of 0 or more).
void validate_cpu(std::optional<int> cpu, const std::vector<int>& online);

// The CPU the checks look at: the user's, else select_default_cpu's choice among `allowed`;
// nullopt when neither is known (the caller falls back and says why).
std::optional<cpu_choice> choose_cpu(std::optional<int> user, const std::vector<int>& allowed,
                                     const cpu_load_map& load);

// Frequency scaling and hardware.
check_result check_governor(const system_probe& probe, int cpu);
check_result check_turbo(const system_probe& probe);
check_result check_smt(const system_probe& probe, int cpu, const load_sample& load);
// The SMT verdict from the siblings of `cpu` (without `cpu` itself) however a platform listed
// them: `listing` says how (for the fact), `load_source` where the load came from, `remedy` what
// to do when a sibling is busy.
check_result judge_smt_siblings(int cpu, const std::vector<int>& siblings, std::string_view listing,
                                const load_sample& load, std::string_view load_source,
                                std::string_view remedy);
check_result check_isolation(const system_probe& probe, int cpu);
check_result check_irqs(const system_probe& probe, int cpu);
// Load and virtualisation.
check_result check_load(const load_sample& load, int cpu, const std::string& stat_path);
check_result check_steal(const load_sample& load, int cpu, const std::string& stat_path);
check_result check_hypervisor(const system_probe& probe);
check_result check_tsc(const system_probe& probe);
// Kernel settings and privileges.
check_result check_aslr(const system_probe& probe);
check_result check_perf_paranoid(const system_probe& probe);
check_result check_priority(const system_probe& probe);
// Builds.
check_result check_harness_build(const build_info& build);
check_result check_benchmark_build(const std::optional<std::string>& build_type);

}  // namespace harness::doctor::detail
