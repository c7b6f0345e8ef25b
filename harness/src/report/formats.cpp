// Choosing a report format: by name (--format) or by a file's extension (-o), and dispatching.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <ostream>

#include "harness/errors.hpp"
#include "harness/report.hpp"
#include "report/format_writers.hpp"

namespace harness {
namespace {

constexpr const char* kAcceptedFormats = "console, json, csv, markdown or html";
constexpr const char* kAcceptedExtensions = ".json, .csv, .md, .markdown, .txt, .html or .htm";

}  // namespace

report_format parse_report_format(std::string_view text) {
  if (const std::optional<report_format> f = parse_id<report_format>(text)) return *f;
  throw usage_error(
      fmt::format("--format: invalid value '{}': expected {}", text, kAcceptedFormats));
}

std::optional<report_format> format_for_extension(const std::filesystem::path& path) {
  std::string ext = path.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (ext == ".json") return report_format::json;
  if (ext == ".csv") return report_format::csv;
  if (ext == ".md" || ext == ".markdown") return report_format::markdown;
  if (ext == ".txt") return report_format::console;
  if (ext == ".html" || ext == ".htm") return report_format::html;
  return std::nullopt;
}

report_format format_for_file(const std::filesystem::path& path,
                              std::optional<report_format> chosen) {
  if (chosen) return *chosen;
  if (const auto f = format_for_extension(path)) return *f;
  const std::string ext = path.extension().string();
  throw usage_error(fmt::format(
      "--output: cannot tell the format of '{}' from its {}: name a file ending in {}, or give "
      "--format {}",
      path.string(), ext.empty() ? std::string("missing extension") : "extension '" + ext + "'",
      kAcceptedExtensions, kAcceptedFormats));
}

void write_report(std::ostream& out, const report_model& model, report_format format,
                  const console_style& style) {
  static constexpr report_detail::format_writers<report_model> kWriters{
      .console = print_console_report,
      .json = write_json_report,
      .csv = write_csv_report,
      .markdown = write_markdown_report,
      .html = write_html_report,
  };
  kWriters.write(out, model, format, style);
}

}  // namespace harness
