// Parsing the command line and mapping errors to exit codes.
#include "cli.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <CLI/CLI.hpp>

#include <ostream>

#include "harness/errors.hpp"

namespace harness::cli {

int run_cli(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  CLI::App app{"harness: precise single-thread measurements, prepared against unprepared",
               "harness"};
  app.set_version_flag("--version", std::string("harness ") + HARNESS_VERSION);
  app.require_subcommand(0, 1);
  context ctx{out, err, {}};
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
    fmt::print(err, "harness: error: {}\n", e.what());
    return exit_failure;
  }
}

}  // namespace harness::cli
