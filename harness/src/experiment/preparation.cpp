// The preparation guard: pin, raise priority, read back, restore.
#include "harness/preparation.hpp"

#include "harness/log.hpp"

#include <exception>
#include <system_error>

namespace harness {

bool preparation_report::all_applied() const {
  return refused().empty();
}

std::vector<platform::step_result> preparation_report::refused() const {
  std::vector<platform::step_result> out;
  for (const auto* list : {&steps, &restore_steps}) {
    for (const auto& s : *list) {
      if (!s.applied) out.push_back(s);
    }
  }
  return out;
}

preparation::preparation(platform::os_interface& os) : os_(os) {
  report_.affinity_before = os_.affinity();
  saved_priority_ = os_.save_priority();
  report_.priority_before = os_.describe_priority();
}

preparation::~preparation() {
  try {
    restore();
  } catch (const std::exception& e) {
    logger().error("could not restore affinity and priority: {}", e.what());
  }
}

void preparation::apply(const preparation_plan& plan) {
  if (plan.cpu) {
    report_.steps.push_back(os_.set_affinity({*plan.cpu}));
    pinned_ = report_.steps.back().applied;
  }
  if (plan.priority != platform::priority_level::normal) {
    for (auto& step : os_.raise_priority(plan.priority)) {
      // Only what was granted needs undoing; a refused call changed nothing.
      raised_ = raised_ || step.applied;
      report_.steps.push_back(std::move(step));
    }
  }
  if (plan.lock_memory) {
    report_.steps.push_back(os_.lock_memory());
    locked_ = report_.steps.back().applied;
  }
  try {
    report_.affinity_applied = os_.affinity();
  } catch (const std::system_error& e) {
    logger().warn("could not read the affinity back: {}", e.what());
  }
  report_.priority_applied = os_.describe_priority();
  for (const auto& s : report_.steps) {
    if (!s.applied) logger().warn("preparation: {} refused: {}", s.action, s.reason);
  }
}

void preparation::restore() {
  if (raised_) {
    raised_ = false;
    for (auto& step : os_.restore_priority(saved_priority_)) {
      report_.restore_steps.push_back(std::move(step));
    }
  }
  if (locked_) {
    locked_ = false;
    report_.restore_steps.push_back(os_.unlock_memory());
  }
  if (pinned_) {
    pinned_ = false;
    report_.restore_steps.push_back(os_.set_affinity(report_.affinity_before));
  }
  for (const auto& s : report_.restore_steps) {
    if (!s.applied) logger().warn("restore: {} refused: {}", s.action, s.reason);
  }
}

}  // namespace harness
