// Statistics of one phase's samples: the estimators, the verdict and the `--samples auto` rule.
//
// Every estimator is a free function over a span of numbers; summarize() gathers them into a plain
// value type. The minimum is the headline estimator (Chen & Revels 2016, "Robust benchmarking in
// noisy environments"): noise on one machine only adds time, so the fastest sample is the one
// closest to the cost of the code itself. The median stands beside it.
//
// Caveats:
// - Values are whatever the caller sampled (ticks, or ticks per call when batched); nothing here
//   knows their unit, so nothing here prints one.
// - Fields that the input cannot define (a standard deviation of one sample, a percentage of a zero
//   minimum) are std::nullopt, never NaN or infinity: a report must not print a figure that was not
//   measured.
// - The interval for the minimum assumes that the density of the run-time distribution is roughly
//   flat just above its floor. A whole run slowed by the host (the guest cannot see it) gives a
//   tight interval around the wrong floor: only the caller's disturbance detection can tell.
// - summarize() sorts a permutation of 32-bit indices, so a phase holds at most 2^32 - 1 samples,
// and
//   it allocates 4 bytes per sample (8 with a keep-filter) beside the caller's values.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "harness/enum_names.hpp"

namespace harness::stats {

// ---- tuning constants: each value and why -----------------------------------------------------

// The issue asks for 95% intervals; 5% is also the conventional level for the drift test.
inline constexpr double kConfidenceLevel = 0.95;
inline constexpr double kDriftSignificance = 0.05;
// Tukey's (1977) fences: beyond 1.5 IQR outside the quartiles a value is a mild outlier, beyond
// 3 IQR a severe one.
inline constexpr double kTukeyMildFence = 1.5;
inline constexpr double kTukeySevereFence = 3.0;
// Below 10 samples the t approximation of Spearman's rho under no drift is poor (scipy warns too),
// and a trend could not be told from chance anyway: no p-value is given.
inline constexpr std::size_t kMinSamplesForDriftTest = 10;
// `--samples auto` stops no sooner than this: with 29 samples the chance that none of them fell in
// the fastest tenth of the distribution is 0.9^29 = 4.7% < 5%, so the minimum has had its chance.
inline constexpr std::size_t kMinSamplesForAutoStop = 29;
// A verdict needs at least 11 samples: with fewer, the chance that none fell in the fastest
// quarter of the distribution exceeds 5% (0.75^11 = 4.2%, 0.75^10 = 5.6%).
inline constexpr std::size_t kMinSamplesForVerdict = 11;
// Quiet, a 10 us workload here falls on 2-3 adjacent 10 ns TSC quanta (a spread of 1-2 steps);
// 3 steps leaves room for one more quantum before a spread counts as noise.
inline constexpr double kStableSpreadSteps = 3.0;
// A minimum known to 0.1% (the example `--target`) is stable: a quiet 1 ms run's minimum
// repeats to 0.002% between processes here, so 0.1% is within reach.
inline constexpr double kStableMinCiWidth = 0.001;
// Beyond 1% the headline is no better than Google Benchmark's here (its min sits 0.1-3% above the
// floor): the result is unstable.
inline constexpr double kNoisyMinCiWidth = 0.01;
// The bulk of a stable phase (its 95th percentile) lies within 5% of the minimum. The maximum is
// not used: it grows with the number of samples, and one stall in a million would condemn a run.
inline constexpr double kStableBulkSpread = 0.05;
// On a quiet host about 1 sample in 20 at 1 ms is hit by a stall; twice that rate means the host
// is busy and the spread and mean carry its noise.
inline constexpr double kNoisyDisturbedFraction = 0.10;
// |rho| below 0.3 is conventionally a weak association. With a million samples even rho = 0.003 is
// "significant", so significance alone would flag every long run as drifting.
inline constexpr double kDriftMinAbsRho = 0.3;

// ---- value types ----------------------------------------------------------------------------

// An interval estimate, after Catch2's Estimate: the point and its bounds, with how they were made.
struct estimate {
  double point = 0;             // the estimator's value on the sample
  double lower = 0;             // lower bound of the interval
  double upper = 0;             // upper bound of the interval
  double confidence_level = 0;  // coverage of the interval (at least this, for order statistics)
  std::string_view method;      // the method's name, a static string, e.g. "Robson-Whitlock (1964)"

