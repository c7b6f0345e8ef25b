// Comparing runs: the verdict from the widened floor intervals (clamped at zero), several reports
// per side (the run-to-run variation joins the floor), units when the clocks differ, the
// host-speed check, workloads found on one side only or never sampled, reports that cannot be
// read, the gate over the outcomes, the JSON document, and `harness compare`'s exit codes.
//
// Why one file of ~650 lines: the comparison, its readers, writers and command share the runs,
// samples and reports built here, and each case is one comparison seen from every side.
#include "harness/compare.hpp"
#include "cli/report_files.hpp"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "cli/cli.hpp"
#include "harness/errors.hpp"
#include "report_text.hpp"
#include "scratch.hpp"

namespace harness::compare {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
namespace fs = std::filesystem;

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

// The text of a comparison with the default gate (0%), as `harness compare` prints it, its wrapped
// lines joined again (report_text.hpp).
std::string text_of(const comparison& c, const std::vector<run_file>& a,
                    const std::vector<run_file>& b) {
  std::ostringstream out;
  const gate_result gate = apply_gate(c, 0);
  write_text(out, c, a, b, gate, gate.slower.empty() ? 0 : 4);
  return testing::unwrapped(out.str());
}

unsampled_workload unsampled(std::string name, bool interrupted, std::string error = "") {
  return {std::move(name), interrupted, std::move(error)};
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

// Throughput at each side's min, from the bytes every report declares per call; none when a side
// does not declare it or the sides declare different amounts.
TEST(CompareRuns, ThroughputAtEachSidesMinimumWhenBothDeclareTheSameAmount) {
  const auto declared = [](double floor, std::optional<double> bytes) {
    workload_run w = workload("copy", samples(floor));
    w.bytes_per_call = bytes;
    return w;
  };
  // 1e9 ticks a second: 1000 and 500 ns per call of 4096 bytes.
  auto c = compare_runs({run("tsc", {declared(1000, 4096)})}, {run("tsc", {declared(500, 4096)})});
  ASSERT_EQ(c.workloads.size(), 1u);
  EXPECT_DOUBLE_EQ(*c.workloads[0].rates.a_bytes_per_second, 4.096e9);
  EXPECT_DOUBLE_EQ(*c.workloads[0].rates.b_bytes_per_second, 8.192e9);
  EXPECT_FALSE(c.workloads[0].rates.a_items_per_second.has_value());
  std::ostringstream text;
  write_text(text, c, {run("tsc", {})}, {run("tsc", {})}, apply_gate(c, 0), 0);
  EXPECT_THAT(testing::unwrapped(text.str()),
              HasSubstr("; at the minimum A 3.815 GiB/s, B 7.629 GiB/s (B/A 2.0000)"));

  c = compare_runs({run("tsc", {declared(1000, 4096)})}, {run("tsc", {declared(500, 8192)})});
  EXPECT_FALSE(c.workloads[0].rates.a_bytes_per_second.has_value());
  c = compare_runs({run("tsc", {declared(1000, 4096)})},
                   {run("tsc", {declared(500, std::nullopt)})});
  EXPECT_FALSE(c.workloads[0].rates.b_bytes_per_second.has_value());
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
  const auto farther = compare_runs({a}, {run("tsc", {workload("w", samples(880))})});
  EXPECT_EQ(farther.workloads[0].result, outcome::faster);
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
  const std::string text = text_of(c, {a1, a2}, {b});
  EXPECT_THAT(text, HasSubstr("A's minimums over 2 reports: 1000 to 1040 (4.00% apart)"));
  EXPECT_THAT(text, Not(HasSubstr("one report per side")));
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

TEST(CompareRuns, ASideWithNoConfirmedFloorIsDecidedByTheMedians) {
  // 12 samples a side: ten at floor + 50, two at the floor. The pairwise log differences are
  // log(1550/1050) for 100 of the 144 pairs, so the shift and both bounds of its interval are that.
  const auto a = run("tsc", {workload("w", samples(1000))});
  const auto b = run("tsc", {unconfirmed(workload("w", samples(1500)))});
  const comparison c = compare_runs({a}, {b});
  const workload_comparison& w = c.workloads[0];
  EXPECT_EQ(w.result, outcome::slower);
  EXPECT_EQ(w.decided_by, estimator::median_shift);
  ASSERT_TRUE(w.shift && w.ratio);
  EXPECT_DOUBLE_EQ(w.shift->ratio, 1550.0 / 1050.0);
  EXPECT_DOUBLE_EQ(w.shift->lower, 1550.0 / 1050.0);
  EXPECT_DOUBLE_EQ(w.shift->upper, 1550.0 / 1050.0);
  EXPECT_EQ(w.shift->a_values, 12U);
  EXPECT_DOUBLE_EQ(*w.ratio, w.shift->ratio);
  EXPECT_THAT(w.reason, HasSubstr("no report of B confirmed its floor, so the medians decided: "
                                  "B/A 1.4762 [1.4762, 1.4762] by the median shift"));
  // The same samples on both sides: no difference shown by the medians either.
  const comparison same =
      compare_runs({a}, {run("tsc", {unconfirmed(workload("w", samples(1000)))})});
  EXPECT_EQ(same.workloads[0].result, outcome::not_shown);
  EXPECT_EQ(same.workloads[0].decided_by, estimator::median_shift);
  // Too few samples for the medians as well: not compared.
  const comparison few =
      compare_runs({a}, {run("tsc", {unconfirmed(workload("w", {1500, 1501, 1502}))})});
  EXPECT_EQ(few.workloads[0].result, outcome::undefined);
  EXPECT_THAT(few.workloads[0].reason, HasSubstr("the medians cannot decide either"));
  EXPECT_FALSE(few.workloads[0].ratio);
  // Enough samples, but one at 0: the logarithms need every one above 0, and the count says so.
  std::vector<double> with_zero = samples(1500);
  with_zero[5] = 0;
  const comparison zero = compare_runs({a}, {run("tsc", {unconfirmed(workload("w", with_zero))})});
  EXPECT_EQ(zero.workloads[0].result, outcome::undefined);
  EXPECT_THAT(zero.workloads[0].reason, HasSubstr("B 11 of 12"));
  // A report from before floors were confirmed says nothing about them: left out of the floors.
  workload_run old = workload("w", samples(1000));
  old.floor_recorded = false;
  old.floor_confirmed = false;
  const comparison c2 = compare_runs({run("tsc", {old})}, {a});
  EXPECT_EQ(c2.workloads[0].decided_by, estimator::median_shift);
  EXPECT_THAT(c2.workloads[0].a.notes[0], HasSubstr("written without a floor confirmation"));
}

TEST(CompareRuns, TheMedianShiftReadsATwiceSlowerBAsTwoWhateverTheFloors) {
  // The issue's case: B twice as slow, neither floor confirmed; the gate must not pass it.
  std::vector<double> va, vb;
  for (int i = 0; i < 40; ++i) {
    va.push_back(1000 + (i * 37) % 100);
    vb.push_back(2 * (1000 + (i * 53) % 100));
  }
  const comparison c = compare_runs({run("tsc", {unconfirmed(workload("w", va))})},
                                    {run("tsc", {unconfirmed(workload("w", vb))})});
  ASSERT_TRUE(c.workloads[0].shift);
  EXPECT_NEAR(c.workloads[0].shift->ratio, 2.0, 0.05);
  EXPECT_GT(c.workloads[0].shift->lower, 1.9);
  EXPECT_EQ(c.workloads[0].result, outcome::slower);
  EXPECT_EQ(apply_gate(c, 0.02).slower, std::vector<std::string>{"w"});
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
  const std::string text = text_of(c, {a}, {b});
  EXPECT_THAT(text, HasSubstr("the CPU ran B more than 1.30x slower"));
  EXPECT_THAT(text, HasSubstr("do not compare directly"));
  // The gate still counts B slower, and says the host may be why.
  EXPECT_EQ(apply_gate(c, 0).slower, std::vector<std::string>{"w"});
  EXPECT_THAT(text, HasSubstr("gate: B slower beyond the threshold 0% in 1 workload (w): exit 4; "
                              "but the host's speed differed between the sides (above), so the "
                              "host may have made B slower, not the build: repeat the runs\n"));
}

TEST(CompareRuns, WorkloadsInOneRunOnlyAreListed) {
  const auto a = run("tsc", {workload("x", samples(10)), workload("y", samples(10))});
  const auto b = run("tsc", {workload("y", samples(10)), workload("z", samples(10))});
  const auto c = compare_runs({a}, {b});
  ASSERT_EQ(c.workloads.size(), 1u);
  EXPECT_EQ(c.workloads[0].name, "y");
  EXPECT_EQ(c.only_in_a, std::vector<std::string>{"x"});
  EXPECT_EQ(c.only_in_b, std::vector<std::string>{"z"});
  // Rows of the table, after the compared ones.
  const std::string text = text_of(c, {a}, {b});
  EXPECT_THAT(text, HasSubstr("  y            10     10  1.0000  +0.000%  no difference shown\n"
                              "  x             -      -       -        -  only in A\n"
                              "  z             -      -       -        -  only in B\n"));
}

TEST(CompareRuns, TextNamesTheEstimatorAndTheRunsOwnVerdicts) {
  auto wb = workload("w", samples(1030));
  wb.verdict = "noisy";
  wb.verdict_reason = "the 95th percentile lies 9% above the minimum";
  const auto a = run("tsc", {workload("w", samples(1000))});
  const auto b = run("tsc", {wb});
  const std::string s = text_of(compare_runs({a}, {b}), {a}, {b});
  EXPECT_THAT(s, HasSubstr("figures: ticks of tsc per call"));
  EXPECT_THAT(s, HasSubstr("95% Robson-Whitlock interval for the floor, widened by one granularity "
                           "step of the clock"));
  EXPECT_THAT(s, HasSubstr("1000   1030  1.0300  +3.00%  B slower\n"));
  EXPECT_THAT(s, HasSubstr("note: B judged its prepared phase noisy: the 95th percentile"));
  EXPECT_THAT(s, HasSubstr("one report per side, so the run-to-run variation"));
  EXPECT_THAT(s, HasSubstr("both sides saw the same CPU speed within 1.30x"));
}

TEST(CompareParseRun, RefusesWhatIsNotAHarnessReport) {
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
  EXPECT_EQ(message(R"({"harness": {"schema_version": 1}, "benchmarks": []})"),
            "r.json: harness.clock: missing");
  EXPECT_EQ(message(R"({"harness": {"schema_version": 1,
      "clock": {"name": "c", "ticks_per_second": 0}}, "benchmarks": []})"),
            "r.json: harness.clock.ticks_per_second: 0 is out of range: a clock ticks from 1 to "
            "1e15 times a second");
  // Figures converted to ns would be infinite: refused, not computed.
  EXPECT_THAT(message(R"({"harness": {"schema_version": 1,
      "clock": {"name": "c", "ticks_per_second": 1e-300}}, "benchmarks": []})"),
              HasSubstr("harness.clock.ticks_per_second: 1e-300 is out of range"));
  // A number no double holds is not JSON, said as such (it was nlohmann's out_of_range, exit 1).
  EXPECT_THAT(message(R"({"harness": {"schema_version": 1,
      "clock": {"name": "c", "ticks_per_second": 1e400}}, "benchmarks": []})"),
              HasSubstr("r.json: not JSON: number overflow parsing '1e400'"));
  EXPECT_THAT(message("not json"), Not(HasSubstr("[json.exception")));
  EXPECT_THAT(message(R"({"harness": {"schema_version": 1,
      "clock": {"name": "c", "ticks_per_second": 1e9}, "workloads": []}, "benchmarks": [
      {"family_index": 0, "run_name": "w", "run_type": "iteration", "phase": "prepared",
       "ticks": 1e300}]})"),
              HasSubstr("a sample of 1e+300 ticks is out of range"));
}

