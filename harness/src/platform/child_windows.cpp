// Windows children (child_process.hpp): CreateProcess with CREATE_SUSPENDED, the child's affinity
// and priority class set and read back on its handle (SetProcessAffinityMask, SetPriorityClass,
// and THREAD_PRIORITY_HIGHEST or TIME_CRITICAL for its first thread), then ResumeThread.
//
// Windows has no signals to pass on: stop() ends the child (TerminateProcess), as Ctrl-C in a
// console would have reached it anyway. Exit codes of 0xC0000000 and above are the exceptions a
// crash ends a process with.
//
// A child the parent talks to gets two pipes: its stdin an anonymous pipe the parent writes, its
// stdout a named pipe whose parent end is overlapped, so read_line waits for it on an event with a
// time limit (WaitForSingleObject); an unfinished read stays pending into the next call. It starts
// in a new process group (CREATE_NEW_PROCESS_GROUP), which also turns Ctrl-C off in it.
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <system_error>
#include <utility>

#include "base/check.hpp"
#include "platform/child_process.hpp"
#include "platform/win32_calls.hpp"

namespace harness::platform {
namespace {

// `code`: GetLastError() read by the caller right after the failed call, before any string is
// made (errors.md): a message built first may allocate, and an allocation may change it.
std::system_error win32_failure(DWORD code, const std::string& what) {
  return std::system_error(static_cast<int>(code), std::system_category(),
                           what + ": " + win32_error_text(code));
}

// Whether a call succeeded, and GetLastError() right after it when it did not.
struct call_result {
  bool ok;
  DWORD error;  // meaningful only when !ok
};

call_result checked(bool ok) {
  return {ok, ok ? DWORD{0} : GetLastError()};
}

step_result outcome(std::string action, call_result call) {
  step_result r{std::move(action), call.ok, 0, {}};
  if (!call.ok) {
    r.error_code = static_cast<int>(call.error);
    r.reason = win32_error_text(call.error);
  }
  return r;
}

// One argument as CommandLineToArgvW and the C runtime read it back.
std::string quoted(const std::string& arg) {
  if (!arg.empty() && arg.find_first_of(" \t\n\v\"") == std::string::npos) return arg;
  std::string out = "\"";
  std::size_t backslashes = 0;
  for (const char c : arg) {
    if (c == '\\') {
      ++backslashes;
      continue;
    }
    out.append(c == '"' ? backslashes * 2 + 1 : backslashes, '\\');
    backslashes = 0;
    out += c;
  }
  out.append(backslashes * 2, '\\');
  return out + "\"";
}

class handle_guard {
 public:
  explicit handle_guard(HANDLE h = nullptr) noexcept : h_(h) {}
  ~handle_guard() { reset(); }
  handle_guard(const handle_guard&) = delete;
  handle_guard& operator=(const handle_guard&) = delete;
  handle_guard(handle_guard&& other) noexcept : h_(other.release()) {}
  handle_guard& operator=(handle_guard&& other) noexcept {
    reset(other.release());
    return *this;
  }
  HANDLE get() const noexcept { return h_; }
  HANDLE release() noexcept { return std::exchange(h_, nullptr); }
  void reset(HANDLE h = nullptr) noexcept {
    if (h_ != nullptr && h_ != INVALID_HANDLE_VALUE) CloseHandle(h_);
    h_ = h;
  }

