// The seam between the Windows doctor and the Win32 API.
//
// The Windows checks read every fact through this table, so tests replace single calls with fakes
// (a refused read, a Balanced power plan, a busy SMT sibling, Wine) and check the verdicts without
// touching the machine. Each call returns ERROR_SUCCESS or the Win32 error code that says why the
// fact could not be read. Only the Windows doctor and its tests include this header: it pulls in
// <windows.h>.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "clocks/tsc.hpp"
#include "harness/doctor.hpp"
#include "platform/win32_calls.hpp"

namespace harness::doctor::detail {

// Affinity masks and per-CPU times cover one processor group.
inline constexpr int kGroupCpus = 64;

// One CPU's times since boot as NtQuerySystemInformation(SystemProcessorPerformanceInformation)
// gives them, in 100 ns units. Kernel time includes idle time.
struct processor_time {
  std::uint64_t idle = 0;
  std::uint64_t kernel = 0;
  std::uint64_t user = 0;
};

// SeIncreaseBasePriorityPrivilege in the process token: SetPriorityClass grants
// REALTIME_PRIORITY_CLASS only when the token holds it (it enables it for the call).
struct privilege_reading {
  bool held = false;
  bool enabled = false;
};

struct win32_doctor_calls {
  // Affinity mask, priority class, thread priority, GetLastError and the Wine version.
  platform::win32_calls os;
  // Per CPU of the process's processor group, in CPU order.
  DWORD (*processor_times)(std::vector<processor_time>* times);
  // Waits between the two processor_times readings of the load window.
  void (*sleep)(DWORD milliseconds);
  // GetLogicalProcessorInformationEx(RelationProcessorCore): the mask of logical CPUs of each
  // core in the process's processor group.
  DWORD (*core_masks)(std::vector<std::uint64_t>* masks);
  DWORD (*base_priority_privilege)(privilege_reading* reading);
  // PowerGetActiveScheme, and PowerReadFriendlyName for its name ("" when that fails).
  DWORD (*active_power_scheme)(GUID* scheme, std::string* name);
  // cpuid: the hypervisor bit and the invariant TSC.
  clocks::tsc_features (*cpu_features)();
};

// The real calls.
win32_doctor_calls real_win32_doctor_calls();

// The Windows checks over a given call table.
doctor_report run_windows_doctor(const doctor_options& options, const win32_doctor_calls& calls);

// The name Windows gives a built-in power scheme ("High performance"), or "" for another GUID.
std::string builtin_power_scheme_name(const GUID& scheme);

// "{8c5e7fda-e8bf-4a96-9a85-a6e23a8c635c}"
std::string guid_text(const GUID& guid);

}  // namespace harness::doctor::detail
