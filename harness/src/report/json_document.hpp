// The JSON report as a document, for the writers that carry it (JSON, HTML).
//
// Internal header: nlohmann_json is a private dependency of the harness library.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>

#include "harness/analysis.hpp"
#include "harness/clock.hpp"
#include "harness/run_report.hpp"

namespace harness::report_detail {

// What write_json_report writes (docs/output.md), with "benchmarks" an empty array: the JSON
// writer streams the rows into it one by one, and the HTML page draws from the samples itself,
// thinned. A million rows held as objects at once would take gigabytes.
nlohmann::ordered_json json_document(const report_model& model);

// Google Benchmark's "context" block of a run's context.
nlohmann::ordered_json context_json(const run_context& context);

// A figure that may be missing: its number, or null.
inline nlohmann::ordered_json number_or_null(const std::optional<double>& v) {
  return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(nullptr);
}

// The TSC calibration as the run report and `harness clocks --json` write it; null when none.
template <class Json>
Json calibration_json(const std::optional<clock_calibration>& c) {
  if (!c) return nullptr;
  return {{"source", c->source},
          {"reference", c->reference},
          {"ticks_per_second", c->ticks_per_second},
          {"error_ppm", c->error_ppm},
          {"duration_seconds", c->duration_seconds},
          {"rounds", c->rounds},
          {"converged", c->converged}};
}

}  // namespace harness::report_detail
