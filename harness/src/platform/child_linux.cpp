// Linux children (child_process.hpp): fork, hold the child on a pipe while the parent sets its
// affinity and nice value through its pid, then let it exec the program.
//
// Between fork and exec the child makes only async-signal-safe calls (read, dup2, setpgid, execv,
// write, _exit): everything it needs (argv, the output files, the channel) is made before the
// fork. A second pipe, closed on exec, tells the parent whether exec succeeded: end of file means
// the program runs, four bytes are the errno exec failed with.
//
// A child the parent talks to has one end of a socketpair as its stdin and stdout: the parent
// writes with send(MSG_NOSIGNAL), so a child that has gone gives EPIPE rather than a SIGPIPE that
// would end the parent, and waits for its lines in poll() (no wake-up until the child writes).
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <system_error>
#include <utility>

#include <fmt/format.h>

#include "base/check.hpp"
#include "platform/child_process.hpp"
#include "platform/files.hpp"

namespace harness::platform {
namespace {

constexpr int kHighNice = -20;
constexpr int kRealtimePriority = 1;

std::system_error os_error(int err, const std::string& what) {
  return std::system_error(err, std::generic_category(), what);
}

class fd_guard {
 public:
  explicit fd_guard(int fd = -1) noexcept : fd_(fd) {}
  ~fd_guard() { reset(); }
  fd_guard(const fd_guard&) = delete;
  fd_guard& operator=(const fd_guard&) = delete;
  int get() const noexcept { return fd_; }
  int release() noexcept {
    const int fd = fd_;
    fd_ = -1;
    return fd;
  }
  void reset(int fd = -1) noexcept {
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
  }

 private:
  int fd_;
};

int open_output(const std::filesystem::path& path) {
  const int fd = ::open(path.c_str(), O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC, 0600);
  if (fd < 0) {
    const int err = errno;
    throw os_error(err, fmt::format("cannot create '{}'", path.string()));
  }
  return fd;
}

class linux_child final : public child_process {
 public:
  linux_child(pid_t pid, int go_fd, int exec_fd, int channel_fd)
      : pid_(pid), go_(go_fd), exec_(exec_fd), channel_(channel_fd) {}
  ~linux_child() override {
    if (!exit_) kill();
  }

  int id() const override { return static_cast<int>(pid_); }

  cpu_list affinity() override {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (::sched_getaffinity(pid_, sizeof(set), &set) != 0) {
      const int err = errno;
      throw os_error(err, "sched_getaffinity of the child");
    }
    cpu_list cpus;
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
      if (CPU_ISSET(cpu, &set)) cpus.push_back(cpu);
    }
    return cpus;
  }

  std::string describe_priority() override {
    errno = 0;
    const int nice = ::getpriority(PRIO_PROCESS, static_cast<id_t>(pid_));
    const int err = errno;
    if (nice == -1 && err != 0) return "unreadable: " + errno_text(err);
    const int policy = ::sched_getscheduler(pid_);
    if (policy == SCHED_FIFO || policy == SCHED_RR) {
      sched_param param{};
      ::sched_getparam(pid_, &param);
      return fmt::format("{} priority {}, nice {}",
                         policy == SCHED_FIFO ? "SCHED_FIFO" : "SCHED_RR", param.sched_priority,
                         nice);
    }
    return fmt::format("nice {}, {}", nice, policy == SCHED_OTHER ? "SCHED_OTHER" : "other policy");
  }

  step_result set_affinity(const cpu_list& cpus) override {
    cpu_set_t set;
    CPU_ZERO(&set);
    for (int cpu : cpus)
      CPU_SET(cpu, &set);
    step_result r{cpus.size() == 1
                      ? fmt::format("pin to CPU {} (sched_setaffinity)", cpus.front())
                      : fmt::format("allow CPUs {} (sched_setaffinity)", format_cpu_list(cpus)),
                  true,
                  0,
                  {}};
    if (::sched_setaffinity(pid_, sizeof(set), &set) != 0) {
      const int err = errno;
      refuse(r, err);
    }
    return r;
  }

