// The Windows clock sources: the TSC variants, QueryPerformanceCounter, the tick counts,
// timeGetTime with and without timeBeginPeriod(1), the FILETIME clocks, the CPU-time calls and
// QueryThreadCycleTime.
//
// Ticks are each call's native unit: QPC counts at QueryPerformanceFrequency(); GetTickCount,
// GetTickCount64 and timeGetTime count milliseconds; the FILETIME calls and GetThreadTimes /
// GetProcessTimes count 100 ns; QueryThreadCycleTime counts TSC cycles, converted with the TSC
// calibration. The declared resolution of a clock advanced by the timer interrupt is the interrupt
// interval GetSystemTimeAdjustment() declares; for the others it is the unit of the value.
//
// Caveats: GetTickCount and timeGetTime are 32-bit and wrap after 49.7 days, so they are not
// monotonic. timeBeginPeriod(1) changes the timer of the whole process (of the whole system before
// Windows 10 2004), so its source raises the period only at its first reading and keeps it until
// exit: listed after every other Windows source, it leaves their survey at the default period.
// Under Wine QueryThreadCycleTime fails (error 120, not implemented) and the source is listed as
// unavailable with that error.
#ifndef NOMINMAX
#define NOMINMAX
#endif
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#include <windows.h>

// mmsystem.h needs the types windows.h defines, so it stays in a block of its own after it.
#include <mmsystem.h>

#include <atomic>
#include <bit>

#include <fmt/format.h>

#include "clocks/platform_clocks.hpp"
#include "clocks/tsc.hpp"
#include "platform/win32_calls.hpp"

namespace harness::clocks {

namespace {

// FILETIME and the CPU-time calls count 100 ns intervals.
constexpr double kFiletimeTicksPerSecond = 1e7;
// The millisecond counters.
constexpr double kMillisecondTicksPerSecond = 1e3;
// timeBeginPeriod's argument for the fine timeGetTime source: 1 ms is the finest period winmm
// grants on every Windows version.
constexpr UINT kFinePeriodMs = 1;

std::uint64_t filetime_ticks(const FILETIME& ft) noexcept {
  return (static_cast<std::uint64_t>(ft.dwHighDateTime) << 32) | ft.dwLowDateTime;
}

// `code`: GetLastError() read by the caller right after the failed call (errors.md).
std::string last_error_text(std::string_view call, DWORD code) {
  return fmt::format("{} failed: {}", call, platform::win32_error_text(code));
}

// The clock interrupt interval in seconds, as GetSystemTimeAdjustment() declares it.
std::optional<double> timer_interval() {
  DWORD adjustment = 0;
  DWORD increment = 0;
  BOOL disabled = FALSE;
  if (!GetSystemTimeAdjustment(&adjustment, &increment, &disabled) || increment == 0) {
    return std::nullopt;
  }
  return increment / kFiletimeTicksPerSecond;
}

// The Windows sources: the shared base plus the resolution Windows declares; subclasses give now().
class windows_clock : public basic_clock {
 public:
  windows_clock(std::string_view name, std::string_view description, clock_kind kind,
                bool monotonic, double ticks_per_second, std::optional<double> resolution)
      : basic_clock(name, description, kind, monotonic, ticks_per_second),
        resolution_(resolution) {}

  std::optional<double> declared_resolution() const noexcept override { return resolution_; }

 protected:
  void set_resolution(std::optional<double> resolution) { resolution_ = resolution; }

