// A fake Win32 call table for the Windows OS backend and the Windows doctor.
//
// The seam is a table of plain function pointers, so the fake keeps its state in one inline
// global struct that each test resets (fake = fake_win32{}): what the calls return, which of them
// fail with which GetLastError() code, and the calls that changed something, in order.
#pragma once

#include <string>
#include <vector>

#include "platform/win32_calls.hpp"

namespace harness::platform::test {

struct fake_win32 {
  DWORD_PTR process_mask = 0b1111;
  DWORD_PTR system_mask = 0b1111;
  DWORD priority_class = NORMAL_PRIORITY_CLASS;
  int thread_priority = THREAD_PRIORITY_NORMAL;
  DWORD refuse_affinity = 0;  // a GetLastError() code to fail with, 0 to succeed
  DWORD refuse_class = 0;
  DWORD refuse_thread = 0;
  DWORD refuse_reads = 0;
  // What SetPriorityClass(REALTIME_PRIORITY_CLASS) really grants, as Windows does without the
  // privilege.
  DWORD realtime_grants = REALTIME_PRIORITY_CLASS;
  DWORD last_error = 0;
  std::string wine;
  std::vector<std::string> calls;
};

inline fake_win32 fake;

inline BOOL fail_with(DWORD code) {
  fake.last_error = code;
  return FALSE;
}

inline win32_calls fake_calls() {
  return win32_calls{
      [](HANDLE, DWORD_PTR* process_mask, DWORD_PTR* system_mask) -> BOOL {
        fake.calls.push_back("GetProcessAffinityMask");
        if (fake.refuse_reads != 0) return fail_with(fake.refuse_reads);
        *process_mask = fake.process_mask;
        *system_mask = fake.system_mask;
        return TRUE;
      },
      [](HANDLE, DWORD_PTR mask) -> BOOL {
        fake.calls.push_back("SetProcessAffinityMask " + std::to_string(mask));
        if (fake.refuse_affinity != 0) return fail_with(fake.refuse_affinity);
        fake.process_mask = mask;
        return TRUE;
      },
      [](HANDLE) -> DWORD {
        if (fake.refuse_reads != 0) return fail_with(fake.refuse_reads);
        return fake.priority_class;
      },
      [](HANDLE, DWORD priority_class) -> BOOL {
        fake.calls.push_back("SetPriorityClass " + priority_class_name(priority_class));
        if (fake.refuse_class != 0) return fail_with(fake.refuse_class);
        fake.priority_class =
            priority_class == REALTIME_PRIORITY_CLASS ? fake.realtime_grants : priority_class;
        return TRUE;
      },
      [](HANDLE) -> int {
        if (fake.refuse_reads != 0) {
          fail_with(fake.refuse_reads);
          return THREAD_PRIORITY_ERROR_RETURN;
        }
        return fake.thread_priority;
      },
      [](HANDLE, int priority) -> BOOL {
        fake.calls.push_back("SetThreadPriority " + thread_priority_name(priority));
        if (fake.refuse_thread != 0) return fail_with(fake.refuse_thread);
        fake.thread_priority = priority;
        return TRUE;
      },
      []() { return fake.last_error; },
      []() { return fake.wine; },
  };
}

}  // namespace harness::platform::test
