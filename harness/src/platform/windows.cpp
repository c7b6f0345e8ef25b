// Windows backend of the OS layer: SetProcessAffinityMask, SetPriorityClass and SetThreadPriority.
//
// On Windows the priority a thread runs at is its process's priority class combined with the
// thread's own relative priority, so "high" and "realtime" each set both. Windows grants
// REALTIME_PRIORITY_CLASS only with SeIncreaseBasePriorityPrivilege and otherwise silently gives
// HIGH_PRIORITY_CLASS while reporting success, so every priority change is read back and a
// different value is reported as refused.
//
// Caveats: an affinity mask covers one processor group (at most 64 CPUs); CPUs beyond it cannot be
// named here. Under Wine, affinity really pins the Linux threads, but priority classes and thread
// priorities are only recorded, not passed on to the Linux scheduler; describe_priority() says so.
// Memory locking, context-switch counts and CPU counters (cpu_counters.hpp) have no Windows
// equivalent and are reported as such.
//
// Also the process's other facts (its file, its state directory, its id) and terminals, through
// the C runtime (msvcrt): _isatty, _getpid. platform/files.hpp's calls are in windows_files.cpp.
// The console's width is not read: only $COLUMNS gives one on Windows.
#include <fmt/format.h>

#include <bit>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string_view>
#include <system_error>

#include <io.h>
#include <process.h>

#include "harness/errors.hpp"
#include "platform/files.hpp"
#include "platform/win32_calls.hpp"

namespace harness::platform {
namespace {

// An affinity mask has one bit per CPU of the process's processor group.
constexpr int kMaskBits = 64;

step_result refused(std::string action, DWORD code) {
  return step_result{std::move(action), false, static_cast<int>(code), win32_error_text(code)};
}

step_result granted(std::string action) {
  return step_result{std::move(action), true, 0, {}};
}

class windows_os final : public os_interface {
 public:
  explicit windows_os(const win32_calls& calls) : api_(calls) {}

  std::string name() const override { return "windows"; }

  cpu_list affinity() override {
    DWORD_PTR process_mask = 0;
    DWORD_PTR system_mask = 0;
    if (!api_.get_process_affinity_mask(GetCurrentProcess(), &process_mask, &system_mask)) {
      const DWORD code = api_.get_last_error();
      throw std::system_error(static_cast<int>(code), std::system_category(),
                              "GetProcessAffinityMask: " + win32_error_text(code));
    }
    return mask_cpus(process_mask);
  }

  step_result set_affinity(const cpu_list& cpus) override {
    DWORD_PTR mask = 0;
    for (int cpu : cpus) {
      if (cpu < 0 || cpu >= kMaskBits) {
        throw usage_error(fmt::format(
            "CPU {} cannot be pinned on Windows: an affinity mask names CPUs 0 to {} of the "
            "process's processor group",
            cpu, kMaskBits - 1));
      }
      mask |= DWORD_PTR{1} << cpu;
    }
    const std::string action =
        cpus.size() == 1
            ? fmt::format("pin to CPU {} (SetProcessAffinityMask)", cpus.front())
            : fmt::format("allow CPUs {} (SetProcessAffinityMask)", format_cpu_list(cpus));
    if (!api_.set_process_affinity_mask(GetCurrentProcess(), mask)) {
      const DWORD code = api_.get_last_error();
      return refused(action, code);
    }
    return granted(action);
  }

  priority_snapshot save_priority() override {
    priority_snapshot s;
    const DWORD priority_class = api_.get_priority_class(GetCurrentProcess());
    if (priority_class == 0) return s;
    const int thread_priority = api_.get_thread_priority(GetCurrentThread());
    if (thread_priority == THREAD_PRIORITY_ERROR_RETURN) return s;
    s.process_value = priority_class;
    s.thread_value = thread_priority;
    s.valid = true;
    return s;
  }

  std::vector<step_result> raise_priority(priority_level level) override {
    std::vector<step_result> steps;
    if (level == priority_level::normal) return steps;
    const bool realtime = level == priority_level::realtime;
    steps.push_back(set_class(realtime ? REALTIME_PRIORITY_CLASS : HIGH_PRIORITY_CLASS, ""));
    steps.push_back(
        set_thread(realtime ? THREAD_PRIORITY_TIME_CRITICAL : THREAD_PRIORITY_HIGHEST, ""));
    return steps;
  }

  std::vector<step_result> restore_priority(const priority_snapshot& saved) override {
    std::vector<step_result> steps;
    if (!saved.valid) return steps;
    steps.push_back(set_class(static_cast<DWORD>(saved.process_value), "restore "));
    steps.push_back(set_thread(static_cast<int>(saved.thread_value), "restore "));
    return steps;
  }