// A fresh folder under the system's temporary folder, removed at the end of the test. Named
// after the process, the time and a counter (scratch.hpp), not the object's address: under Wine
// two test processes run side by side by ctest -j get the same addresses, and so shared one
// folder (one removed it under the other).
class temp_dir {
 public:
  const fs::path& path() const { return folder_.path(); }

 private:
  harness::testing::scratch_folder folder_{"compare"};
};

std::string read_error(const fs::path& path) {
  try {
    std::ifstream in = cli::open_report_file(path);
    read_run(in, path.string());
  } catch (const usage_error& e) {
    return e.what();
  }
  return "no error";
}

// The system's reason for a missing file, in its own words ("No such file or directory" on Linux,
// "The system cannot find the file specified." on Windows).
std::string not_found_reason(const fs::path& missing) {
  std::error_code ec;
  static_cast<void>(fs::status(missing, ec));
  return ec.message();
}

TEST(CompareParseRun, AFileThatCannotBeReadGivesTheSystemsReason) {
  const temp_dir dir;
  const fs::path missing = dir.path() / "r.json";
  EXPECT_FALSE(not_found_reason(missing).empty());
  EXPECT_EQ(read_error(missing),
            fmt::format("cannot read '{}': {} (a JSON report of `harness --format json` is "
                        "expected)",
                        missing.string(), not_found_reason(missing)));
  const fs::path in_missing_folder = dir.path() / "no_folder" / "r.json";
  EXPECT_THAT(read_error(in_missing_folder),
              HasSubstr(fmt::format("cannot read '{}': {}", in_missing_folder.string(),
                                    not_found_reason(in_missing_folder))));
  EXPECT_THAT(read_error(dir.path()),
              HasSubstr(fmt::format("cannot read '{}': it is a folder", dir.path().string())));
}

