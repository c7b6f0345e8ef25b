// One table renderer for every report that prints a table: the console summary, `harness
// compare`, and the Markdown summary.
//
// Internal header. Cells are plain text; a renderer pads them (by display width: one column per
// UTF-8 code point, as the reports print no wide characters), escapes them for Markdown, or lets
// the caller dress a padded cell (colour). A column's importance orders what a narrow terminal
// drops first: 0 is never dropped, higher numbers go first.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace harness::report_detail {

enum class align { left, right };

struct table_column {
  std::string header;
  align alignment = align::left;
  int importance = 0;
};

struct text_table {
  std::vector<table_column> columns;
  std::vector<std::vector<std::string>> rows;  // one cell per column
};

// Columns a string takes on a terminal: one per UTF-8 code point, none for a colour's escape
// sequence (ESC [ ... m).
std::size_t display_width(std::string_view text);
std::string pad(std::string_view text, std::size_t width, align a);
// Each line of `text` longer than `width` columns broken at spaces; its continuation lines start
// `indent` columns in, or when none is given under its text: past its leading spaces and a short
// label ("verdict: ", "pair 1: ": the first ": " within kWrapLabelMost columns of them), or 2
// columns in when it has none. A word longer than a line stays whole. Lines within `width`, and
// line breaks, are kept as they are.
inline constexpr std::size_t kWrapLabelMost = 12;
std::string wrap_lines(std::string_view text, std::size_t width,
                       std::optional<std::size_t> indent = std::nullopt);

struct text_lines {
  std::vector<std::string> lines;    // the header first, then one line per row
  std::vector<std::string> dropped;  // headers of the columns left out, in the order dropped
};

// Called for each shown cell after padding; returns what is printed. `row` is the row's index,
// or text_table::rows.size() for the header.
using cell_dresser =
    std::function<std::string(std::size_t row, std::size_t column, std::string padded)>;

// The table as text: two spaces before the first column and between columns, no trailing
// spaces. With `width` > 0 the least important columns are dropped until a line fits it.
text_lines render_text(const text_table& table, std::size_t width = 0,
                       const cell_dresser& dress = {});

// Characters that would end a cell or start markup inside one, escaped.
std::string markdown_escape(std::string_view text);
// A CSV field as RFC 4180 asks: quoted, its quotes doubled, when it holds a comma, a quote or a
// line break; as it is otherwise.
std::string csv_field(std::string_view text);
// The table as GitHub-flavoured Markdown, cells escaped, figures right-aligned.
std::string render_markdown(const text_table& table);

}  // namespace harness::report_detail
