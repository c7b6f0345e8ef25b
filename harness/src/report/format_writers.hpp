// Internal header of the writers: one writer per report format for a kind of report (a run's
// report_model, ab's ab_report), and the one dispatch from a report_format to its writer, which
// write_report (formats.cpp) and write_ab_report (ab.cpp) share. A format added to report_format
// is then one case here and one writer in each table, which its designated initializer names.
#pragma once

#include <algorithm>
#include <cstddef>
#include <iosfwd>

#include "harness/report.hpp"

namespace harness::report_detail {

// The console's lines: at most 100 columns, or the terminal's when it is narrower (40 at the
// least).
inline std::size_t console_width(const console_style& style) {
  return style.width == 0 ? 100 : std::clamp<std::size_t>(style.width, 40, 100);
}

template <typename Report>
struct format_writers {
  // The console writer dresses its text for the terminal; the others write the same bytes
  // wherever they go.
  void (*console)(std::ostream&, const Report&, const console_style&);
  void (*json)(std::ostream&, const Report&);
  void (*csv)(std::ostream&, const Report&);
  void (*markdown)(std::ostream&, const Report&);
  void (*html)(std::ostream&, const Report&);

  void write(std::ostream& out, const Report& report, report_format format,
             const console_style& style) const {
    switch (format) {
      case report_format::console:
        console(out, report, style);
        return;
      case report_format::json:
        json(out, report);
        return;
      case report_format::csv:
        csv(out, report);
        return;
      case report_format::markdown:
        markdown(out, report);
        return;
      case report_format::html:
        html(out, report);
        return;
    }
  }
};

}  // namespace harness::report_detail
