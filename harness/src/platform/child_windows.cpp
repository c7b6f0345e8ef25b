// Windows children (child_process.hpp): CreateProcess with CREATE_SUSPENDED, the child's affinity
// and priority class set and read back on its handle (SetProcessAffinityMask, SetPriorityClass,
// and THREAD_PRIORITY_HIGHEST or TIME_CRITICAL for its first thread), then ResumeThread.
//
// Windows has no signals to pass on: stop() ends the child (TerminateProcess), as Ctrl-C in a
// console would have reached it anyway. Exit codes of 0xC0000000 and above are the exceptions a
// crash ends a process with.
#include <fmt/format.h>

#include <system_error>

#include "platform/child_process.hpp"
#include "platform/win32_calls.hpp"

namespace harness::platform {
namespace {

std::system_error win32_failure(const std::string& what) {
  const DWORD code = GetLastError();
  return std::system_error(static_cast<int>(code), std::system_category(),
                           what + ": " + win32_error_text(code));
}

step_result outcome(std::string action, bool ok) {
  step_result r{std::move(action), ok, 0, {}};
  if (!ok) {
    const DWORD code = GetLastError();
    r.error_code = static_cast<int>(code);
    r.reason = win32_error_text(code);
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
  ~handle_guard() {
    if (h_ != nullptr && h_ != INVALID_HANDLE_VALUE) CloseHandle(h_);
  }
  handle_guard(const handle_guard&) = delete;
  handle_guard& operator=(const handle_guard&) = delete;
  HANDLE get() const noexcept { return h_; }

 private:
  HANDLE h_;
};

HANDLE open_output(const std::filesystem::path& path) {
  SECURITY_ATTRIBUTES inherit{sizeof(SECURITY_ATTRIBUTES), nullptr, TRUE};
  const HANDLE h = CreateFileW(path.wstring().c_str(), GENERIC_WRITE, FILE_SHARE_READ, &inherit,
                               CREATE_ALWAYS, FILE_ATTRIBUTE_NORMAL, nullptr);
  if (h == INVALID_HANDLE_VALUE) throw win32_failure("cannot create '" + path.string() + "'");
  return h;
}

class windows_child final : public child_process {
 public:
  explicit windows_child(PROCESS_INFORMATION pi) : pi_(pi) {}
  ~windows_child() override {
    if (!exit_) kill();
    CloseHandle(pi_.hThread);
    CloseHandle(pi_.hProcess);
  }

  int id() const override { return static_cast<int>(pi_.dwProcessId); }

  cpu_list affinity() override {
    DWORD_PTR process_mask = 0;
    DWORD_PTR system_mask = 0;
    if (!GetProcessAffinityMask(pi_.hProcess, &process_mask, &system_mask))
      throw win32_failure("GetProcessAffinityMask of the child");
    return mask_cpus(process_mask);
  }

  std::string describe_priority() override {
    const DWORD c = GetPriorityClass(pi_.hProcess);
    const int t = GetThreadPriority(pi_.hThread);
    return fmt::format("{}, {}",
                       c != 0 ? priority_class_name(c)
                              : "priority class unreadable: " + win32_error_text(GetLastError()),
                       t != THREAD_PRIORITY_ERROR_RETURN ? thread_priority_name(t)
                                                         : std::string("thread unreadable"));
  }

  step_result set_affinity(const cpu_list& cpus) override {
    DWORD_PTR mask = 0;
    for (const int cpu : cpus) {
      if (cpu >= 0 && cpu < 64) mask |= DWORD_PTR{1} << cpu;
    }
    return outcome(
        cpus.size() == 1
            ? fmt::format("pin to CPU {} (SetProcessAffinityMask)", cpus.front())
            : fmt::format("allow CPUs {} (SetProcessAffinityMask)", format_cpu_list(cpus)),
        SetProcessAffinityMask(pi_.hProcess, mask) != 0);
  }

  std::vector<step_result> raise_priority(priority_level level) override {
    std::vector<step_result> steps;
    if (level == priority_level::normal) return steps;
    const bool realtime = level == priority_level::realtime;
    const DWORD wanted = realtime ? REALTIME_PRIORITY_CLASS : HIGH_PRIORITY_CLASS;
    step_result c = outcome(fmt::format("{} (SetPriorityClass)", priority_class_name(wanted)),
                            SetPriorityClass(pi_.hProcess, wanted) != 0);
    // Windows may grant less than asked (HIGH for REALTIME without the privilege): read it back.
    if (const DWORD now = GetPriorityClass(pi_.hProcess); c.applied && now != wanted) {
      c.applied = false;
      c.reason = fmt::format("Windows set {} instead", priority_class_name(now));
    }
    steps.push_back(std::move(c));
    const int thread = realtime ? THREAD_PRIORITY_TIME_CRITICAL : THREAD_PRIORITY_HIGHEST;
    steps.push_back(outcome(fmt::format("{} (SetThreadPriority)", thread_priority_name(thread)),
                            SetThreadPriority(pi_.hThread, thread) != 0));
    return steps;
  }

  void resume() override {
    if (ResumeThread(pi_.hThread) == static_cast<DWORD>(-1))
      throw win32_failure("ResumeThread of the child");
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

 private:
  void record() {
    DWORD code = 0;
    GetExitCodeProcess(pi_.hProcess, &code);
    exit_ = child_exit{false, static_cast<int>(code)};
  }

  PROCESS_INFORMATION pi_;
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
    const handle_guard out(open_output(spec.out_file));
    const handle_guard err(open_output(spec.err_file));
    STARTUPINFOW si{};
    si.cb = sizeof(si);
    si.dwFlags = STARTF_USESTDHANDLES;
    si.hStdInput = GetStdHandle(STD_INPUT_HANDLE);
    si.hStdOutput = out.get();
    si.hStdError = err.get();
    std::wstring line = std::filesystem::path(command).wstring();
    PROCESS_INFORMATION pi{};
    if (!CreateProcessW(spec.program.wstring().c_str(), line.data(), nullptr, nullptr, TRUE,
                        CREATE_SUSPENDED, nullptr, nullptr, &si, &pi)) {
      throw win32_failure("CreateProcess");
    }
    return std::make_unique<windows_child>(pi);
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