  std::string describe_priority() override {
    // Each call's error is read right after it, before a string is made (errors.md).
    const DWORD priority_class = api_.get_priority_class(GetCurrentProcess());
    const DWORD class_error = priority_class != 0 ? DWORD{0} : api_.get_last_error();
    const int thread_priority = api_.get_thread_priority(GetCurrentThread());
    const DWORD thread_error =
        thread_priority != THREAD_PRIORITY_ERROR_RETURN ? DWORD{0} : api_.get_last_error();
    const std::string class_text =
        priority_class != 0 ? priority_class_name(priority_class)
                            : "priority class unreadable: " + win32_error_text(class_error);
    const std::string thread_text =
        thread_priority != THREAD_PRIORITY_ERROR_RETURN
            ? thread_priority_name(thread_priority)
            : "thread priority unreadable: " + win32_error_text(thread_error);
    std::string text = class_text + ", " + thread_text;
    if (const std::string wine = api_.wine_version(); !wine.empty()) {
      text += fmt::format(" (Wine {}: recorded, not passed on to the Linux scheduler)", wine);
    }
    return text;
  }

  // Windows has no mlockall: VirtualLock pins given address ranges only, and a larger minimum
  // working set is a hint the memory manager may trim. Say so rather than pretend.
  step_result lock_memory() override {
    step_result r = refused("lock memory", ERROR_NOT_SUPPORTED);
    r.reason += ": Windows has no call that locks all current and future pages (mlockall)";
    return r;
  }
  step_result unlock_memory() override {
    step_result r = refused("unlock memory", ERROR_NOT_SUPPORTED);
    r.reason += ": nothing was locked";
    return r;
  }

  // Windows counts a thread's context switches only in the system-wide process snapshot
  // (NtQuerySystemInformation), far too costly to read between samples, and does not split
  // involuntary from voluntary ones.
  std::optional<std::uint64_t> involuntary_switches() override { return std::nullopt; }

  // The CPU's number within its processor group; the affinity this backend sets is the process's
  // mask, which lies within one group.
  std::optional<int> current_cpu() override {
    return static_cast<int>(GetCurrentProcessorNumber());
  }

  // Windows counts nothing comparable per thread for an ordinary process: its hardware counters
  // (and the kernel's per-thread events) come through ETW, which needs administrator rights and a
  // trace session; QueryThreadCycleTime counts cycles of the thread's CPU time only, no events.
  counter_opening open_counters(const std::vector<cpu_counter>& wanted) override {
    counter_opening opening;
    for (const cpu_counter c : wanted) {
      opening.status.push_back(
          {c, false,
           "not offered on Windows: per-thread CPU counters need Event Tracing for Windows (a "
           "trace session, administrator rights), which harness does not use",
           0});
    }
    return opening;
  }

 private:
  // Sets the priority class and reads it back: Windows may grant less than it was asked for.
  step_result set_class(DWORD priority_class, std::string_view verb) {
    const std::string action =
        fmt::format("{}{} (SetPriorityClass)", verb, priority_class_name(priority_class));
    if (!api_.set_priority_class(GetCurrentProcess(), priority_class)) {
      const DWORD code = api_.get_last_error();
      return refused(action, code);
    }
    const DWORD now = api_.get_priority_class(GetCurrentProcess());
    if (now == 0) {
      const DWORD code = api_.get_last_error();
      return refused(action, code);
    }
    if (now != priority_class) {
      step_result r{action, false, 0, {}};
      r.reason =
          fmt::format("the call succeeded but the process runs at {}", priority_class_name(now));
      if (priority_class == REALTIME_PRIORITY_CLASS) {
        r.reason +=
            " (REALTIME_PRIORITY_CLASS needs SeIncreaseBasePriorityPrivilege, e.g. an "
            "elevated administrator)";
      }
      return r;
    }
    return granted(action);
  }

  step_result set_thread(int priority, std::string_view verb) {
    const std::string action =
        fmt::format("{}{} (SetThreadPriority)", verb, thread_priority_name(priority));
    if (!api_.set_thread_priority(GetCurrentThread(), priority)) {
      const DWORD code = api_.get_last_error();
      return refused(action, code);
    }
    const int now = api_.get_thread_priority(GetCurrentThread());
    if (now == THREAD_PRIORITY_ERROR_RETURN) {
      const DWORD code = api_.get_last_error();
      return refused(action, code);
    }
    if (now != priority) {
      return step_result{
          action, false, 0,
          fmt::format("the call succeeded but the thread runs at {}", thread_priority_name(now))};
    }
    return granted(action);
  }

