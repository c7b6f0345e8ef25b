// The rule that picks the default sampling clock, fed with made-up candidates.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <vector>

#include "clocks/default_choice.hpp"

namespace harness::clocks {
namespace {

using ::testing::HasSubstr;

default_candidate wall(std::string name, double cost_ns, std::optional<double> step_ns) {
  default_candidate c;
  c.name = std::move(name);
  c.kind = clock_kind::wall;
  c.monotonic = true;
  c.available = true;
  c.in_order = true;
  c.cost_ns = cost_ns;
  c.step_ns = step_ns;
  return c;
}

// The sources of the Firecracker VM this was written on, with their measured figures.
std::vector<default_candidate> this_machine() {
  std::vector<default_candidate> c;
  c.push_back(wall("rdtsc", 11.5, 10.0));
  c.back().in_order = false;
  c.push_back(wall("rdtscp", 21.0, 10.0));
  c.back().available = false;
  c.push_back(wall("lfence_rdtsc", 17.5, 10.0));
  c.push_back(wall("CLOCK_MONOTONIC", 27.0, 29.0));
  c.push_back(wall("CLOCK_MONOTONIC_COARSE", 6.3, std::nullopt));
  c.push_back(wall("CLOCK_REALTIME", 27.0, 29.0));
  c.back().monotonic = false;
  c.push_back(wall("CLOCK_THREAD_CPUTIME_ID", 670.0, 600.0));
  c.back().kind = clock_kind::thread_cpu;
  c.push_back(wall("time", 3.2, std::nullopt));
  c.back().monotonic = false;
  return c;
}

TEST(ChooseDefault, PicksTheOrderedTscHere) {
  const auto candidates = this_machine();
  const auto choice = choose_default(candidates);
  ASSERT_TRUE(choice.index.has_value());
  EXPECT_EQ(candidates[*choice.index].name, "lfence_rdtsc");
  EXPECT_THAT(choice.reason, HasSubstr("17.5 ns"));
  EXPECT_THAT(choice.reason, HasSubstr("rdtsc (11.5 ns) its reads may be reordered"));
  EXPECT_THAT(choice.reason, HasSubstr("CLOCK_MONOTONIC_COARSE (6.3 ns) showed no step"));
  EXPECT_THAT(choice.reason, HasSubstr("time (3.2 ns) not monotonic"));
}

TEST(ChooseDefault, KeepsTheEarlierSourceWithinTheTieRatio) {
  const std::vector<default_candidate> close = {wall("first", 40.0, 10.0),
                                                wall("second", 25.0, 10.0)};
  auto choice = choose_default(close);
  ASSERT_TRUE(choice.index.has_value());
  EXPECT_EQ(*choice.index, 0U);
  EXPECT_THAT(choice.reason, HasSubstr("second (25.0 ns) within 2x"));

  const std::vector<default_candidate> apart = {wall("first", 60.0, 10.0),
                                                wall("second", 25.0, 10.0)};
  choice = choose_default(apart);
  ASSERT_TRUE(choice.index.has_value());
  EXPECT_EQ(*choice.index, 1U);
}

TEST(ChooseDefault, RejectsCostOrStepOverTheNegligibleLimit) {
  const double limit = kShortestSampleNs * kNegligibleFraction;
  const std::vector<default_candidate> candidates = {
      wall("dear", limit + 1, 1.0), wall("coarse", 5.0, limit + 1), wall("fine", limit, limit)};
  const auto choice = choose_default(candidates);
  ASSERT_TRUE(choice.index.has_value());
  EXPECT_EQ(*choice.index, 2U);
  EXPECT_THAT(choice.reason, HasSubstr("coarse (5.0 ns) steps by 101.0 ns"));
}

TEST(ChooseDefault, SaysWhyWhenNothingQualifies) {
  auto candidates = this_machine();
  candidates[2].available = false;  // lfence_rdtsc
  candidates[3].step_ns = 5'000.0;  // CLOCK_MONOTONIC as coarse as 5 us
  const auto choice = choose_default(candidates);
  EXPECT_FALSE(choice.index.has_value());
  EXPECT_THAT(choice.reason, HasSubstr("no monotonic wall-clock source"));
}

TEST(ChooseDefault, EmptyListQualifiesNothing) {
  EXPECT_FALSE(choose_default({}).index.has_value());
}

}  // namespace
}  // namespace harness::clocks
