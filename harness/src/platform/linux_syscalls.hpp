// The seam between the Linux OS backend and the kernel.
//
// linux_os makes every system call through this table, so tests can replace single calls with
// fakes that fail with EPERM or EACCES and check what the backend reports and restores.
#pragma once

#include <sched.h>
#include <sys/resource.h>
#include <sys/types.h>

#include <memory>

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
};

// The real kernel calls.
linux_syscalls real_linux_syscalls();

// The Linux backend over a given syscall table.
std::unique_ptr<os_interface> make_linux_os(const linux_syscalls& calls);

}  // namespace harness::platform
