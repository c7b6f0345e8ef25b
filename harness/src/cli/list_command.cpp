// `harness list`: the registered workloads, their arguments and descriptions.
#include <fmt/format.h>
#include <fmt/ostream.h>
#include <fmt/ranges.h>
#include <CLI/CLI.hpp>

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli.hpp"
#include "harness/duration.hpp"
#include "harness/workload.hpp"

namespace harness::cli {
namespace {

std::vector<std::string> names_of(const workload_registry& registry) {
  std::vector<std::string> names;
  for (const workload_instance& w : registry.default_selection())
    names.push_back(w.display_name());
  return names;
}

// The tag for a workload's min_batch(): its count at the argument a run without one takes (the
// default, or the sweep's first), or what is wrong with it. A function that gives a count out of
// range is the registration's mistake: the list says it (a run of that argument is refused) and
// goes on to the other workloads.
std::string min_batch_tag(const workload& w) {
  if (!w.declares_min_batch()) return {};
  std::optional<std::int64_t> arg;
  if (!w.takes_arg()) {
    arg = 0;
  } else if (w.default_arg()) {
    arg = w.default_arg();
  } else if (!w.default_args().empty()) {
    arg = w.default_args().front();
  }
  if (!arg) return "a minimum count of calls a sample (min_batch)";
  try {
    const auto calls = w.min_batch_for(*arg);
    return calls ? fmt::format("{} calls a sample or more", *calls) : std::string();
  } catch (const std::invalid_argument&) {
    return fmt::format("min_batch() out of range for {}: a run of it is refused", *arg);
  }
}

}  // namespace

void add_list_command(CLI::App& root, context& ctx) {
  CLI::App* list = root.add_subcommand("list", "List the registered workloads");
  list->callback([&ctx] {
    ctx.action = [&ctx] {
      const auto& all = ctx.host.workloads().all();
      fmt::print(ctx.out, "{:<20} {:<26} {}\n", "workload", "argument (default)", "description");
      for (const workload& w : all) {
        std::string arg = "none";
        if (w.takes_arg()) {
          const std::string range = w.min_arg() && w.max_arg()
                                        ? fmt::format("{}..{}", *w.min_arg(), *w.max_arg())
                                    : w.min_arg() ? fmt::format(">= {}", *w.min_arg())
                                    : w.max_arg() ? fmt::format("<= {}", *w.max_arg())
                                                  : std::string("integer");
          const auto& sweep = w.default_args();
          if (!sweep.empty()) {
            // The sweep it runs without an argument: "1000,8000,...,1000000 (5)".
            arg = sweep.size() <= 3 ? fmt::format("{} ({})", range, fmt::join(sweep, ","))
                                    : fmt::format("{} ({},{},...,{}: {})", range, sweep[0],
                                                  sweep[1], sweep.back(), sweep.size());
          } else {
            arg = w.default_arg() ? fmt::format("{} ({})", range, *w.default_arg())
                                  : fmt::format("{} (required)", range);
          }
        }
        // What else the report will show for it: setup, items/s, bytes/s.
        std::vector<std::string> tags;
        if (w.setup() != setup_kind::none) tags.emplace_back(to_string(w.setup()));
        if (w.items_for(w.default_arg().value_or(0))) tags.emplace_back("items/s");
        if (w.bytes_for(w.default_arg().value_or(0))) tags.emplace_back("bytes/s");
        if (w.min_sample_time()) {
          tags.push_back(fmt::format("samples of {} or more",
                                     format_duration(*w.min_sample_time(), micro_spelling::ascii)));
        }
        if (const std::string calls = min_batch_tag(w); !calls.empty()) tags.push_back(calls);
        fmt::print(ctx.out, "{:<20} {:<26} {}{}{}\n", w.name(), arg, w.description(),
                   w.is_default() ? " [default]" : "",
                   tags.empty() ? std::string() : fmt::format(" [{}]", fmt::join(tags, ", ")));
      }
      fmt::print(
          ctx.out, "\n{} workloads; run one with: {} -w NAME[/ARG]{}\n", all.size(), ctx.program,
          all.empty()
              ? std::string()
              : fmt::format(" (without -w: {})", fmt::join(names_of(ctx.host.workloads()), " ")));
      return exit_ok;
    };
  });
}

}  // namespace harness::cli