 private:
  HANDLE h_;
};

// The two pipes of a child the parent talks to; the child's ends are inheritable, the parent's not.
struct channel_handles {
  handle_guard parent_write;  // the child's stdin
  handle_guard child_read;
  handle_guard parent_read;  // the child's stdout: overlapped
  handle_guard child_write;
  handle_guard read_done;  // the event of the parent's overlapped reads
};

channel_handles make_channel() {
  channel_handles c;
  SECURITY_ATTRIBUTES inherit{sizeof(SECURITY_ATTRIBUTES), nullptr, TRUE};
  HANDLE read_end = nullptr;
  HANDLE write_end = nullptr;
  if (!CreatePipe(&read_end, &write_end, &inherit, 0)) {
    const DWORD code = GetLastError();
    throw win32_failure(code, "CreatePipe");
  }
  c.child_read.reset(read_end);
  c.parent_write.reset(write_end);
  if (!SetHandleInformation(c.parent_write.get(), HANDLE_FLAG_INHERIT, 0)) {
    const DWORD code = GetLastError();
    throw win32_failure(code, "SetHandleInformation");
  }
  // Anonymous pipes cannot be overlapped: the child's stdout is a named pipe of its own name.
  static std::atomic<unsigned> counter{0};
  const std::wstring name = std::filesystem::path(fmt::format(R"(\\.\pipe\harness-{}-{})",
                                                              GetCurrentProcessId(), counter++))
                                .wstring();
  const HANDLE server = CreateNamedPipeW(
      name.c_str(), PIPE_ACCESS_INBOUND | FILE_FLAG_OVERLAPPED | FILE_FLAG_FIRST_PIPE_INSTANCE,
      PIPE_TYPE_BYTE | PIPE_READMODE_BYTE | PIPE_WAIT, 1, 1 << 16, 1 << 16, 0, nullptr);
  if (server == INVALID_HANDLE_VALUE) {
    const DWORD code = GetLastError();
    throw win32_failure(code, "CreateNamedPipe");
  }
  c.parent_read.reset(server);
  const HANDLE client = CreateFileW(name.c_str(), GENERIC_WRITE, 0, &inherit, OPEN_EXISTING,
                                    FILE_ATTRIBUTE_NORMAL, nullptr);
  if (client == INVALID_HANDLE_VALUE) {
    const DWORD code = GetLastError();
    throw win32_failure(code, "CreateFile of the child's stdout");
  }
  c.child_write.reset(client);
  const HANDLE event = CreateEventW(nullptr, TRUE, FALSE, nullptr);
  const DWORD event_error = event != nullptr ? DWORD{0} : GetLastError();
  c.read_done.reset(event);
  if (event == nullptr) throw win32_failure(event_error, "CreateEvent");
  return c;
}

HANDLE open_output(const std::filesystem::path& path) {
  SECURITY_ATTRIBUTES inherit{sizeof(SECURITY_ATTRIBUTES), nullptr, TRUE};
  const std::wstring name = path.wstring();  // not a temporary freed before GetLastError()
  const HANDLE h = CreateFileW(name.c_str(), GENERIC_WRITE, FILE_SHARE_READ, &inherit,
                               CREATE_ALWAYS, FILE_ATTRIBUTE_NORMAL, nullptr);
  if (h == INVALID_HANDLE_VALUE) {
    const DWORD code = GetLastError();
    throw win32_failure(code, "cannot create '" + path.string() + "'");
  }
  return h;
}

class windows_child final : public child_process {
 public:
  windows_child(PROCESS_INFORMATION pi, HANDLE to_child, HANDLE from_child, HANDLE read_done)
      : pi_(pi), to_child_(to_child), from_child_(from_child), event_(read_done) {
    overlapped_.hEvent = event_.get();
  }
  ~windows_child() override {
    if (!exit_) kill();
    if (reading_) {  // the pending read writes into buffer_: finish it before the buffer goes
      CancelIo(from_child_.get());
      DWORD n = 0;
      GetOverlappedResult(from_child_.get(), &overlapped_, &n, TRUE);
    }
    CloseHandle(pi_.hThread);
    CloseHandle(pi_.hProcess);
  }

  int id() const override { return static_cast<int>(pi_.dwProcessId); }

  cpu_list affinity() override {
    DWORD_PTR process_mask = 0;
    DWORD_PTR system_mask = 0;
    if (!GetProcessAffinityMask(pi_.hProcess, &process_mask, &system_mask)) {
      const DWORD code = GetLastError();
      throw win32_failure(code, "GetProcessAffinityMask of the child");
    }
    return mask_cpus(process_mask);
  }

  std::string describe_priority() override {
    const DWORD c = GetPriorityClass(pi_.hProcess);
    const DWORD c_error = c != 0 ? DWORD{0} : GetLastError();
    const int t = GetThreadPriority(pi_.hThread);
    return fmt::format(
        "{}, {}",
        c != 0 ? priority_class_name(c) : "priority class unreadable: " + win32_error_text(c_error),
        t != THREAD_PRIORITY_ERROR_RETURN ? thread_priority_name(t)
                                          : std::string("thread unreadable"));
  }

