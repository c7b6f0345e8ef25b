// The survey of real clock sources: the estimators of clock_survey.hpp applied to each source,
// timed against std::chrono::steady_clock, and the cost of each compared with the cheapest.
#include "harness/clock_survey.hpp"

#include <chrono>

namespace harness {

namespace {

std::uint64_t steady_ns() {
  return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                        std::chrono::steady_clock::now().time_since_epoch())
                                        .count());
}

}  // namespace

clock_survey_row survey_clock(const clock_source& source, const survey_settings& settings) {
  clock_survey_row row;
  row.source = &source;
  if (!source.available()) return row;
  const auto read = [&source] { return source.now(); };
  row.cost = measure_call_cost_bounded(read, steady_ns, settings);
  row.resolution =
      measure_resolution(read, steady_ns, settings.resolution_max_inner,
                         settings.resolution_enough_intervals, settings.resolution_budget_seconds);
  row.step = measure_step(read, steady_ns, settings.step_enough_reads, settings.step_enough_changes,
                          settings.step_budget_seconds);
  return row;
}

std::vector<clock_survey_row> survey_clocks(std::span<const clock_source* const> sources,
                                            const survey_settings& settings) {
  std::vector<clock_survey_row> rows;
  rows.reserve(sources.size());
  std::optional<double> cheapest;
  for (const clock_source* source : sources) {
    rows.push_back(survey_clock(*source, settings));
    const auto& cost = rows.back().cost;
    if (cost && cost->ns_per_call > 0 && (!cheapest || cost->ns_per_call < *cheapest)) {
      cheapest = cost->ns_per_call;
    }
  }
  for (auto& row : rows) {
    if (row.cost && cheapest) row.percent_of_cheapest = row.cost->ns_per_call / *cheapest * 100.0;
  }
  return rows;
}

}  // namespace harness
