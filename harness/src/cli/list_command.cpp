// `harness list`: the registered workloads, their arguments and descriptions.
#include <fmt/format.h>
#include <fmt/ostream.h>
#include <CLI/CLI.hpp>

#include "cli.hpp"
#include "harness/workload.hpp"

namespace harness::cli {

void add_list_command(CLI::App& root, context& ctx) {
  CLI::App* list = root.add_subcommand("list", "List the registered workloads");
  list->callback([&ctx] {
    ctx.action = [&ctx] {
      const auto& all = global_registry().all();
      fmt::print(ctx.out, "{:<20} {:<22} {}\n", "workload", "argument (default)", "description");
      for (const workload& w : all) {
        std::string arg = "none";
        if (w.takes_arg()) {
          arg = w.default_arg() ? fmt::format("integer ({})", *w.default_arg())
                                : std::string("integer (required)");
        }
        fmt::print(ctx.out, "{:<20} {:<22} {}{}\n", w.name(), arg, w.description(),
                   w.is_default() ? " [default]" : "");
      }
      fmt::print(ctx.out, "\n{} workloads; run one with: harness -w NAME[/ARG]\n", all.size());
      return exit_ok;
    };
  });
}

}  // namespace harness::cli
