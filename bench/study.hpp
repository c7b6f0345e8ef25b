// What the standalone study programs of bench/ (slowdown_signals, code_warmup) share: the one
// workload a pattern names, the CPU to pin to checked against those the process may use, the
// preparation their --cpu and --priority ask for, and the median of their figures.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "harness/errors.hpp"
#include "harness/platform.hpp"
#include "harness/preparation.hpp"
#include "harness/statistics.hpp"
#include "harness/workload.hpp"

namespace harness::study {

// The registered workload `pattern` selects (NAME or NAME/ARG); a usage error naming what it
// matched unless that is exactly one.
inline workload_instance one_workload(const std::string& pattern) {
  const std::vector<workload_instance> selected = global_registry().select({pattern});
  if (selected.size() != 1) {
    std::string names;
    for (const auto& w : selected)
      names += (names.empty() ? "" : ", ") + w.display_name();
    throw usage_error(fmt::format("--workload: '{}' matches {} workloads ({}); give exactly one",
                                  pattern, selected.size(), names));
  }
  return selected.front();
}

// Pinned to `cpu`, at nice -20 for "high" (the programs' --priority) or as started for "normal".
inline preparation_plan plan_of(int cpu, const std::string& priority) {
  preparation_plan plan;
  plan.cpu = cpu;
  plan.priority =
      priority == "normal" ? platform::priority_level::normal : platform::priority_level::high;
  return plan;
}

// The median of `values` (the statistics library's), NaN for none.
inline double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return stats::median_sorted(values).value_or(std::nan(""));
}

// A usage error unless `cpu` is one of `allowed`.
inline void check_cpu(int cpu, const platform::cpu_list& allowed) {
  if (std::find(allowed.begin(), allowed.end(), cpu) == allowed.end()) {
    throw usage_error(
        fmt::format("--cpu: CPU {} is not one this process may run on; allowed CPUs: {}", cpu,
                    platform::format_cpu_list(allowed)));
  }
}

}  // namespace harness::study
