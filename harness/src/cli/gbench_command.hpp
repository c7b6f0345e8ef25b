// `harness gbench`'s flags and what its two halves share: gbench_command.cpp (one binary, and
// the command's options) and gbench_vs.cpp (--vs OLD: two builds of a suite, pair by pair).
#pragma once

#include <CLI/CLI.hpp>

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "cli.hpp"
#include "run_flags.hpp"

namespace harness::cli {

struct gbench_flags {
  run_flags run;
  std::string min_time = "50ms";
  bool lock_memory = false;
  std::vector<std::string> command;  // BINARY [ARGS...]
  // --vs OLD: the two binaries compared (gbench/vs.hpp); its own options mean nothing without it.
  std::string vs;
  std::string max_time = "3s";
  std::string target = "0.1%";
  std::string threshold = "0.5%";
  std::string fail_if_slower;
  // Whether a flag was typed: with --vs, -n, --min-time and --warmup have their own defaults, and
  // the options above are refused without it.
  CLI::Option* vs_option = nullptr;
  CLI::Option* samples_option = nullptr;
  CLI::Option* blocks_option = nullptr;
  CLI::Option* min_time_option = nullptr;
  CLI::Option* warmup_option = nullptr;
  std::vector<CLI::Option*> vs_only;
};

// The words of a command line, each quoted for a POSIX shell where it needs it, joined by spaces.
std::string quoted_command(const std::vector<std::string>& words);

// The binary named `what` can be run as a child; usage_error naming it and why not otherwise.
void check_executable(const std::filesystem::path& binary, std::string_view what);

// --vs OLD -- NEW [ARGS...]: the two binaries' benchmarks in paired rounds (gbench_vs.cpp).
int gbench_vs_action(const gbench_flags& f, context& ctx);

}  // namespace harness::cli
