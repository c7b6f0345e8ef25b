// The built-in workloads' kept inputs (workloads/last_two_inputs.hpp).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "last_two_inputs.hpp"

namespace harness::builtin {
namespace {

TEST(LastTwoInputs, TwoArgumentsInTurnAreMadeOnceEach) {
  last_two_inputs<std::string> kept;
  std::vector<std::int64_t> made;
  const auto of = [&](std::int64_t arg) -> std::string& {
    return kept.of(arg, [&] {
      made.push_back(arg);
      return "input " + std::to_string(arg);
    });
  };
  // ab's two sides, call after call: each input made at its first call only.
  for (int turn = 0; turn < 5; ++turn) {
    EXPECT_EQ(of(10'000), "input 10000");
    EXPECT_EQ(of(20'000), "input 20000");
  }
  EXPECT_EQ(made, (std::vector<std::int64_t>{10'000, 20'000}));
  // A third argument replaces the one used longer ago (10000), and keeps the other.
  EXPECT_EQ(of(30'000), "input 30000");
  EXPECT_EQ(of(20'000), "input 20000");
  EXPECT_EQ(made, (std::vector<std::int64_t>{10'000, 20'000, 30'000}));
  EXPECT_EQ(of(10'000), "input 10000");  // made again: it was let go
  EXPECT_EQ(made, (std::vector<std::int64_t>{10'000, 20'000, 30'000, 10'000}));
  // The same input, not a copy: what a call changes, the next call of that argument sees.
  of(20'000) = "changed";
  EXPECT_EQ(of(20'000), "changed");
}

}  // namespace
}  // namespace harness::builtin