  std::vector<step_result> raise_priority(priority_level level) override {
    std::vector<step_result> steps;
    if (level == priority_level::normal) return steps;
    step_result nice{fmt::format("nice {} (setpriority)", kHighNice), true, 0, {}};
    if (::setpriority(PRIO_PROCESS, static_cast<id_t>(pid_), kHighNice) != 0) {
      const int err = errno;
      refuse(nice, err);
    }
    steps.push_back(std::move(nice));
    if (level == priority_level::realtime) {
      sched_param param{};
      param.sched_priority = kRealtimePriority;
      step_result fifo{
          fmt::format("SCHED_FIFO priority {} (sched_setscheduler)", kRealtimePriority),
          true,
          0,
          {}};
      if (::sched_setscheduler(pid_, SCHED_FIFO, &param) != 0) {
        const int err = errno;
        refuse(fifo, err);
      }
      steps.push_back(std::move(fifo));
    }
    return steps;
  }

  void resume() override {
    const char go = 'g';
    if (::write(go_.get(), &go, 1) != 1) {
      const int err = errno;
      throw os_error(err, "cannot release the child");
    }
    go_.reset();
    // Blocks until exec succeeded (end of file) or the child reports why it failed.
    int err = 0;
    ssize_t got = 0;
    do {
      got = ::read(exec_.get(), &err, sizeof(err));
    } while (got < 0 && errno == EINTR);
    exec_.reset();
    if (got == static_cast<ssize_t>(sizeof(err))) {
      wait_blocking();
      throw os_error(err, "cannot execute the program");
    }
  }

  std::optional<child_exit> poll() override {
    if (exit_) return exit_;
    int status = 0;
    const pid_t r = ::waitpid(pid_, &status, WNOHANG);
    if (r == pid_) record(status);
    return exit_;
  }

  void stop(int signal_number) override {
    if (!exit_) ::kill(pid_, signal_number);
  }

  void kill() override {
    if (exit_) return;
    go_.reset();  // a child still held ends when the pipe closes (it reads end of file)
    ::kill(pid_, SIGKILL);
    wait_blocking();
  }

  void send(std::string_view text) override {
    HARNESS_CHECK(channel_.get() >= 0, "send() to a child launched without talk");
    while (!text.empty()) {
      const ssize_t n = ::send(channel_.get(), text.data(), text.size(), MSG_NOSIGNAL);
      if (n < 0) {
        const int err = errno;
        if (err == EINTR) continue;
        throw os_error(err, "cannot write to the child");
      }
      text.remove_prefix(static_cast<std::size_t>(n));
    }
  }

  read_status read_line(std::string& line, std::chrono::milliseconds limit) override {
    HARNESS_CHECK(channel_.get() >= 0, "read_line() from a child launched without talk");
    using steady = std::chrono::steady_clock;
    const steady::time_point deadline = steady::now() + limit;
    for (;;) {
      if (const std::optional<read_status> taken = take_line(pending_, closed_, line))
        return *taken;
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - steady::now());
      if (left.count() <= 0) return read_status::timed_out;
      pollfd p{channel_.get(), POLLIN, 0};
      const int ready =
          ::poll(&p, 1, static_cast<int>(std::min<std::int64_t>(left.count(), 1 << 30)));
      if (ready < 0) {
        const int err = errno;
        if (err == EINTR) continue;  // a stop signal: the caller checks it between replies
        throw os_error(err, "cannot wait for the child's output");
      }
      if (ready == 0) continue;  // the deadline is checked above
      char buffer[4096];
      const ssize_t n = ::read(channel_.get(), buffer, sizeof(buffer));
      if (n < 0) {
        const int err = errno;
        if (err == EINTR || err == EAGAIN) continue;
        if (err == ECONNRESET) {  // the child exited with our last line unread
          closed_ = true;
          continue;
        }
        throw os_error(err, "cannot read the child's output");
      }
      if (n == 0) {
        closed_ = true;
      } else {
        pending_.append(buffer, static_cast<std::size_t>(n));
      }
    }
  }

 private:
  static void refuse(step_result& r, int err) {
    r.applied = false;
    r.error_code = err;
    r.reason = errno_text(err);
  }
  void record(int status) {
    child_exit e;
    if (WIFSIGNALED(status)) {
      e.signaled = true;
      e.code = WTERMSIG(status);
    } else {
      e.code = WEXITSTATUS(status);
    }
    exit_ = e;
  }
  void wait_blocking() {
    int status = 0;
    pid_t r = 0;
    do {
      r = ::waitpid(pid_, &status, 0);
    } while (r < 0 && errno == EINTR);
    if (r == pid_) {
      record(status);
    } else {
      exit_ = child_exit{true, SIGKILL};  // already reaped elsewhere: nothing left running
    }
  }

