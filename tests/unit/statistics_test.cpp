// Tests of the statistics: estimators on fixed vectors, degenerate inputs, the verdict and the
// `--samples auto` stopping rule.
//
// Expected values were computed offline with numpy 1.24.2 and scipy 1.10.1 (Debian 12) and pasted
// here; each block names the calls that produced them. Comparisons allow 1e-12 relative because
// numpy sums pairwise and interpolates with its own lerp, which may differ in the last bits.
//
// Why one file of ~600 lines: the offline reference values and the shared sample sets serve the
// estimators, the verdict and the stopping rule alike.
#include "harness/statistics.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>
#include <stdexcept>

#include <span>
#include <vector>

namespace harness::stats {
namespace {

void expect_close(std::optional<double> actual, double expected) {
  ASSERT_TRUE(actual.has_value());
  EXPECT_NEAR(*actual, expected, 1e-12 * std::max(1.0, std::fabs(expected)));
}

// 20 samples with one low (3.0) and one high (40.0) outlier.
const std::vector<double> kSampleA = {12.0, 10.0, 11.0, 15.0, 10.0, 13.0, 40.0, 11.0, 12.0, 10.5,
                                      11.5, 9.8,  12.2, 14.0, 10.1, 3.0,  11.2, 10.9, 12.7, 11.1};
// 25 samples drifting upwards, with ties: 100 + 0.5 i + (7 i mod 5).
std::vector<double> sample_b() {
  std::vector<double> v;
  for (int i = 0; i < 25; ++i)
    v.push_back(100 + 0.5 * i + (i * 7) % 5);
  return v;
}
// 12 samples on three values: Spearman's rho with many ties.
const std::vector<double> kSampleC = {3, 1, 2, 2, 3, 1, 2, 3, 3, 2, 1, 2};
// 1000 distinct samples 1000.0 .. 1099.9 in a scrambled order: 1000 + (2654435761 i mod 1000) / 10.
std::vector<double> sample_l() {
  std::vector<double> v;
  for (std::uint64_t i = 0; i < 1000; ++i) {
    v.push_back(1000 + static_cast<double>((i * 2654435761ULL) % 1000) / 10);
  }
  return v;
}

std::vector<double> sorted_copy(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v;
}

// numpy: min, max, median, mean, std(ddof=1); scipy.stats.median_abs_deviation(scale=1.0);
// np.percentile(method='linear'); Tukey counts with np.percentile(v, [25, 75]);
// median CI: largest k with scipy.stats.binom.cdf(k, n, 0.5) <= 0.025; Robson-Whitlock lower
// bound s[0] - 19 (s[1] - s[0]); scipy.stats.spearmanr(v, np.arange(n)).
TEST(statistics_summarize, matches_numpy_and_scipy_on_sample_with_outliers) {
  const phase_statistics s = summarize(kSampleA);
  EXPECT_EQ(s.n, 20u);
  expect_close(s.min, 3.0);
  expect_close(s.max, 40.0);
  expect_close(s.spread, 37.0);
  expect_close(s.spread_percent, 100.0 * 37.0 / 3.0);
  expect_close(s.median, 11.149999999999999);
  expect_close(s.mean, 12.549999999999999);
  expect_close(s.stddev, 6.871336344401628);
  expect_close(s.cv_percent, 54.75168401913648);
  expect_close(s.mad, 1.0499999999999998);
  expect_close(s.p5, 9.46);
  expect_close(s.p95, 16.250000000000018);
  ASSERT_TRUE(s.median_ci);
  EXPECT_DOUBLE_EQ(s.median_ci->lower, 10.5);  // x(6)
  EXPECT_DOUBLE_EQ(s.median_ci->upper, 12.2);  // x(15)
  EXPECT_NEAR(s.median_ci->confidence_level, 0.9586105346679688, 1e-12);
  expect_close(s.median_ci->point, 11.149999999999999);
  ASSERT_TRUE(s.min_ci);
  EXPECT_DOUBLE_EQ(s.min_ci->point, 3.0);
  EXPECT_DOUBLE_EQ(s.min_ci->upper, 3.0);
  // Robson-Whitlock's bound is 3 - 19 * (9.8 - 3) = -126.2; a duration's floor is not below zero.
  EXPECT_EQ(s.min_ci->lower, 0.0);
  EXPECT_DOUBLE_EQ(s.min_ci->confidence_level, 0.95);
  EXPECT_EQ(s.outliers.low_severe, 1u);
  EXPECT_EQ(s.outliers.low_mild, 0u);
  EXPECT_EQ(s.outliers.high_mild, 0u);
  EXPECT_EQ(s.outliers.high_severe, 1u);
  EXPECT_EQ(s.outliers.total(), 2u);
  ASSERT_TRUE(s.drift);
  EXPECT_NEAR(s.drift->spearman_rho, -0.0948438692628412, 1e-12);
  expect_close(s.drift->p_value, 0.69082017984161);
  EXPECT_FALSE(s.drift->significant);
}

TEST(statistics_summarize, detects_upward_drift_with_ties) {
  const phase_statistics s = summarize(sample_b());
  expect_close(s.median, 107.5);
  expect_close(s.mean, 108.0);
  expect_close(s.stddev, 4.08248290463863);
  expect_close(s.mad, 2.5);
  expect_close(s.p5, 102.5);
  expect_close(s.p95, 114.5);
  EXPECT_DOUBLE_EQ(s.median_ci->lower, 105.0);  // k = 7
  EXPECT_DOUBLE_EQ(s.median_ci->upper, 110.0);
  EXPECT_NEAR(s.median_ci->confidence_level, 0.9567147493362427, 1e-12);
  expect_close(s.min_ci->lower, 52.5);
  EXPECT_EQ(s.outliers.total(), 0u);
  ASSERT_TRUE(s.drift);
  EXPECT_NEAR(s.drift->spearman_rho, 0.9398079562701613, 1e-12);
  ASSERT_TRUE(s.drift->p_value);
  EXPECT_NEAR(*s.drift->p_value, 3.2732071616535046e-12, 1e-20);
  EXPECT_TRUE(s.drift->significant);
}

TEST(statistics_summarize, reversing_the_order_reverses_the_drift_only) {
  std::vector<double> reversed = sample_b();
  std::reverse(reversed.begin(), reversed.end());
  const phase_statistics forward = summarize(sample_b());
  const phase_statistics backward = summarize(reversed);
  EXPECT_NEAR(backward.drift->spearman_rho, -forward.drift->spearman_rho, 1e-15);
  EXPECT_DOUBLE_EQ(*backward.median, *forward.median);
  EXPECT_DOUBLE_EQ(*backward.mad, *forward.mad);
}

TEST(statistics_summarize, spearman_with_heavy_ties) {
  const phase_statistics s = summarize(kSampleC);
  expect_close(s.mean, 2.0833333333333335);
  expect_close(s.stddev, 0.7929614610987591);
  expect_close(s.mad, 1.0);
  EXPECT_DOUBLE_EQ(s.median_ci->lower, 1.0);  // k = 2
  EXPECT_DOUBLE_EQ(s.median_ci->upper, 3.0);
  EXPECT_NEAR(s.median_ci->confidence_level, 0.96142578125, 1e-12);
  // x(1) == x(2): the floor's interval has no width.
  EXPECT_DOUBLE_EQ(s.min_ci->width(), 0.0);
  ASSERT_TRUE(s.drift);
  EXPECT_NEAR(s.drift->spearman_rho, -0.08567311328463756, 1e-12);
  expect_close(s.drift->p_value, 0.7912135903864725);
}

TEST(statistics_summarize, thousand_samples_match_scipy) {
  const phase_statistics s = summarize(sample_l());
  expect_close(s.median, 1049.95);
  expect_close(s.mean, 1049.95);
  expect_close(s.stddev, 28.88194360957494);
  expect_close(s.mad, 25.0);
  expect_close(s.p5, 1004.995);
  expect_close(s.p95, 1094.905);
  EXPECT_DOUBLE_EQ(s.median_ci->lower, 1046.8);  // k = 468
  EXPECT_DOUBLE_EQ(s.median_ci->upper, 1053.1);
  EXPECT_NEAR(s.median_ci->confidence_level, 0.9537088026395019, 1e-9);
  expect_close(s.min_ci->lower, 998.0999999999996);
  EXPECT_NEAR(s.drift->spearman_rho, 0.001599001599001599, 1e-12);
  expect_close(s.drift->p_value, 0.9597226264739542);
}

TEST(statistics_summarize, keep_filter_equals_summary_of_the_kept_copy) {
  const auto keep = [](std::size_t i) { return i % 3 != 1; };
  std::vector<double> kept;
  const std::vector<double> b = sample_b();
  for (std::size_t i = 0; i < b.size(); ++i) {
    if (keep(i)) kept.push_back(b[i]);
  }
  const phase_statistics filtered = summarize(b, keep);
  const phase_statistics copied = summarize(kept);
  EXPECT_EQ(filtered.n, copied.n);
  EXPECT_EQ(filtered.min, copied.min);
  EXPECT_EQ(filtered.max, copied.max);
  EXPECT_EQ(filtered.median, copied.median);
  EXPECT_EQ(filtered.mean, copied.mean);
  EXPECT_EQ(filtered.stddev, copied.stddev);
  EXPECT_EQ(filtered.mad, copied.mad);
  EXPECT_EQ(filtered.p5, copied.p5);
  EXPECT_EQ(filtered.p95, copied.p95);
  EXPECT_EQ(filtered.median_ci->lower, copied.median_ci->lower);
  EXPECT_EQ(filtered.min_ci->lower, copied.min_ci->lower);
  EXPECT_EQ(filtered.outliers.total(), copied.outliers.total());
  EXPECT_EQ(filtered.drift->spearman_rho, copied.drift->spearman_rho);
  EXPECT_EQ(filtered.drift->p_value, copied.drift->p_value);
}

TEST(statistics_summarize, keep_filter_rejecting_everything_gives_an_empty_summary) {
  const phase_statistics s = summarize(kSampleA, [](std::size_t) { return false; });
  EXPECT_EQ(s.n, 0u);
  EXPECT_FALSE(s.min);
}

// ---- degenerate inputs ----

TEST(statistics_degenerate, empty_span_defines_nothing) {
  const phase_statistics s = summarize(std::span<const double>{});
  EXPECT_EQ(s.n, 0u);
  EXPECT_FALSE(s.min);
  EXPECT_FALSE(s.max);
  EXPECT_FALSE(s.spread);
  EXPECT_FALSE(s.spread_percent);
  EXPECT_FALSE(s.median);
  EXPECT_FALSE(s.mean);
  EXPECT_FALSE(s.stddev);
  EXPECT_FALSE(s.cv_percent);
  EXPECT_FALSE(s.mad);
  EXPECT_FALSE(s.p5);
  EXPECT_FALSE(s.p95);
  EXPECT_FALSE(s.median_ci);
  EXPECT_FALSE(s.min_ci);
  EXPECT_EQ(s.outliers.total(), 0u);
  EXPECT_FALSE(s.drift);
  EXPECT_FALSE(mean({}));
  EXPECT_FALSE(standard_deviation({}));
  EXPECT_FALSE(quantile_sorted({}, 0.5));
  EXPECT_FALSE(mad_sorted({}));
  EXPECT_FALSE(order_drift({}));
}

TEST(statistics_degenerate, one_sample_has_location_but_no_dispersion_estimate) {
  const std::vector<double> v = {42.0};
  const phase_statistics s = summarize(v);
  EXPECT_EQ(s.n, 1u);
  EXPECT_EQ(s.min, 42.0);
  EXPECT_EQ(s.max, 42.0);
  EXPECT_EQ(s.spread, 0.0);
  EXPECT_EQ(s.spread_percent, 0.0);
  EXPECT_EQ(s.median, 42.0);
  EXPECT_EQ(s.mean, 42.0);
  EXPECT_FALSE(s.stddev);
  EXPECT_FALSE(s.cv_percent);
  EXPECT_EQ(s.mad, 0.0);
  EXPECT_EQ(s.p5, 42.0);
  EXPECT_EQ(s.p95, 42.0);
  EXPECT_FALSE(s.median_ci);
  EXPECT_FALSE(s.min_ci);  // Robson-Whitlock needs a second order statistic
  EXPECT_EQ(s.outliers.total(), 0u);
  EXPECT_FALSE(s.drift);
}

TEST(statistics_degenerate, two_samples) {
  const std::vector<double> v = {12.0, 10.0};
  const phase_statistics s = summarize(v);
  EXPECT_EQ(s.median, 11.0);
  expect_close(s.stddev, std::sqrt(2.0));
  expect_close(s.spread_percent, 20.0);
  EXPECT_EQ(s.mad, 1.0);
  EXPECT_FALSE(s.median_ci);
  ASSERT_TRUE(s.min_ci);
  EXPECT_EQ(s.min_ci->lower, 0.0);  // 10 - 19 * 2 is below zero, where no duration lies
  EXPECT_FALSE(s.drift);            // a correlation of two points is always +-1: not reported
}

TEST(statistics_degenerate, all_equal) {
  const std::vector<double> v(30, 7.5);
  const phase_statistics s = summarize(v);
  EXPECT_EQ(s.spread, 0.0);
  EXPECT_EQ(s.stddev, 0.0);
  EXPECT_EQ(s.cv_percent, 0.0);
  EXPECT_EQ(s.mad, 0.0);
  EXPECT_EQ(s.median_ci->lower, 7.5);
  EXPECT_EQ(s.median_ci->upper, 7.5);
  EXPECT_EQ(s.min_ci->width(), 0.0);
  EXPECT_EQ(s.min_ci->relative_width(), 0.0);
  // IQR is 0, but equal values lie on the fences, not beyond them.
  EXPECT_EQ(s.outliers.total(), 0u);
  EXPECT_FALSE(s.drift);  // constant ranks: no correlation is defined
}

TEST(statistics_degenerate, zeros_give_no_relative_figures) {
  const std::vector<double> v(12, 0.0);
  const phase_statistics s = summarize(v);
  EXPECT_EQ(s.min, 0.0);
  EXPECT_FALSE(s.spread_percent);
  EXPECT_FALSE(s.cv_percent);
  EXPECT_EQ(s.stddev, 0.0);
  ASSERT_TRUE(s.min_ci);
  EXPECT_FALSE(s.min_ci->relative_width());
}

TEST(statistics_degenerate, negative_minimum_gives_no_percentages) {
  // After overhead subtraction an empty workload's samples scatter around 0.
  const std::vector<double> v = {-3, 1, 2, -1, 0, 4};
  const phase_statistics s = summarize(v);
  EXPECT_EQ(s.min, -3.0);
  EXPECT_FALSE(s.spread_percent);
  EXPECT_FALSE(s.cv_percent);  // the mean is 0.5, but a ratio of such values means nothing
  // Below zero the interval is not cut: the values are not durations as they stand.
  ASSERT_TRUE(s.min_ci);
  expect_close(s.min_ci->lower, -3.0 - 19 * 2.0);
  EXPECT_EQ(floor_estimate(s, 10)->lower, -13.0);
}

TEST(statistics_degenerate, a_floors_interval_stops_at_zero) {
  // A far second-fastest sample puts Robson-Whitlock's bound below zero (5 - 19 * 95); a
  // minimum within one clock step of zero puts the one-step interval there.
  const phase_statistics wide = summarize(std::vector<double>{100, 5, 120});
  ASSERT_TRUE(wide.min_ci);
  EXPECT_EQ(wide.min_ci->lower, 0.0);
  EXPECT_EQ(wide.min_ci->upper, 5.0);
  EXPECT_EQ(floor_estimate(wide, 1)->lower, 0.0);
  const phase_statistics narrow = summarize(std::vector<double>{1, 2, 9});
  EXPECT_EQ(floor_estimate(narrow, 2)->lower, 0.0);
  EXPECT_NE(floor_estimate(narrow, 2)->method.find("one clock step"), std::string_view::npos);
}

// The sampler never makes a non-finite value, so one is a bug upstream: a failed check, which
// names the sample (its index among all the values, also through a keep-filter) and aborts.
TEST(statistics_degenerate, non_finite_values_are_a_failed_check) {
  const std::vector<double> v = {1, std::numeric_limits<double>::quiet_NaN(), 2};
  EXPECT_DEATH(summarize(v), "check failed: .*sample 1 is nan; samples must be finite");
  const std::vector<double> w = {1, std::numeric_limits<double>::infinity()};
  EXPECT_DEATH(summarize(w), "check failed: .*sample 1 is inf");
  const std::vector<double> x = {1, 2, 3, -std::numeric_limits<double>::infinity()};
  EXPECT_DEATH(summarize(x, [](std::size_t i) { return i != 1; }), "sample 3 is -inf");
}

// ---- single estimators ----

TEST(statistics_estimators, type7_quantiles_interpolate) {
  const std::vector<double> s = {1, 2, 3, 4};
  EXPECT_EQ(quantile_sorted(s, 0.0), 1.0);
  EXPECT_EQ(quantile_sorted(s, 1.0), 4.0);
  EXPECT_EQ(quantile_sorted(s, 0.5), 2.5);
  expect_close(quantile_sorted(s, 0.25), 1.75);  // np.percentile([1,2,3,4], 25) = 1.75
  EXPECT_THROW(quantile_sorted(s, 1.5), std::invalid_argument);
  EXPECT_THROW(quantile_sorted(s, std::numeric_limits<double>::quiet_NaN()), std::invalid_argument);
}

TEST(statistics_estimators, median_interval_needs_six_samples_at_95_percent) {
  // 2 * 0.5^5 = 0.0625 > 0.05, 2 * 0.5^6 = 0.03125 <= 0.05.
  EXPECT_FALSE(median_ci_sorted(std::vector<double>{1, 2, 3, 4, 5}));
  const auto ci = median_ci_sorted(std::vector<double>{1, 2, 3, 4, 5, 6});
  ASSERT_TRUE(ci);
  EXPECT_EQ(ci->lower, 1.0);
  EXPECT_EQ(ci->upper, 6.0);
  EXPECT_DOUBLE_EQ(ci->confidence_level, 1 - 2.0 / 64);
  EXPECT_THROW(median_ci_sorted(std::vector<double>{1, 2}, 1.0), std::invalid_argument);
}

TEST(statistics_estimators, minimum_interval_follows_the_level) {
  const std::vector<double> s = {100, 102, 120};
  const auto ci90 = minimum_ci_sorted(s, 0.9);
  ASSERT_TRUE(ci90);
  EXPECT_DOUBLE_EQ(ci90->lower, 100 - 2 * 9.0);
  EXPECT_EQ(ci90->method, "Robson-Whitlock (1964) endpoint, one-sided");
  EXPECT_THROW(minimum_ci_sorted(s, 0.0), std::invalid_argument);
}

TEST(statistics_estimators, tukey_fences_separate_mild_from_severe) {
  // np.percentile(v, [25, 75]) = 10.75, 14.0; IQR 3.25: severe below 1.0, mild below 5.875,
  // mild above 18.875, severe above 23.75.
  const std::vector<double> s = sorted_copy({-2, 5, 10, 11, 11, 12, 12, 13, 14, 14, 20, 25});
  const outlier_counts c = tukey_outliers_sorted(s);
  EXPECT_EQ(c.low_severe, 1u);
  EXPECT_EQ(c.low_mild, 1u);
  EXPECT_EQ(c.high_mild, 1u);
  EXPECT_EQ(c.high_severe, 1u);
}

// scipy.stats.binom.cdf(k, n, 0.5)
TEST(statistics_estimators, binomial_cdf_matches_scipy) {
  EXPECT_NEAR(binomial_half_cdf(20, 5), 0.020694732666015625, 1e-15);
  EXPECT_NEAR(binomial_half_cdf(6, 0), 0.015625, 1e-15);
  EXPECT_NEAR(binomial_half_cdf(1000, 468), 0.023145598680249086, 1e-12);
  EXPECT_NEAR(binomial_half_cdf(1000000, 499020), 0.025056366266395704, 1e-9);
  EXPECT_NEAR(binomial_half_cdf(1000, 700), 1.0, 1e-15);
  EXPECT_EQ(binomial_half_cdf(5, 5), 1.0);
  // The middle of an odd n, and the far lower tail, where a sum of terms or 1 - complement
  // would lose every digit: scipy.stats.binom.cdf(k, n, 0.5) again.
  EXPECT_NEAR(binomial_half_cdf(3, 1), 0.5, 1e-15);
  EXPECT_NEAR(binomial_half_cdf(101, 50), 0.5, 1e-15);
  EXPECT_NEAR(binomial_half_cdf(200, 10), 1.4738538021484267e-44, 1.4738538021484267e-44 * 1e-12);
  EXPECT_NEAR(binomial_half_cdf(60, 0), 8.673617379884035e-19, 8.673617379884035e-19 * 1e-12);
}

// 2 * scipy.stats.t.sf(t, dof)
TEST(statistics_estimators, student_t_p_values_match_scipy) {
  EXPECT_NEAR(student_t_two_sided_p(2.1, 8), 0.06893752429531216, 1e-13);
  EXPECT_NEAR(student_t_two_sided_p(0.5, 1), 0.7048327646991336, 1e-13);
  EXPECT_NEAR(student_t_two_sided_p(-0.5, 1), 0.7048327646991336, 1e-13);
  EXPECT_NEAR(student_t_two_sided_p(3.7, 998), 0.00022737528650626162, 1e-16);
  EXPECT_NEAR(student_t_two_sided_p(1.0, 3.5), 0.38133725356344556, 1e-13);
  EXPECT_EQ(student_t_two_sided_p(0.0, 10), 1.0);
  EXPECT_EQ(student_t_two_sided_p(std::numeric_limits<double>::infinity(), 10), 0.0);
  // Far tails, a near-normal dof and a t near 0: 2 * scipy.stats.t.sf(t, dof) again.
  EXPECT_NEAR(student_t_two_sided_p(40.0, 3), 3.438068078915854e-05, 3.438068078915854e-05 * 1e-12);
  EXPECT_NEAR(student_t_two_sided_p(12.0, 50), 2.462380625332536e-16,
              2.462380625332536e-16 * 1e-10);
  EXPECT_NEAR(student_t_two_sided_p(1.96, 1e6), 0.04999606758526978, 1e-13);
  EXPECT_NEAR(student_t_two_sided_p(0.01, 2), 0.992929108958201, 1e-13);
}

// scipy.stats.t.isf((1 - level) / 2, dof). scipy 1.10 inverts the distribution function by
// cdflib's search, good to about 1e-11 relative (its dof = 1 value is 2.6e-10 above the exact
// tan(0.475 pi)), so these hold to 1e-10 relative; the Cauchy case to the closed form's rounding.
TEST(statistics_estimators, student_t_quantiles_match_scipy) {
  EXPECT_NEAR(student_t_two_sided_quantile(0.95, 1), 12.706204736432102, 12.7 * 1e-10);
  EXPECT_NEAR(student_t_two_sided_quantile(0.95, 1), std::tan(0.475 * std::numbers::pi), 1e-13);
  EXPECT_NEAR(student_t_two_sided_quantile(0.95, 9), 2.262157162740992, 2.26 * 1e-10);
  EXPECT_NEAR(student_t_two_sided_quantile(0.95, 2.5), 3.574654842011878, 3.57 * 1e-10);
  EXPECT_NEAR(student_t_two_sided_quantile(0.95, 1000), 1.9623390808264078, 1.96 * 1e-10);
  EXPECT_NEAR(student_t_two_sided_quantile(0.99, 4), 4.604094871415898, 4.6 * 1e-10);
  // The quantile and the p-value are each other's inverse.
  EXPECT_NEAR(student_t_two_sided_p(student_t_two_sided_quantile(0.95, 7), 7), 0.05, 1e-14);
}

// A dof outside the distribution's domain is the caller's bug: Boost.Math's policy throws.
TEST(statistics_estimators, student_t_refuses_a_dof_out_of_its_domain) {
  EXPECT_THROW(student_t_two_sided_p(1.0, 0), std::domain_error);
  EXPECT_THROW(student_t_two_sided_quantile(0.95, -1), std::domain_error);
}

TEST(statistics_scale, a_million_quantized_samples) {
  // Three adjacent 26-tick quanta, in a scrambled order, as a 10 us workload gives on the TSC here.
  std::vector<double> v(1000000);
  for (std::size_t i = 0; i < v.size(); ++i)
    v[i] = 26000 + 26 * static_cast<double>(i * 7 % 3);
  const phase_statistics s = summarize(v);
  EXPECT_EQ(s.n, 1000000u);
  EXPECT_EQ(s.min, 26000.0);
  EXPECT_EQ(s.max, 26052.0);
  EXPECT_EQ(s.median, 26026.0);
  EXPECT_EQ(s.min_ci->width(), 0.0);
  ASSERT_TRUE(s.median_ci);
  EXPECT_EQ(s.median_ci->lower, 26026.0);
  ASSERT_TRUE(s.drift);
  EXPECT_LT(std::fabs(s.drift->spearman_rho), 1e-3);
}

// ---- verdict ----

disturbance_counts all_clean(const phase_statistics& s, double clock_step) {
  return {s.n, 0, 0, clock_step};
}

// 20 samples above a floor of 1e6: the floor, the floor + gap, then 1000 apart up to 1e6 + 18000
// (or the two largest at `top`), scrambled so that Spearman's rho is small (0.03, p = 0.90 by
// scipy.stats.spearmanr). p95 = 1.01705e6, 1.7% above the floor.
std::vector<double> floor_samples(double gap = 0, double top = 0) {
  std::vector<double> sorted = {1e6, 1e6 + gap};
  for (int i = 1; i <= 16; ++i)
    sorted.push_back(1e6 + 1000.0 * i);
  sorted.push_back(top > 0 ? top : 1e6 + 17000);
  sorted.push_back(top > 0 ? top : 1e6 + 18000);
  std::vector<double> v;
  for (std::size_t i = 0; i < 20; ++i)
    v.push_back(sorted[i * 9 % 20]);
  return v;
}

// Too few samples judge nothing: their own verdict, not "unstable", whatever the samples say.
TEST(statistics_verdict, no_or_few_samples_are_too_few_not_unstable) {
  const phase_statistics none = summarize(std::span<const double>{});
  EXPECT_EQ(judge(none, all_clean(none, 26)).level, stability::too_few);
  const std::vector<double> ten(10, 5.0);
  const phase_statistics few = summarize(ten);
  const verdict v = judge(few, all_clean(few, 26));
  EXPECT_EQ(v.level, stability::too_few);
  EXPECT_EQ(v.reason, "only 10 samples: a verdict needs 11 or more");
  EXPECT_NE(v.recommendation.find("take 11 samples or more (-n 11)"), std::string::npos);
  const std::vector<double> eleven(11, 5.0);
  const phase_statistics enough = summarize(eleven);
  EXPECT_NE(judge(enough, all_clean(enough, 26)).level, stability::too_few);
}

TEST(statistics_verdict, spread_within_three_clock_steps_is_stable) {
  std::vector<double> v;
  for (int i = 0; i < 20; ++i)
    v.push_back(26000 + 26 * (i % 3));
  const phase_statistics s = summarize(v);
  const verdict at_26 = judge(s, all_clean(s, 26));
  EXPECT_EQ(at_26.level, stability::stable);
  EXPECT_NE(at_26.reason.find("within 2 clock steps"), std::string::npos);
  // The same spread on a clock 4x finer is 8 steps: judged by the other rules (still stable here:
  // the floor repeats, which ties it to one clock step, and the bulk is within 0.2%).
  const verdict at_6 = judge(s, all_clean(s, 6.5));
  EXPECT_EQ(at_6.level, stability::stable);
  EXPECT_NE(at_6.reason.find("known to one clock step"), std::string::npos) << at_6.reason;
}

TEST(statistics_verdict, tight_floor_with_quiet_bulk_is_stable) {
  const phase_statistics s = summarize(floor_samples());
  const verdict v = judge(s, all_clean(s, 26));
  EXPECT_EQ(v.level, stability::stable) << v.reason;
  EXPECT_EQ(v.recommendation, "none needed");
}

TEST(statistics_verdict, host_slowdowns_make_a_phase_noisy) {
  const phase_statistics s = summarize(floor_samples());
  const verdict v = judge(s, {8, 12, 0, 26});
  EXPECT_EQ(v.level, stability::noisy);
  EXPECT_EQ(v.reason, "12 of 20 samples ran during host slow-downs");
  EXPECT_EQ(v.recommendation, "take more samples and read the minimum");
  // Two disturbed samples in 20 are within the quiet host's rate.
  EXPECT_EQ(judge(s, {18, 2, 0, 26}).level, stability::stable);
  // Both reasons are named.
  const verdict both = judge(s, {15, 4, 2, 26});
  EXPECT_EQ(both.reason,
            "5 of 20 samples were disturbed (4 ran during host slow-downs, 2 had involuntary "
            "context switches)");
}

TEST(statistics_verdict, every_sample_disturbed_is_unstable) {
  const phase_statistics s = summarize(floor_samples());
  const verdict v = judge(s, {0, 20, 0, 26});
  EXPECT_EQ(v.level, stability::unstable);
  EXPECT_NE(v.reason.find("20 of 20 samples ran during host slow-downs"), std::string::npos);
}

TEST(statistics_verdict, width_of_the_minimums_interval_decides) {
  // Second-smallest 1000 above the floor: the interval is 19 * 1000 / 1e6 = 1.9% wide.
  const phase_statistics wide = summarize(floor_samples(1000));
  const verdict unstable = judge(wide, all_clean(wide, 26));
  EXPECT_EQ(unstable.level, stability::unstable);
  EXPECT_NE(unstable.reason.find("is 1.9% of it wide, more than 1%"), std::string::npos)
      << unstable.reason;
  // 19 * 100 / 1e6 = 0.19%: between the stable and the unstable widths.
  const phase_statistics middling = summarize(floor_samples(100));
  const verdict noisy = judge(middling, all_clean(middling, 26));
  EXPECT_EQ(noisy.level, stability::noisy);
  EXPECT_NE(noisy.reason.find("is 0.19% of it wide, more than 0.1%"), std::string::npos)
      << noisy.reason;
}

TEST(statistics_verdict, a_floor_resolved_to_one_clock_step_is_judged_by_that_step) {
  // 20 samples one 26-tick step apart from 1e5 up, scrambled: the two fastest are one step apart,
  // which is the clock's quantum, so Robson-Whitlock's 19 gaps (0.49%) say nothing about the
  // floor; it is known to one step, 0.026%.
  std::vector<double> v;
  for (std::size_t i = 0; i < 20; ++i)
    v.push_back(1e5 + 26.0 * static_cast<double>(i * 9 % 20));
  const phase_statistics s = summarize(v);
  ASSERT_TRUE(s.min_gap);
  EXPECT_DOUBLE_EQ(*s.min_gap, 26.0);
  const verdict resolved = judge(s, all_clean(s, 26));
  EXPECT_EQ(resolved.level, stability::stable) << resolved.reason;
  EXPECT_NE(resolved.reason.find("known to one clock step (0.026% of it)"), std::string::npos)
      << resolved.reason;
  // On a clock twice as fine the gap is two steps: the density, not the clock, made it, and
  // Robson-Whitlock decides.
  const verdict extrapolated = judge(s, all_clean(s, 13));
  EXPECT_EQ(extrapolated.level, stability::noisy);
  // The method's name stays in the detail view: the verdict speaks plainly.
  EXPECT_NE(extrapolated.reason.find("the minimum's 95% interval is 0.494% of it wide"),
            std::string::npos)
      << extrapolated.reason;
  EXPECT_EQ(extrapolated.reason.find("Robson"), std::string::npos);
}

TEST(statistics_verdict, marked_drift_is_noisy) {
  std::vector<double> v = {1e6};
  for (int i = 0; i < 19; ++i)
    v.push_back(1e6 + 100.0 * i);
  const phase_statistics s = summarize(v);
  const verdict d = judge(s, all_clean(s, 26));
  EXPECT_EQ(d.level, stability::noisy);
  EXPECT_NE(d.reason.find("trend upwards"), std::string::npos) << d.reason;
  EXPECT_NE(d.recommendation.find("--warmup"), std::string::npos);
}

TEST(statistics_verdict, wide_bulk_is_noisy) {
  const phase_statistics s = summarize(floor_samples(0, 1.2e6));  // p95 20% above the floor
  const verdict b = judge(s, all_clean(s, 26));
  EXPECT_EQ(b.level, stability::noisy) << b.reason;
  EXPECT_NE(b.reason.find("95th percentile"), std::string::npos);
}

TEST(statistics_verdict, minimum_at_or_below_zero_is_unstable_beyond_the_clock_step) {
  std::vector<double> v;
  for (int i = 0; i < 20; ++i)
    v.push_back(-30.0 + 10.0 * (i * 7 % 9));
  const phase_statistics s = summarize(v);
  const verdict z = judge(s, all_clean(s, 10));
  EXPECT_EQ(z.level, stability::unstable);
  EXPECT_NE(z.recommendation.find("--batch"), std::string::npos);
}

TEST(statistics_verdict, counts_that_do_not_fit_abort) {
  const phase_statistics s = summarize(floor_samples());
  EXPECT_DEATH(judge(s, {21, 0, 0, 26}), "do not fit 20 samples");
  EXPECT_DEATH(judge(s, {10, 3, 3, 26}), "do not fit");  // 10 disturbed, 6 reasons
}

TEST(statistics_verdict, names) {
  EXPECT_EQ(to_string(stability::stable), "stable");
  EXPECT_EQ(to_string(stability::noisy), "noisy");
  EXPECT_EQ(to_string(stability::unstable), "unstable");
  EXPECT_EQ(to_string(stability::too_few), "too few samples");
  EXPECT_EQ(id_of(stability::too_few), "too_few_samples");
  EXPECT_EQ(id_of(stability::noisy), "noisy");
}

// ---- `--samples auto` ----

TEST(statistics_auto_stop, needs_enough_samples_even_when_the_minimum_repeats) {
  const std::vector<double> v28(28, 100.0);
  const stop_decision early = auto_sampling_target_reached(summarize(v28), 0.001);
  EXPECT_FALSE(early.target_reached);
  EXPECT_NE(early.reason.find("at least 29"), std::string::npos);
  const std::vector<double> v29(29, 100.0);
  const stop_decision enough = auto_sampling_target_reached(summarize(v29), 0.001);
  EXPECT_TRUE(enough.target_reached);
  EXPECT_EQ(enough.relative_width, 0.0);
}

TEST(statistics_auto_stop, compares_the_relative_width_with_the_target) {
  std::vector<double> v;
  for (int i = 0; i < 40; ++i)
    v.push_back(1e6 + 5 + 10.0 * i);
  v[7] = 1e6;  // x(1) = 1e6, x(2) = 1e6 + 5: width 95, relative 9.5e-5
  const phase_statistics s = summarize(v);
  const stop_decision met = auto_sampling_target_reached(s, 0.001);
  EXPECT_TRUE(met.target_reached);
  ASSERT_TRUE(met.relative_width);
  EXPECT_NEAR(*met.relative_width, 9.5e-5, 1e-15);
  const stop_decision missed = auto_sampling_target_reached(s, 5e-5);
  EXPECT_FALSE(missed.target_reached);
  EXPECT_NE(missed.reason.find("wider than the target"), std::string::npos);
  // Two fastest samples within one granularity step: the floor is known to that step, and an
  // interval of one step cannot shrink further, whatever the target.
  const stop_decision one_step = auto_sampling_target_reached(s, 1e-6, 5);
  EXPECT_TRUE(one_step.target_reached);
  EXPECT_NE(one_step.reason.find("1 clock steps wide: it cannot shrink further"), std::string::npos)
      << one_step.reason;
  // A gap wider than the step is the density's: Robson-Whitlock's 95 ticks decide.
  EXPECT_FALSE(auto_sampling_target_reached(s, 5e-5, 4).target_reached);
}

TEST(statistics_auto_stop, ties_at_the_minimum_are_one_clock_step_wide_not_zero) {
  const phase_statistics s = summarize(std::vector<double>(30, 100.0));
  const auto floor = floor_estimate(s, 2);
  ASSERT_TRUE(floor);
  EXPECT_DOUBLE_EQ(floor->lower, 98.0);
  EXPECT_DOUBLE_EQ(floor->upper, 100.0);
  EXPECT_NE(floor->method.find("one clock step"), std::string::npos);
  // 2% wide: not within a 0.1% target, but it cannot shrink below the clock's step.
  const stop_decision d = auto_sampling_target_reached(s, 0.001, 2);
  EXPECT_TRUE(d.target_reached);
  EXPECT_DOUBLE_EQ(*d.relative_width, 0.02);
  EXPECT_NE(d.reason.find("cannot shrink further"), std::string::npos) << d.reason;
  // Without a known granularity the zero-width interval is all there is.
  EXPECT_EQ(floor_estimate(s, 0)->width(), 0.0);
}

TEST(statistics_auto_stop, a_zero_minimum_has_no_relative_width) {
  std::vector<double> v;
  for (int i = 0; i < 30; ++i)
    v.push_back(static_cast<double>(i));
  const phase_statistics s = summarize(v);  // width 19
  const stop_decision d = auto_sampling_target_reached(s, 0.5);
  EXPECT_FALSE(d.target_reached);
  EXPECT_FALSE(d.relative_width);
  EXPECT_TRUE(auto_sampling_target_reached(s, 0.5, 19).target_reached);
}

// The command line checks --target and run_workload its options: a bad target reaching the rule
// is a bug upstream, a failed check.
TEST(statistics_auto_stop, a_target_that_is_not_a_positive_fraction_is_a_failed_check) {
  const phase_statistics s = summarize(std::vector<double>(30, 1.0));
  EXPECT_DEATH(auto_sampling_target_reached(s, 0),
               "check failed: .*target 0 is not a positive, finite fraction");
  EXPECT_DEATH(auto_sampling_target_reached(s, -0.1), "target -0.1 is not");
  EXPECT_DEATH(auto_sampling_target_reached(s, std::numeric_limits<double>::infinity()),
               "target inf is not");
  EXPECT_DEATH(auto_sampling_target_reached(s, std::numeric_limits<double>::quiet_NaN()),
               "target nan is not");
}

}  // namespace
}  // namespace harness::stats

