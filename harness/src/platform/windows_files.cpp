// platform/files.hpp on Windows: what a path is (asking Windows itself whether it names a
// device), files opened through the C runtime (msvcrt: _wopen, _fdopen, _commit), and the
// permission and ownership calls that have no Windows meaning here, each saying why.
#include <cerrno>
#include <cstdio>
#include <string_view>
#include <system_error>

#include <fcntl.h>
#include <io.h>
#include <sys/stat.h>
#include <windows.h>

#include "platform/files.hpp"
#include "platform/win32_calls.hpp"

namespace harness::platform {

path_facts inspect_path(const std::filesystem::path& path) {
  path_facts facts;
  const std::wstring& name = path.native();
  // Windows's own answer to "is this a device?": GetFullPathNameW turns a device name (NUL, CON,
  // COM1..., and before Windows 11 also nul.txt or C:\any\folder\nul) into \\.\NAME, the
  // device namespace, where a path such as \\.\pipe\x already is. Asking it rather than keeping
  // a list follows the Windows version that runs.
  std::wstring full(MAX_PATH, L'\0');
  for (;;) {
    const DWORD n =
        ::GetFullPathNameW(name.c_str(), static_cast<DWORD>(full.size()), full.data(), nullptr);
    if (n < full.size()) {
      full.resize(n);
      break;
    }
    full.resize(n);
  }
  constexpr std::wstring_view kDeviceNamespace = L"\\\\.\\";
  if (std::wstring_view(full).starts_with(kDeviceNamespace) ||
      std::wstring_view(name).starts_with(kDeviceNamespace)) {
    facts.kind = path_kind::device;
    facts.what = "device";
    return facts;
  }
  const DWORD attributes = ::GetFileAttributesW(name.c_str());
  if (attributes == INVALID_FILE_ATTRIBUTES) {
    const DWORD code = ::GetLastError();
    if (code == ERROR_FILE_NOT_FOUND || code == ERROR_PATH_NOT_FOUND) {
      facts.kind = path_kind::missing;
      facts.what = "nothing";
    } else {
      facts.reason = win32_error_text(code);
    }
    return facts;
  }
  if ((attributes & FILE_ATTRIBUTE_DIRECTORY) != 0) {
    facts.kind = path_kind::directory;
    facts.what = "directory";
  } else {
    facts.kind = path_kind::regular;
    facts.what = "regular file";
  }
  return facts;
}

std::FILE* create_file_exclusive(const std::filesystem::path& path) {
  const int fd =
      ::_wopen(path.c_str(), _O_CREAT | _O_EXCL | _O_WRONLY | _O_BINARY, _S_IREAD | _S_IWRITE);
  if (fd < 0) return nullptr;
  std::FILE* file = ::_fdopen(fd, "wb");
  if (file == nullptr) {
    const int error = errno;  // _close() must not replace the reason
    ::_close(fd);
    errno = error;
  }
  return file;
}

std::FILE* open_existing_for_writing(const std::filesystem::path& path) {
  const int fd = ::_wopen(path.c_str(), _O_WRONLY | _O_BINARY);
  if (fd < 0) return nullptr;
  std::FILE* file = ::_fdopen(fd, "wb");
  if (file == nullptr) {
    const int error = errno;
    ::_close(fd);
    errno = error;
  }
  return file;
}

int write_permission(const std::filesystem::path& /*path*/) {
  // _waccess asks GetFileAttributesW, which says nothing useful about a device: NUL and CON take
  // any bytes, and a device that does not is found when it is written.
  return 0;
}

int read_permission(const std::filesystem::path& /*path*/) {
  return 0;
}

kept keep_mode_and_owner(std::FILE* /*file*/, const path_facts& /*old*/) {
  // A new file takes its folder's inherited permissions; copying the old file's security
  // descriptor is not done (output_file.hpp says so).
  return {};
}

bool sync_file(std::FILE* file) {
  return ::_commit(::_fileno(file)) == 0;
}

// Windows has no signals to block: a console's Ctrl-C comes on a thread of its own.
stop_signals_deferred::stop_signals_deferred() = default;
stop_signals_deferred::~stop_signals_deferred() = default;

int file_descriptor(std::FILE* file) {
  return ::_fileno(file);
}

std::string errno_text(int error) {
  return std::generic_category().message(error);
}

}  // namespace harness::platform