  step_result set_affinity(const cpu_list& cpus) override {
    DWORD_PTR mask = 0;
    for (const int cpu : cpus) {
      if (cpu >= 0 && cpu < 64) mask |= DWORD_PTR{1} << cpu;
    }
    const call_result set = checked(SetProcessAffinityMask(pi_.hProcess, mask) != 0);
    return outcome(
        cpus.size() == 1
            ? fmt::format("pin to CPU {} (SetProcessAffinityMask)", cpus.front())
            : fmt::format("allow CPUs {} (SetProcessAffinityMask)", format_cpu_list(cpus)),
        set);
  }

  std::vector<step_result> raise_priority(priority_level level) override {
    std::vector<step_result> steps;
    if (level == priority_level::normal) return steps;
    const bool realtime = level == priority_level::realtime;
    const DWORD wanted = realtime ? REALTIME_PRIORITY_CLASS : HIGH_PRIORITY_CLASS;
    const call_result class_set = checked(SetPriorityClass(pi_.hProcess, wanted) != 0);
    step_result c =
        outcome(fmt::format("{} (SetPriorityClass)", priority_class_name(wanted)), class_set);
    // Windows may grant less than asked (HIGH for REALTIME without the privilege): read it back.
    if (const DWORD now = GetPriorityClass(pi_.hProcess); c.applied && now != wanted) {
      c.applied = false;
      c.reason = fmt::format("Windows set {} instead", priority_class_name(now));
    }
    steps.push_back(std::move(c));
    const int thread = realtime ? THREAD_PRIORITY_TIME_CRITICAL : THREAD_PRIORITY_HIGHEST;
    const call_result thread_set = checked(SetThreadPriority(pi_.hThread, thread) != 0);
    steps.push_back(
        outcome(fmt::format("{} (SetThreadPriority)", thread_priority_name(thread)), thread_set));
    return steps;
  }

  void resume() override {
    if (ResumeThread(pi_.hThread) == static_cast<DWORD>(-1)) {
      const DWORD code = GetLastError();
      throw win32_failure(code, "ResumeThread of the child");
    }
  }

  std::optional<child_exit> poll() override {
    if (!exit_ && WaitForSingleObject(pi_.hProcess, 0) == WAIT_OBJECT_0) record();
    return exit_;
  }

  void stop(int) override {
    if (!exit_) TerminateProcess(pi_.hProcess, 1);
  }

  void kill() override {
    if (exit_) return;
    TerminateProcess(pi_.hProcess, 1);
    WaitForSingleObject(pi_.hProcess, INFINITE);
    record();
  }

  void send(std::string_view text) override {
    HARNESS_CHECK(to_child_.get() != nullptr, "send() to a child launched without talk");
    while (!text.empty()) {
      DWORD written = 0;
      const auto chunk = static_cast<DWORD>(std::min<std::size_t>(text.size(), 1 << 20));
      if (!WriteFile(to_child_.get(), text.data(), chunk, &written, nullptr)) {
        const DWORD code = GetLastError();
        throw win32_failure(code, "cannot write to the child");
      }
      text.remove_prefix(written);
    }
  }

