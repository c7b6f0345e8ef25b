// `harness worker`: a hidden command that every binary linking harness::main has, run by the
// parent of `harness ab --a BIN --b BIN` (ab/worker_side.hpp). It reads the parent's lines on
// stdin and answers each on stdout in the worker protocol (docs/ab.md); its logs go to stderr. It
// is a thin loop around a local_side: the samples are taken by the sampler's own timed path, on
// the clock of this binary, on whatever CPU and priority the parent gave the process (it pins
// nothing itself). Internal header of cli/.
#pragma once

#include <functional>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "ab/local_side.hpp"
#include "cli.hpp"

namespace harness::cli {

// One worker's state between the parent's lines: nothing before hello, its workload's side after.
class worker {
 public:
  // `build` gives the fingerprint of this executable, asked once, at hello.
  worker(const machine& host, std::function<std::string()> build);
  ~worker();
  worker(const worker&) = delete;
  worker& operator=(const worker&) = delete;

  // The reply to one line of the parent, without its line break. After quit, or after any error
  // reply, the worker is done: it answers nothing more.
  std::string answer(std::string_view line);
  bool done() const noexcept { return exit_code_.has_value(); }
  // What the process exits with once done: 0 after quit, 2 the parent asked for what this binary
  // does not have (a workload, a clock, a protocol version), 3 the workload threw, 1 otherwise.
  int exit_code() const noexcept { return exit_code_.value_or(1); }

 private:
  std::string hello(std::string_view line);

  const machine& host_;
  std::function<std::string()> build_;
  std::unique_ptr<platform::os_interface> os_;
  std::optional<workload_instance> workload_;
  std::optional<clock_facts> facts_;
  std::unique_ptr<local_side> side_;
  std::optional<int> exit_code_;
};

// Serves the parent: a line read from `in`, its answer written to `out` and flushed, until the
// worker is done or `in` ends (the parent went away: exit 1). Returns the exit code.
int serve_worker(std::istream& in, std::ostream& out, const machine& host,
                 std::function<std::string()> build);

// The build a worker on `host` answers hello with: the fingerprint of the machine's executable
// (machine::executable_path), "" when it cannot be read.
std::function<std::string()> build_of(const machine& host);

void add_worker_command(CLI::App& root, context& ctx);

}  // namespace harness::cli