  win32_calls api_;
};

std::string read_wine_version() {
  // ntdll exports wine_get_version only under Wine; looking it up is the documented way to tell.
  using get_version_fn = const char* (*)();
  HMODULE ntdll = GetModuleHandleW(L"ntdll.dll");
  if (ntdll == nullptr) return {};
  const auto proc = GetProcAddress(ntdll, "wine_get_version");
  if (proc == nullptr) return {};
  const char* version = std::bit_cast<get_version_fn>(proc)();
  return version != nullptr ? version : "";
}

}  // namespace

cpu_list mask_cpus(std::uint64_t mask) {
  cpu_list cpus;
  for (int cpu = 0; cpu < kMaskBits; ++cpu) {
    if ((mask >> cpu) & 1U) cpus.push_back(cpu);
  }
  return cpus;
}

std::string win32_error_text(DWORD code) {
  char buffer[512] = {};
  const DWORD length =
      FormatMessageA(FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS, nullptr, code,
                     MAKELANGID(LANG_NEUTRAL, SUBLANG_DEFAULT), buffer, sizeof(buffer), nullptr);
  std::string text(buffer, length);
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' ')) {
    text.pop_back();
  }
  if (text.empty()) text = "no system message";
  return fmt::format("{} (error {})", text, code);
}

std::string priority_class_name(DWORD priority_class) {
  switch (priority_class) {
    case IDLE_PRIORITY_CLASS:
      return "IDLE_PRIORITY_CLASS";
    case BELOW_NORMAL_PRIORITY_CLASS:
      return "BELOW_NORMAL_PRIORITY_CLASS";
    case NORMAL_PRIORITY_CLASS:
      return "NORMAL_PRIORITY_CLASS";
    case ABOVE_NORMAL_PRIORITY_CLASS:
      return "ABOVE_NORMAL_PRIORITY_CLASS";
    case HIGH_PRIORITY_CLASS:
      return "HIGH_PRIORITY_CLASS";
    case REALTIME_PRIORITY_CLASS:
      return "REALTIME_PRIORITY_CLASS";
    default:
      return fmt::format("priority class {:#x}", priority_class);
  }
}

std::string thread_priority_name(int priority) {
  switch (priority) {
    case THREAD_PRIORITY_IDLE:
      return "THREAD_PRIORITY_IDLE";
    case THREAD_PRIORITY_LOWEST:
      return "THREAD_PRIORITY_LOWEST";
    case THREAD_PRIORITY_BELOW_NORMAL:
      return "THREAD_PRIORITY_BELOW_NORMAL";
    case THREAD_PRIORITY_NORMAL:
      return "THREAD_PRIORITY_NORMAL";
    case THREAD_PRIORITY_ABOVE_NORMAL:
      return "THREAD_PRIORITY_ABOVE_NORMAL";
    case THREAD_PRIORITY_HIGHEST:
      return "THREAD_PRIORITY_HIGHEST";
    case THREAD_PRIORITY_TIME_CRITICAL:
      return "THREAD_PRIORITY_TIME_CRITICAL";
    default:
      return fmt::format("thread priority {}", priority);
  }
}

win32_calls real_win32_calls() {
  return win32_calls{
      [](HANDLE process, DWORD_PTR* process_mask, DWORD_PTR* system_mask) {
        return ::GetProcessAffinityMask(process, process_mask, system_mask);
      },
      [](HANDLE process, DWORD_PTR mask) { return ::SetProcessAffinityMask(process, mask); },
      [](HANDLE process) { return ::GetPriorityClass(process); },
      [](HANDLE process, DWORD priority_class) {
        return ::SetPriorityClass(process, priority_class);
      },
      [](HANDLE thread) { return ::GetThreadPriority(thread); },
      [](HANDLE thread, int priority) { return ::SetThreadPriority(thread, priority); },
      []() { return ::GetLastError(); },
      []() { return read_wine_version(); },
  };
}

std::unique_ptr<os_interface> make_windows_os(const win32_calls& calls) {
  return std::make_unique<windows_os>(calls);
}

std::unique_ptr<os_interface> make_native_os() {
  return make_windows_os(real_win32_calls());
}

std::string kernel_release() {
  return "Windows";
}

std::filesystem::path executable_path() {
  // Long paths need a bigger buffer than MAX_PATH: grow until the name fits.
  std::wstring buffer(MAX_PATH, L'\0');
  for (;;) {
    const DWORD n = ::GetModuleFileNameW(nullptr, buffer.data(), static_cast<DWORD>(buffer.size()));
    if (n == 0) return {};
    if (n < buffer.size()) return std::filesystem::path(buffer.substr(0, n));
    buffer.resize(buffer.size() * 2);
  }
}

std::filesystem::path state_directory(const environment& env) {
  const auto local = env("LOCALAPPDATA");
  return local && !local->empty() ? std::filesystem::path(*local) : std::filesystem::path();
}

int process_id() {
  return ::_getpid();
}

bool is_terminal(int fd) {
  return ::_isatty(fd) != 0;
}

std::optional<std::size_t> terminal_columns(int /*fd*/) {
  return std::nullopt;
}

}  // namespace harness::platform
