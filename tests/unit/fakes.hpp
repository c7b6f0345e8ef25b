// Test doubles shared by the unit tests: a clock whose every reading advances by a set step, and an
// OS layer that records calls and refuses what the test tells it to.
#pragma once

#include <cerrno>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "harness/clock.hpp"
#include "harness/platform.hpp"
#include "harness/runner.hpp"
#include "harness/workload.hpp"

namespace harness::testing {

// Each now() returns the previous reading plus `step`: an empty timed region therefore measures
// exactly `step` ticks (one read to the next), whatever the machine does. A fake workload adds its
// own cost with advance(); set_step() simulates a host that runs everything slower.
class stepping_clock final : public clock_source {
 public:
  explicit stepping_clock(std::uint64_t step, double ticks_per_second = 1e9)
      : step_(step), tps_(ticks_per_second) {}
  std::string_view name() const noexcept override { return "stepping"; }
  std::string_view description() const noexcept override { return "test clock"; }
  clock_kind kind() const noexcept override { return clock_kind::wall; }
  bool is_monotonic() const noexcept override { return true; }
  double ticks_per_second() const noexcept override { return tps_; }
  std::optional<double> declared_resolution() const noexcept override { return 1 / tps_; }
  std::uint64_t now() const noexcept override { return value_ += step_; }
  bool available() const noexcept override { return true; }
  void advance(std::uint64_t ticks) const noexcept { value_ += ticks; }
  std::uint64_t peek() const noexcept { return value_; }  // the last reading, not advancing
  void set_step(std::uint64_t step) noexcept { step_ = step; }

 private:
  std::uint64_t step_;
  double tps_;
  mutable std::uint64_t value_ = 0;
};

// The clock of the reports' tests: named "fake", 2 GHz, never read (writers only format; the
// golden files hold its name and description).
class report_clock final : public clock_source {
 public:
  std::string_view name() const noexcept override { return "fake"; }
  std::string_view description() const noexcept override { return "a fake clock at 2 GHz"; }
  clock_kind kind() const noexcept override { return clock_kind::wall; }
  bool is_monotonic() const noexcept override { return true; }
  double ticks_per_second() const noexcept override { return 2e9; }
  std::optional<double> declared_resolution() const noexcept override { return std::nullopt; }
  std::uint64_t now() const noexcept override { return 0; }
  bool available() const noexcept override { return true; }
};

class fake_os final : public platform::os_interface {
 public:
  platform::cpu_list allowed{0, 1, 2, 3};
  int nice = 0;
  bool refuse_affinity = false;
  bool refuse_priority = false;
  bool realtime = false;
  bool refuse_lock = false;
  std::optional<std::uint64_t> switches = 0;
  std::vector<std::string> calls;  // every call made, in order

  std::string name() const override { return "fake"; }
  platform::cpu_list affinity() override {
    calls.push_back("affinity");
    return allowed;
  }
  platform::step_result set_affinity(const platform::cpu_list& cpus) override {
    calls.push_back("set_affinity " + platform::format_cpu_list(cpus));
    if (refuse_affinity) return {"set affinity", false, EPERM, "Operation not permitted"};
    allowed = cpus;
    return {"set affinity", true, 0, {}};
  }
  platform::priority_snapshot save_priority() override {
    calls.push_back("save_priority");
    return {nice, nice, realtime ? 1 : 0, 0, true};
  }
  std::vector<platform::step_result> raise_priority(platform::priority_level level) override {
    calls.push_back(std::string("raise_priority ") + std::string(platform::to_string(level)));
    if (refuse_priority) return {{"nice -20", false, EACCES, "Permission denied"}};
    nice = -20;
    realtime = level == platform::priority_level::realtime;
    return {{"nice -20", true, 0, {}}};
  }
  std::vector<platform::step_result> restore_priority(
      const platform::priority_snapshot& s) override {
    calls.push_back("restore_priority " + std::to_string(s.process_value));
    nice = static_cast<int>(s.process_value);
    realtime = s.policy == 1;
    return {{"restore nice", true, 0, {}}};
  }
  std::string describe_priority() override { return "nice " + std::to_string(nice); }
  platform::step_result lock_memory() override {
    calls.push_back("lock_memory");
    return {"lock memory", !refuse_lock, refuse_lock ? ENOMEM : 0,
            refuse_lock ? "Cannot allocate memory" : ""};
  }
  platform::step_result unlock_memory() override {
    calls.push_back("unlock_memory");
    return {"unlock memory", true, 0, {}};
  }
  std::optional<std::uint64_t> involuntary_switches() override { return switches; }
  // The CPU an unpinned thread runs on; nullopt: the CPU cannot be read. Pinned to one CPU (the
  // affinity allows one), the thread runs on that one.
  std::optional<int> unpinned_cpu;
  std::optional<int> current_cpu() override {
    if (!unpinned_cpu) return std::nullopt;
    return allowed.size() == 1 ? allowed.front() : *unpinned_cpu;
  }