namespace harness::stats {
namespace {

TEST(LogShift, IsTheMedianPairwiseRatioWithMannWhitneysInterval) {
  // B is A times 1.5 exactly: every pairwise log difference is log 1.5 plus A's own spread.
  std::vector<double> a;
  std::vector<double> b;
  for (int i = 1; i <= 30; ++i) {
    a.push_back(100.0 + i);
    b.push_back(1.5 * (100.0 + i));
  }
  const auto s = log_shift(a, b);
  ASSERT_TRUE(s.has_value());
  EXPECT_NEAR(s->ratio, 1.5, 1e-12);  // the shift of two samples alike but for a factor
  EXPECT_LT(s->lower, 1.5);
  EXPECT_GT(s->upper, 1.5);
  EXPECT_GT(s->lower, 1.4);  // A spans 101-130: the interval stays well inside a 30% spread
  EXPECT_DOUBLE_EQ(s->confidence_level, 0.95);
  EXPECT_EQ(s->a_values, 30U);
  EXPECT_FALSE(s->thinned);
  // The interval's ranks: 900 pairs, C = floor(450 - 1.96 * sqrt(900 * 61 / 12)) = 317.
  std::vector<double> d;
  for (const double y : b)
    for (const double x : a)
      d.push_back(std::log(y) - std::log(x));
  std::sort(d.begin(), d.end());
  EXPECT_DOUBLE_EQ(s->lower, std::exp(d[316]));
  EXPECT_DOUBLE_EQ(s->upper, std::exp(d[900 - 317]));
}

TEST(LogShift, ThinsLargeSamplesAndRefusesValuesAtOrBelowZero) {
  std::vector<double> a(3'000);
  std::vector<double> b(3'000);
  for (std::size_t i = 0; i < a.size(); ++i) {
    a[i] = 1000.0 + static_cast<double>(i % 97);
    b[i] = 1010.0 + static_cast<double>(i % 97);
  }
  const auto s = log_shift(a, b);
  ASSERT_TRUE(s.has_value());
  EXPECT_TRUE(s->thinned);
  EXPECT_EQ(s->a_values, 2'000U);  // sqrt(kShiftMaxPairs)
  EXPECT_NEAR(s->ratio, 1.01, 0.002);
  EXPECT_FALSE(log_shift(std::vector<double>{1, 2, 0}, b).has_value());
  EXPECT_FALSE(log_shift(std::vector<double>{1}, b).has_value());
}

// ---- the one histogram --------------------------------------------------------------------------

TEST(Histogram, CountsEachValueInOneBarAndTheRestApart) {
  const std::vector<double> values{-1, 0, 0.99, 1, 2.5, 4, 4.01};
  const bin_counts c = count_bins(values, 0, 4, 4);
  EXPECT_EQ(c.counts, (std::vector<std::size_t>{2, 1, 1, 1}));  // 4 itself in the last bar
  EXPECT_EQ(c.below, 1u);
  EXPECT_EQ(c.above, 1u);
  // A flat scale: every value on it in the first bar.
  const bin_counts flat = count_bins(std::vector<double>{3, 3, 3}, 3, 3, 5);
  EXPECT_EQ(flat.counts, (std::vector<std::size_t>{3, 0, 0, 0, 0}));
}

TEST(Histogram, TheFenceIsTheType7QuartileOfEachPhase) {
  // Type 7's 75th percentile of 1..5 and 100 is 4.75 (the lower order statistic was 4): fence
  // 4.75 + 1.5 (4.75 - 1) = 10.375; 100 lies above it.
  const std::vector<double> a{1, 2, 3, 4, 5, 100};
  const std::vector<double> empty;
  const std::vector<std::span<const double>> phases{a, empty};
  const auto h = histogram_of(phases);
  ASSERT_TRUE(h.has_value());
  EXPECT_DOUBLE_EQ(h->low, 1);
  EXPECT_DOUBLE_EQ(h->high, 100);
  EXPECT_DOUBLE_EQ(h->top, 10.375);
  EXPECT_DOUBLE_EQ(h->width, 9.375 / kHistogramBins);
  ASSERT_EQ(h->phases.size(), 2u);
  EXPECT_EQ(h->phases[0].above, 1u);
  std::size_t counted = 0;
  for (const std::size_t n : h->phases[0].counts)
    counted += n;
  EXPECT_EQ(counted, 5u);
  EXPECT_EQ(h->phases[1].counts, std::vector<std::size_t>(kHistogramBins, 0));
  // No sample anywhere: no histogram; all alike: a scale 1% wide above them.
  EXPECT_FALSE(histogram_of(std::vector<std::span<const double>>{empty}).has_value());
  const std::vector<double> same{200, 200};
  const auto flat = histogram_of(std::vector<std::span<const double>>{same});
  ASSERT_TRUE(flat.has_value());
  EXPECT_DOUBLE_EQ(flat->top, 202);
  EXPECT_EQ(flat->phases[0].counts[0], 2u);
}

}  // namespace
}  // namespace harness::stats
