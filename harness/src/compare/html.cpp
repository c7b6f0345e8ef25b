// `harness compare --format html`: the comparison's JSON document (json.cpp, the same fields as
// --format json) in one self-contained page that draws each workload's two floors with their
// intervals, and says the verdict beside them (report/html.hpp, src/report/html/compare.js).
#include <nlohmann/json.hpp>
#include <ostream>
#include <sstream>

#include "harness/compare.hpp"
#include "report/html.hpp"

namespace harness::compare {

void write_html(std::ostream& out, const comparison& c, const std::vector<run_file>& a,
                const std::vector<run_file>& b, const gate_result& gate, int exit_code) {
  // Through the JSON text: the page carries exactly what --format json writes.
  std::ostringstream text;
  write_json(text, c, a, b, gate, exit_code);
  out << html::page(html::page_kind::compare, "harness compare",
                    nlohmann::ordered_json::parse(text.str()));
}

}  // namespace harness::compare
