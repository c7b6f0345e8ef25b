#include "harness/report.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "harness/analysis.hpp"
#include "report/summary.hpp"
#include "report/table.hpp"

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

// A workload's baseline and prepared phase, analysed on a one-tick clock as analyze_run() would,
// and what preparation changed. It owns what its analysis points into: made in place, never
// copied.
struct compared_phases {
  compared_phases(std::string name, std::vector<double> base, std::vector<double> prep)
      : baseline(phase_of(phase_kind::baseline, std::move(base))),
        prepared(phase_of(phase_kind::prepared, std::move(prep))) {
    result.name = std::move(name);
    analysis.result = &result;
    analysis.phases = {analyze(baseline, clock), analyze(prepared, clock)};
    analysis.change =
        compare_preparation(analysis.phases[0], analysis.phases[1], clock, floor_settings{});
  }
  compared_phases(const compared_phases&) = delete;
  compared_phases& operator=(const compared_phases&) = delete;

  const clock_facts clock = one_tick_clock();
  const phase_result baseline;
  const phase_result prepared;
  workload_result result;
  workload_analysis analysis;
};

// What `-w 'sort*' -n 5` showed: the floor and the median fell 8%, but one slow prepared sample
// made max - min wider, and the old sentence said "4.32x wider". The floor, the median and the
// p90's distance from the floor say what changed; the max does not take part.
TEST(ComparePreparation, TheFloorAndMedianFellAndNoOutlierSaysOtherwise) {
  const compared_phases c("sort_ints/10000", {1090, 1100, 1085, 1095, 1087},
                          {1000, 1002, 1001, 1000, 4000});
  const auto& change = c.analysis.change;
  ASSERT_TRUE(change);
  EXPECT_NEAR(change->floor_change(), 1000.0 / 1085 - 1, 1e-12);
  EXPECT_TRUE(change->floor_changed());
  EXPECT_TRUE(change->median_changed());
  const std::string text = report_detail::preparation_sentence(c.analysis, 1.3);
  EXPECT_EQ(text.find("wider"), std::string::npos) << text;
  // Five samples: too few for a p90 that is not mostly the largest sample, so no tail is named.
  EXPECT_EQ(text, "sort_ints/10000: prepared: floor 7.8% lower (not confirmed), median 8.2% lower");
}

TEST(ComparePreparation, NothingMeasurableIsSaidSo) {
  const std::vector<double> same = {1000, 1001, 1000, 1002, 1000, 1001, 1000, 1003, 1000, 1001};
  const compared_phases c("w", same, same);
  const auto& change = c.analysis.change;
  ASSERT_TRUE(change);
  EXPECT_FALSE(change->floor_changed() || change->median_changed() || change->tail_changed());
  EXPECT_EQ(report_detail::preparation_sentence(c.analysis, 1.3),
            "w: preparation changed nothing measurable: floor and median within 0.20% of the "
            "baseline's, p90 0.2% above the floor as in the baseline (0.2%)");
}

TEST(ComparePreparation, UndefinedWhenAMinimumIsNotAboveZero) {
  const compared_phases c("w", {0, 3, 4}, {2, 3, 4});
  EXPECT_FALSE(c.analysis.change.has_value());
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

TEST(DisplayWidth, CountsCodePointsAndNoColourEscapes) {
  EXPECT_EQ(report_detail::display_width("12.346 µs"), 9U);
  EXPECT_EQ(report_detail::display_width("\x1b[33mtrust\x1b[0m: ok"), 9U);
  EXPECT_EQ(report_detail::display_width(""), 0U);
  // An escape cut short counts nothing past it.
  EXPECT_EQ(report_detail::display_width("ab\x1b[3"), 2U);
}

}  // namespace
}  // namespace harness
