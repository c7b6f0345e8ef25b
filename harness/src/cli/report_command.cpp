// `harness report FILE.json -o FILE.html`: the HTML page of a run from its JSON report (written by
// `harness --format json` or `-o FILE.json`), or of `harness ab` or `gbench --vs` from theirs, the
// page the command would have written with `-o FILE.html` (report.hpp: write_html_from_json).
// Without -o the page goes to stdout.
//
// A file that cannot be read, is not JSON or is not a harness report of a schema this build reads,
// and an output path that cannot be written or does not end in .html or .htm, are usage errors
// (exit 2) naming them, found before anything is written.
#include <fmt/format.h>
#include <fmt/ostream.h>
#include <CLI/CLI.hpp>

#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <sstream>
#include <string>
#include <system_error>

#include "cli.hpp"
#include "cli/output_file.hpp"
#include "cli/report_files.hpp"
#include "harness/errors.hpp"
#include "harness/report.hpp"

namespace harness::cli {
namespace {

struct report_flags {
  std::string input;
  std::string output;
  CLI::Option* output_option = nullptr;
};

void as_usage_error(const std::function<void()>& check) {
  try {
    check();
  } catch (const output_error& e) {
    throw usage_error(fmt::format("--output: {}", e.what()));
  }
}

// What is at the path and its extension; whether its folder takes a new file is checked only once
// the page is made (the check makes and removes a file there), so a bad input touches nothing.
void check_output(const std::filesystem::path& path, const std::string& program) {
  as_usage_error([&] { check_output_path(path); });
  if (format_for_extension(path) != report_format::html) {
    const std::string ext = path.extension().string();
    throw usage_error(fmt::format(
        "--output: '{}' has {}: {} report writes an HTML page; name a file ending in .html or "
        ".htm",
        path.string(), ext.empty() ? std::string("no extension") : "the extension '" + ext + "'",
        program));
  }
}

int report(const report_flags& flags, context& ctx) {
  std::optional<std::filesystem::path> output;
  if (flags.output_option->count() > 0) {
    if (flags.output.empty()) {
      throw usage_error("--output: the path is empty; give a file name such as 'report.html'");
    }
    output = std::filesystem::path(flags.output);
    check_output(*output, ctx.program);
  }
  const std::filesystem::path input(flags.input);
  std::ifstream in = open_report_file(input);
  std::ostringstream page;
  write_html_from_json(page, in, input.string());
  if (!output) {
    ctx.out << page.str();
    return exit_ok;
  }
  as_usage_error([&] { check_writable(*output); });
  try {
    const std::string kept = write_output_file(*output, page.str());
    if (!kept.empty()) fmt::print(ctx.err, "{}: warning: --output: {}\n", ctx.program, kept);
  } catch (const output_error& e) {
    fmt::print(ctx.err, "{}: --output: {}\n", ctx.program, e.what());
    return exit_failure;
  }
  return exit_ok;
}

}  // namespace

void add_report_command(CLI::App& root, context& ctx) {
  auto flags = std::make_shared<report_flags>();
  CLI::App* cmd = root.add_subcommand(
      "report",
      fmt::format("Draw a JSON report as the HTML page its command draws: a run's ({} --format "
                  "json, or -o FILE.json), the samples in order with the floor, each phase's "
                  "distribution, the summary; or an ab comparison's ({} ab ... -o FILE.json, "
                  "gbench --vs), B/A round by round and the ratios' histogram",
                  ctx.program, ctx.program));
  cmd->add_option("REPORT", flags->input, "The JSON report to draw")->required();
  flags->output_option =
      cmd->add_option("-o,--output", flags->output,
                      "The page to write (.html or .htm; replaced whole, never half-written); "
                      "without it, stdout");
  cmd->footer(
      fmt::format("Examples:\n"
                  "  {0} -o run.json && {0} report run.json -o run.html\n"
                  "  {0} report run.json > run.html\n"
                  "  {0} ab sort_v1 sort_v2 -o ab.json && {0} report ab.json -o ab.html",
                  ctx.program));
  cmd->callback([&ctx, flags] { ctx.action = [&ctx, flags] { return report(*flags, ctx); }; });
}

}  // namespace harness::cli
