// The table renderer shared by the console, compare and Markdown reports.
#include "report/table.hpp"

#include <algorithm>

namespace harness::report_detail {

std::size_t display_width(std::string_view text) {
  std::size_t width = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\x1b' && i + 1 < text.size() && text[i + 1] == '[') {
      // A colour's escape sequence (CSI): up to and with its final byte, 0x40 to 0x7e.
      i += 2;
      while (i < text.size() && !(text[i] >= 0x40 && text[i] <= 0x7e))
        ++i;
      continue;
    }
    width += (static_cast<unsigned char>(text[i]) & 0xC0) != 0x80 ? 1 : 0;
  }
  return width;
}

std::string pad(std::string_view text, std::size_t width, align a) {
  const std::size_t w = display_width(text);
  const std::string fill(width > w ? width - w : 0, ' ');
  return a == align::left ? std::string(text) + fill : fill + std::string(text);
}

namespace {

// One line of wrap_lines, without its line break.
void wrap_line(std::string& out, std::string_view line, std::size_t width,
               std::optional<std::size_t> given) {
  if (display_width(line) <= width) {
    out += line;
    return;
  }
  const std::size_t lead = std::min(line.find_first_not_of(' '), line.size());
  const std::size_t colon = line.find(": ", lead);
  std::size_t indent = lead + 2;
  if (given) {
    indent = *given;
  } else if (colon != std::string_view::npos && colon - lead <= kWrapLabelMost) {
    indent = display_width(line.substr(0, colon + 2));
  }
  std::string current(line.substr(0, lead));
  std::size_t at = lead;
  bool first_word = true;  // of the current line
  while (at < line.size()) {
    std::size_t end = line.find(' ', at);
    if (end == std::string_view::npos) end = line.size();
    const std::string_view word = line.substr(at, end - at);
    if (!first_word && display_width(current) + 1 + display_width(word) > width) {
      out += current;
      out += '\n';
      current.assign(indent, ' ');
      first_word = true;
    }
    if (!first_word) current += ' ';
    current += word;
    first_word = false;
    at = end + 1;
  }
  out += current;
}

}  // namespace

std::string wrap_lines(std::string_view text, std::size_t width,
                       std::optional<std::size_t> indent) {
  std::string out;
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t end = text.find('\n', at);
    const bool broken = end != std::string_view::npos;
    if (!broken) end = text.size();
    wrap_line(out, text.substr(at, end - at), width, indent);
    if (broken) out += '\n';
    at = end + 1;
  }
  return out;
}

text_lines render_text(const text_table& table, std::size_t width, const cell_dresser& dress) {
  const auto& columns = table.columns;
  std::vector<std::size_t> widths(columns.size());
  for (std::size_t c = 0; c < columns.size(); ++c) {
    widths[c] = display_width(columns[c].header);
    for (const auto& row : table.rows)
      widths[c] = std::max(widths[c], display_width(row[c]));
  }
  std::vector<bool> shown(columns.size(), true);
  const auto total = [&] {
    std::size_t sum = 2;
    std::size_t n = 0;
    for (std::size_t c = 0; c < columns.size(); ++c) {
      if (shown[c]) sum += widths[c] + (n++ > 0 ? 2 : 0);
    }
    return sum;
  };
  text_lines out;
  while (width > 0 && total() > width) {
    std::size_t victim = columns.size();
    for (std::size_t c = 0; c < columns.size(); ++c) {
      if (shown[c] && columns[c].importance > 0 &&
          (victim == columns.size() || columns[c].importance >= columns[victim].importance)) {
        victim = c;
      }
    }
    if (victim == columns.size()) break;
    shown[victim] = false;
    out.dropped.push_back(columns[victim].header);
  }
  const auto line = [&](const std::vector<std::string>& cells, std::size_t row) {
    std::string text = " ";
    for (std::size_t c = 0; c < columns.size(); ++c) {
      if (!shown[c]) continue;
      std::string cell = pad(cells[c], widths[c], columns[c].alignment);
      if (dress) cell = dress(row, c, std::move(cell));
      // Appended piece by piece: GCC 12 at -O3 (the Windows build) warns falsely (-Wrestrict)
      // on " " + cell.
      text += ' ';
      text += cell;
      text += ' ';
    }
    // One space between columns came from each side: two in all, none after the last.
    while (!text.empty() && text.back() == ' ')
      text.pop_back();
    return text;
  };
  std::vector<std::string> headers;
  for (const auto& c : columns)
    headers.push_back(c.header);
  out.lines.push_back(line(headers, table.rows.size()));
  for (std::size_t r = 0; r < table.rows.size(); ++r)
    out.lines.push_back(line(table.rows[r], r));
  return out;
}

std::string csv_field(std::string_view text) {
  if (text.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(text);
  std::string quoted = "\"";
  for (const char c : text) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + '"';
}

std::string markdown_escape(std::string_view text) {
  std::string escaped;
  for (const char c : text) {
    if (c == '|' || c == '\\' || c == '*' || c == '_' || c == '`') escaped += '\\';
    escaped += c;
  }
  return escaped;
}

std::string render_markdown(const text_table& table) {
  std::string out = "|";
  for (const auto& col : table.columns) {
    out += ' ';
    out += col.header;
    out += " |";
  }
  out += "\n|";
  for (const auto& col : table.columns)
    out += col.alignment == align::right ? "---:|" : "---|";
  out += "\n";
  for (const auto& row : table.rows) {
    out += "|";
    for (const auto& cell : row) {
      out += ' ';
      out += markdown_escape(cell);
      out += " |";
    }
    out += "\n";
  }
  return out;
}

}  // namespace harness::report_detail
