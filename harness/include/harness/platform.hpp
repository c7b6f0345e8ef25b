// The operating-system layer: the few calls that prepare a process for measurement.
//
// Everything that pins the process or changes its priority goes through os_interface, so that
// the rest of the harness has no platform #ifdefs, a Windows backend can sit beside the Linux one,
// and tests can substitute a fake that refuses. Each backend lives in src/platform/<os>.cpp and is
// chosen by CMake; make_native_os() returns it. The free functions at the end are the process's
// other facts the harness reads from the system (its file, state directory, id, terminals); the
// file calls behind report writing are internal (src/platform/files.hpp). Outside src/platform/
// only the per-OS clock and doctor files include an OS header.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>
#include "harness/cpu_counters.hpp"
#include "harness/enum_names.hpp"

namespace harness::platform {

// The outcome of one system call that prepares or restores the process.
struct step_result {
  std::string action;  // what was attempted, e.g. "pin to CPU 1", "nice -20"
  bool applied = false;
  int error_code = 0;  // errno or GetLastError() when refused, 0 otherwise
  std::string reason;  // the system's message when refused, empty otherwise
};

enum class priority_level {
  normal,    // leave priority as it is
  high,      // Linux: nice -20; Windows: HIGH_PRIORITY_CLASS + THREAD_PRIORITY_HIGHEST
  realtime,  // Linux: SCHED_FIFO; Windows: REALTIME_PRIORITY_CLASS + THREAD_PRIORITY_TIME_CRITICAL
};

// As --priority takes it.
inline constexpr enum_table<priority_level, priority_level::realtime> kPriorityLevelNames{{
    {priority_level::normal, "normal"},
    {priority_level::high, "high"},
    {priority_level::realtime, "realtime"},
}};
constexpr const auto& enum_names(priority_level) noexcept {
  return kPriorityLevelNames;
}
using harness::id_of;
using harness::to_string;

// Scheduling state of the process and calling thread as the backend read it, so it can be put
// back exactly. The fields are the backend's own values (nice, policy, ...), kept opaque to
// callers.
struct priority_snapshot {
  std::int64_t process_value = 0;
  std::int64_t thread_value = 0;
  std::int64_t policy = 0;
  std::int64_t policy_param = 0;
  bool valid = false;
};

// The CPUs the process may run on, sorted ascending.
using cpu_list = std::vector<int>;

class os_interface {
 public:
  virtual ~os_interface() = default;

  virtual std::string name() const = 0;

  // The CPUs the process is currently allowed to run on. Throws std::system_error on failure.
  virtual cpu_list affinity() = 0;
  virtual step_result set_affinity(const cpu_list& cpus) = 0;

  virtual priority_snapshot save_priority() = 0;
  // Raises process and thread priority to `level`; one step_result per call made.
  virtual std::vector<step_result> raise_priority(priority_level level) = 0;
  virtual std::vector<step_result> restore_priority(const priority_snapshot& saved) = 0;

  // A one-line reading of the current scheduling state ("nice -20, SCHED_OTHER"), for reports.
  virtual std::string describe_priority() = 0;

  // Locks the process's memory (current and future pages) so no sample waits on a page fault;
  // the step says whether the system granted it (RLIMIT_MEMLOCK may refuse).
  virtual step_result lock_memory() = 0;
  virtual step_result unlock_memory() = 0;

  // Involuntary context switches of the calling thread so far, or nullopt where the platform has
  // no cheap way to read them. Read between samples to flag the ones that were preempted.
  virtual std::optional<std::uint64_t> involuntary_switches() = 0;

  // The CPU the calling thread runs on now (sched_getcpu; GetCurrentProcessorNumber), or nullopt
  // where it cannot be read. Read after each sample: an unpinned phase may run on another CPU
  // than the pinned one, and the CPUs of one machine need not run at one speed.
  virtual std::optional<int> current_cpu() = 0;

  // Opens the counters asked for on the calling thread (cpu_counters.hpp), counting from now on,
  // in and out of the kernel's accounting as the thread is scheduled. Each counter asked for gets
  // a status: opened, or the system's reason why not (Linux: perf_event_open's errno, with
  // perf_event_paranoid's value on EACCES; Windows: no such per-thread counters). Never throws
  // for a refusal: a machine without a PMU still runs.
  virtual counter_opening open_counters(const std::vector<cpu_counter>& wanted) = 0;
};

// The backend for the platform the harness was built for.
std::unique_ptr<os_interface> make_native_os();

// Formats a cpu list as "0-3,6".
std::string format_cpu_list(const cpu_list& cpus);

// The running program's file (/proc/self/exe, GetModuleFileNameW); empty when it cannot be read.
std::filesystem::path executable_path();

// A look-up of the process's environment: the variable's value, nullopt when it is not set. The
// command line reads the environment through one (cli::machine), so tests give their own.
using environment = std::function<std::optional<std::string>(std::string_view name)>;

// The process's own environment (getenv).
std::optional<std::string> environment_variable(std::string_view name);

// Where a program keeps state between runs for this user, from `env`: $XDG_STATE_HOME, else
// $HOME/.local/state (%LOCALAPPDATA% on Windows); empty when the environment names no such place
// (a variable set to the empty string counts as unset).
std::filesystem::path state_directory(const environment& env);

// The process's id (getpid, _getpid); positive, the same for the life of the process.
int process_id();

// Whether file descriptor `fd` (1 for stdout, 2 for stderr) is a terminal (isatty, _isatty).
bool is_terminal(int fd);

// The width in columns of the terminal on `fd` (TIOCGWINSZ); nullopt when `fd` is no terminal or
// the system does not say. Windows: always nullopt (the console width is not read).
std::optional<std::size_t> terminal_columns(int fd);

}  // namespace harness::platform
