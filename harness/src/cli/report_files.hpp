// The report files `harness compare` and `harness report` read, opened here in cli/: the reader
// (report/report_reader.hpp) parses what it is given and opens nothing itself.
#pragma once

#include <filesystem>
#include <fstream>

namespace harness::cli {

// Opens a report file for reading: a missing or unreadable file, or a folder, is a usage_error
// naming it with the system's reason.
std::ifstream open_report_file(const std::filesystem::path& path);

}  // namespace harness::cli