// A minimal harness JSON report: per workload its prepared samples (none: interrupted before the
// prepared phase), each floor confirmed, one clock of 1e9 ticks/s with a step of 10.
std::string report_json(const std::vector<std::pair<std::string, std::vector<double>>>& runs) {
  nlohmann::json workloads = nlohmann::json::array();
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& [name, values] : runs) {
    const std::size_t family = workloads.size();
    nlohmann::json phases = nlohmann::json::array();
    if (!values.empty()) {
      phases.push_back(
          {{"phase", "prepared"},
           {"batch", 1},
           {"reference_loop", {{"runs", 3}, {"best_ticks", 3000}, {"slowdown_factor", 1.3}}},
           {"verdict", "stable"},
           {"floor", {{"confirmed", true}, {"reason", "blocks 1 and 3 agree"}}}});
    }
    workloads.push_back(
        {{"name", name}, {"phases", phases}, {"error", nullptr}, {"interrupted", values.empty()}});
    for (const double v : values) {
      rows.push_back({{"family_index", family},
                      {"run_name", name},
                      {"run_type", "iteration"},
                      {"phase", "prepared"},
                      {"ticks", v}});
    }
  }
  const nlohmann::json doc = {
      {"context", {{"date", "2024-01-01T00:00:00+00:00"}}},
      {"harness",
       {{"schema_version", 1},
        {"clock", {{"name", "tsc"}, {"ticks_per_second", 1e9}, {"step_ticks", 10}}},
        {"workloads", workloads}}},
      {"benchmarks", rows}};
  return doc.dump();
}

