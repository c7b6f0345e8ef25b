// Atomic file writes for reports: temporary file in the target's directory, then rename.
#include "output_file.hpp"

#include <fmt/format.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <system_error>

#include "harness/platform.hpp"
#include "platform/files.hpp"

namespace harness {
namespace {

std::filesystem::path temporary_beside(const std::filesystem::path& path) {
  static std::atomic<unsigned> counter{0};
  std::filesystem::path tmp = path;
  tmp += fmt::format(".tmp-{}-{}", platform::process_id(), counter++);
  return tmp;
}

[[noreturn]] void fail(const std::filesystem::path& path, std::string_view what, int error) {
  throw output_error(fmt::format("cannot write '{}': {}: {}", path.string(), what,
                                 std::generic_category().message(error)));
}

void refuse_directory(const std::filesystem::path& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    throw output_error(
        fmt::format("cannot write '{}': it is a directory; give a file name such "
                    "as '{}'",
                    path.string(), (path / "report.json").string()));
  }
}

}  // namespace

void write_file_atomically(const std::filesystem::path& path, std::string_view content) {
  refuse_directory(path);
  const std::filesystem::path tmp = temporary_beside(path);
  // Never reuse a file someone else made.
  std::FILE* file = platform::create_file_exclusive(tmp);
  if (file == nullptr) fail(path, "cannot create a file in its directory", errno);
  int error = 0;
  const char* step = nullptr;
  if (std::fwrite(content.data(), 1, content.size(), file) != content.size()) {
    error = errno;
    step = "writing";
  } else if (std::fflush(file) != 0) {
    error = errno;
    step = "writing";
  } else if (!platform::sync_file(file)) {
    error = errno;
    step = "syncing to disk";
  }
  if (std::fclose(file) != 0 && step == nullptr) {
    error = errno;
    step = "closing";
  }
  if (step == nullptr) {
    std::error_code ec;
    std::filesystem::rename(tmp, path, ec);
    if (!ec) return;
    error = ec.value();
    step = "renaming the finished temporary file over it";
  }
  std::error_code ignored;
  std::filesystem::remove(tmp, ignored);
  fail(path, step, error);
}

void check_writable(const std::filesystem::path& path) {
  refuse_directory(path);
  const std::filesystem::path tmp = temporary_beside(path);
  std::FILE* file = platform::create_file_exclusive(tmp);
  if (file == nullptr) fail(path, "cannot create a file in its directory", errno);
  std::fclose(file);
  std::error_code ignored;
  std::filesystem::remove(tmp, ignored);
}

}  // namespace harness
