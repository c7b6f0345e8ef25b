// Linux backend of the OS layer: sched_setaffinity, setpriority (nice) and sched_setscheduler.
//
// Linux keeps nice values and scheduling policies per thread; setpriority(PRIO_PROCESS, 0) and
// sched_setscheduler(0) act on the calling thread, which is the thread that runs the workload.
// "high" asks for nice -20; "realtime" asks for SCHED_FIFO at priority 1, which already outranks
// every SCHED_OTHER thread while staying below the kernel's own real-time threads.
//
// Also the process's other facts (its file, its state directory, its id), terminals, and the file
// calls of platform/files.hpp.
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <system_error>
#include <thread>

#include <fmt/format.h>

#include "platform/files.hpp"
#include "platform/linux_syscalls.hpp"

namespace harness::platform {
namespace {

constexpr int kHighNice = -20;
constexpr int kRealtimePriority = 1;

// A system call's return code and the errno it left, read at once: whatever runs after the call
// (a std::string or fmt::format allocating, a logger) may change errno.
struct call_result {
  int rc;
  int err;  // errno right after the call; meaningful only when rc != 0
};

template <class Call>
call_result checked(Call&& call) {
  const int rc = call();
  const int err = errno;
  return {rc, err};
}

step_result outcome(std::string action, call_result call) {
  step_result r{std::move(action), call.rc == 0, 0, {}};
  if (call.rc != 0) {
    r.error_code = call.err;
    r.reason = errno_text(call.err);
  }
  return r;
}

const char* policy_name(std::int64_t policy) {
  switch (policy) {
    case SCHED_OTHER:
      return "SCHED_OTHER";
    case SCHED_FIFO:
      return "SCHED_FIFO";
    case SCHED_RR:
      return "SCHED_RR";
    case SCHED_BATCH:
      return "SCHED_BATCH";
    case SCHED_IDLE:
      return "SCHED_IDLE";
    default:
      return "unknown policy";
  }
}

class linux_os final : public os_interface {
 public:
  linux_os(const linux_syscalls& calls, const perf_syscalls& perf) : sys_(calls), perf_(perf) {}

  std::string name() const override { return "linux"; }

  cpu_list affinity() override {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sys_.sched_getaffinity(0, sizeof(set), &set) != 0) {
      const int err = errno;
      throw std::system_error(err, std::generic_category(), "sched_getaffinity");
    }
    cpu_list cpus;
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
      if (CPU_ISSET(cpu, &set)) cpus.push_back(cpu);
    }
    return cpus;
  }

  step_result set_affinity(const cpu_list& cpus) override {
    cpu_set_t set;
    CPU_ZERO(&set);
    for (int cpu : cpus)
      CPU_SET(cpu, &set);
    const std::string action =
        cpus.size() == 1 ? fmt::format("pin to CPU {} (sched_setaffinity)", cpus.front())
                         : fmt::format("allow CPUs {} (sched_setaffinity)", format_cpu_list(cpus));
    const call_result call = checked([&] { return sys_.sched_setaffinity(0, sizeof(set), &set); });
    return outcome(action, call);
  }

  priority_snapshot save_priority() override {
    priority_snapshot s;
    errno = 0;
    const int nice = sys_.getpriority(PRIO_PROCESS, 0);
    const int err = errno;
    if (nice == -1 && err != 0) return s;
    const int policy = sys_.sched_getscheduler(0);
    if (policy < 0) return s;
    sched_param param{};
    if (sys_.sched_getparam(0, &param) != 0) return s;
    s.process_value = nice;
    s.thread_value = nice;
    s.policy = policy;
    s.policy_param = param.sched_priority;
    s.valid = true;
    return s;
  }

  std::vector<step_result> raise_priority(priority_level level) override {
    std::vector<step_result> steps;
    if (level == priority_level::normal) return steps;
    const call_result nice = checked([&] { return sys_.setpriority(PRIO_PROCESS, 0, kHighNice); });
    steps.push_back(outcome(fmt::format("nice {} (setpriority)", kHighNice), nice));
    if (level == priority_level::realtime) {
      sched_param param{};
      param.sched_priority = kRealtimePriority;
      const call_result fifo =
          checked([&] { return sys_.sched_setscheduler(0, SCHED_FIFO, &param); });
      steps.push_back(outcome(
          fmt::format("SCHED_FIFO priority {} (sched_setscheduler)", kRealtimePriority), fifo));
    }
    return steps;
  }

  std::vector<step_result> restore_priority(const priority_snapshot& saved) override {
    std::vector<step_result> steps;
    if (!saved.valid) return steps;
    // Policy first: leaving SCHED_FIFO before lowering nice never leaves us above where we were.
    sched_param param{};
    param.sched_priority = static_cast<int>(saved.policy_param);
    const call_result policy =
        checked([&] { return sys_.sched_setscheduler(0, static_cast<int>(saved.policy), &param); });
    steps.push_back(
        outcome(fmt::format("restore {} (sched_setscheduler)", policy_name(saved.policy)), policy));
    const call_result nice = checked(
        [&] { return sys_.setpriority(PRIO_PROCESS, 0, static_cast<int>(saved.process_value)); });
    steps.push_back(
        outcome(fmt::format("restore nice {} (setpriority)", saved.process_value), nice));
    return steps;
  }

