// The JSON report as a document, for the writers that carry it (JSON, HTML).
//
// Internal header: nlohmann_json is a private dependency of the harness library.
#pragma once

#include <nlohmann/json.hpp>

#include "harness/analysis.hpp"

namespace harness::report_detail {

// What write_json_report writes (docs/output.md), with "benchmarks" an empty array: the JSON
// writer streams the rows into it one by one, and the HTML page draws from the samples itself,
// thinned. A million rows held as objects at once would take gigabytes.
nlohmann::ordered_json json_document(const report_model& model);

}  // namespace harness::report_detail