  // Counters: with offer_counters, each counter asked for opens unless refuse_counter names it
  // (with the errno it is refused with), and read number n (from 0) gives counter_reading(n), or
  // fails where read_fails(n) says so. Without, each is refused with ENOENT.
  bool offer_counters = false;
  std::map<cpu_counter, int> refuse_counter;
  std::function<counter_snapshot(std::size_t)> counter_reading = [](std::size_t) {
    return counter_snapshot{};
  };
  std::function<bool(std::size_t)> read_fails = [](std::size_t) { return false; };
  std::size_t reads = 0;  // reads made so far

  counter_opening open_counters(const std::vector<cpu_counter>& wanted) override {
    counter_opening opening;
    for (const cpu_counter c : wanted) {
      const auto refused = refuse_counter.find(c);
      if (!offer_counters || refused != refuse_counter.end()) {
        const int err = offer_counters ? refused->second : ENOENT;
        opening.status.push_back(
            {c, false, "refused by the fake OS: errno " + std::to_string(err), err});
      } else {
        opening.status.push_back({c, true, {}, 0});
      }
    }
    if (offer_counters) opening.reader = std::make_unique<reader>(*this);
    return opening;
  }

 private:
  class reader final : public counter_reader {
   public:
    explicit reader(fake_os& os) : os_(os) {}
    bool read(counter_snapshot& out) noexcept override {
      const std::size_t n = os_.reads++;
      if (os_.read_fails(n)) return false;
      out = os_.counter_reading(n);
      return true;
    }

   private:
    fake_os& os_;
  };
};

// Passes every call on to another OS layer the test keeps (the run owns the one it is given);
// derive from it to fault one call.
class forwarding_os : public platform::os_interface {
 public:
  explicit forwarding_os(platform::os_interface& to) : to_(to) {}
  std::string name() const override { return to_.name(); }
  platform::cpu_list affinity() override { return to_.affinity(); }
  platform::step_result set_affinity(const platform::cpu_list& cpus) override {
    return to_.set_affinity(cpus);
  }
  platform::priority_snapshot save_priority() override { return to_.save_priority(); }
  std::vector<platform::step_result> raise_priority(platform::priority_level level) override {
    return to_.raise_priority(level);
  }
  std::vector<platform::step_result> restore_priority(
      const platform::priority_snapshot& saved) override {
    return to_.restore_priority(saved);
  }
  std::string describe_priority() override { return to_.describe_priority(); }
  platform::step_result lock_memory() override { return to_.lock_memory(); }
  platform::step_result unlock_memory() override { return to_.unlock_memory(); }
  std::optional<std::uint64_t> involuntary_switches() override {
    return to_.involuntary_switches();
  }
  std::optional<int> current_cpu() override { return to_.current_cpu(); }
  counter_opening open_counters(const std::vector<cpu_counter>& wanted) override {
    return to_.open_counters(wanted);
  }

 private:
  platform::os_interface& to_;
};

// A workload made from a callable (or with_setup / with_fresh_input), as HARNESS_WORKLOAD_NAMED
// would register it.
using harness::make_workload;

// The clock's facts for exact tests: a step of 1 tick, measured.
inline clock_facts facts_of(const stepping_clock& clock) {
  return {&clock, 1, true};
}

// Options for exact tests: one call per sample, no warmup, a few overhead samples, the samples
// in one block with no time for more (the blocks have tests of their own).
inline run_options exact_options(std::size_t samples) {
  run_options options;
  options.samples = samples;
  options.warmup = std::chrono::nanoseconds(0);
  options.batch = 1;
  options.blocks = 1;
  options.max_time = std::chrono::nanoseconds(0);
  options.tuning.overhead_samples = 5;
  options.tuning.block_gap = std::chrono::milliseconds(0);
  options.tuning.baseline_block_gap = std::chrono::milliseconds(0);
  options.tuning.floor.min_separation = std::chrono::milliseconds(0);
  return options;
}

}  // namespace harness::testing
