// A side of `harness ab` that is a workload of this process (local_side.hpp).
#include "ab/local_side.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "experiment/sampler.hpp"
#include "harness/log.hpp"

namespace harness {

template <class Fn>
auto local_side::guarded(Fn&& fn) {
  try {
    return fn();
  } catch (const detail::workload_threw& e) {
    throw ab_side_failure(
        fmt::format("{}: {}{}", facts_.workload,
                    e.making_input() ? "its fresh input's maker threw: " : "the workload threw: ",
                    e.message()),
        true);
  }
}

local_side::local_side(const workload_instance& workload, const clock_facts& clock,
                       platform::os_interface& os, std::string build)
    : clock_(*clock.clock), os_(os) {
  facts_.workload = workload.display_name();
  facts_.build = std::move(build);
  facts_.clock = std::string(clock_.name());
  facts_.ticks_per_second = clock_.ticks_per_second();
  facts_.clock_step = clock.step;
  facts_.granularity = clock.granularity;
  if (const auto declared = workload.def->min_sample_time())
    facts_.min_sample_ns = static_cast<std::uint64_t>(declared->count());
  facts_.min_batch = workload.def->min_batch_for(workload.arg.value_or(0)).value_or(0);
  try {
    session_ = workload.start();
  } catch (const std::exception& e) {
    throw ab_side_failure(fmt::format("{}: its setup threw: {}", facts_.workload, e.what()), true);
  }
  count_switches_ = os_.involuntary_switches().has_value();
}

local_side::~local_side() {
  try {
    session_->finish();
  } catch (const std::exception& e) {
    logger().error("{}: its teardown threw: {}", facts_.workload, e.what());
  }
}

std::uint64_t local_side::measure_overhead(std::size_t samples) {
  return harness::measure_overhead(clock_, samples);
}

std::uint64_t local_side::calibrate(std::uint64_t overhead, std::uint64_t min_ticks) {
  return guarded([&] {
    const std::uint64_t batch = detail::calibrate_batch(*session_, clock_, overhead, min_ticks);
    std::uint64_t iterations = 0;
    const std::uint64_t one_call = detail::timed_sample(*session_, clock_, 1, iterations);
    facts_.iterations_per_call = iterations;
    facts_.call_ticks = one_call > overhead ? one_call - overhead : 0;
    return batch;
  });
}

ab_side_samples local_side::sample(std::size_t count, std::uint64_t batch,
                                   std::uint32_t reference_iterations) {
  return guarded([&] {
    ab_side_samples s;
    s.raw.reserve(count);
    // No reference iterations: no reference runs (a stretch in the middle of a round).
    const std::uint64_t before =
        reference_iterations == 0 ? 0 : detail::reference_run(clock_, reference_iterations);
    const std::uint64_t switches_before = count_switches_ ? *os_.involuntary_switches() : 0;
    std::uint64_t iterations = 0;
    for (std::size_t i = 0; i < count; ++i)
      s.raw.push_back(detail::timed_sample(*session_, clock_, batch, iterations));
    if (count_switches_) s.switches = *os_.involuntary_switches() - switches_before;
    s.reference = reference_iterations == 0
                      ? before
                      : std::max(before, detail::reference_run(clock_, reference_iterations));
    return s;
  });
}

}  // namespace harness
