// What the console report may assume about where it prints: a terminal or not, its width,
// whether colour is wanted, whether Unicode block characters will show, from the facts the command
// line read (terminal_facts).
//
// Caveats: the width is read once, when the report is made; a terminal resized during the run is
// not followed. On Windows only $COLUMNS gives a width.
#include <cstdlib>
#include <string>
#include <string_view>

#include "harness/report.hpp"

namespace harness {
namespace {

std::size_t columns_of(const std::optional<std::string>& text) {
  if (!text) return 0;
  const char* start = text->c_str();
  char* end = nullptr;
  const long n = std::strtol(start, &end, 10);
  return (end != start && *end == '\0' && n > 0) ? static_cast<std::size_t>(n) : 0;
}

// The character set the locale environment names: the first of LC_ALL, LC_CTYPE and LANG that is
// set decides, as setlocale() would. No locale at all is taken as UTF-8: terminals today are.
bool locale_allows_unicode(const terminal_facts& facts) {
  for (const std::optional<std::string>* value : {&facts.lc_all, &facts.lc_ctype, &facts.lang}) {
    if (!*value || (*value)->empty()) continue;
    std::string text = **value;
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

console_style console_style_for(const terminal_facts& facts) {
  console_style style;
  style.terminal = facts.terminal;
  // no-color.org: NO_COLOR set to anything but the empty string turns colour off.
  style.color = facts.terminal && (!facts.no_color || facts.no_color->empty());
  style.width = facts.terminal ? facts.columns.value_or(0) : 0;
  if (style.width == 0) style.width = columns_of(facts.columns_env);
  style.unicode = locale_allows_unicode(facts);
  return style;
}

}  // namespace harness
