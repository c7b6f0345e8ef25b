// The command line: `harness [run] ...`, `harness list`, and the other subcommands.
//
// Each subcommand lives in its own file and registers itself on the root CLI11 app through an
// add_*_command function. Parsing only records what to do (context::action); the action runs after
// parsing succeeded, so a usage error never starts a run.
#pragma once

#include <functional>
#include <iosfwd>

namespace CLI {
class App;
}

namespace harness::cli {

// Exit codes of the `harness` command, documented in the README.
inline constexpr int exit_ok = 0;
inline constexpr int exit_failure = 1;          // an environment or I/O failure
inline constexpr int exit_usage = 2;            // bad command line or bad input
inline constexpr int exit_workload_failed = 3;  // a workload threw
inline constexpr int exit_sigint = 130;
inline constexpr int exit_sigterm = 143;

struct context {
  std::ostream& out;
  std::ostream& err;
  // Set by the subcommand that was chosen; returns the exit code. May throw harness::usage_error.
  std::function<int()> action;
};

// Registers `run`. Its options also live on the root app so that `harness -w x` means `harness run
// -w x`; the action is the default when no subcommand is given.
void add_run_command(CLI::App& root, context& ctx);
void add_list_command(CLI::App& root, context& ctx);
void add_clocks_command(CLI::App& root, context& ctx);
void add_doctor_command(CLI::App& root, context& ctx);
void add_compare_command(CLI::App& root, context& ctx);

// Parses argv and runs the chosen subcommand; returns the process exit code.
int run_cli(int argc, const char* const* argv, std::ostream& out, std::ostream& err);

}  // namespace harness::cli
