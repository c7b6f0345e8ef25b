// What the children of every platform share (child_process.hpp).
#include <deque>
#include <fstream>
#include <sstream>
#include <utility>

#include "platform/child_process.hpp"

namespace harness::platform {

std::string tail_of(const std::filesystem::path& file, std::size_t lines) {
  std::ifstream in(file, std::ios::binary);
  std::deque<std::string> last;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();  // a Windows binary's CRLF
    last.push_back(std::move(line));
    if (last.size() > lines) last.pop_front();
  }
  std::string out;
  for (const std::string& line : last)
    out += "    | " + line + "\n";
  if (!out.empty()) out.pop_back();
  return out;
}

std::optional<read_status> take_line(std::string& pending, bool closed, std::string& line) {
  if (const std::size_t end = pending.find('\n'); end != std::string::npos) {
    line.assign(pending, 0, end);
    pending.erase(0, end + 1);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    return read_status::line;
  }
  if (pending.size() >= child_process::kMaxLine) {
    line.assign(pending, 0, child_process::kMaxLine);
    pending.erase(0, child_process::kMaxLine);
    return read_status::line;
  }
  if (closed) {
    line = std::exchange(pending, {});
    return read_status::closed;
  }
  return std::nullopt;
}

}  // namespace harness::platform