 private:
  std::optional<double> resolution_;
};

class qpc_clock final : public windows_clock {
 public:
  qpc_clock()
      : windows_clock("QueryPerformanceCounter",
                      "QueryPerformanceCounter(): monotonic, at QueryPerformanceFrequency()",
                      clock_kind::wall, true, 0, std::nullopt) {
    LARGE_INTEGER frequency{};
    if (!QueryPerformanceFrequency(&frequency) || frequency.QuadPart <= 0) {
      const DWORD code = GetLastError();
      set_unavailable(last_error_text("QueryPerformanceFrequency", code));
      return;
    }
    const auto tps = static_cast<double>(frequency.QuadPart);
    set_ticks_per_second(tps);
    set_resolution(1.0 / tps);
  }
  std::uint64_t now() const noexcept override {
    LARGE_INTEGER counter;
    QueryPerformanceCounter(&counter);
    return static_cast<std::uint64_t>(counter.QuadPart);
  }
};

class tick_count_clock final : public windows_clock {
 public:
  tick_count_clock()
      : windows_clock("GetTickCount",
                      "GetTickCount(): milliseconds since boot, 32 bits (wraps after 49.7 days), "
                      "advanced by the timer interrupt",
                      clock_kind::wall, false, kMillisecondTicksPerSecond, timer_interval()) {}
  std::uint64_t now() const noexcept override { return GetTickCount(); }
};

class tick_count64_clock final : public windows_clock {
 public:
  tick_count64_clock()
      : windows_clock("GetTickCount64",
                      "GetTickCount64(): milliseconds since boot, advanced by the timer interrupt",
                      clock_kind::wall, true, kMillisecondTicksPerSecond, timer_interval()) {}
  std::uint64_t now() const noexcept override { return GetTickCount64(); }
};

class time_get_time_clock final : public windows_clock {
 public:
  time_get_time_clock()
      : windows_clock("timeGetTime",
                      "timeGetTime() (winmm): milliseconds, 32 bits (wraps after 49.7 days), at "
                      "the default timer period",
                      clock_kind::wall, false, kMillisecondTicksPerSecond,
                      1.0 / kMillisecondTicksPerSecond) {}
  std::uint64_t now() const noexcept override { return timeGetTime(); }
};

// timeGetTime() once timeBeginPeriod(1) holds: the first reading raises the period (see the file
// comment for why not earlier), the destructor gives it back.
class time_get_time_fine_clock final : public windows_clock {
 public:
  time_get_time_fine_clock()
      : windows_clock("timeGetTime_period1",
                      "timeGetTime() (winmm) after timeBeginPeriod(1), raised at its first "
                      "reading and held until exit",
                      clock_kind::wall, false, kMillisecondTicksPerSecond,
                      kFinePeriodMs / kMillisecondTicksPerSecond) {
    TIMECAPS caps{};
    if (timeGetDevCaps(&caps, sizeof(caps)) != MMSYSERR_NOERROR) {
      set_unavailable("timeGetDevCaps failed: no multimedia timer");
    } else if (caps.wPeriodMin > kFinePeriodMs) {
      set_unavailable(
          fmt::format("the multimedia timer's finest period is {} ms", caps.wPeriodMin));
    }
  }
  ~time_get_time_fine_clock() override {
    if (raised_.load(std::memory_order_relaxed)) timeEndPeriod(kFinePeriodMs);
  }
  std::uint64_t now() const noexcept override {
    if (!raised_.load(std::memory_order_relaxed)) raise();
    return timeGetTime();
  }

 private:
  void raise() const noexcept {
    if (!raised_.exchange(true) && timeBeginPeriod(kFinePeriodMs) != TIMERR_NOERROR) {
      raised_.store(false);
    }
  }
  mutable std::atomic<bool> raised_{false};
};

class system_time_clock final : public windows_clock {
 public:
  system_time_clock()
      : windows_clock("GetSystemTimeAsFileTime",
                      "GetSystemTimeAsFileTime(): calendar time in 100 ns units, advanced by the "
                      "timer interrupt",
                      clock_kind::wall, false, kFiletimeTicksPerSecond, timer_interval()) {}
  std::uint64_t now() const noexcept override {
    FILETIME ft;
    GetSystemTimeAsFileTime(&ft);
    return filetime_ticks(ft);
  }
};

// Looked up at run time: it exists from Windows 8 on, and a missing export must make the source
// unavailable rather than the executable fail to load.
class precise_system_time_clock final : public windows_clock {
 public:
  precise_system_time_clock()
      : windows_clock("GetSystemTimePreciseAsFileTime",
                      "GetSystemTimePreciseAsFileTime(): calendar time in 100 ns units, "
                      "interpolated with the performance counter",
                      clock_kind::wall, false, kFiletimeTicksPerSecond,
                      1.0 / kFiletimeTicksPerSecond) {
    const HMODULE kernel32 = GetModuleHandleW(L"kernel32.dll");
    const FARPROC proc =
        kernel32 != nullptr ? GetProcAddress(kernel32, "GetSystemTimePreciseAsFileTime") : nullptr;
    if (proc == nullptr) {
      const DWORD code = GetLastError();
      set_unavailable(last_error_text("GetProcAddress(GetSystemTimePreciseAsFileTime)", code));
      return;
    }
    get_ = std::bit_cast<get_fn>(proc);
  }
  std::uint64_t now() const noexcept override {
    FILETIME ft;
    get_(&ft);
    return filetime_ticks(ft);
  }

