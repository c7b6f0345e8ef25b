// The CPU counters' reads around a phase's samples (internal): the sampler's timed_sample reads
// them right before its first clock read and right after its second, so the timed region is the
// same with counters as without; record() then keeps the sample's counts, and finish() the
// phase's series with its totals.
#pragma once

#include <cstddef>
#include <vector>

#include "harness/cpu_counters.hpp"
#include "harness/run_results.hpp"

namespace harness::detail {

class sample_counting {
 public:
  // Reads nothing when `reader` is null or `counted` empty. `counted`: the counters that opened,
  // in the order asked; `expected`: samples to reserve room for.
  sample_counting(counter_reader* reader, std::vector<cpu_counter> counted, std::size_t expected);

  bool active() const noexcept { return reader_ != nullptr; }

  // Around the clock reads of one sample (timed_sample).
  void before() noexcept { ok_ = reader_->read(before_); }
  void after() noexcept { ok_ = reader_->read(after_) && ok_; }

  // Keeps the sample just taken: each counter's count between before() and after().
  void record();
  // The phase's series, with the totals from construction until now.
  std::vector<counter_series> finish();

 private:
  counter_reader* reader_;
  std::vector<counter_series> series_;
  counter_snapshot begin_{};
  counter_snapshot before_{};
  counter_snapshot after_{};
  bool begin_ok_ = false;
  bool ok_ = false;
};

// The counters that opened, of those asked for, in the order asked.
std::vector<cpu_counter> opened_counters(const std::vector<counter_status>& status);

}  // namespace harness::detail