// The message parse_run gives for `doc`, or "no error".
std::string parse_error(const nlohmann::json& doc) {
  try {
    parse_run(doc.dump(), "r.json");
  } catch (const usage_error& e) {
    return e.what();
  }
  return "no error";
}

// A report of one workload "w" with prepared samples 1000, 1001, ... (rows 0 to 11) and
// overhead_ticks 40 at batch 4, that each test below breaks in one place.
nlohmann::json one_workload_report() {
  nlohmann::json doc = nlohmann::json::parse(report_json({{"w", samples(1000)}}));
  doc["harness"]["workloads"][0]["phases"][0]["overhead_ticks"] = 40;
  doc["harness"]["workloads"][0]["phases"][0]["batch"] = 4;
  return doc;
}

TEST(CompareParseRun, ATypeErrorNamesTheFileAndTheFieldsPath) {
  EXPECT_EQ(parse_error(one_workload_report()), "no error");
  auto doc = one_workload_report();
  doc["benchmarks"][3]["ticks"] = "1000";
  EXPECT_EQ(parse_error(doc), "r.json: benchmarks[3].ticks: expected a number, got a string");
  doc = one_workload_report();
  doc["benchmarks"][5] = 7;
  EXPECT_EQ(parse_error(doc), "r.json: benchmarks[5]: expected an object, got the number 7");
  doc = one_workload_report();
  doc["benchmarks"][2].erase("run_name");
  EXPECT_EQ(parse_error(doc), "r.json: benchmarks[2].run_name: missing");
  doc = one_workload_report();
  doc["harness"]["clock"]["name"] = nullptr;
  EXPECT_EQ(parse_error(doc), "r.json: harness.clock.name: expected a string, got null");
  doc = one_workload_report();
  doc["harness"]["workloads"][0]["phases"][0]["batch"] = -1;
  // Not 2^64 - 1 calls, as nlohmann's conversion made of it.
  EXPECT_EQ(parse_error(doc),
            "r.json: harness.workloads[0].phases[0].batch: expected a whole number of 0 or more, "
            "got the number -1");
  doc["harness"]["workloads"][0]["phases"][0]["batch"] = 0;
  EXPECT_EQ(parse_error(doc),
            "r.json: harness.workloads[0].phases[0].batch: expected a whole number of 1 or more, "
            "got the number 0");
  doc = one_workload_report();
  doc["harness"]["workloads"][0]["phases"][0]["floor"]["confirmed"] = "yes";
  EXPECT_EQ(parse_error(doc),
            "r.json: harness.workloads[0].phases[0].floor.confirmed: expected true or false, got "
            "a string");
  doc = one_workload_report();
  doc["harness"]["workloads"][0]["phases"][0]["reference_loop"]["slowdown_factor"] = 0.5;
  EXPECT_THAT(parse_error(doc),
              HasSubstr("r.json: harness.workloads[0].phases[0].reference_loop.slowdown_factor: "
                        "0.5 is out of range"));
  doc = one_workload_report();
  doc["harness"]["workloads"] = {{"name", "w"}};
  EXPECT_EQ(parse_error(doc), "r.json: harness.workloads: expected an array, got an object");
  doc = one_workload_report();
  doc["harness"]["clock"]["step_ticks"] = -10;
  EXPECT_EQ(parse_error(doc),
            "r.json: harness.clock.step_ticks: -10 is out of range: expected 0 to 1e15 ticks");
  // null is what the writer puts for "not measured".
  doc["harness"]["clock"]["step_ticks"] = nullptr;
  EXPECT_EQ(parse_error(doc), "no error");
  // A whole number written as 4.0 (a script's) is a count.
  doc["harness"]["workloads"][0]["phases"][0]["batch"] = 4.0;
  EXPECT_EQ(parse_error(doc), "no error");
}

