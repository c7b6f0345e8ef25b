// The seam between the Windows OS backend and the Win32 API.
//
// windows_os makes every Win32 call that can be refused through this table, so tests can replace
// single calls with fakes that fail (ERROR_ACCESS_DENIED, a silently downgraded priority class)
// and check what the backend reports and restores. It pulls in <windows.h>, so only Windows-only
// files include it: the backend (platform/windows.cpp); the Windows clocks
// (clocks/windows_clocks.cpp, for win32_error_text); the Windows doctor's call table
// (doctor/win32_doctor_calls.hpp, which embeds win32_calls, and through it doctor_windows.cpp); and
// the tests over fakes (tests/unit/windows_os_test.cpp, fake_win32.hpp, and through it
// doctor_windows_test.cpp).
#pragma once

#ifndef NOMINMAX
#define NOMINMAX
#endif
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#include <windows.h>

#include <cstdint>
#include <memory>
#include <string>

#include "harness/platform.hpp"

namespace harness::platform {

// The calls act on the current process or thread: the backend passes GetCurrentProcess() and
// GetCurrentThread(), which are pseudo-handles that cannot fail.
struct win32_calls {
  BOOL(*get_process_affinity_mask)
  (HANDLE process, DWORD_PTR* process_mask, DWORD_PTR* system_mask);
  BOOL (*set_process_affinity_mask)(HANDLE process, DWORD_PTR mask);
  DWORD (*get_priority_class)(HANDLE process);  // 0 on failure
  BOOL (*set_priority_class)(HANDLE process, DWORD priority_class);
  int (*get_thread_priority)(HANDLE thread);  // THREAD_PRIORITY_ERROR_RETURN on failure
  BOOL (*set_thread_priority)(HANDLE thread, int priority);
  DWORD (*get_last_error)();
  // The Wine version when running under Wine ("8.0"), empty on Windows.
  std::string (*wine_version)();
};

// The real Win32 calls.
win32_calls real_win32_calls();

// The Windows backend over a given call table.
std::unique_ptr<os_interface> make_windows_os(const win32_calls& calls);

// The system's message for a GetLastError() code, without the trailing line break, followed by the
// code: "Access denied. (error 5)".
std::string win32_error_text(DWORD code);

// The CPUs whose bits are set in an affinity mask of one processor group (CPUs 0 to 63).
cpu_list mask_cpus(std::uint64_t mask);

// Names of the values the backend sets ("HIGH_PRIORITY_CLASS", "THREAD_PRIORITY_HIGHEST"); other
// values are shown as numbers.
std::string priority_class_name(DWORD priority_class);
std::string thread_priority_name(int priority);

}  // namespace harness::platform
