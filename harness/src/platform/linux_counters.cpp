// The Linux counters: perf_event_open(2) on the calling thread (pid 0, any CPU), task-clock in a
// group of its own, the other software events in one group and the hardware events in another,
// each group read whole with
// PERF_FORMAT_GROUP | TOTAL_TIME_ENABLED | TOTAL_TIME_RUNNING (one read(2) a group).
//
// Software events count in and out of the kernel (a page fault is the kernel's work done for the
// thread); hardware events count user space only (exclude_kernel, exclude_hv), as nanobench does:
// the workload's own instructions, and the setting perf_event_paranoid 2 still allows. An event
// the kernel refuses is reported with its errno and what it means, never dropped in silence.
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>

#include <fmt/format.h>

#include "platform/files.hpp"
#include "platform/linux_syscalls.hpp"

namespace harness::platform {
namespace {

struct event_code {
  std::uint32_t type;
  std::uint64_t config;
};

event_code code_of(cpu_counter c) {
  switch (c) {
    case cpu_counter::task_clock:
      return {PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK};
    case cpu_counter::page_faults:
      return {PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS};
    case cpu_counter::minor_faults:
      return {PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN};
    case cpu_counter::major_faults:
      return {PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ};
    case cpu_counter::context_switches:
      return {PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES};
    case cpu_counter::cpu_migrations:
      return {PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS};
    case cpu_counter::cycles:
      return {PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES};
    case cpu_counter::instructions:
      return {PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS};
    case cpu_counter::branches:
      return {PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS};
    case cpu_counter::branch_misses:
      return {PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES};
    case cpu_counter::cache_references:
      return {PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES};
    case cpu_counter::cache_misses:
      return {PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES};
  }
  return {PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK};
}

// What a refusal means for a counter, after the errno's own name and text.
std::string refusal(const perf_syscalls& calls, cpu_counter c, int err) {
  std::string why = errno_text(err);
  switch (err) {
    case ENOENT:
    case ENODEV:
      return why + (is_hardware(c) ? ": the kernel has no such hardware event here (no PMU: a "
                                     "virtual machine that passes none through, or a CPU "
                                     "without this event)"
                                   : ": the kernel has no such software event");
    case EOPNOTSUPP:
      return why + ": the CPU's PMU cannot count it (a virtual or limited PMU)";
    case EACCES:
    case EPERM: {
      const std::optional<int> level = calls.paranoid ? calls.paranoid() : std::nullopt;
      return why + (level ? fmt::format(": perf_event_paranoid is {} (above 2 refuses counters "
                                        "to unprivileged users; lower it, or run as root or with "
                                        "CAP_PERFMON)",
                                        *level)
                          : std::string(": /proc/sys/kernel/perf_event_paranoid is unreadable"));
    }
    case ENOSYS:
      return why + ": this kernel was built without perf events";
    case EINVAL:
      return why +
             ": the kernel refused the event as asked (an unknown event, or one the "
             "group's PMU cannot take)";
    case ENOSPC:
      return why + ": the PMU has no free counter for it";
    default:
      return why;
  }
}

// A group of events read in one read(2): nr, time_enabled, time_running, then each value.
struct event_group {
  int leader = -1;
  std::vector<int> fds;
  std::vector<cpu_counter> members;  // in the order they joined: the order of the values
};

class linux_counter_reader final : public counter_reader {
 public:
  linux_counter_reader(const perf_syscalls& calls, std::vector<event_group> groups)
      : calls_(calls), groups_(std::move(groups)) {}
  ~linux_counter_reader() override {
    for (const event_group& g : groups_) {
      for (const int fd : g.fds)
        calls_.close(fd);
    }
  }
  linux_counter_reader(const linux_counter_reader&) = delete;
  linux_counter_reader& operator=(const linux_counter_reader&) = delete;

  bool read(counter_snapshot& out) noexcept override {
    for (const event_group& g : groups_) {
      const std::size_t words = 3 + g.members.size();
      const auto bytes = static_cast<ssize_t>(words * sizeof(std::uint64_t));
      if (calls_.read(g.leader, buffer_.data(), words * sizeof(std::uint64_t)) != bytes ||
          buffer_[0] != g.members.size())
        return false;
      for (std::size_t i = 0; i < g.members.size(); ++i)
        out[index_of(g.members[i])] = {buffer_[3 + i], buffer_[1], buffer_[2]};
    }
    return true;
  }

 private:
  perf_syscalls calls_;
  std::vector<event_group> groups_;
  std::array<std::uint64_t, 3 + kCpuCounterCount> buffer_{};
};

// Opens one event, into `group` (its leader when the group has none yet).
int open_event(const perf_syscalls& calls, cpu_counter c, event_group& group) {
  perf_event_attr attr;
  std::memset(&attr, 0, sizeof(attr));
  const event_code code = code_of(c);
  attr.type = code.type;
  attr.size = sizeof(attr);
  attr.config = code.config;
  attr.read_format =
      PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
  attr.exclude_kernel = is_hardware(c) ? 1 : 0;
  attr.exclude_hv = 1;
  errno = 0;
  const int fd = calls.perf_event_open(&attr, 0, -1, group.leader, PERF_FLAG_FD_CLOEXEC);
  if (fd < 0) return errno != 0 ? errno : EINVAL;
  if (group.leader < 0) group.leader = fd;
  group.fds.push_back(fd);
  group.members.push_back(c);
  return 0;
}

}  // namespace

counter_opening open_linux_counters(const perf_syscalls& calls,
                                    const std::vector<cpu_counter>& wanted) {
  counter_opening opening;
  // task-clock leads a group of its own: led by it (the task-clock PMU), the software events
  // beside it counted no page fault here (Linux 6.18: 0 of 16 a call, where alone they count 16).
  event_group clock;
  event_group software;
  event_group hardware;
  for (const cpu_counter c : wanted) {
    counter_status s{c, true, {}, 0};
    event_group& group = is_hardware(c)                 ? hardware
                         : c == cpu_counter::task_clock ? clock
                                                        : software;
    if (const int err = open_event(calls, c, group); err != 0) {
      s.available = false;
      s.error_code = err;
      s.reason = refusal(calls, c, err);
    }
    opening.status.push_back(std::move(s));
  }
  std::vector<event_group> groups;
  for (event_group* g : {&clock, &software, &hardware}) {
    if (g->leader >= 0) groups.push_back(std::move(*g));
  }
  if (!groups.empty())
    opening.reader = std::make_unique<linux_counter_reader>(calls, std::move(groups));
  return opening;
}

perf_syscalls real_perf_syscalls() {
  return perf_syscalls{
      [](perf_event_attr* attr, pid_t pid, int cpu, int group_fd, unsigned long flags) {
        return static_cast<int>(::syscall(SYS_perf_event_open, attr, pid, cpu, group_fd, flags));
      },
      [](int fd, void* buffer, std::size_t size) { return ::read(fd, buffer, size); },
      [](int fd) { return ::close(fd); },
      []() -> std::optional<int> {
        std::ifstream in("/proc/sys/kernel/perf_event_paranoid");
        int level = 0;
        if (in >> level) return level;
        return std::nullopt;
      },
  };
}

}  // namespace harness::platform