  double width() const noexcept { return upper - lower; }
  // width / |point|, a fraction (0.001 = 0.1%); nullopt when the point is 0.
  std::optional<double> relative_width() const noexcept;
};

// Tukey's outlier counts; each value is counted once, in the most severe class it falls in.
// Quartiles are type-7 quantiles (see quantile()); IQR = Q3 - Q1.
struct outlier_counts {
  std::size_t low_severe = 0;   // values below Q1 - 3 IQR
  std::size_t low_mild = 0;     // values in [Q1 - 3 IQR, Q1 - 1.5 IQR)
  std::size_t high_mild = 0;    // values in (Q3 + 1.5 IQR, Q3 + 3 IQR]
  std::size_t high_severe = 0;  // values above Q3 + 3 IQR

  std::size_t total() const noexcept { return low_severe + low_mild + high_mild + high_severe; }
};

// Drift: Spearman's rank correlation of the values with their sampling order.
struct drift_test {
  double spearman_rho = 0;        // in [-1, 1]; > 0 means later samples tend to be slower
  std::optional<double> p_value;  // two-sided, t approximation with n-2 degrees of freedom (as
                                  // scipy.stats.spearmanr); nullopt below kMinSamplesForDriftTest
  bool significant = false;       // p_value < kDriftSignificance; false when there is no p_value
};

// Everything summarize() tells about one phase. Optional fields are nullopt when the input cannot
// define them; the comment says when they are defined.
struct phase_statistics {
  std::size_t n = 0;                     // number of samples summarized
  std::optional<double> min;             // smallest value, the headline estimator (n >= 1)
  std::optional<double> max;             // largest value (n >= 1)
  std::optional<double> spread;          // max - min (n >= 1)
  std::optional<double> spread_percent;  // 100 * (max - min) / min; only when min > 0 (a ratio
                                         // means nothing on values that reach 0 or below)
  std::optional<double> median;          // type-7 median: the middle value or the mean of the two
  std::optional<double> mean;            // arithmetic mean, compensated summation (n >= 1)
  std::optional<double> stddev;          // sample standard deviation, divisor n - 1 (n >= 2)
  std::optional<double> cv_percent;      // 100 * stddev / mean; only when n >= 2 and min > 0
  std::optional<double> mad;             // raw median absolute deviation from the median, NOT
                                         // scaled by 1.4826 (n >= 1)
  std::optional<double> p5;              // 5th percentile, type 7 (linear interpolation) (n >= 1)
  std::optional<double> p90;             // 90th percentile, type 7 (n >= 1)
  std::optional<double> p95;             // 95th percentile, type 7 (n >= 1)
  std::optional<estimate> median_ci;     // 95% distribution-free order-statistic interval (n >= 6)
  std::optional<estimate> min_ci;        // 95% Robson-Whitlock interval for the floor (n >= 2)
  std::optional<double> min_gap;         // second smallest - smallest value (n >= 2)
  outlier_counts outliers;               // Tukey fences at 1.5 and 3 IQR (all 0 when n == 0)
  std::optional<drift_test> drift;       // n >= 3 and the values are not all equal
};

// ---- estimators: free functions over spans -----------------------------------------------------
// Functions named *_sorted require their input sorted ascending; the caller keeps it so, they do
// not check. All return nullopt where the input cannot define the result.

std::optional<double> mean(std::span<const double> values);
// Sample standard deviation (divisor n - 1), two passes.
std::optional<double> standard_deviation(std::span<const double> values);
// Hyndman & Fan type 7 (R's default, numpy's "linear"): interpolates between the order statistics
// at rank (n - 1) p. p must lie in [0, 1].
std::optional<double> quantile_sorted(std::span<const double> sorted, double p);
std::optional<double> median_sorted(std::span<const double> sorted);
// Raw (unscaled) median absolute deviation from the type-7 median, without allocating.
std::optional<double> mad_sorted(std::span<const double> sorted);
// Distribution-free interval [x(l), x(n-l+1)] for the median: l is the largest index such that
// P(B <= l - 1) <= (1 - level) / 2 for B ~ Binomial(n, 1/2), so the coverage, which is what
// confidence_level holds, is at least `level`. Needs no assumption but independent samples.
std::optional<estimate> median_ci_sorted(std::span<const double> sorted,
                                         double level = kConfidenceLevel);
// Robson & Whitlock (1964) one-sided interval for the lower endpoint (the floor) of a distribution:
// [x(1) - (x(2) - x(1)) level / (1 - level), x(1)], point x(1), its lower bound cut at zero when
// x(1) > 0 (the values are durations). Assumes independent samples and a density roughly
// constant just above the floor; its coverage is asymptotic. Ties at the minimum (a coarse clock)
// give a zero width; the clock's step is not part of the interval.
std::optional<estimate> minimum_ci_sorted(std::span<const double> sorted,
                                          double level = kConfidenceLevel);
outlier_counts tukey_outliers_sorted(std::span<const double> sorted);
// Spearman's rho of the values with their index (average ranks for ties), with its test.
std::optional<drift_test> order_drift(std::span<const double> values_in_sampling_order);

// How much slower B's values are than A's, without a floor: the Hodges-Lehmann estimate of the
// shift between the logarithms of the two samples (the median of log(b_j) - log(a_i) over every
// pair), as a ratio exp(shift), with the distribution-free interval of Mann-Whitney's test
// (Moses 1965: the pairwise differences of ranks C and nm - C + 1, C from the normal
// approximation of U's distribution at `level` 0.95). A ratio, so that a 2x slower B reads 2.0
// whatever the unit. Needs both samples at least 2 values, all above 0 (nullopt otherwise).
// Above kShiftMaxPairs pairs, each side is thinned to evenly spaced order statistics first (the
// interval then rests on fewer values, so it is wider, never narrower): `thinned` says so.
// Assumes independent samples whose distributions differ by a shift in log scale.
inline constexpr std::size_t kShiftMaxPairs = 4'000'000;
struct shift_estimate {
  double ratio = 1;  // exp(median pairwise log difference): B over A
  double lower = 1;
  double upper = 1;
  double confidence_level = 0;
  std::size_t a_values = 0;  // the values it rests on, after any thinning
  std::size_t b_values = 0;
  bool thinned = false;
  std::string_view method;
};
std::optional<shift_estimate> log_shift(std::span<const double> a, std::span<const double> b);

// The distributions below are Boost.Math's (analysis/special_functions.cpp); this header does not
// include Boost. An argument outside a distribution's domain (dof <= 0, a NaN) throws
// std::domain_error: a bug of the caller.
// P(B <= k) for B ~ Binomial(n, 1/2).
double binomial_half_cdf(std::size_t n, std::size_t k);
// Two-sided p-value of Student's t statistic with `dof` degrees of freedom: P(|T| >= |t|).
double student_t_two_sided_p(double t, double dof);
// The t for which student_t_two_sided_p(t, dof) is 1 - level: the half-width, in standard errors,
// of a two-sided `level` interval (level in (0, 1)).
double student_t_two_sided_quantile(double level, double dof);

// ---- the summary ----------------------------------------------------------------------------

// All the estimators above over one phase. A NaN or infinite value is a bug upstream: a failed
// check, which aborts (docs/errors.md). Throws std::length_error beyond 2^32 - 1 values. Allocates
// one 32-bit index per value; takes O(n log n).
phase_statistics summarize(std::span<const double> values_in_sampling_order);
// The same over the values whose index `keep` accepts (e.g. the undisturbed samples), without
// copying them: drift is measured against the order of the kept values. `keep` is called twice
// per index and must answer the same both times. Allocates two 32-bit indices per kept value.
phase_statistics summarize(std::span<const double> values_in_sampling_order,
                           const std::function<bool(std::size_t index)>& keep);

// ---- verdict ----------------------------------------------------------------------------------

// too_few: fewer samples than a verdict needs (kMinSamplesForVerdict): not a judgement of the
// phase, and said as such.
enum class stability { stable, noisy, unstable, too_few };
// Identifiers for machine-readable reports (JSON, --line); "too few samples" for people.
inline constexpr enum_table<stability, stability::too_few> kStabilityNames{{
    {stability::stable, "stable"},
    {stability::noisy, "noisy"},
    {stability::unstable, "unstable"},
    {stability::too_few, "too_few_samples", "too few samples"},
}};
constexpr const auto& enum_names(stability) noexcept {
  return kStabilityNames;
}
using harness::id_of;
using harness::to_string;

// What the caller's disturbance detection found in the phase the statistics describe. A sample
// may be counted under both reasons; n_clean counts the samples with neither.
struct disturbance_counts {
  std::size_t n_clean = 0;           // samples with no disturbance found
  std::size_t n_host_slowdown = 0;   // samples taken while the reference loop ran slow
  std::size_t n_context_switch = 0;  // samples with at least one involuntary context switch
  double granularity = 0;            // the clock's granularity (the least its value advances
                                     // by) in the values' unit: divided by the batch size when
                                     // batched; 0 when unknown
};

struct verdict {
  stability level = stability::unstable;
  std::string reason;          // why, with the figures that decided it
  std::string recommendation;  // what to do about it, concretely
};

// The interval for the floor that the harness reports and decides by: Robson-Whitlock's
// (min_ci), except when the two fastest samples lie within one granularity step of each other,
// ties included: their gap is then the clock's quantum, not the density's, and says only that the
// floor is known to one step, so the interval is [min - one step, min] (method "one clock
// step"). nullopt below two samples. With the granularity unknown (0), Robson-Whitlock's as is.
std::optional<estimate> floor_estimate(const phase_statistics& s, double granularity);

// Judges a phase from the statistics over all its samples and its disturbance counts. The rules,
// first match wins: no samples, fewer than kMinSamplesForVerdict, or no clean sample -> unstable;
// a spread within kStableSpreadSteps granularity steps -> stable; a minimum at or below 0 ->
// unstable; the floor's interval (floor_estimate) wider than kNoisyMinCiWidth -> unstable; too
// many disturbed samples, a marked drift, the floor's interval wider than kStableMinCiWidth, or a
// bulk spread over kStableBulkSpread -> noisy; else stable.
// Counts that do not fit the statistics (more clean samples than samples) are a bug: it aborts.
verdict judge(const phase_statistics& all_samples, const disturbance_counts& counts);

// ---- histograms ---------------------------------------------------------------------------------
// The one way values are counted into bars (the HTML pages' histograms, the console's picture):
// on the scale [low, top] in `bins` equal bins, value v in bin floor((v - low) / (top - low) *
// bins), `top` itself in the last; the values below `low` and above `top` counted apart. With
// top <= low every value from low to top goes to the first bin.
struct bin_counts {
  std::vector<std::size_t> counts;  // `bins` of them
  std::size_t below = 0;
  std::size_t above = 0;
};
bin_counts count_bins(std::span<const double> values, double low, double top, std::size_t bins);

// The histogram of a workload's sampled phases on one scale (the run page's): from the lowest
// sample to the highest phase's fence, its type-7 75th percentile plus kHistogramFenceSpan times
// that percentile's distance above the phase's minimum (or the highest sample, when it is lower),
// in kHistogramBins bins; the samples above it are counted apart, so a few slow outliers do not
// squeeze every other sample into the first bin. All samples alike: a scale of 1% of their value
// (at least 1e-9) above them. nullopt when no phase has a sample.
inline constexpr std::size_t kHistogramBins = 40;
inline constexpr double kHistogramFenceSpan = 1.5;
struct phases_histogram {
  double low = 0;    // the lowest sample
  double top = 0;    // the scale's top
  double high = 0;   // the highest sample
  double width = 0;  // of a bin: (top - low) / bins
  std::size_t bins = kHistogramBins;
  std::vector<bin_counts> phases;  // parallel to the phases given (an empty one counts nothing)
};
std::optional<phases_histogram> histogram_of(std::span<const std::span<const double>> phases);

// ---- `--samples auto` --------------------------------------------------------------------------

struct stop_decision {
  bool target_reached = false;
  std::optional<double> relative_width;  // the minimum's interval width / minimum, when defined
  std::string reason;                    // one line: why sampling may stop or must go on
};

// Whether the target is met now: at least kMinSamplesForAutoStop samples, and the floor's interval
// (floor_estimate) no wider than target_relative_width times the minimum, or no wider than one
// granularity step (it cannot shrink below what the clock resolves; pass 0 when unknown, and a
// zero-width interval then counts as met). The sampler stops only when this holds at two checks
// in a row and the floor is confirmed by its blocks (experiment/sampler.cpp): one narrow interval
// can be luck. The target must be a positive, finite fraction (0.001 means 0.1%): the command line
// checks --target and run_workload its options, so any other target here is a bug upstream, a
// failed check, which aborts (docs/errors.md).
stop_decision auto_sampling_target_reached(const phase_statistics& current,
                                           double target_relative_width, double granularity = 0);

}  // namespace harness::stats
