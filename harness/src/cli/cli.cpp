// Parsing the command line and mapping errors to exit codes.
#include "cli.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <CLI/CLI.hpp>

#include <charconv>
#include <filesystem>
#include <iostream>
#include <memory>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "harness/errors.hpp"
#include "harness/log.hpp"
#include "harness/report.hpp"
#include "instructions.hpp"
#include "platform/child_process.hpp"
#include "platform/files.hpp"
#include "worker_command.hpp"

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

void refuse_repeats_and_extras(CLI::App& root, const std::string& program) {
  for (CLI::App* app : apps_of(root)) {
    for (const CLI::Option* option : app->get_options()) {
      if (takes_one_value(*option) && option->count() > 1) {
        throw usage_error(fmt::format("{}: given {} times ({}); it takes one value: give it once",
                                      option->get_name(), option->count(),
                                      quoted_list(option->results())));
      }
    }
  }
  // `gbench` and `ab` take none of run's options, which live on the root: CLI11 hands one typed
  // after them to the root, where it would be taken silently.
  for (const CLI::App* chosen : root.get_subcommands()) {
    const std::string name = chosen->get_name();
    if (name != "gbench" && name != "ab") continue;
    // Its own unknown option first: CLI11 may have handed what followed it to the root.
    for (const std::string& extra : chosen->remaining(false)) {
      if (extra.size() > 1 && extra.front() == '-' && extra != "--") {
        throw usage_error(fmt::format("'{}' is not an option of {} {}; see {} {} --help", extra,
                                      program, name, program, name));
      }
    }
    for (const CLI::Option* option : root.get_options()) {
      if (option->count() > 0) {
        throw usage_error(fmt::format(
            "'{}' went to {} run, not {} (given before {}, or not an option of {}); give {}'s "
            "options after {}: see {} {} --help",
            option->get_name(), program, name, name, name, name, name, program, name));
      }
    }
  }
  for (CLI::App* app : apps_of(root)) {
    std::vector<std::string> extras = app->remaining(false);
    // CLI11 2.1 keeps the `--` that ends the options among them (gbench's -- BINARY): no extra.
    std::erase(extras, std::string("--"));
    if (extras.empty()) continue;
    const std::string command = app == &root ? program : program + " " + app->get_name();
    const std::string& first = extras.front();
    if (first.size() > 1 && first.front() == '-') {
      throw usage_error(
          fmt::format("'{}' is not an option of {}; see {} --help", first, command, command));
    }
    if (app == &root) {
      throw usage_error(
          fmt::format("unexpected argument '{}': give options, after at most one command (run, "
                      "list, clocks, doctor, compare, report, gbench, ab); see {} --help",
                      first, program));
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

std::string program_name(const char* argv0) {
  if (argv0 == nullptr) return "harness";
  std::filesystem::path path(argv0);
  std::string ext = path.extension().string();
  for (char& c : ext)
    c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  std::string name = (ext == ".exe" ? path.stem() : path.filename()).string();
  return name.empty() ? "harness" : name;
}

std::string examples(std::string_view program, const workload_registry& registry) {
  const std::vector<workload_instance> defaults = registry.default_selection();
  const workload* first = defaults.empty() ? nullptr : defaults.front().def;
  const std::string name = first != nullptr ? first->name() : "NAME";
  // One workload with an argument: its default, or 1000 when it has none.
  const std::string one = first != nullptr && first->takes_arg()
                              ? fmt::format("{}/{}", name, first->default_arg().value_or(1000))
                              : name;
  // A glob: the name up to its first '_' (or all of it) and a star.
  const std::string prefix =
      name.substr(0, name.find('_') == std::string::npos ? name.size() : name.find('_') + 1);
  std::vector<std::string> default_names;
  for (const workload_instance& d : defaults)
    default_names.push_back(d.def->name());
  const std::vector<std::pair<std::string, std::string>> lines = {
      {"", fmt::format("{}: first call, 20 unprepared, 20 prepared samples",
                       default_names.empty() ? std::string("the default workload")
                                             : fmt::format("{}", fmt::join(default_names, ", ")))},
      {fmt::format("-w {} -n 50", one), first != nullptr && first->takes_arg()
                                            ? "one workload with its argument, 50 samples per phase"
                                            : "one workload, 50 samples per phase"},
      {fmt::format("-w '{}*' -n 5 --warmup 50ms", prefix),
       fmt::format("every workload whose name starts with \"{}\"", prefix)},
      {"-o result.json", "console report on stdout, Google Benchmark JSON in a file"},
      {"--line '{workload} {phase}: min {min}, median {median}'",
       "one line per workload and phase"},
      {"--cpu 1 --priority realtime", "pin to CPU 1 and use SCHED_FIFO (needs root)"},
      {"list", "the registered workloads"},
  };
  std::string text = "Examples:\n";
  const std::size_t column = 43;
  for (const auto& [args, what] : lines) {
    const std::string command = fmt::format("  {}{}{}", program, args.empty() ? "" : " ", args);
    if (command.size() + 1 > column) {
      text += fmt::format("{}\n{:<{}}{}\n", command, "", column, what);
    } else {
      text += fmt::format("{:<{}}{}\n", command, column, what);
    }
  }
  return text;
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
  m.tree_doctor = [](const doctor::doctor_options& options) {
    return doctor::run_tree_doctor(options);
  };
  m.context = [](std::optional<doctor::doctor_summary> summary) {
    return collect_run_context(std::move(summary));
  };
  m.workloads = []() -> const workload_registry& { return global_registry(); };
  m.launcher = [] { return platform::make_native_launcher(); };
  m.survey_clocks = [](const survey_settings& settings) {
    return harness::survey_clocks(all_clocks(), settings);
  };
  m.environment = [](std::string_view name) { return platform::environment_variable(name); };
  m.is_terminal = [](int fd) { return platform::is_terminal(fd); };
  m.terminal_columns = [](int fd) { return platform::terminal_columns(fd); };
  m.executable_path = [] { return platform::executable_path(); };
  m.inspect_path = [](const std::filesystem::path& path) { return platform::inspect_path(path); };
  m.standard_input = []() -> std::istream& { return std::cin; };
  return m;
}

console_style console_style_of(const machine& host, int fd) {
  terminal_facts facts;
  facts.terminal = host.is_terminal(fd);
  if (facts.terminal) facts.columns = host.terminal_columns(fd);
  facts.columns_env = host.environment("COLUMNS");
  facts.no_color = host.environment("NO_COLOR");
  facts.lc_all = host.environment("LC_ALL");
  facts.lc_ctype = host.environment("LC_CTYPE");
  facts.lang = host.environment("LANG");
  return console_style_for(facts);
}

console_style out_style(const context& ctx) {
  return &ctx.out == &std::cout ? console_style_of(ctx.host, 1) : console_style{};
}

int run_cli(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  static const machine host = real_machine();
  return run_cli(argc, argv, out, err, host);
}

int run_cli(int argc, const char* const* argv, std::ostream& out, std::ostream& err,
            const machine& host) {
  const std::string program = program_name(argc > 0 ? argv[0] : nullptr);
  CLI::App app{fmt::format("{}: precise single-thread measurements, prepared against unprepared{}",
                           program, program == "harness" ? "" : " (the harness command line)"),
               program};
  app.set_version_flag("--version", fmt::format("{} (harness {})", program, HARNESS_VERSION));
  app.require_subcommand(0, 1);
  app.allow_extras();  // refused in our words after parsing; subcommands inherit it
  context ctx{out, err, host, {}, program};
  add_run_command(app, ctx);
  add_list_command(app, ctx);
  add_clocks_command(app, ctx);
  add_doctor_command(app, ctx);
  add_compare_command(app, ctx);
  add_report_command(app, ctx);
  add_gbench_command(app, ctx);
  add_ab_command(app, ctx);
  add_history_command(app, ctx);
  add_worker_command(app, ctx);              // hidden: the worker end of `ab --a BIN --b BIN`
  add_count_instructions_command(app, ctx);  // hidden: --instructions' calls under valgrind
  prepare_for_our_words(app);

  try {
    app.parse(argc, argv);
    refuse_repeats_and_extras(app, program);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e, out, err);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e, out, err);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e, out, err);
  } catch (const CLI::ParseError& e) {
    // The help to read is the command's the parser had reached (`harness report --help`).
    std::string command = program;
    if (const std::vector<CLI::App*> given = app.get_subcommands(); !given.empty())
      command += " " + given.front()->get_name();
    fmt::print(err, "{}: {}\nRun '{} --help' for the options.\n", program, our_words(e), command);
    return exit_usage;
  } catch (const usage_error& e) {
    fmt::print(err, "{}: {}\n", program, e.what());
    return exit_usage;
  }

  // A command's logger writes to ctx.err (configure_logging); it ends with the command, as that
  // stream may (a test's std::ostringstream), and the logger before it is back for whatever logs
  // next.
  struct logger_back {
    std::shared_ptr<spdlog::logger> before = shared_logger();
    ~logger_back() { set_logger(std::move(before)); }
  } const put_back;
  try {
    return ctx.action ? ctx.action() : exit_ok;
  } catch (const usage_error& e) {
    fmt::print(err, "{}: {}\n", program, e.what());
    return exit_usage;
  } catch (const std::exception& e) {
    fmt::print(err, "{}: error: the harness itself failed, not the workload: {}\n", program,
               e.what());
    return exit_failure;
  }
}

}  // namespace harness::cli
