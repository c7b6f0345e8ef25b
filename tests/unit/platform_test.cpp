// The OS layer's process facts, terminal detection and file calls, on every platform: the real
// calls, aimed only at files this test makes in a temporary folder of its own (no /dev, no
// system path). The Linux-only cases (a pipe, a FIFO) are in linux_os_test.cpp.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>

#include "harness/platform.hpp"
#include "platform/files.hpp"
#include "scratch.hpp"

namespace harness::platform {
namespace {

class PlatformFiles : public ::testing::Test {
 protected:
  std::size_t entries() const { return scratch_.entries(); }
  static std::string read_text(const std::filesystem::path& path) {
    return testing::read_text(path);
  }
  testing::scratch_folder scratch_{"platform"};
  const std::filesystem::path dir_ = scratch_.path();
};

TEST(PlatformProcess, IdIsPositiveAndStable) {
  const int id = process_id();
  EXPECT_GT(id, 0);
  EXPECT_EQ(process_id(), id);
}

TEST_F(PlatformFiles, CreatesWritesAndSyncsANewFile) {
  const auto path = dir_ / "new.txt";
  std::FILE* file = create_file_exclusive(path);
  ASSERT_NE(file, nullptr);
  EXPECT_GE(file_descriptor(file), 0);
  const std::string text = "line\nnext\n";  // binary mode: no CR added on Windows
  EXPECT_EQ(std::fwrite(text.data(), 1, text.size(), file), text.size());
  EXPECT_EQ(std::fflush(file), 0);
  EXPECT_TRUE(sync_file(file));
  EXPECT_EQ(std::fclose(file), 0);
  EXPECT_EQ(read_text(path), text);
}

TEST_F(PlatformFiles, ExclusiveCreateRefusesAnExistingFile) {
  const auto path = dir_ / "taken.txt";
  std::ofstream(path, std::ios::binary) << "someone else's";
  errno = 0;
  EXPECT_EQ(create_file_exclusive(path), nullptr);
  EXPECT_EQ(errno, EEXIST);
  EXPECT_EQ(read_text(path), "someone else's");  // neither truncated nor written
  EXPECT_EQ(entries(), 1u);
}

TEST_F(PlatformFiles, ExclusiveCreateInAMissingFolderSaysWhy) {
  errno = 0;
  EXPECT_EQ(create_file_exclusive(dir_ / "missing" / "new.txt"), nullptr);
  EXPECT_EQ(errno, ENOENT);
  EXPECT_EQ(entries(), 0u);
}

TEST_F(PlatformFiles, AFileIsNoTerminalAndHasNoWidth) {
  std::FILE* file = create_file_exclusive(dir_ / "plain.txt");
  ASSERT_NE(file, nullptr);
  const int fd = file_descriptor(file);
  EXPECT_FALSE(is_terminal(fd));
  EXPECT_EQ(terminal_columns(fd), std::nullopt);
  std::fclose(file);
}

}  // namespace
}  // namespace harness::platform
