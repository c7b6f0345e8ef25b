// The experiment's result types: phase_result's members and where a workload failed.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "harness/run_results.hpp"

namespace harness {

std::string workload_failure::where() const {
  // The stage's wording names it ("the first call", "the batch calibration"); the baseline and
  // the prepared phase are phases, and within them and the warmup a sample is counted.
  const bool phase = stage == run_stage::baseline || stage == run_stage::prepared;
  std::string text = fmt::format("the {}{}", to_string(stage), phase ? " phase" : "");
  if (sample == 0 || !(phase || stage == run_stage::warmup)) return text;
  text += fmt::format(", sample {} (", sample);
  if (stage == run_stage::warmup) return text + fmt::format("{} calls)", calls_per_sample);
  if (block > 0) text += fmt::format("block {}, ", block);
  return text + fmt::format("{} {})", calls_per_sample, calls_per_sample == 1 ? "call" : "calls");
}

std::string workload_failure::what() const {
  if (making_input) return "its fresh input's maker threw: " + message;
  return threw ? "threw: " + message : message;
}

std::uint64_t phase_result::raw(std::size_t i) const noexcept {
  return static_cast<std::uint64_t>(
      std::llround(values[i] * static_cast<double>(batch) + static_cast<double>(overhead)));
}

std::size_t phase_result::block_of(std::size_t i) const noexcept {
  const auto after =
      std::upper_bound(blocks.begin(), blocks.end(), i,
                       [](std::size_t v, const sample_block& b) { return v < b.first; });
  return after == blocks.begin() ? blocks.size()
                                 : static_cast<std::size_t>(after - blocks.begin()) - 1;
}

bool phase_result::disturbed(std::size_t i) const noexcept {
  return host_slowdown[i] || (!context_switch.empty() && context_switch[i]);
}

std::size_t phase_result::disturbed_count() const noexcept {
  std::size_t n = 0;
  for (std::size_t i = 0; i < values.size(); ++i)
    n += disturbed(i) ? 1 : 0;
  return n;
}

std::size_t phase_result::host_slowdown_count() const noexcept {
  return static_cast<std::size_t>(std::count(host_slowdown.begin(), host_slowdown.end(), true));
}

std::size_t phase_result::context_switch_count() const noexcept {
  return static_cast<std::size_t>(std::count(context_switch.begin(), context_switch.end(), true));
}

std::vector<std::pair<int, std::size_t>> phase_result::samples_by_cpu() const {
  std::map<int, std::size_t> counts;
  for (const int c : cpu) {
    if (c >= 0) ++counts[c];
  }
  return {counts.begin(), counts.end()};
}

}  // namespace harness
