// A deliberate upward arrow: code of the analysis layer calling a writer of the report layer above
// it. Linked with the analysis layer and those below (the target harness_layer_probe, built only by
// the test layers.upward_call_fails_to_link), it must fail with an undefined reference.
#include <sstream>

#include "harness/report.hpp"

namespace harness {

void upward_call(const report_model& model) {
  std::ostringstream out;
  write_json_report(out, model);
}

}  // namespace harness
