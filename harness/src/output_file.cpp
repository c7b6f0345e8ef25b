// Atomic file writes for reports: temporary file in the target's directory, then rename.
#include "output_file.hpp"

#include <fmt/format.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <system_error>

#include <fcntl.h>
#if defined(_WIN32)
#include <io.h>
#include <process.h>
#include <sys/stat.h>
#else
#include <unistd.h>
#endif

namespace harness {
namespace {

int process_id() {
#if defined(_WIN32)
  return _getpid();
#else
  return static_cast<int>(getpid());
#endif
}

// Creates `path` only if it does not exist yet (fopen's "x" mode is missing from msvcrt).
std::FILE* create_exclusive(const std::filesystem::path& path) {
#if defined(_WIN32)
  const int fd =
      _wopen(path.c_str(), _O_CREAT | _O_EXCL | _O_WRONLY | _O_BINARY, _S_IREAD | _S_IWRITE);
  if (fd < 0) return nullptr;
  std::FILE* file = _fdopen(fd, "wb");
  if (file == nullptr) _close(fd);
  return file;
#else
  const int fd = ::open(path.c_str(), O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0666);
  if (fd < 0) return nullptr;
  std::FILE* file = fdopen(fd, "wb");
  if (file == nullptr) ::close(fd);
  return file;
#endif
}

// Makes a file's data durable before the rename makes it visible.
bool sync_file(std::FILE* file) {
#if defined(_WIN32)
  return _commit(_fileno(file)) == 0;
#else
  return fsync(fileno(file)) == 0;
#endif
}

std::filesystem::path temporary_beside(const std::filesystem::path& path) {
  static std::atomic<unsigned> counter{0};
  std::filesystem::path tmp = path;
  tmp += fmt::format(".tmp-{}-{}", process_id(), counter++);
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
  std::FILE* file = create_exclusive(tmp);
  if (file == nullptr) fail(path, "cannot create a file in its directory", errno);
  int error = 0;
  const char* step = nullptr;
  if (std::fwrite(content.data(), 1, content.size(), file) != content.size()) {
    error = errno;
    step = "writing";
  } else if (std::fflush(file) != 0) {
    error = errno;
    step = "writing";
  } else if (!sync_file(file)) {
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
  std::FILE* file = create_exclusive(tmp);
  if (file == nullptr) fail(path, "cannot create a file in its directory", errno);
  std::fclose(file);
  std::error_code ignored;
  std::filesystem::remove(tmp, ignored);
}

}  // namespace harness
