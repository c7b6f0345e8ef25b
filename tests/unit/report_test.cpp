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

TEST(WrapLines, BreaksLongLinesAtSpacesUnderTheirLabel) {
  using report_detail::wrap_lines;
  // A line within the width, and the line breaks, as they are.
  EXPECT_EQ(wrap_lines("A: x\n  short line\n", 20), "A: x\n  short line\n");
  EXPECT_EQ(wrap_lines("", 20), "");
  // Under the label: past the leading spaces and "host: ".
  EXPECT_EQ(wrap_lines("  host: aaaa bbbb cccc dddd\n", 20),
            "  host: aaaa bbbb\n        cccc dddd\n");
  // No label within kWrapLabelMost columns: 2 columns in.
  EXPECT_EQ(wrap_lines("  the interval is over: aaa bbb", 20),
            "  the interval is\n    over: aaa bbb");
  // Display width, not bytes: "µs" is two columns.
  EXPECT_EQ(wrap_lines("t: 248 µs 250 µs", 12), "t: 248 µs\n   250 µs");
  // An indent given: every continuation line starts there, whatever the label.
  EXPECT_EQ(wrap_lines("  trust       aaaa bbbb: cccc dddd", 26, 14),
            "  trust       aaaa bbbb:\n              cccc dddd");
  // A word longer than a line stays whole, on a line of its own.
  EXPECT_EQ(wrap_lines("k: a 0123456789abcdef b", 10), "k: a\n   0123456789abcdef\n   b");
  // Joining the broken lines again (a break and the indent as one space) gives the text back.
  const std::string line =
      "  stopped: --max-time passed (the round ratios' half-width 0.038% at the last of 25 "
      "checks, target 0.040%), 1.00 s of rounds after a warmup of 131 rounds (502 ms)";
  const std::string wrapped = wrap_lines(line, 60);
  std::string joined;
  for (std::size_t i = 0; i < wrapped.size(); ++i) {
    if (wrapped[i] != '\n') {
      joined += wrapped[i];
      continue;
    }
    joined += ' ';
    while (i + 1 < wrapped.size() && wrapped[i + 1] == ' ')
      ++i;
  }
  EXPECT_EQ(joined, line);
  for (std::size_t at = 0, end = 0; at < wrapped.size(); at = end + 1) {
    end = std::min(wrapped.find('\n', at), wrapped.size());
    EXPECT_LE(report_detail::display_width(wrapped.substr(at, end - at)), 60U);
  }
}

}  // namespace
}  // namespace harness
