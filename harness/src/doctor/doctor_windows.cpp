// The doctor of the Windows build: the facts Win32 exposes, "unknown" for the rest.
//
// Read here: the affinity mask (GetProcessAffinityMask), the priority class and thread priority
// and whether the token may be granted REALTIME_PRIORITY_CLASS, the active power plan
// (PowerGetActiveScheme), per-CPU load over the same 200 ms window as on Linux
// (NtQuerySystemInformation), the cores' logical CPUs for the SMT check, and cpuid's hypervisor
// and invariant-TSC bits. Steal time, boost, isolation, interrupt routing and ASLR are not read
// and say so.
//
// Caveats: masks and per-CPU times cover the process's processor group (at most 64 CPUs). Under
// Wine, PowerGetActiveScheme is not implemented (error 120) and priority classes are recorded but
// not passed on to the Linux scheduler; both are reported as such. With virtualisation-based
// security, Windows itself runs on Hyper-V, so the hypervisor bit is set on bare metal too.
//
// The checks are here; the real Win32 calls behind the table they read (win32_doctor_calls.hpp)
// are in doctor_windows_calls.cpp.
#include <fmt/format.h>
#include <fmt/ranges.h>

// powrprof.h and winternl.h need the types of windows.h, which win32_doctor_calls.hpp includes.
// clang-format off
#include "doctor/win32_doctor_calls.hpp"
#include <powrprof.h>
#include <winternl.h>
// clang-format on

#include <algorithm>
#include <array>
#include <memory>
#include <string_view>

#include "doctor/checks.hpp"
#include "harness/platform.hpp"

