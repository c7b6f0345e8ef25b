// The OS calls behind writing a report file whole (output_file.cpp): an exclusive create and a
// sync to disk, which C's stdio cannot express portably. Internal to the harness; each backend
// (platform/linux.cpp, platform/windows.cpp) implements them.
#pragma once

#include <cstdio>
#include <filesystem>

namespace harness::platform {

// Opens `path` for binary writing only if nothing exists there yet, so a file someone else made is
// never reused (fopen's "x" mode is missing from msvcrt). nullptr with errno set when refused
// (EEXIST when the path exists). Close it with std::fclose.
std::FILE* create_file_exclusive(const std::filesystem::path& path);

// Makes the data already flushed to `file` durable (fsync, _commit), so that a rename after it
// cannot show a file whose content is still only in memory. false with errno set on failure.
bool sync_file(std::FILE* file);

// The file descriptor of an open stream (fileno, _fileno).
int file_descriptor(std::FILE* file);

}  // namespace harness::platform