  pid_t pid_;
  fd_guard go_;
  fd_guard exec_;
  fd_guard channel_;     // the parent's end of the socketpair; -1 without talk
  std::string pending_;  // read from the channel, not yet handed out as a line
  bool closed_ = false;  // the child's end is closed: nothing more will come
  std::optional<child_exit> exit_;
};

class linux_launcher final : public process_launcher {
 public:
  std::unique_ptr<child_process> launch(const child_spec& spec) override {
    // Everything the child needs, before the fork.
    std::vector<std::string> words;
    words.push_back(spec.program.string());
    words.insert(words.end(), spec.args.begin(), spec.args.end());
    std::vector<char*> argv;
    for (auto& w : words)
      argv.push_back(w.data());
    argv.push_back(nullptr);
    const fd_guard out(spec.talk ? -1 : open_output(spec.out_file));
    const fd_guard err(open_output(spec.err_file));
    fd_guard parent_end;
    fd_guard child_end;
    if (spec.talk) {
      int ends[2];
      if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends) != 0) {
        const int e = errno;
        throw os_error(e, "socketpair");
      }
      parent_end.reset(ends[0]);
      child_end.reset(ends[1]);
    }
    int go[2];
    int exec[2];
    if (::pipe2(go, O_CLOEXEC) != 0) {
      const int e = errno;
      throw os_error(e, "pipe");
    }
    fd_guard go_read(go[0]);
    fd_guard go_write(go[1]);
    if (::pipe2(exec, O_CLOEXEC) != 0) {
      const int e = errno;
      throw os_error(e, "pipe");
    }
    fd_guard exec_read(exec[0]);
    fd_guard exec_write(exec[1]);
    const pid_t pid = ::fork();
    if (pid < 0) {
      const int e = errno;
      throw os_error(e, "fork");
    }
    if (pid == 0) {
      // The child: wait to be released, then become the program. It holds no write end of its own
      // pipe, so it reads end of file when the parent closes it without releasing it.
      ::close(go_write.get());
      ::close(exec_read.get());
      char go_byte = 0;
      ssize_t got = 0;
      do {
        got = ::read(go_read.get(), &go_byte, 1);
      } while (got < 0 && errno == EINTR);
      if (got != 1) ::_exit(127);  // the parent gave up on it
      int e = 0;
      // With talk: the channel is stdin and stdout (dup2 clears close-on-exec on the copies), and
      // a process group of its own keeps the terminal's Ctrl-C from reaching it.
      const bool redirected = spec.talk ? ::dup2(child_end.get(), STDIN_FILENO) >= 0 &&
                                              ::dup2(child_end.get(), STDOUT_FILENO) >= 0 &&
                                              ::setpgid(0, 0) == 0
                                        : ::dup2(out.get(), STDOUT_FILENO) >= 0;
      if (!redirected || ::dup2(err.get(), STDERR_FILENO) < 0) {
        e = errno;
      } else {
        ::execv(argv[0], argv.data());
        e = errno;
      }
      [[maybe_unused]] const ssize_t w = ::write(exec_write.get(), &e, sizeof(e));
      ::_exit(127);
    }
    return std::make_unique<linux_child>(pid, go_write.release(), exec_read.release(),
                                         parent_end.release());
  }
};

}  // namespace

std::string child_exit::describe() const {
  if (!signaled) return fmt::format("exited with status {}", code);
  const char* name = ::sigabbrev_np(code);
  return fmt::format("was killed by signal {} ({}{})", code,
                     name != nullptr ? fmt::format("SIG{}: ", name) : std::string(),
                     ::strsignal(code));
}

std::unique_ptr<process_launcher> make_native_launcher() {
  return std::make_unique<linux_launcher>();
}

std::string cannot_execute(const std::filesystem::path& program) {
  struct stat st {};
  if (::stat(program.c_str(), &st) != 0) {
    const int err = errno;
    return errno_text(err);
  }
  if (S_ISDIR(st.st_mode)) return "it is a directory";
  if (!S_ISREG(st.st_mode)) return "it is not a regular file";
  if (::access(program.c_str(), X_OK) != 0) {
    const int err = errno;
    return "not executable: " + errno_text(err);
  }
  return {};
}

}  // namespace harness::platform
