// Internal header of the writers of `harness ab`'s report (ab.cpp, ab_json.cpp, ab_text.cpp):
// the texts and counts they share, and the JSON document the page is drawn from.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>

#include "harness/ab_report.hpp"

namespace harness::ab_detail {

// A ratio as a signed change: "+1.00%" (ab_change_text).
std::string percent(double ratio);
// An interval's bounds as changes: "[+0.98%, +1.02%]".
std::string bounds(const ab_interval& i);
std::string duration_of(double ticks, double ticks_per_second);
// Over every pair of the report.
std::size_t total_rounds(const ab_report& r);
std::size_t total_disturbed(const ab_report& r);
// The clock's resolution of the pair where it is widest (estimate_rounds), as the answer carries.
double widest_resolution(const ab_report& r);
// "xor_loop/1000000" with two workloads; "xor_loop/1000000 of build-a/my_bench" with builds (and
// "BM_copy/4096 of ./old_bench" with gbench).
std::string side_name(const ab_side_facts& s, ab_mode mode);
// The report as JSON (docs/output.schema.json's `ab`), for the JSON file and the page.
nlohmann::ordered_json document(const ab_report& r);

}  // namespace harness::ab_detail
