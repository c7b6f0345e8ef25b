// Comparing runs: the verdict from the widened floor intervals, several reports per side (the
// run-to-run variation joins the floor), units when the clocks differ, the host-speed check,
// workloads found on one side only, and reports that cannot be read.
#include "harness/compare.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "harness/errors.hpp"

namespace harness::compare {
namespace {

using ::testing::HasSubstr;

// Twelve samples (enough for a verdict) whose two fastest are `floor` and `floor + gap`.
std::vector<double> samples(double floor, double gap = 0) {
  std::vector<double> v(12, floor + 50);
  v[3] = floor;
  v[7] = floor + gap;
  return v;
}

run_file run(std::string clock, std::vector<workload_run> workloads, double step = 10,
             double ticks_per_second = 1e9) {
  run_file r;
  r.source = clock + ".json";
  r.clock = std::move(clock);
  r.ticks_per_second = ticks_per_second;
  r.step_ticks = step;
  r.workloads = std::move(workloads);
  return r;
}

workload_run workload(std::string name, std::vector<double> values,
                      std::uint64_t reference = 3000) {
  workload_run w;
  w.name = std::move(name);
  w.values = std::move(values);
  w.reference_best = reference;
  w.verdict = "stable";
  w.floor_recorded = true;
  w.floor_confirmed = true;
  w.floor_reason = "blocks 1 and 3 agree";
  return w;
}

workload_run unconfirmed(workload_run w, std::string reason = "no other block came close") {
  w.floor_confirmed = false;
  w.floor_reason = std::move(reason);
  return w;
}

TEST(CompareRuns, IntervalsApartGiveFasterOrSlower) {
  // Ties at the floor: zero-width intervals, widened by one step (10) each way.
  const auto a = run("tsc", {workload("w", samples(1000))});
  auto c = compare_runs({a}, {run("tsc", {workload("w", samples(1030))})});
  ASSERT_EQ(c.workloads.size(), 1u);
  EXPECT_EQ(c.workloads[0].result, outcome::slower);
  EXPECT_DOUBLE_EQ(*c.workloads[0].ratio, 1.03);
  EXPECT_THAT(c.workloads[0].reason,
              HasSubstr("B's floor [1020, 1040] lies above A's [990, 1010]"));
  c = compare_runs({a}, {run("tsc", {workload("w", samples(970))})});
  EXPECT_EQ(c.workloads[0].result, outcome::faster);
  EXPECT_EQ(c.unit, "ticks of tsc");
  EXPECT_TRUE(c.same_clock);
}

TEST(CompareRuns, OneStepEitherWayIsNotADifference) {
  // 1000 and 1020 differ by two steps, which the widening (one step each) just covers.
  const auto a = run("tsc", {workload("w", samples(1000))});
  const auto c = compare_runs({a}, {run("tsc", {workload("w", samples(1020))})});
  EXPECT_EQ(c.workloads[0].result, outcome::not_shown);
  EXPECT_THAT(c.workloads[0].reason, HasSubstr("overlap"));
}

TEST(CompareRuns, ALooseFloorIntervalHidesTheDifference) {
  // A gap of 5 between the two fastest samples: Robson-Whitlock reaches 19 gaps (95 ticks) below.
  const auto a = run("tsc", {workload("w", samples(1000, 5))});
  const auto c = compare_runs({a}, {run("tsc", {workload("w", samples(940))})});
  EXPECT_EQ(c.workloads[0].result, outcome::not_shown);
  const auto far = compare_runs({a}, {run("tsc", {workload("w", samples(880))})});
  EXPECT_EQ(far.workloads[0].result, outcome::faster);
}

TEST(CompareRuns, TooFewSamplesAreNotCompared) {
  const auto a = run("tsc", {workload("w", {1000, 1001, 1002})});
  const auto c = compare_runs({a}, {run("tsc", {workload("w", samples(2000))})});
  EXPECT_EQ(c.workloads[0].result, outcome::undefined);
  EXPECT_THAT(c.workloads[0].reason,
              HasSubstr("needs 11 samples or more to compare; the fewest are A 3, B 12"));
}

TEST(CompareRuns, BatchedStepsArePerCall) {
  // 100 calls a sample: one step of 10 ticks is 0.1 tick per call, so 0.5 apart is a difference.
  auto wa = workload("w", samples(100));
  wa.batch = 100;
  auto wb = workload("w", samples(100.5));
  wb.batch = 100;
  const auto c = compare_runs({run("tsc", {wa})}, {run("tsc", {wb})});
  EXPECT_DOUBLE_EQ(c.workloads[0].a.step, 0.1);
  EXPECT_EQ(c.workloads[0].result, outcome::slower);
  EXPECT_FALSE(c.workloads[0].whole_ticks);
}

TEST(CompareRuns, DifferentClocksCompareInNanoseconds) {
  // A: 2 ticks a ns; B: 10 MHz (100 ns a tick). 2000 ticks of A = 1000 ns = 10 ticks of B.
  const auto a = run("tsc", {workload("w", samples(2000), 6000)}, 1, 2e9);
  const auto b = run("QueryPerformanceCounter", {workload("w", samples(10), 30)}, 1, 1e7);
  const auto c = compare_runs({a}, {b});
  EXPECT_FALSE(c.same_clock);
  EXPECT_EQ(c.unit, "ns");
  EXPECT_DOUBLE_EQ(*c.workloads[0].a.min, 1000.0);
  EXPECT_DOUBLE_EQ(*c.workloads[0].b.min, 1000.0);
  EXPECT_DOUBLE_EQ(*c.workloads[0].ratio, 1.0);
  EXPECT_DOUBLE_EQ(*c.a_reference, 3000.0);
  EXPECT_DOUBLE_EQ(*c.b_reference, 3000.0);
  EXPECT_FALSE(c.host_speed_differs);
}

TEST(CompareRuns, SeveralReportsPerSideJoinTheirFloors) {
  // Two processes of build A found floors 40 ticks apart (placement); B's lies between them.
  const auto a1 = run("tsc", {workload("w", samples(1000))});
  const auto a2 = run("tsc", {workload("w", samples(1040))});
  const auto b = run("tsc", {workload("w", samples(1030))});
  EXPECT_EQ(compare_runs({a1}, {b}).workloads[0].result, outcome::slower);
  const auto c = compare_runs({a1, a2}, {b});
  const workload_comparison& w = c.workloads[0];
  EXPECT_EQ(w.result, outcome::not_shown);
  EXPECT_EQ(w.a.reports, 2u);
  EXPECT_DOUBLE_EQ(*w.a.min, 1020.0);  // the median of the two minimums
  EXPECT_DOUBLE_EQ(w.a.floor->lower, 990.0);
  EXPECT_DOUBLE_EQ(w.a.floor->upper, 1050.0);
  std::ostringstream text;
  write_text(text, c, {a1, a2}, {b});
  EXPECT_THAT(text.str(), HasSubstr("A's minimums over 2 reports: 1000 to 1040 (4.00% apart)"));
  EXPECT_THAT(text.str(), ::testing::Not(HasSubstr("one report per side")));
  // B well below both of A's processes: faster even with the variation included.
  const auto fast = compare_runs({a1, a2}, {run("tsc", {workload("w", samples(900))})});
  EXPECT_EQ(fast.workloads[0].result, outcome::faster);
}

TEST(CompareRuns, AWorkloadMissingFromSomeReportsUsesTheOthers) {
  const auto a1 = run("tsc", {workload("w", samples(1000)), workload("v", samples(10))});
  const auto a2 = run("tsc", {workload("v", samples(10))});
  const auto c = compare_runs({a1, a2}, {run("tsc", {workload("w", samples(1000))})});
  ASSERT_EQ(c.workloads.size(), 1u);
  EXPECT_EQ(c.workloads[0].a.reports, 1u);
  EXPECT_EQ(c.only_in_a, std::vector<std::string>{"v"});
}

TEST(CompareRuns, OnlyConfirmedFloorsAreCompared) {
  // A's second report did not confirm its floor (a slowed host: 1200): it is left out and named.
  const auto a1 = run("tsc", {workload("w", samples(1000))});
  auto a2 = run("tsc", {unconfirmed(workload("w", samples(1200)), "the host was slower")});
  a2.source = "a2.json";
  const auto b = run("tsc", {workload("w", samples(1030))});
  const comparison c = compare_runs({a1, a2}, {b});
  ASSERT_EQ(c.workloads.size(), 1u);
  EXPECT_EQ(c.workloads[0].result, outcome::slower);
  EXPECT_EQ(c.workloads[0].a.reports, 1u);
  EXPECT_EQ(c.workloads[0].a.unconfirmed, 1u);
  EXPECT_DOUBLE_EQ(*c.workloads[0].a.highest_min, 1000);
  ASSERT_EQ(c.workloads[0].a.notes.size(), 1u);
  EXPECT_EQ(c.workloads[0].a.notes[0],
            "A (a2.json): the floor was not confirmed, so the report is left out: the host was "
            "slower");
}

TEST(CompareRuns, ASideWithNoConfirmedFloorIsNotCompared) {
  const auto a = run("tsc", {workload("w", samples(1000))});
  const auto b = run("tsc", {unconfirmed(workload("w", samples(1500)))});
  const comparison c = compare_runs({a}, {b});
  EXPECT_EQ(c.workloads[0].result, outcome::undefined);
  EXPECT_THAT(c.workloads[0].reason, HasSubstr("no report of B confirmed its floor"));
  EXPECT_FALSE(c.workloads[0].ratio);
  // A report from before floors were confirmed says nothing about them: left out too.
  workload_run old = workload("w", samples(1000));
  old.floor_recorded = false;
  old.floor_confirmed = false;
  const comparison c2 = compare_runs({run("tsc", {old})}, {a});
  EXPECT_EQ(c2.workloads[0].result, outcome::undefined);
  EXPECT_THAT(c2.workloads[0].a.notes[0], HasSubstr("written without a floor confirmation"));
}

TEST(CompareRuns, TheGranularityWidensTheFloorWhenRecorded) {
  // A step of 10 ticks (the read cost), a granularity of 1: the floors widen by 1 each way.
  auto a = run("tsc", {workload("w", samples(1000))});
  auto b = run("tsc", {workload("w", samples(1005))});
  a.granularity_ticks = 1;
  b.granularity_ticks = 1;
  const comparison c = compare_runs({a}, {b});
  EXPECT_EQ(c.workloads[0].result, outcome::slower);
  EXPECT_THAT(c.workloads[0].reason,
              HasSubstr("B's floor [1004, 1006] lies above A's [999, 1001]"));
}

TEST(CompareRuns, ASideWithoutReportsIsABug) {
  EXPECT_THROW(compare_runs({}, {run("tsc", {})}), std::invalid_argument);
}

TEST(CompareRuns, ASlowerHostIsFlagged) {
  const auto a = run("tsc", {workload("w", samples(1000), 3000)});
  const auto b = run("tsc", {workload("w", samples(1500), 4500)});  // 1.5x: a slowed host
  const auto c = compare_runs({a}, {b});
  EXPECT_TRUE(c.host_speed_differs);
  std::ostringstream text;
  write_text(text, c, {a}, {b});
  EXPECT_THAT(text.str(), HasSubstr("the CPU ran B more than 1.30x slower"));
  EXPECT_THAT(text.str(), HasSubstr("do not compare directly"));
}

TEST(CompareRuns, WorkloadsInOneRunOnlyAreListed) {
  const auto a = run("tsc", {workload("x", samples(10)), workload("y", samples(10))});
  const auto b = run("tsc", {workload("y", samples(10)), workload("z", samples(10))});
  const auto c = compare_runs({a}, {b});
  ASSERT_EQ(c.workloads.size(), 1u);
  EXPECT_EQ(c.workloads[0].name, "y");
  EXPECT_EQ(c.only_in_a, std::vector<std::string>{"x"});
  EXPECT_EQ(c.only_in_b, std::vector<std::string>{"z"});
  std::ostringstream text;
  write_text(text, c, {a}, {b});
  EXPECT_THAT(text.str(), HasSubstr("only in A: x\n"));
  EXPECT_THAT(text.str(), HasSubstr("only in B: z\n"));
}

TEST(CompareRuns, TextNamesTheEstimatorAndTheRunsOwnVerdicts) {
  auto wb = workload("w", samples(1030));
  wb.verdict = "noisy";
  wb.verdict_reason = "the 95th percentile lies 9% above the minimum";
  const auto a = run("tsc", {workload("w", samples(1000))});
  const auto b = run("tsc", {wb});
  std::ostringstream text;
  write_text(text, compare_runs({a}, {b}), {a}, {b});
  const std::string s = text.str();
  EXPECT_THAT(s, HasSubstr("figures: ticks of tsc per call"));
  EXPECT_THAT(s, HasSubstr("95% Robson-Whitlock interval for the floor, widened by one granularity "
                           "step of the clock"));
  EXPECT_THAT(s, HasSubstr("1000   1030  1.0300  +3.00%  B slower\n"));
  EXPECT_THAT(s, HasSubstr("note: B judged its prepared phase noisy: the 95th percentile"));
  EXPECT_THAT(s, HasSubstr("one report per side, so the run-to-run variation"));
  EXPECT_THAT(s, HasSubstr("both sides saw the same CPU speed within 1.30x"));
}

TEST(ParseRun, RefusesWhatIsNotAHarnessReport) {
  const auto message = [](std::string_view text) {
    try {
      parse_run(text, "r.json");
    } catch (const usage_error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_THAT(message("not json"), HasSubstr("r.json: not JSON"));
  EXPECT_THAT(message(R"({"benchmarks": []})"), HasSubstr("r.json: not a harness JSON report"));
  EXPECT_THAT(message(R"({"harness": {"schema_version": 7}})"),
              HasSubstr("r.json: schema_version 7 is not one this harness reads (1)"));
  EXPECT_THAT(message(R"({"harness": {"schema_version": 1}, "benchmarks": []})"),
              HasSubstr("r.json: a harness report with a missing or malformed field"));
  EXPECT_THAT(message(R"({"harness": {"schema_version": 1,
      "clock": {"name": "c", "ticks_per_second": 0}}, "benchmarks": []})"),
              HasSubstr("ticks_per_second 0 is not positive"));
}

TEST(ParseRun, MissingFileIsAUsageErrorNamingIt) {
  try {
    read_run("/nonexistent/dir/r.json");
    FAIL() << "no exception";
  } catch (const usage_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("/nonexistent/dir/r.json: cannot be read"));
  }
}

}  // namespace
}  // namespace harness::compare
