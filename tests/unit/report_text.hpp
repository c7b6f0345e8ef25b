// Test helpers for reports' text.
#pragma once

#include <algorithm>
#include <string>
#include <string_view>

namespace harness::testing {

// `text` with the lines a report wrapped at 100 columns (report/table.hpp: wrap_lines) joined
// again: a line break and the next line's indent of 3 or more read as one space, so that a phrase
// a wrap split is still found whole. (`ab`'s own lines start at 0 or 2 columns; `compare`'s notes
// at 4 are joined too, which a search for a phrase does not mind.)
inline std::string unwrapped(std::string_view text) {
  std::string joined;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const std::size_t next = text.find_first_not_of(' ', i + 1);
    const std::size_t indent = std::min(next, text.size()) - (i + 1);
    if (text[i] == '\n' && indent >= 3) {
      joined += ' ';
      i += indent;
    } else {
      joined += text[i];
    }
  }
  return joined;
}

}  // namespace harness::testing
