// The real Win32 calls behind the Windows doctor's call table (win32_doctor_calls.hpp): per-CPU
// times (NtQuerySystemInformation), the cores' logical CPUs, whether the token may be granted the
// base-priority privilege, and the active power plan. The checks over them are doctor_windows.cpp;
// tests replace this table with their own.
// powrprof.h and winternl.h need the types of windows.h, which win32_doctor_calls.hpp includes.
// clang-format off
#include "doctor/win32_doctor_calls.hpp"
#include <powrprof.h>
#include <winternl.h>
// clang-format on

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

namespace harness::doctor::detail {
namespace {

// Frees what PowerGetActiveScheme allocated.
struct local_free {
  void operator()(GUID* p) const noexcept { LocalFree(p); }
};

struct handle_close {
  void operator()(HANDLE h) const noexcept { CloseHandle(h); }
};
using unique_handle = std::unique_ptr<std::remove_pointer_t<HANDLE>, handle_close>;

DWORD real_processor_times(std::vector<processor_time>* times) {
  std::array<SYSTEM_PROCESSOR_PERFORMANCE_INFORMATION, kGroupCpus> info{};
  ULONG length = 0;
  const NTSTATUS status =
      NtQuerySystemInformation(SystemProcessorPerformanceInformation, info.data(),
                               static_cast<ULONG>(sizeof(info)), &length);
  if (status < 0) return RtlNtStatusToDosError(status);
  times->clear();
  for (std::size_t i = 0; i < length / sizeof(info[0]); ++i) {
    times->push_back({static_cast<std::uint64_t>(info[i].IdleTime.QuadPart),
                      static_cast<std::uint64_t>(info[i].KernelTime.QuadPart),
                      static_cast<std::uint64_t>(info[i].UserTime.QuadPart)});
  }
  return ERROR_SUCCESS;
}

DWORD real_core_masks(std::vector<std::uint64_t>* masks) {
  GROUP_AFFINITY group{};
  if (!GetThreadGroupAffinity(GetCurrentThread(), &group)) return GetLastError();
  DWORD length = 0;
  GetLogicalProcessorInformationEx(RelationProcessorCore, nullptr, &length);
  if (const DWORD code = GetLastError(); code != ERROR_INSUFFICIENT_BUFFER) return code;
  std::vector<unsigned char> buffer(length);
  auto* first = reinterpret_cast<SYSTEM_LOGICAL_PROCESSOR_INFORMATION_EX*>(buffer.data());
  if (!GetLogicalProcessorInformationEx(RelationProcessorCore, first, &length)) {
    return GetLastError();
  }
  masks->clear();
  for (DWORD offset = 0; offset < length;) {
    const auto* entry =
        reinterpret_cast<const SYSTEM_LOGICAL_PROCESSOR_INFORMATION_EX*>(buffer.data() + offset);
    for (WORD g = 0; g < entry->Processor.GroupCount; ++g) {
      if (entry->Processor.GroupMask[g].Group == group.Group) {
        masks->push_back(entry->Processor.GroupMask[g].Mask);
      }
    }
    offset += entry->Size;
  }
  return ERROR_SUCCESS;
}

DWORD real_base_priority_privilege(privilege_reading* reading) {
  HANDLE raw = nullptr;
  if (!OpenProcessToken(GetCurrentProcess(), TOKEN_QUERY, &raw)) return GetLastError();
  const unique_handle token(raw);
  LUID wanted{};
  if (!LookupPrivilegeValueA(nullptr, "SeIncreaseBasePriorityPrivilege", &wanted)) {
    return GetLastError();
  }
  DWORD length = 0;
  GetTokenInformation(token.get(), TokenPrivileges, nullptr, 0, &length);
  if (const DWORD code = GetLastError(); code != ERROR_INSUFFICIENT_BUFFER) return code;
  std::vector<unsigned char> buffer(length);
  if (!GetTokenInformation(token.get(), TokenPrivileges, buffer.data(), length, &length)) {
    return GetLastError();
  }
  const auto* privileges = reinterpret_cast<const TOKEN_PRIVILEGES*>(buffer.data());
  *reading = privilege_reading{};
  for (DWORD i = 0; i < privileges->PrivilegeCount; ++i) {
    const LUID_AND_ATTRIBUTES& p = privileges->Privileges[i];
    if (p.Luid.LowPart == wanted.LowPart && p.Luid.HighPart == wanted.HighPart) {
      reading->held = true;
      reading->enabled = (p.Attributes & SE_PRIVILEGE_ENABLED) != 0;
    }
  }
  return ERROR_SUCCESS;
}

std::string utf8(const wchar_t* text) {
  const int size = WideCharToMultiByte(CP_UTF8, 0, text, -1, nullptr, 0, nullptr, nullptr);
  if (size <= 1) return {};
  std::string out(static_cast<std::size_t>(size), '\0');
  WideCharToMultiByte(CP_UTF8, 0, text, -1, out.data(), size, nullptr, nullptr);
  out.pop_back();  // the terminating NUL
  return out;
}

DWORD real_active_power_scheme(GUID* scheme, std::string* name) {
  GUID* active = nullptr;
  if (const DWORD code = PowerGetActiveScheme(nullptr, &active); code != ERROR_SUCCESS) {
    return code;
  }
  const std::unique_ptr<GUID, local_free> owned(active);
  *scheme = *active;
  name->clear();
  DWORD size = 0;
  if (PowerReadFriendlyName(nullptr, active, nullptr, nullptr, nullptr, &size) == ERROR_SUCCESS &&
      size >= sizeof(wchar_t)) {
    std::vector<wchar_t> text(size / sizeof(wchar_t) + 1, L'\0');
    if (PowerReadFriendlyName(nullptr, active, nullptr, nullptr,
                              reinterpret_cast<UCHAR*>(text.data()), &size) == ERROR_SUCCESS) {
      *name = utf8(text.data());
    }
  }
  return ERROR_SUCCESS;
}

}  // namespace

win32_doctor_calls real_win32_doctor_calls() {
  return win32_doctor_calls{
      platform::real_win32_calls(),
      &real_processor_times,
      [](DWORD milliseconds) { ::Sleep(milliseconds); },
      &real_core_masks,
      &real_base_priority_privilege,
      &real_active_power_scheme,
      []() { return clocks::detect_tsc_features(); },
  };
}

}  // namespace harness::doctor::detail
