// `harness doctor`: is this machine fit to measure on, and what to change.
//
// Prints one line per check (or a JSON document with --json). The checks never fail the command:
// warnings are facts about the machine, so the exit code is 0 unless the command line was wrong.
// --root runs the Linux checks over another tree holding proc/ and sys/ (for tests and for
// inspecting a copy taken elsewhere), on any platform; without it the platform's own checks run.
#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <filesystem>
#include <memory>
#include <ostream>
#include <stdexcept>
#include <string>

#include "cli.hpp"
#include "harness/doctor.hpp"
#include "harness/errors.hpp"
#include "platform/files.hpp"

namespace harness::cli {
namespace {

// --root must be a directory: a path that is missing, or a file, would give twelve "unknown"
// checks and exit 0, as if it had been read. (A directory without proc/ or sys/ is a tree that
// holds nothing the checks read: each says "unknown" and why.) Looked at on `host`.
void check_root(const machine& host, const std::string& root) {
  if (root.empty())
    throw usage_error("--root: the path is empty; give a directory holding proc/ and sys/");
  const platform::path_facts facts = host.inspect_path(root);
  if (facts.kind == platform::path_kind::missing || facts.kind == platform::path_kind::unknown) {
    throw usage_error(fmt::format(
        "--root: '{}' cannot be read: {}; give a directory holding proc/ and sys/", root,
        facts.kind == platform::path_kind::missing ? std::string("No such file or directory")
                                                   : facts.reason));
  }
  if (facts.kind != platform::path_kind::directory) {
    throw usage_error(fmt::format(
        "--root: '{}' is not a directory; give a directory holding proc/ and sys/", root));
  }
}

}  // namespace

void add_doctor_command(CLI::App& root, context& ctx) {
  struct doctor_flags {
    bool json = false;
    int cpu = -1;
    std::string root = "/";
    CLI::Option* cpu_option = nullptr;
    CLI::Option* root_option = nullptr;
  };
  auto flags = std::make_shared<doctor_flags>();
  CLI::App* cmd = root.add_subcommand(
      "doctor",
      "Check whether this machine is fit to measure on: frequency scaling, load, steal time, "
      "isolation, IRQs, privileges and builds; each check says ok, warn or unknown, what it read "
      "and what to change");
  cmd->add_flag("--json", flags->json, "Print the report as JSON");
  flags->cpu_option =
      cmd->add_option("--cpu", flags->cpu,
                      "CPU to check (default: the least-loaded allowed CPU, avoiding CPU 0)")
          ->check(cpu_number());
  flags->root_option =
      cmd->add_option("--root", flags->root,
                      "Run the Linux checks over proc/ and sys/ below this directory (for tests, "
                      "or a copy of another machine's; on Windows too)");
  cmd->callback([&ctx, flags] {
    ctx.action = [&ctx, flags] {
      doctor::doctor_options options;
      if (flags->root_option->count() > 0) check_root(ctx.host, flags->root);
      options.root = flags->root;
      if (flags->cpu_option->count() > 0) options.cpu = flags->cpu;
      const auto report = [&] {
        try {
          return flags->root_option->count() > 0 ? ctx.host.tree_doctor(options)
                                                 : ctx.host.doctor(options);
        } catch (const doctor::cpu_error& e) {
          // Only --cpu reaches the doctor unchecked: the edge turns its refusal, and nothing
          // else the doctor throws, into a usage error.
          throw usage_error(fmt::format("--cpu: {}", e.what()));
        }
      }();
      if (flags->json) {
        ctx.out << doctor::to_json_text(report) << '\n';
      } else {
        doctor::write_text(ctx.out, report);
      }
      return exit_ok;
    };
  });
}

}  // namespace harness::cli
