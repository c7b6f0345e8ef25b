// The verdict on a phase: the floor's interval (one clock step or Robson-Whitlock's), and the
// rules that call a phase stable, noisy or unstable (or say it has too few samples for a verdict),
// in words that give the figures and what to do.
#include <cmath>

#include <fmt/format.h>

#include "analysis/statistics_internal.hpp"
#include "base/check.hpp"
#include "harness/statistics.hpp"

namespace harness::stats {

using detail::percent;

namespace {

constexpr std::string_view kOneStepMethod =
    "one clock step (the two fastest samples lie within it)";

// "12 of 20 samples ran during host slow-downs", naming every reason that applies.
std::string describe_disturbed(std::size_t n, const disturbance_counts& c) {
  const std::size_t disturbed = n - c.n_clean;
  if (c.n_host_slowdown > 0 && c.n_context_switch == 0) {
    return fmt::format("{} of {} samples ran during host slow-downs", disturbed, n);
  }
  if (c.n_context_switch > 0 && c.n_host_slowdown == 0) {
    return fmt::format("{} of {} samples had involuntary context switches", disturbed, n);
  }
  return fmt::format(
      "{} of {} samples were disturbed ({} ran during host slow-downs, {} had involuntary "
      "context switches)",
      disturbed, n, c.n_host_slowdown, c.n_context_switch);
}

}  // namespace

std::optional<estimate> floor_estimate(const phase_statistics& s, double granularity) {
  if (!s.min_ci || !s.min_gap) return std::nullopt;
  if (!(granularity > 0) || *s.min_gap > granularity) return s.min_ci;
  estimate e = *s.min_ci;
  // Cut at zero as Robson-Whitlock's is (minimum_ci_sorted): a duration is not below it.
  e.lower = e.point > 0 ? std::max(0.0, e.point - granularity) : e.point - granularity;
  e.method = kOneStepMethod;
  return e;
}

verdict judge(const phase_statistics& s, const disturbance_counts& c) {
  const std::size_t n = s.n;
  HARNESS_CHECK(c.n_clean <= n && c.n_host_slowdown <= n && c.n_context_switch <= n &&
                    n - c.n_clean <= c.n_host_slowdown + c.n_context_switch && c.granularity >= 0,
                "disturbance counts (clean {}, host slow-down {}, context switch {}, granularity "
                "{}) do not fit {} samples",
                c.n_clean, c.n_host_slowdown, c.n_context_switch, c.granularity, n);
  if (n < kMinSamplesForVerdict) {
    return {stability::too_few,
            n == 0 ? std::string("no samples were taken")
                   : fmt::format("only {} sample{}: a verdict needs {} or more", n,
                                 n == 1 ? "" : "s", kMinSamplesForVerdict),
            fmt::format("for a verdict on this phase, take {} samples or more (-n {}), or let "
                        "the harness decide (-n auto)",
                        kMinSamplesForVerdict, kMinSamplesForVerdict)};
  }
  const std::size_t disturbed = n - c.n_clean;
  if (c.n_clean == 0) {
    return {stability::unstable,
            fmt::format("{}: none was clean, so the minimum itself may be slowed",
                        describe_disturbed(n, c)),
            "rerun when the host is quieter, with more samples, and read the minimum"};
  }
  if (c.granularity > 0 && *s.spread <= kStableSpreadSteps * c.granularity) {
    return {stability::stable,
            fmt::format("all {} samples lie within {} clock steps of each other", n,
                        significant_text(*s.spread / c.granularity, 3)),
            "none needed: the clock's granularity, not noise, bounds the figure; run more calls "
            "per sample (--batch) to resolve it further"};
  }
  if (*s.min <= 0) {
    return {stability::unstable,
            fmt::format("the minimum is {}, not above zero, so no relative figure means "
                        "anything: the workload is as short as the timer's own cost varies",
                        significant_text(*s.min, 4)),
            "run more calls per sample (--batch K, or a larger --min-sample-time)"};
  }
  const estimate floor_ci = *floor_estimate(s, c.granularity);  // n >= 2
  const bool one_step = floor_ci.method == kOneStepMethod;
  const double ci_width = *floor_ci.relative_width();
  // The interval's method (Robson-Whitlock's endpoint estimate) is named in the detail view.
  const char* ci_name = one_step ? " (one clock step)" : "";
  if (ci_width > kNoisyMinCiWidth) {
    return {stability::unstable,
            fmt::format("the minimum is uncertain: its 95% interval{} is {} of it wide, more "
                        "than {}",
                        ci_name, percent(ci_width), percent(kNoisyMinCiWidth)),
            fmt::format("take more samples (--samples auto --target {}) and rerun when the host "
                        "is quieter",
                        percent(kStableMinCiWidth))};
  }
  if (static_cast<double>(disturbed) > kNoisyDisturbedFraction * static_cast<double>(n)) {
    return {stability::noisy, describe_disturbed(n, c), "take more samples and read the minimum"};
  }
  if (s.drift && s.drift->significant && std::fabs(s.drift->spearman_rho) >= kDriftMinAbsRho) {
    return {
        stability::noisy,
        fmt::format("the values trend {} with sampling order (Spearman rho {}, p {})",
                    s.drift->spearman_rho > 0 ? "upwards" : "downwards",
                    fixed_text(s.drift->spearman_rho, 2), significant_text(*s.drift->p_value, 2)),
        "warm up longer (--warmup) and check that the workload carries no state from one "
        "sample to the next"};
  }
  if (ci_width > kStableMinCiWidth) {
    return {
        stability::noisy,
        fmt::format("the minimum's 95% interval{} is {} of it wide, more than {}", ci_name,
                    percent(ci_width), percent(kStableMinCiWidth)),
        fmt::format("take more samples (--samples auto --target {})", percent(kStableMinCiWidth))};
  }
  const double bulk = (*s.p95 - *s.min) / *s.min;
  if (bulk > kStableBulkSpread) {
    return {stability::noisy,
            fmt::format("the 95th percentile lies {} above the minimum", percent(bulk)),
            "read the minimum, not the mean: the upper tail carries host noise"};
  }
  const std::string floor_text =
      floor_ci.width() == 0 ? std::string("the minimum repeats (its 95% interval has zero width)")
      : one_step
          ? fmt::format("the minimum is known to one clock step ({} of it)", percent(ci_width))
          : fmt::format("the minimum's 95% interval is {} of it wide", percent(ci_width));
  return {stability::stable,
          fmt::format("{} and 95% of the samples lie within {} of it", floor_text, percent(bulk)),
          "none needed"};
}

}  // namespace harness::stats
