// Windows children (child_process.hpp): not supported yet. `harness gbench` on Windows stops
// before anything runs with the error below; CreateProcess with CREATE_SUSPENDED, then
// SetProcessAffinityMask, SetPriorityClass and ResumeThread is the plan (docs/gbench.md).
#include <fmt/format.h>

#include <system_error>

#include "harness/errors.hpp"
#include "platform/child_process.hpp"

namespace harness::platform {

std::string child_exit::describe() const {
  return fmt::format("exited with status {}", code);
}

std::unique_ptr<process_launcher> make_native_launcher() {
  throw usage_error(
      "gbench: not supported on Windows yet (starting the binary suspended, pinned and raised "
      "is still to be written): run harness gbench on Linux");
}

std::string cannot_execute(const std::filesystem::path& program) {
  std::error_code ec;
  if (!std::filesystem::exists(program, ec)) return "No such file or directory";
  if (std::filesystem::is_directory(program, ec)) return "it is a directory";
  return {};
}

}  // namespace harness::platform
