// Parsing the command line and mapping errors to exit codes.
#include "cli.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <CLI/CLI.hpp>

#include <charconv>
#include <ostream>
#include <string>
#include <vector>

#include "harness/errors.hpp"

namespace harness::cli {
namespace {

// Every app of the command line: the root and its subcommands, depth first.
std::vector<CLI::App*> apps_of(CLI::App& root) {
  std::vector<CLI::App*> apps{&root};
  for (std::size_t i = 0; i < apps.size(); ++i) {
    for (CLI::App* sub : apps[i]->get_subcommands([](const CLI::App*) { return true; }))
      apps.push_back(sub);
  }
  return apps;
}

bool takes_one_value(const CLI::Option& option) {
  return option.get_items_expected_max() == 1 && option.get_type_size_max() == 1;
}

// CLI11 refuses a single-value option given twice in its own words ("At Most 1 required but
// received 2"), and an unknown argument likewise. Both are let through the parse instead and
// refused afterwards by refuse_repeats_and_extras(), in words that name what was typed.
void prepare_for_our_words(CLI::App& root) {
  for (CLI::App* app : apps_of(root)) {
    for (CLI::Option* option : app->get_options([](const CLI::Option*) { return true; })) {
      if (takes_one_value(*option)) option->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
    }
  }
}

std::string quoted_list(const std::vector<std::string>& values) {
  std::string text;
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i > 0) text += i + 1 == values.size() ? " and " : ", ";
    text += fmt::format("'{}'", values[i]);
  }
  return text;
}

void refuse_repeats_and_extras(CLI::App& root) {
  for (CLI::App* app : apps_of(root)) {
    for (const CLI::Option* option : app->get_options()) {
      if (takes_one_value(*option) && option->count() > 1) {
        throw usage_error(fmt::format("{}: given {} times ({}); it takes one value: give it once",
                                      option->get_name(), option->count(),
                                      quoted_list(option->results())));
      }
    }
  }
  for (CLI::App* app : apps_of(root)) {
    const std::vector<std::string> extras = app->remaining(false);
    if (extras.empty()) continue;
    const std::string command = app == &root ? "harness" : "harness " + app->get_name();
    const std::string& first = extras.front();
    if (first.size() > 1 && first.front() == '-') {
      throw usage_error(
          fmt::format("'{}' is not an option of {}; see {} --help", first, command, command));
    }
    if (app == &root) {
      throw usage_error(
          fmt::format("unexpected argument '{}': give options, after at most one command (run, "
                      "list, clocks, doctor, compare); see harness --help",
                      first));
    }
    throw usage_error(
        fmt::format("unexpected argument '{}' to {}; see {} --help", first, command, command));
  }
}

// CLI11's own words for what is left: a missing value ("--samples: 1 required TEXT missing") is
// said in ours; anything else keeps CLI11's text.
std::string our_words(const CLI::ParseError& e) {
  const std::string text = e.what();
  const auto colon = text.find(": ");
  if (dynamic_cast<const CLI::ArgumentMismatch*>(&e) != nullptr && colon != std::string::npos &&
      text.ends_with(" missing") && text.find(" required ", colon) != std::string::npos) {
    const std::string name = text.substr(0, colon);
    return fmt::format("{}: the value is missing; give one after it, as in {} VALUE", name, name);
  }
  return text;
}

}  // namespace

CLI::Validator cpu_number() {
  return CLI::Validator(
      [](const std::string& text) -> std::string {
        int cpu = 0;
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), cpu);
        if (text.empty() || ec != std::errc{} || end != text.data() + text.size() || cpu < 0) {
          return fmt::format(
              "invalid value '{}': expected a CPU number, 0 or more, such as 1 (harness doctor "
              "lists the CPUs)",
              text);
        }
        return {};
      },
      "CPU");
}

machine real_machine() {
  machine m;
  m.os = [] { return platform::make_native_os(); };
  m.clock = [](std::string_view name) -> const clock_source& {
    return name.empty() ? default_clock() : resolve_clock(name);
  };
  m.default_clock_reason = [] { return default_clock_reason(); };
  m.measure_clock = [](const clock_source& clock) { return measure_clock_facts(clock); };
  m.calibration = [] { return tsc_calibration(); };
  m.doctor = [](const doctor::doctor_options& options) { return doctor::run_doctor(options); };
  m.context = [](std::optional<doctor::doctor_summary> summary) {
    return collect_run_context(std::move(summary));
  };
  m.workloads = []() -> const workload_registry& { return global_registry(); };
  return m;
}

int run_cli(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  static const machine host = real_machine();
  return run_cli(argc, argv, out, err, host);
}

int run_cli(int argc, const char* const* argv, std::ostream& out, std::ostream& err,
            const machine& host) {
  CLI::App app{"harness: precise single-thread measurements, prepared against unprepared",
               "harness"};
  app.set_version_flag("--version", std::string("harness ") + HARNESS_VERSION);
  app.require_subcommand(0, 1);
  app.allow_extras();  // refused in our words after parsing; subcommands inherit it
  context ctx{out, err, host, {}};
  add_run_command(app, ctx);
  add_list_command(app, ctx);
  add_clocks_command(app, ctx);
  add_doctor_command(app, ctx);
  add_compare_command(app, ctx);
  prepare_for_our_words(app);

  try {
    app.parse(argc, argv);
    refuse_repeats_and_extras(app);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e, out, err);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e, out, err);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e, out, err);
  } catch (const CLI::ParseError& e) {
    fmt::print(err, "harness: {}\nRun 'harness --help' for the options.\n", our_words(e));
    return exit_usage;
  } catch (const usage_error& e) {
    fmt::print(err, "harness: {}\n", e.what());
    return exit_usage;
  }

  try {
    return ctx.action ? ctx.action() : exit_ok;
  } catch (const usage_error& e) {
    fmt::print(err, "harness: {}\n", e.what());
    return exit_usage;
  } catch (const std::exception& e) {
    fmt::print(err, "harness: error: the harness itself failed, not the workload: {}\n", e.what());
    return exit_failure;
  }
}

}  // namespace harness::cli
