// Report files on Windows (output_file.hpp): device names (NUL, CON, \\.\NUL) are devices, written
// in place, never replaced; a file in a temporary folder of the test's own is replaced as on
// Linux (output_file_test.cpp). Runs under Wine too, whose path handling answers as Windows does.
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <filesystem>
#include <string>

#include "cli/output_file.hpp"
#include "harness/platform.hpp"
#include "platform/files.hpp"

namespace harness {
namespace {

namespace fs = std::filesystem;
using platform::path_kind;

// A regular file whose name, without its extension, is NUL, in the folder `dir`: what a writer
// that does not know device names would have made.
bool has_file_named_nul(const fs::path& dir) {
  for (const auto& entry : fs::directory_iterator(dir)) {
    std::string stem = entry.path().stem().string();
    std::transform(stem.begin(), stem.end(), stem.begin(),
                   [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
    if (stem == "NUL") return true;
  }
  return false;
}

TEST(OutputFileWindows, DeviceNamesAreDevices) {
  for (const char* name : {"NUL", "nul", "CON", "COM1", "\\\\.\\NUL"}) {
    const platform::path_facts facts = platform::inspect_path(name);
    EXPECT_EQ(facts.kind, path_kind::device) << name << ": " << facts.what << facts.reason;
  }
}

TEST(OutputFileWindows, NulIsWrittenInPlaceAndNoFileIsMade) {
  const fs::path dir = fs::temp_directory_path() /
                       fmt::format("harness-output-windows-test-{}-{}", platform::process_id(),
                                   std::chrono::steady_clock::now().time_since_epoch().count());
  fs::create_directories(dir);
  const fs::path before = fs::current_path();
  fs::current_path(dir);
  for (const char* name : {"NUL", "\\\\.\\NUL"}) {
    check_writable(name);
    EXPECT_EQ(write_output_file(name, "report"), "") << name;
  }
  fs::current_path(before);
  EXPECT_FALSE(has_file_named_nul(dir));
  EXPECT_TRUE(fs::is_empty(dir));  // no NUL, no NUL.tmp-...
  fs::remove_all(dir);
}

}  // namespace
}  // namespace harness
