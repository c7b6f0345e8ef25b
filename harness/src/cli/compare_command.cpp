// `harness compare A.json B.json`: did run B make each workload faster or slower than run A?
//
// Both files are JSON reports of `harness --format json` or `-o FILE.json`. The comparison never
// fails the command: "slower" is a finding, not an error; a file that cannot be read or is not a
// harness report is a usage error (exit 2) naming it.
#include <CLI/CLI.hpp>

#include <memory>
#include <string>

#include "cli.hpp"
#include "harness/compare.hpp"

namespace harness::cli {

void add_compare_command(CLI::App& root, context& ctx) {
  struct compare_flags {
    std::string a;
    std::string b;
  };
  auto flags = std::make_shared<compare_flags>();
  CLI::App* cmd = root.add_subcommand(
      "compare",
      "Compare two JSON reports (harness --format json): per workload, the prepared minimums with "
      "their floor intervals, and whether both runs saw the same CPU speed");
  cmd->add_option("A", flags->a, "The report to compare against (e.g. the old build's)")
      ->required();
  cmd->add_option("B", flags->b, "The report compared with it (e.g. the new build's)")->required();
  cmd->callback([&ctx, flags] {
    ctx.action = [&ctx, flags] {
      const compare::run_file a = compare::read_run(flags->a);
      const compare::run_file b = compare::read_run(flags->b);
      compare::write_text(ctx.out, compare::compare_runs(a, b), a, b);
      return exit_ok;
    };
  });
}

}  // namespace harness::cli
