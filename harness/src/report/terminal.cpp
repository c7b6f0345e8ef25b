// What the console report may assume about where it prints: a terminal or not, its width,
// whether colour is wanted, whether Unicode block characters will show.
//
// Caveats: the width is read once, when the report is made; a terminal resized during the run is
// not followed. On Windows only $COLUMNS gives a width.
#include <cstdlib>
#include <string>
#include <string_view>

#include "harness/platform.hpp"
#include "harness/report.hpp"

namespace harness {
namespace {

std::size_t columns_from_environment() {
  const char* text = std::getenv("COLUMNS");
  if (text == nullptr) return 0;
  char* end = nullptr;
  const long n = std::strtol(text, &end, 10);
  return (end != text && *end == '\0' && n > 0) ? static_cast<std::size_t>(n) : 0;
}

// The character set the locale environment names: the first of LC_ALL, LC_CTYPE and LANG that is
// set decides, as setlocale() would. No locale at all is taken as UTF-8: terminals today are.
bool locale_allows_unicode() {
  for (const char* name : {"LC_ALL", "LC_CTYPE", "LANG"}) {
    const char* value = std::getenv(name);
    if (value == nullptr || *value == '\0') continue;
    std::string text(value);
    for (char& c : text)
      c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    if (text == "c" || text == "posix") return false;
    const auto dot = text.find('.');
    if (dot == std::string::npos) return true;
    const std::string_view charset = std::string_view(text).substr(dot + 1);
    return charset.starts_with("utf-8") || charset.starts_with("utf8");
  }
  return true;
}

}  // namespace

console_style detect_console_style(int fd) {
  console_style style;
  const bool terminal = platform::is_terminal(fd);
  style.terminal = terminal;
  const char* no_color = std::getenv("NO_COLOR");
  // no-color.org: NO_COLOR set to anything but the empty string turns colour off.
  style.color = terminal && (no_color == nullptr || *no_color == '\0');
  if (terminal) {
    style.width = platform::terminal_columns(fd).value_or(0);
    if (style.width == 0) style.width = columns_from_environment();
  } else {
    style.width = columns_from_environment();
  }
  style.unicode = locale_allows_unicode();
  return style;
}

}  // namespace harness
