// A folder of the test's own for tests that touch files, what they read back from it, and the
// message of what a call refused. Every
// file test aims at such a folder only: never at a system path or a real device node.
#pragma once

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <string_view>

#include "harness/platform.hpp"

namespace harness::testing {

// Made fresh under the system's temporary folder (named after `what`, the process and the time),
// removed with everything in it when it goes out of scope.
class scratch_folder {
 public:
  explicit scratch_folder(std::string_view what) {
    static std::atomic<unsigned> counter{0};
    path_ = std::filesystem::temp_directory_path() /
            fmt::format("harness-{}-test-{}-{}-{}", what, platform::process_id(),
                        std::chrono::steady_clock::now().time_since_epoch().count(), counter++);
    std::filesystem::create_directories(path_);
  }
  ~scratch_folder() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  scratch_folder(const scratch_folder&) = delete;
  scratch_folder& operator=(const scratch_folder&) = delete;

  const std::filesystem::path& path() const noexcept { return path_; }
  // How many entries it holds: whether a write left something behind.
  std::size_t entries() const {
    return static_cast<std::size_t>(std::distance(std::filesystem::directory_iterator(path_),
                                                  std::filesystem::directory_iterator()));
  }

 private:
  std::filesystem::path path_;
};

// The whole content of a file, byte for byte.
inline std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The message of the `Error` that `call` throws; fails the test when it throws none.
template <class Error, class Call>
std::string message_of(Call&& call) {
  try {
    call();
  } catch (const Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "nothing was thrown";
  return {};
}

}  // namespace harness::testing
