#include "harness/report.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "harness/analysis.hpp"
#include "report/summary.hpp"

namespace harness {
namespace {

phase_result phase_of(phase_kind kind, std::vector<double> values) {
  phase_result p;
  p.kind = kind;
  p.values = std::move(values);
  p.host_slowdown.assign(p.values.size(), false);
  return p;
}

clock_facts one_tick_clock() {
  clock_facts facts;
  facts.granularity = 1;
  return facts;
}

// What `-w 'sort*' -n 5` showed: the floor and the median fell 8%, but one slow prepared sample
// made max - min wider, and the old sentence said "4.32x wider". The floor, the median and the
// p90's distance from the floor say what changed; the max does not take part.
TEST(ComparePreparation, TheFloorAndMedianFellAndNoOutlierSaysOtherwise) {
  const phase_result base = phase_of(phase_kind::baseline, {1090, 1100, 1085, 1095, 1087});
  const phase_result prep = phase_of(phase_kind::prepared, {1000, 1002, 1001, 1000, 4000});
  const clock_facts clock = one_tick_clock();
  workload_result r;
  r.name = "sort_ints/10000";
  workload_analysis w;
  w.result = &r;
  w.phases = {analyze(base, clock), analyze(prep, clock)};
  w.change = compare_preparation(w.phases[0], w.phases[1], clock, floor_settings{});
  ASSERT_TRUE(w.change);
  EXPECT_NEAR(w.change->floor_change(), 1000.0 / 1085 - 1, 1e-12);
  EXPECT_TRUE(w.change->floor_changed());
  EXPECT_TRUE(w.change->median_changed());
  const std::string text = report_detail::spread_sentence(w, 1.3);
  EXPECT_EQ(text.find("wider"), std::string::npos) << text;
  // Five samples: too few for a p90 that is not mostly the largest sample, so no tail is named.
  EXPECT_EQ(text, "sort_ints/10000: prepared: floor 7.8% lower (not confirmed), median 8.2% lower");
}

TEST(ComparePreparation, NothingMeasurableIsSaidSo) {
  const std::vector<double> same = {1000, 1001, 1000, 1002, 1000, 1001, 1000, 1003, 1000, 1001};
  const phase_result base = phase_of(phase_kind::baseline, same);
  const phase_result prep = phase_of(phase_kind::prepared, same);
  const clock_facts clock = one_tick_clock();
  workload_result r;
  r.name = "w";
  workload_analysis w;
  w.result = &r;
  w.phases = {analyze(base, clock), analyze(prep, clock)};
  w.change = compare_preparation(w.phases[0], w.phases[1], clock, floor_settings{});
  ASSERT_TRUE(w.change);
  EXPECT_FALSE(w.change->floor_changed() || w.change->median_changed() || w.change->tail_changed());
  EXPECT_EQ(report_detail::spread_sentence(w, 1.3),
            "w: preparation changed nothing measurable: floor and median within 0.20% of the "
            "baseline's, p90 0.2% above the floor as in the baseline (0.2%)");
}

TEST(ComparePreparation, UndefinedWhenAMinimumIsNotAboveZero) {
  const clock_facts clock = one_tick_clock();
  const phase_analysis base = analyze(phase_of(phase_kind::baseline, {0, 3, 4}), clock);
  const phase_analysis prep = analyze(phase_of(phase_kind::prepared, {2, 3, 4}), clock);
  EXPECT_FALSE(compare_preparation(base, prep, clock, floor_settings{}).has_value());
}

TEST(CompareHostSpeed, RatioOfTheSlowerPhaseAndWhichOneItWas) {
  phase_result base, prep;
  base.reference_best = 4500;
  prep.reference_best = 3000;
  auto c = compare_host_speed(base, prep);
  ASSERT_TRUE(c);
  EXPECT_DOUBLE_EQ(c->ratio, 1.5);
  EXPECT_TRUE(c->baseline_slower);
  EXPECT_EQ(c->baseline_best, 4500u);
  EXPECT_EQ(c->prepared_best, 3000u);
  prep.reference_best = 9000;  // the prepared phase ran on the slowed host
  c = compare_host_speed(base, prep);
  ASSERT_TRUE(c);
  EXPECT_DOUBLE_EQ(c->ratio, 2.0);
  EXPECT_FALSE(c->baseline_slower);
  base.reference_best = 0;  // no reference run in the baseline: nothing to compare
  EXPECT_FALSE(compare_host_speed(base, prep).has_value());
}

}  // namespace
}  // namespace harness