TEST(CompareParseRun, ASampleBelowMinusItsOverheadIsRefused) {
  // A sample is (raw - overhead) / batch with raw >= 0: here never below -40 / 4 = -10 ticks. An
  // empty workload's samples may lie a little below 0, and are read as they are.
  auto doc = one_workload_report();
  doc["benchmarks"][4]["ticks"] = -10;
  const run_file r = parse_run(doc.dump(), "r.json");
  ASSERT_EQ(r.workloads.size(), 1u);
  EXPECT_EQ(r.workloads[0].values[4], -10);
  doc["benchmarks"][4]["ticks"] = -10.5;
  EXPECT_EQ(parse_error(doc),
            "r.json: benchmarks[4].ticks: a sample of -10.5 ticks is out of range: a sample is "
            "its calls' time less the timer overhead, so it lies at or above minus the overhead "
            "per call (-10 ticks in w's prepared phase)");
  // The report of issue 27, whose negative samples compare took for "B faster" (B/A -1.28).
  doc["benchmarks"][4]["ticks"] = -1280.3;
  EXPECT_THAT(parse_error(doc), HasSubstr("r.json: benchmarks[4].ticks: a sample of -1280.3"));
  doc["benchmarks"][4]["ticks"] = 2e15;
  EXPECT_EQ(parse_error(doc),
            "r.json: benchmarks[4].ticks: a sample of 2e+15 ticks is out of range (at most 1e15)");
  // Without overhead_ticks (an older report, a script's) a sample is 0 or more.
  doc = one_workload_report();
  doc["harness"]["workloads"][0]["phases"][0].erase("overhead_ticks");
  doc["benchmarks"][0]["ticks"] = -0.5;
  EXPECT_THAT(parse_error(doc), HasSubstr("r.json: benchmarks[0].ticks: a sample of -0.5 ticks"));
}

TEST(CompareParseRun, AWorkloadWithoutAPreparedPhaseIsNamed) {
  nlohmann::json doc = nlohmann::json::parse(report_json({{"w", samples(1000)}, {"v", {}}}));
  doc["harness"]["workloads"].push_back({{"name", "u"},
                                         {"phases", nlohmann::json::array()},
                                         {"error", "boom"},
                                         {"interrupted", false}});
  const run_file r = parse_run(doc.dump(), "r.json");
  ASSERT_EQ(r.workloads.size(), 1u);
  EXPECT_EQ(r.workloads[0].name, "w");
  EXPECT_EQ(r.workloads[0].values.size(), 12u);
  ASSERT_EQ(r.unsampled.size(), 2u);
  EXPECT_EQ(r.unsampled[0].name, "v");
  EXPECT_TRUE(r.unsampled[0].interrupted);
  EXPECT_EQ(r.unsampled[0].error, "");
  EXPECT_EQ(r.unsampled[1].name, "u");
  EXPECT_FALSE(r.unsampled[1].interrupted);
  EXPECT_EQ(r.unsampled[1].error, "boom");
}

TEST(CompareRuns, AWorkloadNeverSampledOnASideIsNotCompared) {
  auto a = run("tsc", {workload("w", samples(1000)), workload("v", samples(1000))});
  a.source = "a.json";
  auto b = run("tsc", {workload("w", samples(1000))});
  b.source = "b.json";
  b.unsampled = {unsampled("v", true)};
  const comparison c = compare_runs({a}, {b});
  ASSERT_EQ(c.workloads.size(), 1u);
  EXPECT_TRUE(c.only_in_a.empty());
  ASSERT_EQ(c.not_compared.size(), 1u);
  EXPECT_EQ(c.not_compared[0].name, "v");
  EXPECT_EQ(c.not_compared[0].reason, "no prepared phase in b.json (interrupted before it)");
  const std::string text = text_of(c, {a}, {b});
  EXPECT_THAT(text, HasSubstr("  v             -      -       -        -  not compared\n"));
  EXPECT_THAT(text, HasSubstr("  v: no prepared phase in b.json (interrupted before it)\n"));

  // On both sides, one of them because the workload threw.
  a.workloads.pop_back();
  a.unsampled = {unsampled("v", false, "out of range")};
  const comparison both = compare_runs({a}, {b});
  ASSERT_EQ(both.not_compared.size(), 1u);
  EXPECT_EQ(both.not_compared[0].reason,
            "no prepared phase in a.json (the workload threw before it: out of range) nor in "
            "b.json (interrupted before it)");
  // Named by one side only, unsampled: only in that side.
  b.unsampled.clear();
  EXPECT_EQ(compare_runs({a}, {b}).only_in_a, std::vector<std::string>{"v"});
  EXPECT_EQ(compare_runs({b}, {a}).only_in_b, std::vector<std::string>{"v"});
}

TEST(CompareRuns, AReportWithoutThePreparedPhaseIsLeftOutAndNamed) {
  const auto a = run("tsc", {workload("w", samples(1000))});
  const auto b1 = run("tsc", {workload("w", samples(1030))});
  auto b2 = run("tsc", {});
  b2.source = "b2.json";
  b2.unsampled = {unsampled("w", true)};
  const comparison c = compare_runs({a}, {b1, b2});
  ASSERT_EQ(c.workloads.size(), 1u);
  EXPECT_EQ(c.workloads[0].result, outcome::slower);
  EXPECT_EQ(c.workloads[0].b.reports, 1u);
  EXPECT_EQ(c.workloads[0].b.notes,
            std::vector<std::string>{
                "B (b2.json): no prepared phase (interrupted before it), so the report is left "
                "out"});
}

