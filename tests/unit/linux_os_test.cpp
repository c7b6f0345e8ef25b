// The Linux backend over a fake syscall table: refusals as a non-root user sees them (EACCES from
// setpriority, EPERM from sched_setscheduler) and exact restores. At the end, terminal detection
// on a pipe and on a FIFO made in a temporary folder (the real calls; the portable cases are in
// platform_test.cpp).
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <string>
#include <system_error>

#include "platform/linux_syscalls.hpp"

namespace harness::platform {
namespace {

// State of the fake kernel; plain globals because the seam takes function pointers.
struct fake_kernel {
  cpu_set_t affinity;
  int nice = 0;
  int policy = SCHED_OTHER;
  int rt_priority = 0;
  int setpriority_errno = 0;   // non-zero: setpriority fails with it
  int setscheduler_errno = 0;  // non-zero: sched_setscheduler fails with it
  int setaffinity_errno = 0;
  int getaffinity_errno = 0;  // non-zero: sched_getaffinity fails with it
  int mlock_errno = 0;
  bool locked = false;
  long nivcsw = 0;
  int cpu = 0;
  int getcpu_errno = 0;
};
fake_kernel k;

linux_syscalls fake_calls() {
  return {
      [](pid_t, std::size_t, cpu_set_t* set) {
        if (k.getaffinity_errno) return errno = k.getaffinity_errno, -1;
        *set = k.affinity;
        return 0;
      },
      [](pid_t, std::size_t, const cpu_set_t* set) {
        if (k.setaffinity_errno) return errno = k.setaffinity_errno, -1;
        k.affinity = *set;
        return 0;
      },
      [](int, id_t) { return k.nice; },
      [](int, id_t, int prio) {
        if (k.setpriority_errno) return errno = k.setpriority_errno, -1;
        k.nice = prio;
        return 0;
      },
      [](pid_t) { return k.policy; },
      [](pid_t, sched_param* p) {
        p->sched_priority = k.rt_priority;
        return 0;
      },
      [](pid_t, int policy, const sched_param* p) {
        if (k.setscheduler_errno) return errno = k.setscheduler_errno, -1;
        k.policy = policy;
        k.rt_priority = p->sched_priority;
        return 0;
      },
      [](int) {
        if (k.mlock_errno) return errno = k.mlock_errno, -1;
        k.locked = true;
        return 0;
      },
      [] {
        k.locked = false;
        return 0;
      },
      [](int, rusage* u) {
        u->ru_nivcsw = k.nivcsw;
        return 0;
      },
      [] {
        if (k.getcpu_errno) return errno = k.getcpu_errno, -1;
        return k.cpu;
      },
  };
}

class LinuxOs : public ::testing::Test {
 protected:
  void SetUp() override {
    k = fake_kernel{};
    CPU_ZERO(&k.affinity);
    CPU_SET(0, &k.affinity);
    CPU_SET(1, &k.affinity);
    CPU_SET(3, &k.affinity);
    os = make_linux_os(fake_calls());
  }
  std::unique_ptr<os_interface> os;
};

TEST_F(LinuxOs, ReadsAndSetsAffinity) {
  EXPECT_EQ(os->affinity(), (cpu_list{0, 1, 3}));
  const auto step = os->set_affinity({3});
  EXPECT_TRUE(step.applied);
  EXPECT_EQ(step.action, "pin to CPU 3 (sched_setaffinity)");
  EXPECT_EQ(os->affinity(), cpu_list{3});
}

TEST_F(LinuxOs, AffinityRefusalCarriesErrno) {
  k.setaffinity_errno = EINVAL;
  const auto step = os->set_affinity({7});
  EXPECT_FALSE(step.applied);
  EXPECT_EQ(step.error_code, EINVAL);
  EXPECT_NE(step.reason.find("EINVAL"), std::string::npos);
}

// The one refusal no run can do without (reading the process's affinity) ends it with the system's
// reason: the errno the call left, read before the message is made (docs/errors.md), is the
// exception's code and named in its text.
TEST_F(LinuxOs, AnUnreadableAffinityThrowsTheErrnoTheCallLeft) {
  k.getaffinity_errno = ESRCH;
  try {
    (void)os->affinity();
    ADD_FAILURE() << "no exception";
  } catch (const std::system_error& e) {
    EXPECT_EQ(e.code().value(), ESRCH);
    EXPECT_EQ(e.code().category(), std::generic_category());
    EXPECT_EQ(std::string(e.what()), std::string("sched_getaffinity: ") + std::strerror(ESRCH));
  }
}

TEST_F(LinuxOs, HighPriorityAsRoot) {
  const auto saved = os->save_priority();
  const auto steps = os->raise_priority(priority_level::high);
  ASSERT_EQ(steps.size(), 1u);
  EXPECT_TRUE(steps[0].applied);
  EXPECT_EQ(k.nice, -20);
  EXPECT_EQ(os->describe_priority(), "nice -20, SCHED_OTHER");
  for (const auto& s : os->restore_priority(saved))
    EXPECT_TRUE(s.applied) << s.action;
  EXPECT_EQ(k.nice, 0);
}

TEST_F(LinuxOs, NonRootRefusalsAreReportedWithTheSystemsReason) {
  k.setpriority_errno = EACCES;
  k.setscheduler_errno = EPERM;
  const auto steps = os->raise_priority(priority_level::realtime);
  ASSERT_EQ(steps.size(), 2u);
  EXPECT_FALSE(steps[0].applied);
  EXPECT_EQ(steps[0].error_code, EACCES);
  EXPECT_NE(steps[0].reason.find("EACCES"), std::string::npos);
  EXPECT_FALSE(steps[1].applied);
  EXPECT_EQ(steps[1].error_code, EPERM);
  EXPECT_NE(steps[1].action.find("SCHED_FIFO"), std::string::npos);
  EXPECT_EQ(k.nice, 0);
  EXPECT_EQ(k.policy, SCHED_OTHER);
}

TEST_F(LinuxOs, RealtimeIsRestoredToTheSavedPolicy) {
  k.nice = 5;
  const auto saved = os->save_priority();
  os->raise_priority(priority_level::realtime);
  EXPECT_EQ(k.policy, SCHED_FIFO);
  EXPECT_EQ(os->describe_priority(), "SCHED_FIFO priority 1, nice -20");
  os->restore_priority(saved);
  EXPECT_EQ(k.policy, SCHED_OTHER);
  EXPECT_EQ(k.rt_priority, 0);
  EXPECT_EQ(k.nice, 5);
}

TEST_F(LinuxOs, NormalPriorityMakesNoCall) {
  k.setpriority_errno = EPERM;
  EXPECT_TRUE(os->raise_priority(priority_level::normal).empty());
}

TEST_F(LinuxOs, LockMemoryAndItsRefusal) {
  EXPECT_TRUE(os->lock_memory().applied);
  EXPECT_TRUE(k.locked);
  EXPECT_TRUE(os->unlock_memory().applied);
  k.mlock_errno = ENOMEM;  // what RLIMIT_MEMLOCK gives an unprivileged user
  const auto step = os->lock_memory();
  EXPECT_FALSE(step.applied);
  EXPECT_EQ(step.error_code, ENOMEM);
  EXPECT_NE(step.reason.find("ENOMEM"), std::string::npos);
}

TEST_F(LinuxOs, ReadsInvoluntarySwitches) {
  k.nivcsw = 42;
  EXPECT_EQ(os->involuntary_switches(), 42u);
}

TEST_F(LinuxOs, ReadsTheCurrentCpuOrNothingWhenTheCallFails) {
  k.cpu = 3;
  EXPECT_EQ(os->current_cpu(), 3);
  k.getcpu_errno = ENOSYS;
  EXPECT_EQ(os->current_cpu(), std::nullopt);
}

TEST(LinuxTerminal, APipeIsNoTerminalAndHasNoWidth) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  for (const int fd : fds) {
    EXPECT_FALSE(is_terminal(fd));
    EXPECT_EQ(terminal_columns(fd), std::nullopt);
  }
  ::close(fds[0]);
  ::close(fds[1]);
}

TEST(LinuxTerminal, AFifoIsNoTerminalAndHasNoWidth) {
  const auto dir = std::filesystem::temp_directory_path() /
                   fmt::format("harness-fifo-test-{}-{}", process_id(),
                               std::chrono::steady_clock::now().time_since_epoch().count());
  std::filesystem::create_directories(dir);
  const auto fifo = dir / "fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // Non-blocking: opening a FIFO's read end does not wait for a writer then.
  const int fd = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  EXPECT_FALSE(is_terminal(fd));
  EXPECT_EQ(terminal_columns(fd), std::nullopt);
  ::close(fd);
  std::filesystem::remove_all(dir);
}

TEST(FormatCpuList, CompressesRuns) {
  EXPECT_EQ(format_cpu_list({}), "");
  EXPECT_EQ(format_cpu_list({3}), "3");
  EXPECT_EQ(format_cpu_list({0, 1, 2, 3, 6, 8, 9}), "0-3,6,8-9");
}

}  // namespace
}  // namespace harness::platform
