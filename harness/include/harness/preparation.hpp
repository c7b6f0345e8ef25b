// Preparing the process for measurement, and putting it back as it was.
//
// preparation is a guard: it reads the affinity and priority when constructed, applies the plan in
// apply(), and restores both in restore() or, at the latest, in its destructor, so a workload that
// throws (or an interrupted run that unwinds) never leaves the process pinned or at raised
// priority. Every call made is recorded with its outcome, so the report says what was applied and
// what the system refused, and why.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "harness/platform.hpp"

namespace harness {

struct preparation_plan {
  std::optional<int> cpu;  // pin to this CPU; nullopt: do not pin
  platform::priority_level priority = platform::priority_level::high;
  bool lock_memory = false;  // mlockall, so no sample waits on a page fault
};

struct preparation_report {
  platform::cpu_list affinity_before;   // the CPUs allowed before preparation
  platform::cpu_list affinity_applied;  // read back after apply(); empty if it could not be read
  std::string priority_before;          // as the OS layer describes it
  std::string priority_applied;         // read back after apply()
  std::vector<platform::step_result> steps;          // what apply() attempted
  std::vector<platform::step_result> restore_steps;  // what restore() attempted

  bool all_applied() const;
  // Steps the system refused, apply and restore together.
  std::vector<platform::step_result> refused() const;
};

class preparation {
 public:
  explicit preparation(platform::os_interface& os);
  preparation(const preparation&) = delete;
  preparation& operator=(const preparation&) = delete;
  ~preparation();

  void apply(const preparation_plan& plan);
  // Puts affinity and priority back as they were before apply(); does nothing the second time.
  void restore();

  const preparation_report& report() const noexcept { return report_; }

 private:
  platform::os_interface& os_;
  platform::priority_snapshot saved_priority_;
  preparation_report report_;
  bool pinned_ = false;
  bool raised_ = false;
  bool locked_ = false;
};

}  // namespace harness