TEST(CompareRuns, FloorIntervalsAreClampedAtZero) {
  // Two fastest 10 and 60: Robson-Whitlock reaches 19 gaps (950 ticks) below 10.
  const auto a = run("tsc", {workload("w", samples(10, 50))});
  const auto b = run("tsc", {workload("w", samples(10))});
  const comparison c = compare_runs({a}, {b});
  ASSERT_TRUE(c.workloads[0].a.floor);
  EXPECT_DOUBLE_EQ(c.workloads[0].a.floor->lower, 0);
  EXPECT_DOUBLE_EQ(c.workloads[0].a.floor->upper, 20);
  // B's [0, 20] too: a minimum of 10 less one step of 10, and nothing below zero.
  EXPECT_DOUBLE_EQ(c.workloads[0].b.floor->lower, 0);
  EXPECT_EQ(c.workloads[0].reason, "the floors overlap: A [0, 20], B [0, 20]");
  // A minimum below zero (the timer overhead subtracted from a sample faster than it).
  const comparison negative = compare_runs({run("tsc", {workload("w", samples(-30))})}, {b});
  EXPECT_DOUBLE_EQ(negative.workloads[0].a.floor->lower, 0);
  EXPECT_DOUBLE_EQ(negative.workloads[0].a.floor->upper, 0);
}

TEST(CompareGate, CountsOnlySlowerBeyondTheThreshold) {
  const auto a = run("tsc", {workload("slow", samples(1000)), workload("same", samples(1000)),
                             workload("fast", samples(1000)), workload("few", {1000, 1001})});
  const auto b = run("tsc", {workload("slow", samples(1030)), workload("same", samples(1000)),
                             workload("fast", samples(900)), workload("few", {3000, 3001})});
  const comparison c = compare_runs({a}, {b});
  EXPECT_EQ(c.workloads[3].result, outcome::undefined);
  EXPECT_EQ(apply_gate(c, 0).slower, std::vector<std::string>{"slow"});
  EXPECT_EQ(apply_gate(c, 0.02).slower, std::vector<std::string>{"slow"});  // 3% > 2%
  EXPECT_TRUE(apply_gate(c, 0.05).slower.empty());
  EXPECT_DOUBLE_EQ(apply_gate(c, 0.05).threshold, 0.05);
  const std::string text = text_of(c, {a}, {b});
  EXPECT_THAT(text, HasSubstr("gate: B slower beyond the threshold 0% in 1 workload (slow): exit "
                              "4\n"));
  std::ostringstream passed;
  write_text(passed, c, {a}, {b}, apply_gate(c, 0.05), 0);
  EXPECT_THAT(testing::unwrapped(passed.str()),
              HasSubstr("gate: no workload B slower beyond the threshold 5%, but 1 workload not "
                        "compared (few), so nothing is known of it: exit 0 "
                        "(--allow-not-compared)\n"));
  EXPECT_EQ(apply_gate(c, 0.05).not_compared, std::vector<std::string>{"few"});
  // Separate runs carry the host's drift between them; the text says so and where it is cancelled.
  EXPECT_THAT(text, HasSubstr("unpaired: A and B were measured in separate runs"));
  EXPECT_THAT(text, HasSubstr("`harness ab A B`"));
}

TEST(CompareGate, AMinimumOfZeroInACountsAtAnyThreshold) {
  const auto a = run("tsc", {workload("w", samples(0))});
  const auto b = run("tsc", {workload("w", samples(100))});
  const comparison c = compare_runs({a}, {b});
  EXPECT_EQ(c.workloads[0].result, outcome::slower);
  EXPECT_FALSE(c.workloads[0].ratio);
  EXPECT_EQ(apply_gate(c, 10).slower, std::vector<std::string>{"w"});
}

TEST(CompareGate, ABadThresholdIsABug) {
  const comparison c = compare_runs({run("tsc", {})}, {run("tsc", {})});
  EXPECT_THROW(apply_gate(c, -0.01), std::invalid_argument);
  EXPECT_THROW(apply_gate(c, std::nan("")), std::invalid_argument);
  EXPECT_THROW(apply_gate(c, std::numeric_limits<double>::infinity()), std::invalid_argument);
}

