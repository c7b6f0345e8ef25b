// The seam between the Linux OS backend and the kernel.
//
// linux_os makes every system call through these tables, so tests can replace single calls with
// fakes that fail with EPERM or EACCES and check what the backend reports and restores; the
// counters' calls (perf_event_open and the reads of its file descriptors) have their own table.
#pragma once

#include <linux/perf_event.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/types.h>

#include <memory>
#include <optional>
#include <vector>

#include "harness/platform.hpp"

namespace harness::platform {

struct linux_syscalls {
  int (*sched_getaffinity)(pid_t, std::size_t, cpu_set_t*);
  int (*sched_setaffinity)(pid_t, std::size_t, const cpu_set_t*);
  int (*getpriority)(int which, id_t who);  // returns the nice value; errno tells failure
  int (*setpriority)(int which, id_t who, int prio);
  int (*sched_getscheduler)(pid_t);
  int (*sched_getparam)(pid_t, sched_param*);
  int (*sched_setscheduler)(pid_t, int, const sched_param*);
  int (*mlockall)(int flags);
  int (*munlockall)();
  int (*getrusage)(int who, rusage* usage);
  int (*sched_getcpu)();  // the calling thread's CPU, or -1 with errno set
};

// The counters' calls (linux_counters.cpp).
struct perf_syscalls {
  // perf_event_open(2): a file descriptor, or -1 with errno set.
  int (*perf_event_open)(perf_event_attr* attr, pid_t pid, int cpu, int group_fd,
                         unsigned long flags);
  ssize_t (*read)(int fd, void* buffer, std::size_t size);
  int (*close)(int fd);
  // /proc/sys/kernel/perf_event_paranoid's value; nullopt when it cannot be read.
  std::optional<int> (*paranoid)();
};

// The real kernel calls.
linux_syscalls real_linux_syscalls();
perf_syscalls real_perf_syscalls();

// The Linux backend over given syscall tables (the counters' calls are the real ones when none
// are given).
std::unique_ptr<os_interface> make_linux_os(const linux_syscalls& calls);
std::unique_ptr<os_interface> make_linux_os(const linux_syscalls& calls, const perf_syscalls& perf);

// Opens `wanted` on the calling thread through `calls` (os_interface::open_counters): task-clock
// alone, the other software events as one group, the hardware events as another, each read whole
// (PERF_FORMAT_GROUP with TOTAL_TIME_ENABLED and TOTAL_TIME_RUNNING).
counter_opening open_linux_counters(const perf_syscalls& calls,
                                    const std::vector<cpu_counter>& wanted);

}  // namespace harness::platform
