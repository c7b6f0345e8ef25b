// The history's file read whole, and a file's XXH3 fingerprint (history_file.hpp).
#include "history_file.hpp"

#include <fmt/format.h>

// Header-only (every function inline): no library to link, on Linux or in the mingw build.
#define XXH_INLINE_ALL
#include <xxhash.h>

#include <cerrno>
#include <fstream>
#include <sstream>
#include <vector>

#include "harness/errors.hpp"
#include "platform/files.hpp"

namespace harness::cli {

run_history read_history(const std::filesystem::path& path) {
  // What is there, through the OS layer: the system's reason when it cannot be looked at (EACCES
  // in a folder this user may not enter), not a guess from std::filesystem's "none" type.
  const platform::path_facts facts = platform::inspect_path(path);
  switch (facts.kind) {
    case platform::path_kind::missing:
      return {};
    case platform::path_kind::regular:
      break;
    case platform::path_kind::unknown:
      throw usage_error(fmt::format("{}: it cannot be looked at: {}", path.string(), facts.reason));
    default:
      throw usage_error(
          fmt::format("{}: it is a {}, not a regular file, so it is neither read nor replaced",
                      path.string(), facts.what));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    const int error = errno;
    throw usage_error(
        fmt::format("{}: it cannot be read: {}", path.string(),
                    error != 0 ? platform::errno_text(error) : "it cannot be opened"));
  }
  std::ostringstream text;
  text << in.rdbuf();
  return run_history::parse(text.str(), path.string());
}

std::string file_fingerprint(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return {};
  // Read a MiB at a time: a 45 MB executable is fingerprinted in a few milliseconds.
  XXH3_state_t state;
  XXH3_INITSTATE(&state);
  XXH3_64bits_reset(&state);
  std::vector<char> buffer(std::size_t{1} << 20);
  while (in.read(buffer.data(), static_cast<std::streamsize>(buffer.size())) || in.gcount() > 0)
    XXH3_64bits_update(&state, buffer.data(), static_cast<std::size_t>(in.gcount()));
  if (in.bad()) return {};
  return fmt::format("xxh3:{:016x}", XXH3_64bits_digest(&state));
}

}  // namespace harness::cli