 private:
  using get_fn = void(WINAPI*)(LPFILETIME);
  get_fn get_ = nullptr;
};

// GetThreadTimes and GetProcessTimes: the same four FILETIMEs, of the calling thread or of the
// whole process; the clock reads kernel + user. `Times` names the call, says what it counts and
// makes it, so each source keeps a direct call in now().
struct thread_times {
  static constexpr std::string_view kCall = "GetThreadTimes";
  static constexpr std::string_view kDescription =
      "GetThreadTimes(): user + kernel CPU time of the calling thread in 100 ns units, charged at "
      "timer interrupts";
  static constexpr clock_kind kKind = clock_kind::thread_cpu;
  static BOOL read(FILETIME& kernel, FILETIME& user) noexcept {
    FILETIME creation, exit;
    return GetThreadTimes(GetCurrentThread(), &creation, &exit, &kernel, &user);
  }
};

struct process_times {
  static constexpr std::string_view kCall = "GetProcessTimes";
  static constexpr std::string_view kDescription =
      "GetProcessTimes(): user + kernel CPU time of the whole process in 100 ns units, charged at "
      "timer interrupts";
  static constexpr clock_kind kKind = clock_kind::process_cpu;
  static BOOL read(FILETIME& kernel, FILETIME& user) noexcept {
    FILETIME creation, exit;
    return GetProcessTimes(GetCurrentProcess(), &creation, &exit, &kernel, &user);
  }
};

template <typename Times>
class cpu_times_clock final : public windows_clock {
 public:
  cpu_times_clock()
      : windows_clock(Times::kCall, Times::kDescription, Times::kKind, true,
                      kFiletimeTicksPerSecond, timer_interval()) {
    FILETIME kernel, user;
    if (!Times::read(kernel, user)) {
      const DWORD code = GetLastError();
      set_unavailable(last_error_text(Times::kCall, code));
    }
  }
  std::uint64_t now() const noexcept override {
    FILETIME kernel, user;
    Times::read(kernel, user);
    return filetime_ticks(kernel) + filetime_ticks(user);
  }
};

// Counts the TSC cycles charged to the thread; Windows declares no rate for them, so the TSC
// calibration converts, and without a calibrated TSC the source is unavailable.
class thread_cycle_time_clock final : public windows_clock {
 public:
  explicit thread_cycle_time_clock(double tsc_ticks_per_second)
      : windows_clock("QueryThreadCycleTime",
                      "QueryThreadCycleTime(): TSC cycles charged to the calling thread, "
                      "converted with the TSC calibration",
                      clock_kind::thread_cpu, true, tsc_ticks_per_second, std::nullopt) {
    ULONG64 cycles = 0;
    if (!QueryThreadCycleTime(GetCurrentThread(), &cycles)) {
      const DWORD code = GetLastError();
      set_unavailable(last_error_text("QueryThreadCycleTime", code));
    } else if (tsc_ticks_per_second <= 0) {
      set_unavailable("no calibrated TSC rate to convert its cycles to time");
    } else {
      set_resolution(1.0 / tsc_ticks_per_second);
    }
  }
  std::uint64_t now() const noexcept override {
    ULONG64 cycles = 0;
    QueryThreadCycleTime(GetCurrentThread(), &cycles);
    return cycles;
  }
};

// The calibration reference: QPC in nanoseconds, split so that the product cannot overflow.
std::uint64_t qpc_ns() {
  static const std::uint64_t frequency = [] {
    LARGE_INTEGER f{};
    QueryPerformanceFrequency(&f);
    return f.QuadPart > 0 ? static_cast<std::uint64_t>(f.QuadPart) : 1U;
  }();
  LARGE_INTEGER counter;
  QueryPerformanceCounter(&counter);
  const auto ticks = static_cast<std::uint64_t>(counter.QuadPart);
  return ticks / frequency * 1'000'000'000U + ticks % frequency * 1'000'000'000U / frequency;
}

}  // namespace

std::vector<std::unique_ptr<clock_source>> make_platform_clocks(const tsc_inputs& tsc) {
  // QPC is the reference Windows documents for measuring intervals; it is never adjusted.
  std::vector<std::unique_ptr<clock_source>> clocks =
      make_tsc_clocks(tsc, qpc_ns, "QueryPerformanceCounter");
  double tsc_rate = 0;
  for (const auto& source : clocks) {
    if (source->available()) {
      tsc_rate = source->ticks_per_second();
      break;
    }
  }
  clocks.push_back(std::make_unique<qpc_clock>());
  clocks.push_back(std::make_unique<tick_count_clock>());
  clocks.push_back(std::make_unique<tick_count64_clock>());
  clocks.push_back(std::make_unique<time_get_time_clock>());
  clocks.push_back(std::make_unique<system_time_clock>());
  clocks.push_back(std::make_unique<precise_system_time_clock>());
  clocks.push_back(std::make_unique<cpu_times_clock<thread_times>>());
  clocks.push_back(std::make_unique<cpu_times_clock<process_times>>());
  clocks.push_back(std::make_unique<thread_cycle_time_clock>(tsc_rate));
  // Last: its first reading changes the timer period of the whole process (see the file comment).
  clocks.push_back(std::make_unique<time_get_time_fine_clock>());
  return clocks;
}

}  // namespace harness::clocks