  read_status read_line(std::string& line, std::chrono::milliseconds limit) override {
    HARNESS_CHECK(from_child_.get() != nullptr, "read_line() from a child launched without talk");
    const ULONGLONG deadline = GetTickCount64() + static_cast<ULONGLONG>(limit.count());
    for (;;) {
      if (const std::optional<read_status> taken = take_line(pending_, closed_, line))
        return *taken;
      if (!reading_) {
        ResetEvent(event_.get());
        const call_result read = checked(
            ReadFile(from_child_.get(), buffer_, sizeof(buffer_), nullptr, &overlapped_) != 0);
        if (read.ok || read.error == ERROR_IO_PENDING) {
          reading_ = true;  // done or under way: the event says which
        } else if (read.error == ERROR_BROKEN_PIPE) {
          closed_ = true;
          continue;
        } else {
          throw win32_failure(read.error, "cannot read the child's output");
        }
      }
      const ULONGLONG now = GetTickCount64();
      const DWORD left =
          now >= deadline ? 0
                          : static_cast<DWORD>(std::min<ULONGLONG>(deadline - now, INFINITE - 1));
      const DWORD waited = WaitForSingleObject(event_.get(), left);
      if (waited == WAIT_TIMEOUT) return read_status::timed_out;
      if (waited != WAIT_OBJECT_0) {
        const DWORD code = GetLastError();
        throw win32_failure(code, "cannot wait for the child's output");
      }
      reading_ = false;
      DWORD n = 0;
      if (!GetOverlappedResult(from_child_.get(), &overlapped_, &n, FALSE)) {
        const DWORD code = GetLastError();
        if (code == ERROR_BROKEN_PIPE) {
          closed_ = true;
          continue;
        }
        throw win32_failure(code, "cannot read the child's output");
      }
      pending_.append(buffer_, n);
    }
  }

 private:
  void record() {
    DWORD code = 0;
    GetExitCodeProcess(pi_.hProcess, &code);
    exit_ = child_exit{false, static_cast<int>(code)};
  }

  PROCESS_INFORMATION pi_;
  handle_guard to_child_;    // the child's stdin; nullptr without talk
  handle_guard from_child_;  // the child's stdout, overlapped; nullptr without talk
  handle_guard event_;
  OVERLAPPED overlapped_{};
  bool reading_ = false;  // a read into buffer_ is under way
  char buffer_[4096];
  std::string pending_;
  bool closed_ = false;
  std::optional<child_exit> exit_;
};

class windows_launcher final : public process_launcher {
 public:
  std::unique_ptr<child_process> launch(const child_spec& spec) override {
    std::string command = quoted(spec.program.string());
    for (const std::string& arg : spec.args) {
      command += ' ';  // (not " " + quoted(arg): GCC 12's -Wrestrict misreads that with -O3)
      command += quoted(arg);
    }
    const handle_guard out(spec.talk ? nullptr : open_output(spec.out_file));
    const handle_guard err(open_output(spec.err_file));
    channel_handles channel;
    if (spec.talk) channel = make_channel();
    STARTUPINFOW si{};
    si.cb = sizeof(si);
    si.dwFlags = STARTF_USESTDHANDLES;
    si.hStdInput = spec.talk ? channel.child_read.get() : GetStdHandle(STD_INPUT_HANDLE);
    si.hStdOutput = spec.talk ? channel.child_write.get() : out.get();
    si.hStdError = err.get();
    std::wstring line = std::filesystem::path(command).wstring();
    PROCESS_INFORMATION pi{};
    const DWORD flags = CREATE_SUSPENDED | (spec.talk ? CREATE_NEW_PROCESS_GROUP : 0);
    // The program's name is a local: a temporary freed at the end of the call's statement would
    // run before GetLastError() is read.
    const std::wstring program = spec.program.wstring();
    if (!CreateProcessW(program.c_str(), line.data(), nullptr, nullptr, TRUE, flags, nullptr,
                        nullptr, &si, &pi)) {
      const DWORD code = GetLastError();
      throw win32_failure(code, "CreateProcess");
    }
    // The child's ends close here with `channel`: the parent then sees the child's end of file.
    return std::make_unique<windows_child>(pi, channel.parent_write.release(),
                                           channel.parent_read.release(),
                                           channel.read_done.release());
  }
};

}  // namespace

std::string child_exit::describe() const {
  const auto value = static_cast<std::uint32_t>(code);
  if (value >= 0xC0000000u) return fmt::format("ended with exception 0x{:08X} (a crash)", value);
  return fmt::format("exited with status {}", code);
}

std::unique_ptr<process_launcher> make_native_launcher() {
  return std::make_unique<windows_launcher>();
}

std::string cannot_execute(const std::filesystem::path& program) {
  std::error_code ec;
  const auto status = std::filesystem::status(program, ec);
  if (!std::filesystem::exists(status)) return "No such file or directory";
  if (std::filesystem::is_directory(status)) return "it is a directory";
  if (!std::filesystem::is_regular_file(status)) return "it is not a regular file";
  return {};
}

}  // namespace harness::platform
