// Opening a report file (report_files.hpp).
#include "cli/report_files.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <string>
#include <system_error>

#include "harness/errors.hpp"

namespace harness::cli {

std::ifstream open_report_file(const std::filesystem::path& path) {
  const auto refused = [&](const std::string& why) {
    return usage_error(
        fmt::format("cannot read '{}': {} (a JSON report of `harness --format json` is expected)",
                    path.string(), why));
  };
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (ec) throw refused(ec.message());
  if (std::filesystem::is_directory(status)) throw refused("it is a folder");
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    const int err = errno;
    throw refused(err != 0 ? std::generic_category().message(err) : "it cannot be opened");
  }
  return in;
}

}  // namespace harness::cli
