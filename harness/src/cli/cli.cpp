// Parsing the command line and mapping errors to exit codes.
#include "cli.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <CLI/CLI.hpp>

#include <ostream>

#include "harness/errors.hpp"

namespace harness::cli {

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
  context ctx{out, err, host, {}};
  add_run_command(app, ctx);
  add_list_command(app, ctx);
  add_clocks_command(app, ctx);
  add_doctor_command(app, ctx);
  add_compare_command(app, ctx);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e, out, err);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e, out, err);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e, out, err);
  } catch (const CLI::ParseError& e) {
    fmt::print(err, "harness: {}\nRun 'harness --help' for the options.\n", e.what());
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
