// libFuzzer target: the report reader (`harness compare`, `harness report`), fed any bytes as a
// report file. A bad file must end in usage_error (the message names the file and the field);
// any other exception, a crash or a sanitizer finding is a bug. A report it accepts also goes
// through what `harness report --format html` makes of it (write_html_from_json: the phases'
// series, their histogram, the page's data from the document as it was written).
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "harness/errors.hpp"
#include "harness/report.hpp"
#include "report/report_reader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::istringstream in(text);
  try {
    const harness::report_reader::report r = harness::report_reader::read_report(in, "fuzz.json");
    (void)r.workloads.size();
  } catch (const harness::usage_error&) {
    return 0;
  }
  std::istringstream again(text);
  std::ostringstream page;
  harness::write_html_from_json(page, again, "fuzz.json");
  return 0;
}
