// Regressions over saved runs (issue 29): a step found at its commit, noise alone finds nothing,
// machines never mixed. Floors made from a fixed pseudo-random sequence: deterministic.
#include "harness/regressions.hpp"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace harness::regressions {
namespace {

// splitmix64: the same noise on every platform and standard library.
class noise {
 public:
  explicit noise(std::uint64_t seed) : state_(seed) {}
  // Uniform in [-amplitude, amplitude).
  double next(double amplitude) {
    state_ += 0x9e3779b97f4a7c15ULL;
    std::uint64_t z = state_;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    const double unit = static_cast<double>(z >> 11) / 9007199254740992.0;  // [0, 1)
    return (2 * unit - 1) * amplitude;
  }

 private:
  std::uint64_t state_;
};

// `commits` commits c0, c1, ... with one run each on `machine`, a floor of `base` seconds with
// +-0.5% of noise (sd 0.29%), times `step` from commit `step_at` on; saved `spacing` s apart
// starting at `start`.
std::vector<saved_floor> series(const std::string& machine, std::size_t commits, double base,
                                std::uint64_t seed, std::size_t step_at = SIZE_MAX,
                                double step = 1.0, std::int64_t start = 0,
                                std::int64_t spacing = 60) {
  noise n(seed);
  std::vector<saved_floor> runs;
  for (std::size_t c = 0; c < commits; ++c) {
    const double factor = c >= step_at ? step : 1.0;
    runs.push_back({.machine = machine,
                    .workload = "xor_loop/1000000",
                    .commit = fmt::format("c{}", c),
                    .saved_at = start + static_cast<std::int64_t>(c) * spacing,
                    .floor_seconds = base * factor * std::exp(n.next(0.005)),
                    .confirmed = true});
  }
  return runs;
}

TEST(Regressions, AStepOfThreePercentIsFoundAtItsCommit) {
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    const auto runs = series("m1", 30, 1e-3, seed, 17, 1.03);
    const auto found = find(runs);
    ASSERT_EQ(found.size(), 1u) << "seed " << seed;
    const finding& f = found.front();
    EXPECT_EQ(f.commit_before, "c16");
    EXPECT_EQ(f.commit_after, "c17");
    EXPECT_EQ(f.machine, "m1");
    EXPECT_EQ(f.workload, "xor_loop/1000000");
    EXPECT_EQ(f.dir, direction::slower);
    EXPECT_NEAR(f.change, 0.03, 0.005) << "seed " << seed;
    EXPECT_LT(f.p_value, 0.01);
    EXPECT_EQ(f.commits_before, 5u);
    EXPECT_EQ(f.commits_after, 5u);
    EXPECT_EQ(f.runs_before, 5u);
    EXPECT_GT(f.noise, 0.0);
    EXPECT_LT(f.noise, 0.005);
    EXPECT_TRUE(any_slower(found));
  }
}

TEST(Regressions, NoiseAloneFindsNothing) {
  for (std::uint64_t seed = 1; seed <= 50; ++seed) {
    const auto runs = series("m1", 30, 1e-3, seed);
    EXPECT_THAT(find(runs), ::testing::IsEmpty()) << "seed " << seed;
  }
}

TEST(Regressions, TheLastCommitAloneIsJudgedAgainstTheRunsBeforeIt) {
  // CI's case: the newest commit has one run, 3% slower.
  const auto runs = series("m1", 30, 1e-3, 7, 29, 1.03);
  const auto found = find(runs);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].commit_after, "c29");
  EXPECT_EQ(found[0].runs_after, 1u);
  EXPECT_EQ(found[0].dof, 4.0);
}

TEST(Regressions, ASpeedUpIsFoundAsFasterAndIsNoSlowDown) {
  const auto runs = series("m1", 30, 1e-3, 3, 10, 0.95);
  const auto found = find(runs);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].commit_after, "c10");
  EXPECT_EQ(found[0].dir, direction::faster);
  EXPECT_NEAR(found[0].change, -0.05, 0.005);
  EXPECT_FALSE(any_slower(found));
}

TEST(Regressions, TwoMachinesAreNeverCompared) {
  // m1 ran the first 15 commits, m2 (10% slower hardware) the last 15, saved interleaved with a
  // second workload: joined into one series, c15 would look like a 10% step.
  auto runs = series("m1", 15, 1e-3, 11);
  auto later = series("m2", 30, 1.1e-3, 12);
  later.erase(later.begin(), later.begin() + 15);
  runs.insert(runs.end(), later.begin(), later.end());
  EXPECT_THAT(find(runs), ::testing::IsEmpty());

  // A step on m2 alone is found on m2 alone, though m1 ran the same commits at the same times.
  auto both = series("m1", 30, 1e-3, 13);
  const auto stepped = series("m2", 30, 1.1e-3, 14, 20, 1.04);
  both.insert(both.end(), stepped.begin(), stepped.end());
  const auto found = find(both);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].machine, "m2");
  EXPECT_EQ(found[0].commit_after, "c20");
}

TEST(Regressions, AMoveUnderTheThresholdIsNoFindingHoweverSure) {
  // No noise at all: a 0.5% step is certain, and still under the 1% threshold.
  std::vector<saved_floor> runs;
  for (int c = 0; c < 12; ++c) {
    runs.push_back({.machine = "m",
                    .workload = "w",
                    .commit = fmt::format("c{}", c),
                    .saved_at = c,
                    .floor_seconds = c >= 6 ? 1.005e-3 : 1e-3});
  }
  EXPECT_THAT(find(runs), ::testing::IsEmpty());
  const auto found = find(runs, {.threshold = 0.002});
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].commit_after, "c6");
  EXPECT_LT(found[0].p_value, 1e-50);
  EXPECT_LT(found[0].noise, 1e-12);
  EXPECT_NEAR(found[0].change, 0.005, 1e-12);
}

TEST(Regressions, AShortHistoryIsNotJudged) {
  // Two commits before the step: fewer runs than min_runs_before.
  const auto runs = series("m1", 4, 1e-3, 5, 2, 1.5);
  EXPECT_THAT(find(runs), ::testing::IsEmpty());
  EXPECT_EQ(find(runs, {.min_runs_before = 2}).size(), 1u);
}

TEST(Regressions, ARerunKeepsItsCommitsPlaceAndAddsItsRun) {
  // c5 run again after c29: it stays the sixth commit, with two runs.
  auto runs = series("m1", 30, 1e-3, 9, 17, 1.03);
  saved_floor again = runs[5];
  again.saved_at = 100000;
  runs.push_back(again);
  const auto found = find(runs);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].commit_after, "c17");
  // A rerun of c20 (after the step) counts in the window after it.
  saved_floor later = runs[20];
  later.saved_at = 100001;
  runs.push_back(later);
  const auto again_found = find(runs);
  ASSERT_EQ(again_found.size(), 1u);
  EXPECT_EQ(again_found[0].runs_after, 6u);
}

TEST(Regressions, EachWorkloadIsItsOwnSeries) {
  auto runs = series("m1", 30, 1e-3, 21, 12, 1.05);
  for (saved_floor r : series("m1", 30, 2e-3, 22)) {
    r.workload = "other";
    runs.push_back(r);
  }
  const auto found = find(runs);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].workload, "xor_loop/1000000");
  EXPECT_EQ(found[0].commit_after, "c12");
}

TEST(Regressions, DirectionsHaveTheirNames) {
  EXPECT_EQ(id_of(direction::slower), "slower");
  EXPECT_EQ(id_of(direction::faster), "faster");
}

}  // namespace
}  // namespace harness::regressions