  std::string describe_priority() override {
    const priority_snapshot s = save_priority();
    if (!s.valid) return "unreadable";
    if (s.policy == SCHED_FIFO || s.policy == SCHED_RR) {
      return fmt::format("{} priority {}, nice {}", policy_name(s.policy), s.policy_param,
                         s.process_value);
    }
    return fmt::format("nice {}, {}", s.process_value, policy_name(s.policy));
  }

  step_result lock_memory() override {
    return outcome("lock memory (mlockall)",
                   checked([&] { return sys_.mlockall(MCL_CURRENT | MCL_FUTURE); }));
  }

  step_result unlock_memory() override {
    return outcome("unlock memory (munlockall)", checked([&] { return sys_.munlockall(); }));
  }

  std::optional<std::uint64_t> involuntary_switches() override {
    rusage usage{};
    if (sys_.getrusage(RUSAGE_THREAD, &usage) != 0) return std::nullopt;
    return static_cast<std::uint64_t>(usage.ru_nivcsw);
  }

  std::optional<int> current_cpu() override {
    const int cpu = sys_.sched_getcpu();
    if (cpu < 0) return std::nullopt;
    return cpu;
  }

  counter_opening open_counters(const std::vector<cpu_counter>& wanted) override {
    counter_opening opening = open_linux_counters(perf_, wanted);
    // Linux marks a thread migrated when it moves (while any cpu-migrations event is open on the
    // machine) and counts the mark when the thread is next scheduled in (perf_event_task_sched_in):
    // a move made before this opening (the process placed at fork or exec, or by taskset) can be
    // counted at the thread's first context switch after it, which with a short warmup falls in
    // the prepared phase ("the pin did NOT hold: 1 cpu-migrations" with the thread pinned
    // throughout; 15 of 15 processes under `taskset -c 0 harness --cpu 0 --warmup 0` here). A
    // short sleep here is that context switch: what the kernel owes lands before the first phase.
    if (opening.reader) std::this_thread::sleep_for(std::chrono::microseconds(50));
    return opening;
  }

 private:
  linux_syscalls sys_;
  perf_syscalls perf_;
};

}  // namespace

linux_syscalls real_linux_syscalls() {
  return linux_syscalls{
      [](pid_t pid, std::size_t size, cpu_set_t* set) {
        return ::sched_getaffinity(pid, size, set);
      },
      [](pid_t pid, std::size_t size, const cpu_set_t* set) {
        return ::sched_setaffinity(pid, size, set);
      },
      [](int which, id_t who) {
        return ::getpriority(static_cast<__priority_which_t>(which), who);
      },
      [](int which, id_t who, int prio) {
        return ::setpriority(static_cast<__priority_which_t>(which), who, prio);
      },
      [](pid_t pid) { return ::sched_getscheduler(pid); },
      [](pid_t pid, sched_param* param) { return ::sched_getparam(pid, param); },
      [](pid_t pid, int policy, const sched_param* param) {
        return ::sched_setscheduler(pid, policy, param);
      },
      [](int flags) { return ::mlockall(flags); },
      [] { return ::munlockall(); },
      [](int who, rusage* usage) { return ::getrusage(static_cast<__rusage_who_t>(who), usage); },
      [] { return ::sched_getcpu(); },
  };
}

std::unique_ptr<os_interface> make_linux_os(const linux_syscalls& calls) {
  return std::make_unique<linux_os>(calls, real_perf_syscalls());
}

std::unique_ptr<os_interface> make_linux_os(const linux_syscalls& calls,
                                            const perf_syscalls& perf) {
  return std::make_unique<linux_os>(calls, perf);
}

std::unique_ptr<os_interface> make_native_os() {
  return make_linux_os(real_linux_syscalls());
}

std::filesystem::path executable_path() {
  std::error_code ec;
  std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::filesystem::path() : exe;
}

std::string kernel_release() {
  struct utsname names {};
  if (::uname(&names) != 0) return "Linux";
  return fmt::format("{} {}", names.sysname, names.release);
}

std::filesystem::path state_directory(const environment& env) {
  if (const auto state = env("XDG_STATE_HOME"); state && !state->empty()) return *state;
  if (const auto home = env("HOME"); home && !home->empty())
    return std::filesystem::path(*home) / ".local" / "state";
  return {};
}

int process_id() {
  return static_cast<int>(::getpid());
}

bool is_terminal(int fd) {
  return ::isatty(fd) != 0;
}

std::optional<std::size_t> terminal_columns(int fd) {
  winsize size{};
  if (::ioctl(fd, TIOCGWINSZ, &size) == 0 && size.ws_col > 0) return size.ws_col;
  return std::nullopt;
}

