// The command line: `harness [run] ...`, `harness list`, and the other subcommands.
//
// Each subcommand lives in its own file and registers itself on the root CLI11 app through an
// add_*_command function. Parsing only records what to do (context::action); the action runs after
// parsing succeeded, so a usage error never starts a run.
#pragma once

#include <filesystem>
#include <functional>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "harness/clock.hpp"
#include "harness/clock_survey.hpp"
#include "harness/doctor.hpp"
#include "harness/platform.hpp"
#include "harness/run_report.hpp"
#include "harness/workload.hpp"

namespace CLI {
class App;
class Validator;
}  // namespace CLI

namespace harness {
struct console_style;
}  // namespace harness

namespace harness::platform {
class process_launcher;
struct path_facts;
}  // namespace harness::platform

namespace harness::cli {

// Exit codes of the `harness` command, documented in the README.
inline constexpr int exit_ok = 0;
inline constexpr int exit_failure = 1;  // an environment or I/O failure, or the harness failed
inline constexpr int exit_usage = 2;    // bad command line or bad input
inline constexpr int exit_workload_failed = 3;  // a workload threw
inline constexpr int exit_slower = 4;  // compare: B slower beyond --threshold in a workload
// gbench: the binary failed as a whole (could not start, crashed, exited non-zero, no JSON)
inline constexpr int exit_binary_failed = 5;
// compare: a workload both sides name could not be compared (without --allow-not-compared)
inline constexpr int exit_not_compared = 6;
inline constexpr int exit_sigint = 130;
inline constexpr int exit_sigterm = 143;

// What every subcommand takes from the machine it runs on: the OS, the clocks, the doctor's checks,
// child processes, the environment and the terminal. run_cli() uses the real one
// (real_machine()); tests give fakes, so a command goes from the command line to its output on a
// fake OS, a fake clock and a fake environment, deterministic and fast.
struct machine {
  std::function<std::unique_ptr<platform::os_interface>()> os;
  // The clock named on the command line (throws usage_error when there is none such), or the
  // default clock for an empty name, with the reason it is the default.
  std::function<const clock_source&(std::string_view name)> clock;
  std::function<std::string()> default_clock_reason;
  std::function<harness::clock_facts(const clock_source&)> measure_clock;
  // The TSC calibration the clock's rate came from, if any.
  std::function<std::optional<clock_calibration>()> calibration;
  // The platform's checks (doctor::run_doctor), and the Linux checks over the tree below
  // options.root that `doctor --root` asks for (doctor::run_tree_doctor).
  std::function<doctor::doctor_report(const doctor::doctor_options&)> doctor;
  std::function<doctor::doctor_report(const doctor::doctor_options&)> tree_doctor;
  std::function<run_context(std::optional<doctor::doctor_summary>)> context;
  std::function<const workload_registry&()> workloads;
  // What starts child processes (`harness gbench`'s binary, `harness ab --a BIN --b BIN`'s
  // workers).
  std::function<std::unique_ptr<platform::process_launcher>()> launcher;
  // `harness clocks`'s survey of every clock source (clock_survey.hpp).
  std::function<std::vector<clock_survey_row>(const survey_settings&)> survey_clocks;
  // The process's environment: HARNESS_HISTORY, the state folder's variables, COLUMNS, NO_COLOR,
  // the locale. Nothing below cli/ reads the environment of its own.
  platform::environment environment;
  // Whether file descriptor `fd` is a terminal, and its width (platform.hpp).
  std::function<bool(int fd)> is_terminal;
  std::function<std::optional<std::size_t>(int fd)> terminal_columns;
  // This program's own file (platform::executable_path()): the build `harness run`'s history keys
  // its floors by, and the build a worker answers hello with, are its fingerprint.
  std::function<std::filesystem::path()> executable_path;
  // What is at a path, without opening it (platform::inspect_path): `doctor --root` looks at the
  // tree it is given through it.
  std::function<platform::path_facts(const std::filesystem::path&)> inspect_path;
  // The process's standard input (std::cin): the parent's lines to `harness worker`.
  std::function<std::istream&()> standard_input;
};
machine real_machine();

// How the console report may dress what it prints on file descriptor `fd` of `host` (1 for
// stdout, 2 for stderr): its terminal and its environment, read here and handed to
// console_style_for() as values.
console_style console_style_of(const machine& host, int fd);

struct context {
  std::ostream& out;
  std::ostream& err;
  const machine& host;
  // Set by the subcommand that was chosen; returns the exit code. May throw harness::usage_error.
  std::function<int()> action;
  // The program as invoked (program_name()): `harness`, or the user's own binary that links
  // harness::main. Help, examples and messages name it.
  std::string program = "harness";
};

// The style of the console report on ctx.out: console_style_of stdout when ctx.out is standard
// output, plain text otherwise (a stream a caller or a test gave).
console_style out_style(const context& ctx);

// The file name of argv[0] without a Windows `.exe`; "harness" when there is none.
std::string program_name(const char* argv0);

// The examples of `--help` for `program` over its own workloads: the default selection's first
// workload (with its default argument), a glob of its name's first word. Empty registry: the
// generic NAME.
std::string examples(std::string_view program, const workload_registry& registry);

// Checks a --cpu value before CLI11 converts it: a CPU number, 0 or more, in our words.
CLI::Validator cpu_number();

// Registers `run`. Its options also live on the root app so that `harness -w x` means `harness run
// -w x`; the action is the default when no subcommand is given.
void add_run_command(CLI::App& root, context& ctx);
void add_list_command(CLI::App& root, context& ctx);
void add_clocks_command(CLI::App& root, context& ctx);
void add_doctor_command(CLI::App& root, context& ctx);
void add_compare_command(CLI::App& root, context& ctx);
void add_report_command(CLI::App& root, context& ctx);  // a JSON report drawn as HTML
void add_gbench_command(CLI::App& root, context& ctx);
void add_ab_command(CLI::App& root, context& ctx);       // is B faster than A (paired rounds)
void add_history_command(CLI::App& root, context& ctx);  // saved runs over commits, regressions

// Parses argv and runs the chosen subcommand on `host` (the real machine by default); returns the
// process exit code.
int run_cli(int argc, const char* const* argv, std::ostream& out, std::ostream& err);
int run_cli(int argc, const char* const* argv, std::ostream& out, std::ostream& err,
            const machine& host);

}  // namespace harness::cli
