// Report files on every platform (output_file.hpp): a new file and a replaced one written whole,
// and what is refused (a folder, a missing folder, a folder that is a file, the empty path), with
// nothing left behind. Aimed only at a temporary folder of the test's own. Symbolic links,
// devices, FIFOs, modes and owners: output_file_linux_test.cpp; NUL and CON:
// output_file_windows_test.cpp.
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>

#include "cli/output_file.hpp"
#include "harness/platform.hpp"
#include "scratch.hpp"

namespace harness {
namespace {

using ::testing::HasSubstr;

class OutputFile : public ::testing::Test {
 protected:
  std::size_t entries() const { return scratch_.entries(); }
  static std::string read_text(const std::filesystem::path& path) {
    return testing::read_text(path);
  }
  // The message of the output_error `write` throws; fails the test when it throws none.
  template <class Write>
  static std::string refusal(Write&& write) {
    return testing::message_of<output_error>(write);
  }
  testing::scratch_folder scratch_{"output"};
  const std::filesystem::path dir_ = scratch_.path();
};

TEST_F(OutputFile, WritesANewFileWhole) {
  const auto path = dir_ / "r.json";
  check_writable(path);
  EXPECT_EQ(entries(), 0u);  // the check's trial file is gone
  EXPECT_EQ(write_output_file(path, "first"), "");
  EXPECT_EQ(read_text(path), "first");
  EXPECT_TRUE(std::filesystem::is_regular_file(path));
  EXPECT_EQ(entries(), 1u);  // no temporary file left
}

TEST_F(OutputFile, ReplacesARegularFileWhole) {
  const auto path = dir_ / "r.json";
  std::ofstream(path, std::ios::binary) << "a longer first version";
  check_writable(path);
  EXPECT_EQ(write_output_file(path, "second"), "");
  EXPECT_EQ(read_text(path), "second");
  EXPECT_EQ(entries(), 1u);
}

TEST_F(OutputFile, RefusesAFolderAndLeavesItEmpty) {
  std::filesystem::create_directory(dir_ / "sub");
  const std::string message = refusal([&] { write_output_file(dir_ / "sub", "x"); });
  EXPECT_THAT(message, HasSubstr((dir_ / "sub").string()));
  EXPECT_THAT(message, HasSubstr("it is a directory; give a file name such as"));
  EXPECT_THAT(refusal([&] { check_writable(dir_ / "sub"); }), HasSubstr("it is a directory"));
  EXPECT_TRUE(std::filesystem::is_empty(dir_ / "sub"));
  EXPECT_EQ(entries(), 1u);
}

TEST_F(OutputFile, RefusesAMissingFolderNamingIt) {
  const auto path = dir_ / "missing" / "r.json";
  for (const std::string& message :
       {refusal([&] { write_output_file(path, "x"); }), refusal([&] { check_writable(path); })}) {
    // The path as the platform prints it: '\\' separators on Windows.
    EXPECT_THAT(message, HasSubstr(path.string()));
    EXPECT_THAT(message, HasSubstr(fmt::format("its folder '{}' does not exist",
                                               (dir_ / "missing").string())));
  }
  EXPECT_EQ(entries(), 0u);
}

TEST_F(OutputFile, RefusesAFolderThatIsAFile) {
  std::ofstream(dir_ / "notes.txt", std::ios::binary) << "mine";
  const std::string message = refusal([&] { check_writable(dir_ / "notes.txt" / "r.json"); });
  EXPECT_THAT(message, HasSubstr("is a regular file, not a folder"));
  EXPECT_EQ(read_text(dir_ / "notes.txt"), "mine");
  EXPECT_EQ(entries(), 1u);
}

TEST_F(OutputFile, RefusesTheEmptyPath) {
  EXPECT_THAT(refusal([] { write_output_file("", "x"); }), HasSubstr("the path is empty"));
  EXPECT_THAT(refusal([] { check_writable(""); }), HasSubstr("the path is empty"));
}

}  // namespace
}  // namespace harness
