// The `--samples auto` rule: may sampling stop now? The sampler asks it at the end of each block
// and stops only when it holds at two checks in a row and the floor is confirmed.
#include <cmath>

#include <fmt/format.h>

#include "analysis/statistics_internal.hpp"
#include "base/check.hpp"
#include "harness/statistics.hpp"

namespace harness::stats {

using detail::percent;

stop_decision auto_sampling_target_reached(const phase_statistics& s, double target_relative_width,
                                           double granularity) {
  // The command line checks --target (run_command.cpp) and run_workload its options: a bad target
  // here is a bug upstream.
  HARNESS_CHECK(target_relative_width > 0 && !std::isinf(target_relative_width),
                "target {} is not a positive, finite fraction of the minimum",
                target_relative_width);
  stop_decision d;
  if (s.n < kMinSamplesForAutoStop || !s.min_ci) {
    d.reason = fmt::format("{} samples so far; the minimum needs at least {}", s.n,
                           kMinSamplesForAutoStop);
    return d;
  }
  const estimate ci = *floor_estimate(s, granularity);
  if (ci.point > 0) d.relative_width = ci.relative_width();
  if (ci.width() == 0) {
    d.target_reached = true;
    d.reason =
        fmt::format("the minimum repeats: its 95% interval has zero width after {} samples", s.n);
  } else if (d.relative_width && *d.relative_width <= target_relative_width) {
    d.target_reached = true;
    d.reason = fmt::format("the minimum's 95% interval is {} of it wide, within the target {}",
                           percent(*d.relative_width), percent(target_relative_width));
  } else if (granularity > 0 && ci.width() <= granularity) {
    d.target_reached = true;
    d.reason =
        fmt::format("the minimum's 95% interval is {} clock steps wide: it cannot shrink further",
                    significant_text(ci.width() / granularity, 3));
  } else if (d.relative_width) {
    d.reason = fmt::format("the minimum's 95% interval is {} of it wide, wider than the target {}",
                           percent(*d.relative_width), percent(target_relative_width));
  } else {
    d.reason =
        "the minimum is not above zero, so its interval has no relative width, and it is "
        "wider than one clock step";
  }
  return d;
}

}  // namespace harness::stats
