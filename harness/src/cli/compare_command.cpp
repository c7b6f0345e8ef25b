// `harness compare A.json B.json`, or `-a A1.json -a A2.json -b B1.json ...`: did side B make each
// workload faster or slower than side A?
//
// The files are JSON reports of `harness --format json` or `-o FILE.json`, one process each.
// A gate for CI: exit 0 when B is slower in no workload beyond --threshold, exit_slower (4) when
// it is in one or more. A file that cannot be read or is not a harness report, and two sides
// that name no workload in common, are usage errors (exit 2) naming them.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <CLI/CLI.hpp>

#include <charconv>
#include <cmath>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "cli.hpp"
#include "cli/report_files.hpp"
#include "harness/compare.hpp"
#include "harness/errors.hpp"
#include "report/format_writers.hpp"
#include "run_flags.hpp"

namespace harness::cli {
namespace {

// "2%" -> 0.02. The percent sign is required: a bare "0.02" could mean 2% or 0.02%.
double parse_threshold(const std::string& text) {
  return parse_percentage(text, "--threshold", true,
                          "a percentage of 0 or more with its percent sign, such as 2% or 0.5% "
                          "(B's min that much above A's); 0% (the default) gates on any slower "
                          "outcome");
}

std::string sources(const std::vector<compare::run_file>& runs) {
  std::vector<std::string> parts;
  for (const auto& run : runs)
    parts.push_back(run.source);
  return fmt::format("{}", fmt::join(parts, ", "));
}

std::string listed(const std::vector<std::string>& names) {
  return names.empty() ? "none" : fmt::format("{}", fmt::join(names, ", "));
}

}  // namespace

void add_compare_command(CLI::App& root, context& ctx) {
  struct compare_flags {
    std::vector<std::string> pair;
    std::vector<std::string> a;
    std::vector<std::string> b;
    std::string threshold = "0%";
    std::string format = "text";
    bool allow_not_compared = false;
  };
  auto flags = std::make_shared<compare_flags>();
  CLI::App* cmd = root.add_subcommand(
      "compare", fmt::format("Compare JSON reports ({} --format json), one side against the other: "
                             "per workload, the prepared minimums with their floor intervals, and "
                             "whether both sides saw the same CPU speed",
                             ctx.program));
  cmd->add_option("REPORTS", flags->pair,
                  "Two reports: A (e.g. the old build's) and B (the new build's)");
  cmd->add_option("-a", flags->a,
                  "A report of side A; repeat it (one report per process) to include the "
                  "run-to-run variation");
  cmd->add_option("-b", flags->b, "A report of side B; repeat it likewise");
  cmd->add_option("--threshold", flags->threshold,
                  "Exit 4 when B is slower in a workload by more than this percentage of A's min "
                  "(default 0%: any slower outcome); e.g. 2%");
  cmd->add_flag("--allow-not-compared", flags->allow_not_compared,
                "Exit 0 (not 6) when a workload could not be compared at all (too few samples, "
                "or a side without its prepared phase); it is still listed");
  cmd->add_option("--format", flags->format,
                  "text (the default), json, or html (a page drawing each workload's floors)");
  cmd->footer(fmt::format(
      "Exit codes: 0 every workload compared and none B slower beyond --threshold; 4 one or "
      "more slower; 6 none slower but one or more not compared (--allow-not-compared: 0); 2 bad "
      "input.\n"
      "Examples:\n"
      "  {0} compare old.json new.json\n"
      "  {0} compare --threshold 2% --format json old.json new.json\n"
      "  {0} compare --format html old.json new.json > compare.html\n"
      "  {0} compare -a old1.json -a old2.json -a old3.json -b new1.json -b new2.json -b "
      "new3.json",
      ctx.program));
  cmd->callback([&ctx, flags] {
    ctx.action = [&ctx, flags] {
      const bool by_side = !flags->a.empty() || !flags->b.empty();
      if (by_side ? (!flags->pair.empty() || flags->a.empty() || flags->b.empty())
                  : flags->pair.size() != 2) {
        throw usage_error(fmt::format(
            "compare: give two reports ({} compare A.json B.json) or at least one report per "
            "side (-a A.json ... -b B.json ...); got {} positional, {} with -a, {} with -b",
            ctx.program, flags->pair.size(), flags->a.size(), flags->b.size()));
      }
      const double threshold = parse_threshold(flags->threshold);
      if (flags->format != "text" && flags->format != "json" && flags->format != "html") {
        throw usage_error(fmt::format(
            "--format: invalid value '{}': compare writes text, json or html", flags->format));
      }
      const auto read = [](const std::vector<std::string>& paths) {
        std::vector<compare::run_file> runs;
        for (const auto& path : paths) {
          std::ifstream in = open_report_file(path);
          runs.push_back(compare::read_run(in, path));
        }
        return runs;
      };
      const auto a = read(by_side ? flags->a : std::vector<std::string>{flags->pair[0]});
      const auto b = read(by_side ? flags->b : std::vector<std::string>{flags->pair[1]});
      const compare::comparison c = compare::compare_runs(a, b);
      if (c.workloads.empty() && c.not_compared.empty()) {
        // Then every workload is on one side only.
        throw usage_error(fmt::format(
            "compare: the two sides name no workload in common, so there is nothing to compare: "
            "A ({}) has {}; B ({}) has {}",
            sources(a), listed(c.only_in_a), sources(b), listed(c.only_in_b)));
      }
      const compare::gate_result gate = compare::apply_gate(c, threshold);
      const int code = !gate.slower.empty() ? exit_slower
                       : !gate.not_compared.empty() && !flags->allow_not_compared
                           ? exit_not_compared
                           : exit_ok;
      if (flags->format == "json") {
        compare::write_json(ctx.out, c, a, b, gate, code);
      } else if (flags->format == "html") {
        compare::write_html(ctx.out, c, a, b, gate, code);
      } else {
        compare::write_text(ctx.out, c, a, b, gate, code,
                            report_detail::console_width(out_style(ctx)));
      }
      return code;
    };
  });
}

}  // namespace harness::cli
