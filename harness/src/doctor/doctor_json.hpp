// The doctor's report and summary as nlohmann::json, for `harness doctor --json` and for the run
// report's JSON, which embeds the summary.
//
// Internal header: nlohmann_json is a private dependency of the harness library.
#pragma once

#include <nlohmann/json.hpp>

#include "harness/doctor.hpp"

namespace harness::doctor {

nlohmann::json to_json(const check_result& check);
nlohmann::json to_json(const doctor_summary& summary);
nlohmann::json to_json(const doctor_report& report);

}  // namespace harness::doctor
