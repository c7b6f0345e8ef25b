// The experiment's result types: phase_result's members and where a workload failed.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "harness/run_results.hpp"

namespace harness {

std::string workload_failure::where() const {
  switch (stage) {
    case run_stage::setup:
      return "the setup";
    case run_stage::teardown:
      return "the teardown";
    case run_stage::first_call:
      return "the first call";
    case run_stage::batch_calibration:
      return "the batch calibration";
    case run_stage::warmup:
      return sample == 0
                 ? std::string("the warmup")
                 : fmt::format("the warmup, sample {} ({} calls)", sample, calls_per_sample);
    case run_stage::baseline:
    case run_stage::prepared:
      break;
  }
  std::string text = fmt::format("the {} phase", to_string(stage));
  if (sample == 0) return text;
  text += fmt::format(", sample {} (", sample);
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

}  // namespace harness
