// Writing a report file whole or not at all.
//
// The text goes to a new temporary file beside the target (same directory, so same file system),
// which is flushed, synced and then renamed over the target: a reader sees the old file or the
// complete new one, never a half-written one. When anything fails, the temporary file is removed
// and the target is left as it was.
// Caveats: the temporary name is the target's with ".tmp-PID-N" appended and is created
// exclusively, so two runs writing one target do not mix their bytes (the last rename wins). The
// new file gets the default permissions for new files (0666 less the umask), not the old file's.
#pragma once

#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>

namespace harness {

// A file could not be written; what() names the path and the system's reason.
class output_error : public std::runtime_error {
 public:
  explicit output_error(const std::string& message) : std::runtime_error(message) {}
};

// Writes `content` to `path` atomically as described above. Throws output_error.
void write_file_atomically(const std::filesystem::path& path, std::string_view content);

// Checks, before a long run, that `path` can be written: its directory exists and takes a new
// file, and the path is not a directory. Leaves nothing behind. Throws output_error.
void check_writable(const std::filesystem::path& path);

}  // namespace harness