path_facts inspect_path(const std::filesystem::path& path) {
  path_facts facts;
  struct stat st {};
  call_result call = checked([&] { return ::lstat(path.c_str(), &st); });
  if (call.rc == 0 && S_ISLNK(st.st_mode)) {
    facts.symlink = true;
    call = checked([&] { return ::stat(path.c_str(), &st); });
  }
  if (call.rc != 0) {
    if (call.err == ENOENT || call.err == ENOTDIR) {
      facts.kind = path_kind::missing;
      facts.what = "nothing";
    } else {
      facts.reason = errno_text(call.err);
    }
    return facts;
  }
  if (S_ISREG(st.st_mode)) {
    facts.kind = path_kind::regular;
    facts.what = "regular file";
    facts.mode = st.st_mode & 07777;
    facts.owner = st.st_uid;
    facts.group = st.st_gid;
  } else if (S_ISDIR(st.st_mode)) {
    facts.kind = path_kind::directory;
    facts.what = "directory";
  } else if (S_ISSOCK(st.st_mode)) {
    facts.kind = path_kind::socket;
    facts.what = "socket";
  } else if (S_ISBLK(st.st_mode)) {
    facts.kind = path_kind::block_device;
    facts.what = "block device";
  } else {
    facts.kind = path_kind::device;
    facts.what = S_ISCHR(st.st_mode)    ? "character device"
                 : S_ISFIFO(st.st_mode) ? "FIFO"
                                        : "special file";
  }
  return facts;
}

std::FILE* create_file_exclusive(const std::filesystem::path& path) {
  const int fd = ::open(path.c_str(), O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0666);
  if (fd < 0) return nullptr;
  std::FILE* file = ::fdopen(fd, "wb");
  if (file == nullptr) {
    const int error = errno;  // close() must not replace the reason
    ::close(fd);
    errno = error;
  }
  return file;
}

std::FILE* open_existing_for_writing(const std::filesystem::path& path) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) return nullptr;
  std::FILE* file = ::fdopen(fd, "wb");
  if (file == nullptr) {
    const int error = errno;
    ::close(fd);
    errno = error;
  }
  return file;
}

int write_permission(const std::filesystem::path& path) {
  const call_result call = checked([&] { return ::access(path.c_str(), W_OK); });
  return call.rc == 0 ? 0 : call.err;
}

int read_permission(const std::filesystem::path& path) {
  const call_result call = checked([&] { return ::access(path.c_str(), R_OK); });
  return call.rc == 0 ? 0 : call.err;
}

kept keep_mode_and_owner(std::FILE* file, const path_facts& old) {
  kept result;
  const int fd = ::fileno(file);
  unsigned mode = old.mode & 07777;
  const call_result both = checked([&] { return ::fchown(fd, old.owner, old.group); });
  if (both.rc != 0) {
    // Only root may give a file away; a member of the old group may still keep the group.
    const call_result group =
        checked([&] { return ::fchown(fd, static_cast<uid_t>(-1), old.group); });
    const auto uid = static_cast<unsigned>(::geteuid());
    result.note =
        group.rc == 0
            ? fmt::format(
                  "its owner (uid {}) could not be kept ({}): the new file belongs to uid {}",
                  old.owner, errno_text(both.err), uid)
            : fmt::format(
                  "its owner and group (uid {}, gid {}) could not be kept ({}): the new file "
                  "belongs to uid {}, gid {}",
                  old.owner, old.group, errno_text(both.err), uid,
                  static_cast<unsigned>(::getegid()));
    mode &= 0777;
  }
  const call_result chmod = checked([&] { return ::fchmod(fd, static_cast<mode_t>(mode)); });
  if (chmod.rc != 0) result.error = chmod.err;
  return result;
}

bool sync_file(std::FILE* file) {
  return ::fsync(::fileno(file)) == 0;
}

stop_signals_deferred::stop_signals_deferred() {
  sigset_t stops;
  sigset_t before;
  sigemptyset(&stops);
  sigaddset(&stops, SIGINT);
  sigaddset(&stops, SIGTERM);
  if (::pthread_sigmask(SIG_BLOCK, &stops, &before) == 0) {
    int_was_blocked_ = sigismember(&before, SIGINT) == 1;
    term_was_blocked_ = sigismember(&before, SIGTERM) == 1;
  } else {
    int_was_blocked_ = term_was_blocked_ = true;  // nothing blocked: nothing to unblock
  }
}

stop_signals_deferred::~stop_signals_deferred() {
  sigset_t unblock;
  sigemptyset(&unblock);
  if (!int_was_blocked_) sigaddset(&unblock, SIGINT);
  if (!term_was_blocked_) sigaddset(&unblock, SIGTERM);
  // A signal that came meanwhile acts here: its handler, or the end of the process.
  ::pthread_sigmask(SIG_UNBLOCK, &unblock, nullptr);
}

int file_descriptor(std::FILE* file) {
  return ::fileno(file);
}

std::string errno_text(int error) {
  // "EPERM": what a user searches for.
  const char* symbol = ::strerrorname_np(error);
  return fmt::format("{} ({})", std::strerror(error),
                     symbol != nullptr ? std::string(symbol) : fmt::format("errno {}", error));
}

}  // namespace harness::platform
