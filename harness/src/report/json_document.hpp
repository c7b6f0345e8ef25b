// The JSON report as a document, for the writers that carry it (JSON, HTML).
//
// Internal header: nlohmann_json is a private dependency of the harness library.
#pragma once

#include <nlohmann/json.hpp>

#include "harness/analysis.hpp"

namespace harness::report_detail {

// What write_json_report writes (docs/output.md). Without samples, "benchmarks" is an empty array:
// the HTML page draws from the samples itself, thinned, and a million rows of objects would not
// fit in memory twice.
nlohmann::ordered_json json_document(const report_model& model, bool with_samples);

}  // namespace harness::report_detail
