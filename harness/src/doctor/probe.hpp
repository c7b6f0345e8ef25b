// Reading the doctor's facts: files below a root path, and parsers for the kernel's text formats.
//
// Internal to the doctor. Every reader returns nullopt (or an empty result) for a missing or
// unparsable file, so a check can say "unknown" with the path instead of guessing. Parsers take
// the file's text, so they are tested on strings.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace harness::doctor::detail {

// Files of a (possibly fake) system, all named relative to its root ("proc/cmdline").
class system_probe {
 public:
  explicit system_probe(std::filesystem::path root) : root_(std::move(root)) {}

  const std::filesystem::path& root() const noexcept { return root_; }
  // The absolute path of `relative`, for messages.
  std::string path(std::string_view relative) const;
  // The whole file, or nullopt when it is missing or unreadable.
  std::optional<std::string> read(std::string_view relative) const;
  // The file's text with surrounding white space removed.
  std::optional<std::string> read_trimmed(std::string_view relative) const;
  bool exists(std::string_view relative) const;

 private:
  std::filesystem::path root_;
};

std::string_view trim(std::string_view text) noexcept;
std::vector<std::string_view> split_words(std::string_view text);

// A kernel CPU list ("0-3,6", "" for none). nullopt when malformed.
std::optional<std::vector<int>> parse_cpu_list(std::string_view text);
bool contains(const std::vector<int>& cpus, int cpu);

// One "cpu..." line of /proc/stat, in USER_HZ ticks. guest and guest_nice are already counted in
// user and nice, so they are not read.
struct cpu_times {
  std::uint64_t user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0,
                steal = 0;
  bool has_steal = false;  // kernels before 2.6.11 have no steal column

  std::uint64_t total() const noexcept {
    return user + nice + system + idle + iowait + irq + softirq + steal;
  }
  // Time the CPU ran something of this guest (steal is time the host ran something else).
  std::uint64_t busy() const noexcept { return user + nice + system + irq + softirq; }
};

struct proc_stat {
  std::optional<cpu_times> all;  // the aggregate "cpu" line
  std::map<int, cpu_times> per_cpu;
};

// nullopt when the text has no cpu line at all.
std::optional<proc_stat> parse_proc_stat(std::string_view text);

// Load and steal over a window: the difference of two /proc/stat readings.
struct load_sample {
  std::map<int, double> busy;              // per CPU, fraction of its ticks in the window
  std::map<int, double> steal;             // per CPU, fraction stolen by the host
  std::optional<double> steal_all;         // all CPUs, over the window
  std::optional<double> steal_since_boot;  // all CPUs, from the first reading alone
  double seconds = 0.0;
  std::string unknown_reason;  // non-empty when the readings could not be compared
};

load_sample compute_load(std::optional<std::string> before, std::optional<std::string> after,
                         double seconds, const std::string& stat_path);

// Parameters of a kernel command line (name -> value, "" for flags); stops at "--", after which
// the arguments belong to init.
std::map<std::string, std::string> parse_kernel_cmdline(std::string_view text);

// The isolcpus value without its leading flags ("domain,managed_irq,2-3" -> "2-3").
std::string_view isolcpus_cpus(std::string_view value);

// The words of the first "flags" line of /proc/cpuinfo; nullopt when there is none (not x86).
std::optional<std::set<std::string, std::less<>>> parse_cpuinfo_flags(std::string_view text);

// One row of /proc/self/limits; a nullopt bound is "unlimited".
struct limit_row {
  std::optional<std::uint64_t> soft;
  std::optional<std::uint64_t> hard;
};
std::optional<limit_row> parse_limit(std::string_view limits_text, std::string_view name);

// The value of "Name:\tvalue" in a /proc/<pid>/status text.
std::optional<std::string> status_field(std::string_view status_text, std::string_view name);

// /proc/interrupts: the CPU of each column and one row per interrupt source.
struct interrupt_row {
  std::string irq;                    // "36", or a local source such as "LOC"
  std::vector<std::uint64_t> counts;  // per column
  std::string description;            // chip, hwirq and device name as printed
  bool device = false;                // a numbered IRQ (a device), not a per-CPU local interrupt
};
struct interrupt_table {
  std::vector<int> column_cpus;  // CPU number of each count column (offline CPUs are omitted)
  std::vector<interrupt_row> rows;
};
std::optional<interrupt_table> parse_interrupts(std::string_view text);

}  // namespace harness::doctor::detail