namespace harness::doctor::detail {
namespace {

using platform::mask_cpus;

// Where the per-CPU load comes from, for the facts.
constexpr std::string_view kLoadSource = "NtQuerySystemInformation";
// NtQuerySystemInformation counts in 100 ns units.
constexpr double kTimeUnitsPerSecond = 1e7;

struct builtin_scheme {
  GUID guid;
  std::string_view name;
  bool steady_clock;  // keeps the processor at its top performance state while anything runs
};

// The plans Windows ships, by the GUIDs its powercfg aliases name (SCHEME_MIN, SCHEME_BALANCED,
// SCHEME_MAX) and Ultimate Performance's own; a copy made with powercfg /duplicatescheme gets a new
// GUID and is judged as a custom plan. Windows 10's power mode slider overlays Balanced without
// changing the active scheme, so Balanced is reported whatever the slider says.
constexpr std::array<builtin_scheme, 4> kBuiltinSchemes = {{
    {{0x8c5e7fda, 0xe8bf, 0x4a96, {0x9a, 0x85, 0xa6, 0xe2, 0x3a, 0x8c, 0x63, 0x5c}},
     "High performance",
     true},
    {{0xe9a42b02, 0xd5df, 0x448d, {0xaa, 0x00, 0x03, 0xf1, 0x47, 0x49, 0xeb, 0x61}},
     "Ultimate Performance",
     true},
    {{0x381b4222, 0xf694, 0x41f0, {0x96, 0x85, 0xff, 0x5b, 0xb2, 0x60, 0xdf, 0x2e}},
     "Balanced",
     false},
    {{0xa1841308, 0x3541, 0x4fab, {0xbc, 0x81, 0xf7, 0x15, 0x56, 0xf2, 0x0b, 0x4a}},
     "Power saver",
     false},
}};

const builtin_scheme* find_builtin(const GUID& scheme) {
  const auto found = std::find_if(kBuiltinSchemes.begin(), kBuiltinSchemes.end(),
                                  [&](const builtin_scheme& b) { return b.guid == scheme; });
  return found == kBuiltinSchemes.end() ? nullptr : &*found;
}

std::string error_text(DWORD code) {
  return platform::win32_error_text(code);
}

// Busy fraction of each CPU between two readings of processor_times, taken kLoadWindow apart.
load_sample read_load(const win32_doctor_calls& api) {
  load_sample load;
  std::vector<processor_time> before;
  std::vector<processor_time> after;
  DWORD code = api.processor_times(&before);
  if (code == ERROR_SUCCESS) {
    api.sleep(static_cast<DWORD>(kLoadWindow.count()));
    code = api.processor_times(&after);
  }
  if (code != ERROR_SUCCESS) {
    load.unknown_reason = fmt::format("{}(SystemProcessorPerformanceInformation) failed: {}",
                                      kLoadSource, error_text(code));
    return load;
  }
  if (before.empty() || before.size() != after.size()) {
    load.unknown_reason = fmt::format("{} listed {} CPUs, then {}: the readings do not compare",
                                      kLoadSource, before.size(), after.size());
    return load;
  }
  std::uint64_t longest = 0;
  for (std::size_t cpu = 0; cpu < before.size(); ++cpu) {
    const processor_time& b = before[cpu];
    const processor_time& a = after[cpu];
    if (a.idle < b.idle || a.kernel < b.kernel || a.user < b.user) {
      load.unknown_reason = fmt::format(
          "{}: the times of CPU {} went backwards between the readings", kLoadSource, cpu);
      load.busy.clear();
      return load;
    }
    const std::uint64_t total = (a.kernel - b.kernel) + (a.user - b.user);
    const std::uint64_t idle = std::min(a.idle - b.idle, total);
    if (total == 0) continue;  // no time counted for this CPU: its load is unknown, not 0
    load.busy[static_cast<int>(cpu)] =
        static_cast<double>(total - idle) / static_cast<double>(total);
    longest = std::max(longest, total);
  }
  if (load.busy.empty()) {
    load.unknown_reason = fmt::format("{}: no CPU counted any time over the window", kLoadSource);
    return load;
  }
  load.seconds = static_cast<double>(longest) / kTimeUnitsPerSecond;
  return load;
}

check_result not_read(std::string id, std::string title, std::string fact,
                      std::string recommendation = {}) {
  return check_result{std::move(id), std::move(title), status::unknown,
                      "not read on Windows: " + std::move(fact), std::move(recommendation)};
}

check_result check_power_plan(const win32_doctor_calls& api) {
  check_result r{"power_plan", "Power plan", status::unknown, {}, {}};
  GUID scheme{};
  std::string name;
  if (const DWORD code = api.active_power_scheme(&scheme, &name); code != ERROR_SUCCESS) {
    r.fact = fmt::format("PowerGetActiveScheme failed: {}", error_text(code));
    r.recommendation =
        "see `powercfg /getactivescheme`: High performance keeps the processor clock up";
    return r;
  }
  const builtin_scheme* builtin = find_builtin(scheme);
  if (name.empty() && builtin != nullptr) name = builtin->name;
  r.fact = fmt::format("active power plan '{}' {} (PowerGetActiveScheme)",
                       name.empty() ? "(unnamed)" : name, guid_text(scheme));
  if (builtin == nullptr) {
    r.fact += ": a custom plan, whose processor settings were not read";
    r.recommendation =
        "make sure its minimum processor state is 100%, or switch to High performance: powercfg "
        "/setactive SCHEME_MIN";
  } else if (builtin->steady_clock) {
    r.state = status::ok;
  } else {
    r.state = status::warn;
    r.recommendation =
        "the processor clock follows the load, so samples after a pause run slower: powercfg "
        "/setactive SCHEME_MIN (High performance) while measuring";
  }
  return r;
}

check_result check_priority_right(const win32_doctor_calls& api) {
  check_result r{"priority", "Right to raise priority", status::unknown, {}, {}};
  const DWORD priority_class = api.os.get_priority_class(GetCurrentProcess());
  if (priority_class == 0) {
    r.fact = fmt::format("GetPriorityClass failed: {}", error_text(api.os.get_last_error()));
    return r;
  }
  const int thread_priority = api.os.get_thread_priority(GetCurrentThread());
  if (thread_priority == THREAD_PRIORITY_ERROR_RETURN) {
    r.fact = fmt::format("GetThreadPriority failed: {}", error_text(api.os.get_last_error()));
    return r;
  }
  privilege_reading privilege;
  const DWORD privilege_code = api.base_priority_privilege(&privilege);
  std::string realtime;
  if (privilege_code != ERROR_SUCCESS) {
    realtime = fmt::format("REALTIME_PRIORITY_CLASS unknown (the token's privileges: {})",
                           error_text(privilege_code));
  } else if (privilege.held) {
    realtime = fmt::format(
        "SeIncreaseBasePriorityPrivilege held ({}): REALTIME_PRIORITY_CLASS "
        "allowed",
        privilege.enabled ? "enabled" : "SetPriorityClass enables it");
  } else {
    realtime =
        "SeIncreaseBasePriorityPrivilege not held: REALTIME_PRIORITY_CLASS would be "
        "downgraded to HIGH_PRIORITY_CLASS";
  }
  r.fact = fmt::format(
      "process at {}, thread at {} (GetPriorityClass, GetThreadPriority); HIGH_PRIORITY_CLASS "
      "allowed (it needs no privilege); {}",
      platform::priority_class_name(priority_class),
      platform::thread_priority_name(thread_priority), realtime);
  if (const std::string wine = api.os.wine_version(); !wine.empty()) {
    r.state = status::warn;
    r.fact += fmt::format(
        "; under Wine {} priority classes are recorded, not passed on to the Linux scheduler",
        wine);
    r.recommendation =
        "for priority to take effect, measure with the Linux build of harness, or on Windows";
    return r;
  }
  r.state = status::ok;
  if (privilege_code == ERROR_SUCCESS && !privilege.held) {
    r.recommendation =
        "--priority realtime would run at HIGH_PRIORITY_CLASS: run harness elevated (as "
        "administrator) to be granted REALTIME_PRIORITY_CLASS";
  }
  return r;
}

check_result check_affinity(const win32_doctor_calls& api, int cpu) {
  check_result r{"affinity", "Affinity mask", status::unknown, {}, {}};
  DWORD_PTR process_mask = 0;
  DWORD_PTR system_mask = 0;
  if (!api.os.get_process_affinity_mask(GetCurrentProcess(), &process_mask, &system_mask)) {
    r.fact = fmt::format("GetProcessAffinityMask failed: {}", error_text(api.os.get_last_error()));
    return r;
  }
  const auto allowed = mask_cpus(process_mask);
  r.fact = fmt::format(
      "the process may run on CPUs {} (mask {:#x}) of the system's {} (mask {:#x}), read with "
      "GetProcessAffinityMask",
      platform::format_cpu_list(allowed), process_mask,
      platform::format_cpu_list(mask_cpus(system_mask)), system_mask);
  if (process_mask != system_mask) r.fact += "; whoever started it narrowed the mask";
  if (!contains(allowed, cpu)) {
    r.state = status::warn;
    r.fact += fmt::format("; CPU {} is outside it", cpu);
    r.recommendation = fmt::format(
        "a run cannot be pinned to CPU {}: choose one of CPUs {} (--cpu), or start harness "
        "without a narrower affinity (start /affinity)",
        cpu, platform::format_cpu_list(allowed));
    return r;
  }
  r.state = status::ok;
  return r;
}

check_result check_smt_cores(const win32_doctor_calls& api, int cpu, const load_sample& load) {
  std::vector<std::uint64_t> cores;
  if (const DWORD code = api.core_masks(&cores); code != ERROR_SUCCESS) {
    return check_result{
        "smt",
        "SMT sibling",
        status::unknown,
        fmt::format("GetLogicalProcessorInformationEx failed: {}", error_text(code)),
        {}};
  }
  const auto core = std::find_if(cores.begin(), cores.end(), [&](std::uint64_t mask) {
    return cpu >= 0 && cpu < kGroupCpus && ((mask >> cpu) & 1U) != 0;
  });
  if (core == cores.end()) {
    return check_result{
        "smt",
        "SMT sibling",
        status::unknown,
        fmt::format("GetLogicalProcessorInformationEx lists no core holding CPU {}", cpu),
        {}};
  }
  std::vector<int> siblings = mask_cpus(*core);
  siblings.erase(std::remove(siblings.begin(), siblings.end(), cpu), siblings.end());
  return judge_smt_siblings(
      cpu, siblings,
      fmt::format("its core's mask is {:#x}, GetLogicalProcessorInformationEx", *core), load,
      kLoadSource,
      "set that work's affinity to other cores, or turn SMT (Hyper-Threading) off in the "
      "firmware setup");
}

// A cpuid bit the doctor reads: which value is fit to measure on, what a set bit means, and what
// to do when the bit has the other value.
struct cpuid_bit {
  std::string_view id;
  std::string_view title;
  std::string_view bit;  // "cpuid leaf 1 ECX bit 31 (hypervisor)"
  bool ok_when_set;
  std::string_view when_set;
  std::string_view recommendation;
};

constexpr cpuid_bit kHypervisorBit{
    "hypervisor",
    "Hypervisor",
    "cpuid leaf 1 ECX bit 31 (hypervisor)",
    false,
    "a virtual machine, or Windows itself on Hyper-V (virtualisation-based security sets it on "
    "bare metal too)",
    "on a virtual machine other guests share the physical CPUs: repeat runs and compare their "
    "minimums, and take final numbers on bare metal"};

constexpr cpuid_bit kInvariantTscBit{
    "tsc",
    "Invariant TSC",
    "cpuid leaf 0x80000007 EDX bit 8 (invariant TSC)",
    true,
    "one rate in every P- and C-state",
    "the TSC may change rate with frequency or stop in deep idle: use --clock "
    "QueryPerformanceCounter rather than rdtsc"};

// `value`: the bit as cpuid gave it, read only on an x86-64 build.
check_result check_cpuid_bit(const cpuid_bit& b, bool x86_64, bool value) {
  check_result r{std::string(b.id), std::string(b.title), status::unknown, {}, {}};
  if (!x86_64) {
    r.fact = "not an x86-64 build: cpuid not read";
    return r;
  }
  r.fact =
      value ? fmt::format("{} is set: {}", b.bit, b.when_set) : fmt::format("{} is clear", b.bit);
  r.state = value == b.ok_when_set ? status::ok : status::warn;
  if (r.state == status::warn) r.recommendation = std::string(b.recommendation);
  return r;
}

}  // namespace

std::string guid_text(const GUID& g) {
  return fmt::format("{{{:08x}-{:04x}-{:04x}-{:02x}{:02x}-{:02x}{:02x}{:02x}{:02x}{:02x}{:02x}}}",
                     g.Data1, g.Data2, g.Data3, g.Data4[0], g.Data4[1], g.Data4[2], g.Data4[3],
                     g.Data4[4], g.Data4[5], g.Data4[6], g.Data4[7]);
}

std::string builtin_power_scheme_name(const GUID& scheme) {
  const builtin_scheme* builtin = find_builtin(scheme);
  return builtin != nullptr ? std::string(builtin->name) : std::string();
}

doctor_report run_windows_doctor(const doctor_options& options, const win32_doctor_calls& api) {
  doctor_report report;
  report.system = "windows";

  DWORD_PTR process_mask = 0;
  DWORD_PTR system_mask = 0;
  const bool mask_read =
      api.os.get_process_affinity_mask(GetCurrentProcess(), &process_mask, &system_mask) != 0;
  const DWORD mask_error = mask_read ? 0 : api.os.get_last_error();
  validate_cpu(options.cpu, mask_read ? mask_cpus(system_mask) : std::vector<int>{});
  if (options.allowed && !options.allowed->empty()) {
    report.allowed = *options.allowed;
  } else if (mask_read) {
    report.allowed = mask_cpus(process_mask);
  }

  const load_sample load = read_load(api);
  report.window_seconds = load.seconds;
  report.load = cpu_load_map(load.busy.begin(), load.busy.end());

  auto choice = choose_cpu(options.cpu, report.allowed, report.load);
  if (!choice) {
    choice = cpu_choice{
        0, fmt::format("CPU 0 assumed: GetProcessAffinityMask failed: {}", error_text(mask_error))};
  }
  report.cpu = choice->cpu;
  report.cpu_reason = choice->reason;

  const int cpu = report.cpu;
  const clocks::tsc_features features = api.cpu_features();
  report.checks = {
      check_load(load, cpu, std::string(kLoadSource)),
      not_read("steal", "Steal time (CPU taken by the hypervisor)",
               "Windows reports no steal time to a guest; each run's reference loop still flags "
               "samples taken while the host ran the CPU slower"),
      check_power_plan(api),
      not_read("turbo", "Turbo / boost",
               "processor boost is a power plan setting (PERFBOOSTMODE) this doctor does not read",
               "for a steady clock turn it off: powercfg /setacvalueindex SCHEME_CURRENT "
               "SUB_PROCESSOR PERFBOOSTMODE 0, then powercfg /setactive SCHEME_CURRENT"),
      check_smt_cores(api, cpu, load),
      not_read("isolation", "CPU isolation",
               fmt::format("Windows has no boot option that keeps other threads off CPU {} (like "
                           "Linux's isolcpus); other processes' affinities decide who shares it",
                           cpu)),
      not_read("irqs", "Device IRQs on the CPU",
               "interrupt routing is a per-device policy of the registry, not readable here"),
      check_cpuid_bit(kHypervisorBit, features.x86_64, features.hypervisor),
      check_cpuid_bit(kInvariantTscBit, features.x86_64, features.invariant),
      not_read("aslr", "Address space layout randomisation",
               "Windows moves images once per boot, stacks and heaps once per process",
               "compare builds in interleaved runs, so placement differences show as spread"),
      check_priority_right(api),
      check_affinity(api, cpu),
      check_harness_build(options.harness_build),
      check_benchmark_build(options.benchmark_build_type ? options.benchmark_build_type()
                                                         : benchmark_library_build_type()),
  };
  return report;
}

}  // namespace harness::doctor::detail

namespace harness::doctor {

doctor_report run_doctor(const doctor_options& options) {
  return detail::run_windows_doctor(options, detail::real_win32_doctor_calls());
}

}  // namespace harness::doctor
