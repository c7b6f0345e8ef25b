// `harness compare A.json B.json`, or `-a A1.json -a A2.json -b B1.json ...`: did side B make each
// workload faster or slower than side A?
//
// The files are JSON reports of `harness --format json` or `-o FILE.json`, one process each.
// The comparison never fails the command: "slower" is a finding, not an error; a file that cannot
// be read or is not a harness report is a usage error (exit 2) naming it.
#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <memory>
#include <string>
#include <vector>

#include "cli.hpp"
#include "harness/compare.hpp"
#include "harness/errors.hpp"

namespace harness::cli {

void add_compare_command(CLI::App& root, context& ctx) {
  struct compare_flags {
    std::vector<std::string> pair;
    std::vector<std::string> a;
    std::vector<std::string> b;
  };
  auto flags = std::make_shared<compare_flags>();
  CLI::App* cmd = root.add_subcommand(
      "compare",
      "Compare JSON reports (harness --format json), one side against the other: per workload, "
      "the prepared minimums with their floor intervals, and whether both sides saw the same CPU "
      "speed");
  cmd->add_option("REPORTS", flags->pair,
                  "Two reports: A (e.g. the old build's) and B (the new build's)");
  cmd->add_option("-a", flags->a,
                  "A report of side A; repeat it (one report per process) to include the "
                  "run-to-run variation");
  cmd->add_option("-b", flags->b, "A report of side B; repeat it likewise");
  cmd->footer(
      "Examples:\n"
      "  harness compare old.json new.json\n"
      "  harness compare -a old1.json -a old2.json -a old3.json -b new1.json -b new2.json -b "
      "new3.json");
  cmd->callback([&ctx, flags] {
    ctx.action = [&ctx, flags] {
      const bool by_side = !flags->a.empty() || !flags->b.empty();
      if (by_side ? (!flags->pair.empty() || flags->a.empty() || flags->b.empty())
                  : flags->pair.size() != 2) {
        throw usage_error(fmt::format(
            "compare: give two reports (harness compare A.json B.json) or at least one report "
            "per side (-a A.json ... -b B.json ...); got {} positional, {} with -a, {} with -b",
            flags->pair.size(), flags->a.size(), flags->b.size()));
      }
      const auto read = [](const std::vector<std::string>& paths) {
        std::vector<compare::run_file> runs;
        for (const auto& path : paths)
          runs.push_back(compare::read_run(path));
        return runs;
      };
      const auto a = read(by_side ? flags->a : std::vector<std::string>{flags->pair[0]});
      const auto b = read(by_side ? flags->b : std::vector<std::string>{flags->pair[1]});
      compare::write_text(ctx.out, compare::compare_runs(a, b), a, b);
      return exit_ok;
    };
  });
}

}  // namespace harness::cli