TEST(CompareWriteJson, CarriesEveryFigureTheOutcomesAndTheGate) {
  auto a =
      run("tsc", {workload("w", samples(1000)), workload("x", samples(5)), workload("few", {1})});
  a.source = "a.json";
  a.date = "2024-01-01";
  auto b = run("tsc", {workload("w", samples(1030)), workload("few", {1})});
  b.source = "b.json";
  b.unsampled = {unsampled("v", true)};
  a.unsampled = {unsampled("v", false)};
  const comparison c = compare_runs({a}, {b});
  std::ostringstream out;
  write_json(out, c, {a}, {b}, apply_gate(c, 0.02), 4);
  const nlohmann::json j = nlohmann::json::parse(out.str());
  EXPECT_EQ(j["harness_compare"]["schema_version"], 1);
  EXPECT_EQ(j["a"][0]["source"], "a.json");
  EXPECT_EQ(j["a"][0]["date"], "2024-01-01");
  EXPECT_EQ(j["b"][0]["clock"], "tsc");
  EXPECT_EQ(j["unit"], "ticks of tsc");
  EXPECT_EQ(j["same_clock"], true);
  ASSERT_EQ(j["workloads"].size(), 2u);
  const nlohmann::json& w = j["workloads"][0];
  EXPECT_EQ(w["name"], "w");
  EXPECT_EQ(w["outcome"], "slower");
  EXPECT_EQ(w["verdict"], "B slower");
  EXPECT_THAT(w["reason"].get<std::string>(), HasSubstr("lies above A's [990, 1010]"));
  EXPECT_DOUBLE_EQ(w["ratio"].get<double>(), 1.03);
  EXPECT_EQ(w["a"]["reports"], 1);
  EXPECT_EQ(w["a"]["unconfirmed"], 0);
  EXPECT_EQ(w["a"]["fewest_samples"], 12);
  EXPECT_EQ(w["a"]["min"], 1000.0);
  EXPECT_EQ(w["a"]["lowest_min"], 1000.0);
  EXPECT_EQ(w["a"]["highest_min"], 1000.0);
  EXPECT_EQ(w["a"]["floor"]["lower"], 990.0);
  EXPECT_EQ(w["b"]["floor"]["upper"], 1040.0);
  EXPECT_EQ(w["a"]["step"], 10.0);
  EXPECT_TRUE(w["b"]["notes"].empty());
  // One sample: no floor interval, an outcome by its stable name.
  const nlohmann::json& few = j["workloads"][1];
  EXPECT_EQ(few["outcome"], "not_compared");
  EXPECT_EQ(few["a"]["fewest_samples"], 1);
  EXPECT_TRUE(few["a"]["floor"].is_null());
  EXPECT_EQ(j["only_in_a"], nlohmann::json::array({"x"}));
  EXPECT_TRUE(j["only_in_b"].empty());
  ASSERT_EQ(j["not_compared"].size(), 1u);
  EXPECT_EQ(j["not_compared"][0]["name"], "v");
  EXPECT_EQ(j["not_compared"][0]["reason"],
            "no prepared phase in a.json (the report does not say why) nor in b.json "
            "(interrupted before it)");
  EXPECT_EQ(j["references"]["a"], 3000.0);
  EXPECT_EQ(j["references"]["b"], 3000.0);
  EXPECT_EQ(j["references"]["slowdown_factor"], 1.3);
  EXPECT_EQ(j["host_speed_differs"], false);
  EXPECT_DOUBLE_EQ(j["gate"]["threshold_percent"].get<double>(), 2);
  EXPECT_EQ(j["gate"]["slower"], nlohmann::json::array({"w"}));
  EXPECT_EQ(j["gate"]["exit_code"], 4);
}

// `harness compare` in-process, over reports written to a temporary folder.
class CompareCommand : public ::testing::Test {
 protected:
  struct result {
    int code;
    std::string out;
    std::string err;
  };

  std::string write(const std::string& name, const std::string& text) {
    const fs::path p = dir_.path() / name;
    std::ofstream(p, std::ios::binary) << text;
    return p.string();
  }

  static result compare(std::vector<std::string> args) {
    args.insert(args.begin(), {"harness", "compare"});
    std::vector<const char*> argv;
    for (const auto& a : args)
      argv.push_back(a.c_str());
    std::ostringstream out, err;
    const int code = cli::run_cli(static_cast<int>(argv.size()), argv.data(), out, err);
    // The text's wrapped lines joined again (report_text.hpp); JSON only loses whitespace.
    return {code, testing::unwrapped(out.str()), err.str()};
  }

  temp_dir dir_;
};

TEST_F(CompareCommand, ExitsFourWhenBIsSlowerAndZeroOtherwise) {
  const std::string a = write("a.json", report_json({{"w", samples(1000)}}));
  const std::string b = write("b.json", report_json({{"w", samples(1030)}}));
  auto r = compare({a, b});
  EXPECT_EQ(r.code, 4) << r.err;
  EXPECT_EQ(cli::exit_slower, 4);
  EXPECT_THAT(r.out, HasSubstr("B slower\n"));
  EXPECT_THAT(r.out, HasSubstr("gate: B slower beyond the threshold 0% in 1 workload (w): exit 4"));
  EXPECT_EQ(r.err, "");
  r = compare({a, a});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("gate: no workload B slower beyond the threshold 0%: exit 0"));
  r = compare({b, a});  // B faster
  EXPECT_EQ(r.code, 0) << r.err;
  // 3% slower gates at 2.5% and passes at 3.5%.
  EXPECT_EQ(compare({"--threshold", "2.5%", a, b}).code, 4);
  EXPECT_EQ(compare({"--threshold", "3.5%", a, b}).code, 0);
  EXPECT_EQ(compare({"--threshold", "0%", a, b}).code, 4);
  EXPECT_EQ(compare({"-a", a, "-b", b, "-b", b}).code, 4);
}

