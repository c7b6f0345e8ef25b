// JSON form of the doctor's report: every check with its status, fact and recommendation, the
// chosen CPU and the per-CPU load it was chosen from, and the summary counts.
#include "doctor/doctor_json.hpp"

namespace harness::doctor {

nlohmann::json to_json(const check_result& check) {
  return {{"id", check.id},
          {"title", check.title},
          {"status", to_string(check.state)},
          {"fact", check.fact},
          {"recommendation", check.recommendation}};
}

nlohmann::json to_json(const doctor_summary& summary) {
  return {{"cpu", summary.cpu},
          {"cpu_reason", summary.cpu_reason},
          {"ok", summary.ok},
          {"warn", summary.warn},
          {"unknown", summary.unknown},
          {"warned", summary.warned},
          {"unknown_ids", summary.unknown_ids}};
}

nlohmann::json to_json(const doctor_report& report) {
  nlohmann::json load = nlohmann::json::object();
  for (const auto& [cpu, busy] : report.load)
    load[std::to_string(cpu)] = busy;
  nlohmann::json checks = nlohmann::json::array();
  for (const auto& check : report.checks)
    checks.push_back(to_json(check));
  return {{"system", report.system},
          {"root", report.root.string()},
          {"cpu", report.cpu},
          {"cpu_reason", report.cpu_reason},
          {"allowed_cpus", report.allowed},
          {"load_window_seconds", report.window_seconds},
          {"load_busy_fraction", load},
          {"checks", checks},
          {"summary", to_json(summarize(report))}};
}

std::string to_json_text(const doctor_report& report) {
  return to_json(report).dump(2);
}

}  // namespace harness::doctor
