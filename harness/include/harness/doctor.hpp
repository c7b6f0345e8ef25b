// harness doctor: is this machine fit to measure on?
//
// Each check reads what the operating system exposes and says ok, warn or unknown, the fact it
// read and what to change. On Linux the checks read /proc and /sys below a root path, so tests
// point them at a fake tree; a missing file (container, VM, other OS) gives "unknown" naming the
// path, never a guess. Load and steal are compared between two /proc/stat readings taken by an
// injectable sampler, so tests never sleep. On Windows the doctor asks Win32 instead (affinity
// mask, priority class and the right to raise it, power plan, per-CPU load, cores) and says
// "unknown" for what Windows does not expose.
// Caveats: /proc/stat counts in USER_HZ ticks (10 ms), so a 200 ms window resolves load and
// steal only to about 5% of one CPU; the facts are those of the moment the doctor ran.
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <iosfwd>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>
#include "harness/enum_names.hpp"

namespace harness::doctor {

enum class status {
  ok,       // the fact read is what precise measurement wants
  warn,     // the fact read is known to add noise or bias; the recommendation says what to change
  unknown,  // the fact could not be read (missing file, unparsable text); the fact says which
};

// As the doctor's table and JSON name it.
inline constexpr enum_table<status, status::unknown> kStatusNames{{
    {status::ok, "ok"},
    {status::warn, "warn"},
    {status::unknown, "unknown"},
}};
constexpr const auto& enum_names(status) noexcept {
  return kStatusNames;
}
using harness::id_of;
using harness::to_string;

struct check_result {
  std::string id;     // stable identifier for scripts, e.g. "governor"
  std::string title;  // short name for people, e.g. "CPU frequency governor"
  status state = status::unknown;
  std::string fact;            // what was read, and from where
  std::string recommendation;  // what to change; may be empty when ok
};

// Busy fraction (0..1) of each CPU over the load window, keyed by CPU number.
using cpu_load_map = std::map<int, double>;

struct cpu_choice {
  int cpu = -1;
  std::string reason;  // one line for the report: which CPU and why
};

// The CPU to measure on when the user did not choose: the least-loaded CPU of `allowed`, counting
// CPU 0 as somewhat busier than it looks because it serves most housekeeping; loads within one
// /proc/stat tick of the best are ties, broken toward the highest CPU number. CPUs of `allowed`
// missing from `load` are considered only when no allowed CPU has a load. Throws
// std::invalid_argument when `allowed` is empty (an affinity mask is never empty).
cpu_choice select_default_cpu(const std::vector<int>& allowed, const cpu_load_map& load);

// Two readings of /proc/stat taken some time apart.
struct stat_window {
  std::optional<std::string> before;  // nullopt when the file could not be read
  std::optional<std::string> after;
  double seconds = 0.0;  // time between the readings, by std::chrono::steady_clock
};

// Takes the two /proc/stat readings below a root path.
using stat_sampler = std::function<stat_window(const std::filesystem::path& root)>;

// Reads <root>/proc/stat, calls sleep(window), reads it again. An empty `sleep` means
// std::this_thread::sleep_for; tests pass one that returns at once.
stat_sampler sleeping_stat_sampler(std::chrono::milliseconds window,
                                   std::function<void(std::chrono::milliseconds)> sleep = {});

// How the harness library itself was compiled.
struct build_info {
  bool ndebug = false;     // NDEBUG was defined: assertions compiled out
  bool optimized = false;  // the compiler optimised (__OPTIMIZE__ on GCC and Clang)
  std::string build_type;  // CMake's build type (HARNESS_BUILD_TYPE), or "" when not passed in
};

build_info harness_build_info();

// "debug" or "release" as the linked Google Benchmark reports its own build in its JSON context,
// or nullopt when that could not be read.
std::optional<std::string> benchmark_library_build_type();

// options.cpu names no CPU the checks can look at (negative, or not online). Its own type, so the
// command line turns this refusal, and no other std::invalid_argument, into a usage error about
// --cpu.
class cpu_error : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

struct doctor_options {
  // Linux checks: the directory holding proc/ and sys/.
  std::filesystem::path root = "/";
  // The CPU to check; nullopt chooses with select_default_cpu.
  std::optional<int> cpu;
  // The affinity mask; nullopt reads Cpus_allowed_list from <root>/proc/self/status (Linux) or
  // GetProcessAffinityMask (Windows).
  std::optional<std::vector<int>> allowed;
  // Linux checks; empty: sleeping_stat_sampler(kLoadWindow).
  stat_sampler sampler;
  build_info harness_build = harness_build_info();
  // Empty: benchmark_library_build_type().
  std::function<std::optional<std::string>()> benchmark_build_type;
};

struct doctor_report {
  std::string system;          // where the facts came from: "linux" (files below root) or "windows"
  std::filesystem::path root;  // the Linux checks' root; empty for the Windows checks
  int cpu = -1;                // the CPU the checks looked at
  std::string cpu_reason;
  std::vector<int> allowed;  // the affinity mask used to choose, empty when unknown
  double window_seconds = 0.0;
  cpu_load_map load;  // busy fraction per CPU over the window; empty when it could not be read
  std::vector<check_result> checks;
};

// Runs every check of the platform the harness was built for: run_tree_doctor on Linux, the
// Win32 checks on Windows (which use neither options.root nor options.sampler). Throws cpu_error
// naming the CPU when options.cpu is negative or not an online CPU (the command line turns it into
// a usage error about --cpu).
doctor_report run_doctor(const doctor_options& options = {});

// Runs the Linux checks over the proc/ and sys/ tree below options.root, on any platform: tests
// use fake trees, and `harness doctor --root DIR` reads a tree copied from another machine.
doctor_report run_tree_doctor(const doctor_options& options);

// The doctor's verdict in a few fields, for every run's report.
struct doctor_summary {
  int cpu = -1;
  std::string cpu_reason;
  int ok = 0;
  int warn = 0;
  int unknown = 0;
  std::vector<std::string> warned;       // titles of the checks that warned, in check order
  std::vector<std::string> unknown_ids;  // ids of the checks that could not read their facts
};

doctor_summary summarize(const doctor_report& report);

// One to three lines: the CPU and why, the counts, the warned checks.
std::string format_summary(const doctor_summary& summary);

// The full report for people: one line per check (status, title, fact, recommendation) and a
// summary line.
void write_text(std::ostream& out, const doctor_report& report);

// The full report as a JSON document (text), for `harness doctor --json`.
std::string to_json_text(const doctor_report& report);

}  // namespace harness::doctor