TEST_F(CompareCommand, JsonFormatCarriesTheGate) {
  const std::string a = write("a.json", report_json({{"w", samples(1000)}}));
  const std::string b = write("b.json", report_json({{"w", samples(1030)}}));
  const auto r = compare({"--format", "json", "--threshold", "1%", a, b});
  EXPECT_EQ(r.code, 4) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["workloads"][0]["outcome"], "slower");
  EXPECT_DOUBLE_EQ(j["gate"]["threshold_percent"].get<double>(), 1);
  EXPECT_EQ(j["gate"]["exit_code"], 4);
  const auto same = compare({"--format", "json", a, a});
  EXPECT_EQ(same.code, 0);
  EXPECT_EQ(nlohmann::json::parse(same.out)["gate"]["exit_code"], 0);
  EXPECT_EQ(compare({"--format", "text", a, a}).code, 0);
}

TEST_F(CompareCommand, AnInterruptedWorkloadIsARowNotCompared) {
  const std::string a = write("a.json", report_json({{"w", samples(1000)}, {"v", samples(10)}}));
  const std::string b = write("b.json", report_json({{"w", samples(1000)}, {"v", {}}}));
  // A workload that could not be compared fails the gate with its own code, unless allowed.
  const auto r = compare({a, b});
  EXPECT_EQ(r.code, cli::exit_not_compared) << r.err;
  EXPECT_EQ(compare({"--allow-not-compared", a, b}).code, 0);
  EXPECT_THAT(r.out,
              HasSubstr("but 1 workload not compared (v), so nothing is known of it: exit 6"));
  EXPECT_THAT(r.out, HasSubstr("-  not compared\n"));
  EXPECT_THAT(r.out,
              HasSubstr(fmt::format("  v: no prepared phase in {} (interrupted before it)\n", b)));
  // Only that workload in common: it is not compared, but it is in common.
  const std::string only_v = write("v.json", report_json({{"v", {}}}));
  EXPECT_EQ(compare({a, only_v}).code, cli::exit_not_compared);
}

TEST_F(CompareCommand, BadInputExitsTwoNamingIt) {
  const std::string a = write("a.json", report_json({{"w", samples(1000)}, {"v", samples(10)}}));
  const std::string other = write("other.json", report_json({{"x", samples(1000)}}));
  auto r = compare({a, other});
  EXPECT_EQ(r.code, cli::exit_usage);
  EXPECT_EQ(r.out, "");
  EXPECT_THAT(r.err, HasSubstr(fmt::format("compare: the two sides name no workload in common, so "
                                           "there is nothing to compare: A ({}) has w, v; B ({}) "
                                           "has x",
                                           a, other)));
  const std::string empty = write("empty.json", report_json({}));
  r = compare({empty, empty});
  EXPECT_EQ(r.code, cli::exit_usage);
  EXPECT_THAT(r.err, HasSubstr(fmt::format("A ({}) has none; B ({}) has none", empty, empty)));
  const std::string missing = (dir_.path() / "missing.json").string();
  r = compare({a, missing});
  EXPECT_EQ(r.code, cli::exit_usage);
  EXPECT_THAT(r.err,
              HasSubstr(fmt::format("cannot read '{}': No such file or directory", missing)));
  for (const char* bad : {"-1%", "abc", "nan%", "inf%", "%", "2%%", "1e999%", ""}) {
    r = compare({"--threshold", bad, a, a});
    EXPECT_EQ(r.code, cli::exit_usage) << bad;
    EXPECT_THAT(r.err, HasSubstr(fmt::format("--threshold: invalid value '{}': expected a "
                                             "percentage of 0 or more with its percent sign",
                                             bad)));
  }
  r = compare({"--threshold", "0.02", a, a});
  EXPECT_EQ(r.code, cli::exit_usage);
  EXPECT_THAT(r.err, HasSubstr("--threshold: invalid value '0.02': give a percentage with its "
                               "percent sign: 0.02% for 0.02 percent, or 2% for the fraction "
                               "0.02"));
  // 0 reads the same as a percentage or a fraction: one reading offered.
  r = compare({"--threshold", "0", a, a});
  EXPECT_EQ(r.code, cli::exit_usage);
  EXPECT_THAT(r.err, HasSubstr("--threshold: invalid value '0': give a percentage with its "
                               "percent sign, such as 0%\n"));
  r = compare({"--format", "xml", a, a});
  EXPECT_EQ(r.code, cli::exit_usage);
  EXPECT_THAT(r.err, HasSubstr("--format: invalid value 'xml': compare writes text, json or html"));
}

}  // namespace
}  // namespace harness::compare
