// A folder of a command's own under the system's temporary folder for the files of the children
// it runs (`harness gbench`'s invocations, `harness ab`'s workers' stderr), removed with
// everything in it at the end. Internal header of cli/.
#pragma once

#include <fmt/format.h>

#include <filesystem>
#include <string_view>
#include <system_error>

#include "harness/platform.hpp"

namespace harness::cli {

class scratch_folder {
 public:
  // "harness-WHAT-PID-N": the first N not taken. Throws std::system_error when none can be made.
  explicit scratch_folder(std::string_view what) {
    const std::filesystem::path base = std::filesystem::temp_directory_path();
    for (int attempt = 0;; ++attempt) {
      path_ = base / fmt::format("harness-{}-{}-{}", what, platform::process_id(), attempt);
      std::error_code ec;
      if (std::filesystem::create_directory(path_, ec)) return;
      if (ec || attempt >= 100) {
        throw std::system_error(ec ? ec : std::make_error_code(std::errc::file_exists),
                                fmt::format("cannot make a folder in '{}'", base.string()));
      }
    }
  }
  ~scratch_folder() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  scratch_folder(const scratch_folder&) = delete;
  scratch_folder& operator=(const scratch_folder&) = delete;
  const std::filesystem::path& path() const noexcept { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace harness::cli
