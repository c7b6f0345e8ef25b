// The command line in-process: every bad input exits 2 with a message naming the value and what
// is accepted, before any run starts.
#include "cli.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>

namespace harness::cli {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

struct outcome {
  int code;
  std::string out;
  std::string err;
};

outcome run(std::vector<const char*> args) {
  args.insert(args.begin(), "harness");
  std::ostringstream out, err;
  const int code = run_cli(static_cast<int>(args.size()), args.data(), out, err);
  return {code, out.str(), err.str()};
}

void expect_usage_error(std::vector<const char*> args, const std::string& message) {
  const auto r = run(args);
  EXPECT_EQ(r.code, exit_usage) << r.err;
  EXPECT_THAT(r.err, HasSubstr(message));
  EXPECT_THAT(r.out, Not(HasSubstr("first call")));  // no run started
}

TEST(Cli, BadInputExitsTwoNamingTheValue) {
  expect_usage_error({"-w", "nope"}, "'nope' matches no workload; known workloads: xor_loop");
  expect_usage_error({"--samples", "0"},
                     "--samples: invalid value '0': expected a positive integer");
  expect_usage_error({"-n", "-3"}, "invalid value '-3'");
  expect_usage_error({"-n", "many"}, "invalid value 'many'");
  expect_usage_error({"--warmup", "12"}, "--warmup: invalid duration '12': the unit is missing");
  expect_usage_error({"--warmup", "-1ms"}, "invalid duration '-1ms': it is negative");
  expect_usage_error({"--cpu", "99"},
                     "--cpu: CPU 99 is not one this process may run on; allowed CPUs:");
  expect_usage_error({"-w", "empty/3"}, "'empty' takes no argument");
  expect_usage_error({"--priority", "max"},
                     "--priority: invalid value 'max': expected normal, high or realtime");
  expect_usage_error({"--bogus"}, "--bogus");
  expect_usage_error({"run", "--frobnicate"}, "--frobnicate");
  expect_usage_error({"--cpu", "0", "--no-pin"}, "contradict");
}

TEST(Cli, HelpShowsExamples) {
  const auto r = run({"--help"});
  EXPECT_EQ(r.code, exit_ok);
  EXPECT_THAT(r.out, HasSubstr("Examples:"));
  EXPECT_THAT(r.out, HasSubstr("--warmup"));
}

TEST(Cli, ListNamesArgumentsAndDescriptions) {
  const auto r = run({"list"});
  EXPECT_EQ(r.code, exit_ok);
  EXPECT_THAT(r.out, HasSubstr("xor_loop"));
  EXPECT_THAT(r.out, HasSubstr("integer (32000000)"));
  EXPECT_THAT(r.out, HasSubstr("file_open_close"));
}

TEST(Cli, TinyRunPrintsEveryPhase) {
  const auto r = run({"run", "-w", "empty", "-n", "3", "--warmup", "1ms", "--no-pin", "--priority",
                      "normal", "--blocks", "1", "--no-history"});
  EXPECT_EQ(r.code, exit_ok) << r.err;
  EXPECT_THAT(r.out, HasSubstr("first call (cold, alone)"));
  EXPECT_THAT(r.out, HasSubstr("baseline: 3 samples"));
  EXPECT_THAT(r.out, HasSubstr("prepared: 3 samples"));
  EXPECT_THAT(r.out, HasSubstr("summary"));
}

}  // namespace
}  // namespace harness::cli
