// The built-in workloads (workloads/builtin.cpp, linked into this binary): each runs at the
// smallest argument it accepts and at its default ones, and their kept inputs
// (workloads/last_two_inputs.hpp).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "harness/workload.hpp"
#include "last_two_inputs.hpp"

namespace harness::builtin {
namespace {

// Under the sanitizers (./dev.sh test runs the unit tests in the sanitized tree too) this is
// where a built-in's undefined behaviour at an edge of its arguments shows: memcpy_bytes/0 passed
// an empty vector's null data() to memcpy (found by bench/soak.sh).
TEST(BuiltinWorkloads, EachRunsAtItsSmallestAndItsDefaultArguments) {
  const auto& all = global_registry().all();
  ASSERT_FALSE(all.empty());
  for (const workload& w : all) {
    std::vector<std::int64_t> args;
    if (w.takes_arg()) {
      if (w.min_arg()) args.push_back(*w.min_arg());
      if (w.default_arg()) args.push_back(*w.default_arg());
      args.insert(args.end(), w.default_args().begin(), w.default_args().end());
    } else {
      args.push_back(0);
    }
    for (const std::int64_t arg : args) {
      SCOPED_TRACE(w.name() + "/" + std::to_string(arg));
      EXPECT_NO_THROW(w.run(arg, 2));
    }
  }
}

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
