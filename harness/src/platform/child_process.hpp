// Another program run as a child process, held before it starts so it can be prepared:
// `harness gbench` (gbench/gbench_run.cpp) runs a Google Benchmark binary this way, and `harness ab
// --a BIN --b BIN` its workers (ab/worker_side.hpp), which it talks to.
//
// launch() starts the child held at its entry: on Linux a fork that waits on a pipe before it
// execs the program, on Windows CreateProcess with CREATE_SUSPENDED. While it is held, its
// affinity and priority are set and read back through the child's own id (sched_setaffinity,
// setpriority and sched_getaffinity, getpriority on its pid; SetProcessAffinityMask and
// SetPriorityClass on its handle); both survive exec and are inherited by the threads it starts.
// resume() lets it run. Its stdout and stderr go to the files given, so the harness's own output
// stays its report; or, for a child the parent talks to (child_spec::talk), its stdin and stdout
// are one channel the parent writes lines to (send) and reads lines from with a time limit
// (read_line): on Linux one end of a socketpair, so a write to a child that has gone fails with
// EPIPE instead of raising SIGPIPE in the parent; on Windows a pair of pipes, the parent's ends
// overlapped so a read can wait with a time limit. Such a child starts in a process group of its
// own (Windows: CREATE_NEW_PROCESS_GROUP), so a Ctrl-C at the terminal reaches the parent only,
// which ends the child in its own time. Every OS call of it is behind process_launcher, so tests
// give a fake one. Internal to the harness.
#pragma once

#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "harness/platform.hpp"

namespace harness::platform {

struct child_spec {
  std::filesystem::path program;   // run as given (no PATH search)
  std::vector<std::string> args;   // after the program's own name
  std::filesystem::path out_file;  // its stdout, created or truncated (unused with talk)
  std::filesystem::path err_file;  // its stderr, created or truncated
  // Its stdin and stdout are a channel to the parent (send, read_line), and it runs in a process
  // group of its own.
  bool talk = false;
};

// What read_line found.
enum class read_status {
  line,       // a whole line (or, past child_process::kMaxLine bytes, the first kMaxLine of one)
  closed,     // the child closed its stdout (it exited, most likely); `line` holds any part line
  timed_out,  // nothing complete within the time limit
};

// How a child ended.
struct child_exit {
  bool signaled = false;  // ended by a signal (Linux); Windows: never
  int code = 0;           // its exit status, or the signal's number when signaled

  bool ok() const noexcept { return !signaled && code == 0; }
  // "exited with status 1", "was killed by signal 11 (Segmentation fault)".
  std::string describe() const;
};

class child_process {
 public:
  virtual ~child_process() = default;
  child_process() = default;
  child_process(const child_process&) = delete;
  child_process& operator=(const child_process&) = delete;

  virtual int id() const = 0;
  // Read from the child itself. Throw std::system_error when the system refuses the read.
  virtual cpu_list affinity() = 0;
  virtual std::string describe_priority() = 0;
  // Each says whether the system applied it, as os_interface's do for the harness's own process.
  virtual step_result set_affinity(const cpu_list& cpus) = 0;
  virtual std::vector<step_result> raise_priority(priority_level level) = 0;
  // Lets the held child run its program. Throws std::system_error when it cannot be started (the
  // program could not be executed: its reason).
  virtual void resume() = 0;
  // How it ended, or nullopt while it runs. Does not block.
  virtual std::optional<child_exit> poll() = 0;
  // Passes a stop signal on (SIGINT, SIGTERM; Windows: ends it).
  virtual void stop(int signal_number) = 0;
  // Ends it at once and waits for it (SIGKILL, TerminateProcess); nothing is left running.
  virtual void kill() = 0;

  // A child launched with talk: the longest line read_line gives whole; a longer one (a child
  // that writes garbage without line breaks) is cut there, so memory stays bounded.
  static constexpr std::size_t kMaxLine = std::size_t{1} << 20;
  // Writes all of `text` to the child's stdin. Throws std::system_error when the child no longer
  // reads it (it exited: EPIPE, ERROR_NO_DATA).
  virtual void send(std::string_view text) = 0;
  // The next line the child writes to its stdout, without its line break (nor a '\r' before it),
  // waiting at most `limit`. A stop signal does not end the wait: it is checked between replies.
  // Throws std::system_error when the system refuses the read.
  virtual read_status read_line(std::string& line, std::chrono::milliseconds limit) = 0;
};

class process_launcher {
 public:
  virtual ~process_launcher() = default;
  // Starts the child held before its program runs. Throws std::system_error when the system
  // refuses (no process could be made, an output file could not be created).
  virtual std::unique_ptr<child_process> launch(const child_spec& spec) = 0;
};

// The launcher of the platform the harness was built for.
std::unique_ptr<process_launcher> make_native_launcher();

// The last `lines` lines of a file (a child's stderr), each prefixed with "    | " for showing
// under a message, without a Windows program's '\r'; empty when the file is empty or unreadable.
std::string tail_of(const std::filesystem::path& file, std::size_t lines);

// What read_line() returns from the bytes a child has sent so far (`pending`, from which it is
// taken): the first whole line (without its "\n" or "\r\n"), the first kMaxLine bytes of a longer
// one, or once the child closed its end (`closed`) the rest; nullopt: more must be read first.
std::optional<read_status> take_line(std::string& pending, bool closed, std::string& line);

// Why `program` cannot be run as a child, or "" when it can: it does not exist, is a folder, or
// this user may not execute it. Checked before anything runs.
std::string cannot_execute(const std::filesystem::path& program);

}  // namespace harness::platform
