// What the children of every platform share (child_process.hpp).
#include <deque>
#include <fstream>
#include <sstream>

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

}  // namespace harness::platform
