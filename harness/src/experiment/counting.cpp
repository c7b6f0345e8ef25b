// The CPU counters' reads around a phase's samples (counting.hpp).
#include "experiment/counting.hpp"

#include <cmath>
#include <limits>

namespace harness::detail {

sample_counting::sample_counting(counter_reader* reader, std::vector<cpu_counter> counted,
                                 std::size_t expected)
    : reader_(counted.empty() ? nullptr : reader) {
  if (reader_ == nullptr) return;
  for (const cpu_counter c : counted) {
    counter_series s;
    s.counter = c;
    s.counts.reserve(expected);
    s.scaled.reserve(expected);
    series_.push_back(std::move(s));
  }
  begin_ok_ = reader_->read(begin_);
}

void sample_counting::record() {
  if (reader_ == nullptr) return;
  for (counter_series& s : series_) {
    const std::size_t i = index_of(s.counter);
    const std::optional<counted> c = ok_ ? count_between(before_[i], after_[i]) : std::nullopt;
    s.counts.push_back(c ? c->value : std::numeric_limits<double>::quiet_NaN());
    s.scaled.push_back(c && c->scaled);
  }
}

std::vector<counter_series> sample_counting::finish() {
  if (reader_ == nullptr) return {};
  counter_snapshot end{};
  const bool end_ok = reader_->read(end);
  for (counter_series& s : series_) {
    const std::size_t i = index_of(s.counter);
    if (!begin_ok_ || !end_ok) continue;
    if (const std::optional<counted> c = count_between(begin_[i], end[i])) {
      s.phase_total = c->value;
      s.phase_total_scaled = c->scaled;
    }
  }
  return std::move(series_);
}

std::vector<cpu_counter> opened_counters(const std::vector<counter_status>& status) {
  std::vector<cpu_counter> opened;
  for (const counter_status& s : status) {
    if (s.available) opened.push_back(s.counter);
  }
  return opened;
}

}  // namespace harness::detail
