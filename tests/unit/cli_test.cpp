// The command line in-process: every bad input exits 2 with a message naming the value and what
// is accepted, before any run starts.
#include "cli.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "fake_machine.hpp"
#include "scratch.hpp"

namespace harness::cli {
namespace {

using ::testing::ElementsAre;
using testing::fake_machine;
using ::testing::HasSubstr;
using ::testing::Not;
using testing::outcome;

// The command line on a fake machine (fake_machine.hpp) that offers the built-in workloads: no
// test here reads the real clocks, OS or /proc and /sys.
outcome run(std::vector<const char*> args) {
  fake_machine m;
  m.host.workloads = []() -> const workload_registry& { return global_registry(); };
  return testing::run(m, std::move(args));
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

// CLI11 would say "At Most 1 required but received 2", "Could not convert", "not in {...}" and
// "The following argument was not expected"; the harness says what was typed and what it takes.
TEST(Cli, ParserRefusalsInOurWords) {
  expect_usage_error({"-n", "12", "-n", "15"},
                     "--samples: given 2 times ('12' and '15'); it takes one value: give it once");
  expect_usage_error({"--warmup", "1ms", "--warmup", "2ms", "--warmup", "3ms"},
                     "--warmup: given 3 times ('1ms', '2ms' and '3ms')");
  expect_usage_error({"doctor", "--cpu", "0", "--cpu", "1"}, "--cpu: given 2 times");
  expect_usage_error({"--cpu", "abc"},
                     "--cpu: invalid value 'abc': expected a CPU number, 0 or more");
  expect_usage_error({"--cpu", "-1"}, "--cpu: invalid value '-1'");
  expect_usage_error({"doctor", "--cpu", "x1"}, "--cpu: invalid value 'x1'");
  expect_usage_error({"--log-level", "loud"},
                     "--log-level: invalid value 'loud': expected trace, debug, info, warn, error "
                     "or off");
  expect_usage_error({"--frob"}, "'--frob' is not an option of harness; see harness --help");
  expect_usage_error({"doctor", "--frob"},
                     "'--frob' is not an option of harness doctor; see harness doctor --help");
  expect_usage_error({"frob"},
                     "unexpected argument 'frob': give options, after at most one "
                     "command");
  expect_usage_error({"list", "extra"}, "unexpected argument 'extra' to harness list");
  // A parser's refusal points to the help of the command it was reading.
  expect_usage_error({"report"},
                     "REPORT is required\nRun 'harness report --help' for the options.");
  expect_usage_error({"--samples"}, "Run 'harness --help' for the options.");
  expect_usage_error({"--samples"}, "--samples: the value is missing");
  // A flag given twice says the same thing twice: not refused (the run goes on to the next check).
  expect_usage_error({"--no-pin", "--no-pin", "--detail", "--detail", "-w", "nope"},
                     "'nope' matches no workload");
}

// Options that mean nothing without another, and durations that must be positive.
TEST(Cli, OptionsThatOnlyMeanSomethingTogether) {
  expect_usage_error({"--max-hold", "5ms"}, "--max-hold 5ms only applies with --priority realtime");
  expect_usage_error({"--max-hold", "0s", "--priority", "realtime"},
                     "--max-hold: invalid value '0s'");
  expect_usage_error({"--target", "1%", "-n", "30"},
                     "--target 1% only applies with --samples auto");
  expect_usage_error({"--max-time", "0ms"}, "--max-time: invalid value '0ms'");
  expect_usage_error({"--min-sample-time", "0"},
                     "--min-sample-time: invalid value '0': a sample lasts at least one call");
  expect_usage_error({"--min-sample-time", "1ms", "--batch", "4"},
                     "--min-sample-time 1ms and --batch 4 both set the calls per sample");
  expect_usage_error({"--history", "h.json", "--no-history"}, "contradict");
}

TEST(Cli, DoctorRootMustBeADirectory) {
  const testing::scratch_folder dir("cli-root");
  std::filesystem::create_directories(dir.path() / "empty");
  { std::ofstream(dir.path() / "file") << "x"; }
  const std::string missing = (dir.path() / "missing").string();
  const std::string file = (dir.path() / "file").string();
  const std::string empty = (dir.path() / "empty").string();
  expect_usage_error({"doctor", "--root", missing.c_str()},
                     "--root: '" + missing + "' cannot be read");
  expect_usage_error({"doctor", "--root", file.c_str()}, "is not a directory");
  expect_usage_error({"doctor", "--root", ""}, "--root: the path is empty");
  // A directory is handed to the tree doctor as it was given (what it finds below an empty one is
  // doctor_test's).
  fake_machine m;
  const auto r = testing::run(m, {"doctor", "--root", empty.c_str()});
  EXPECT_EQ(r.code, exit_ok) << r.err;
  EXPECT_THAT(m.tree_roots, ElementsAre(std::filesystem::path(empty)));
}

// --root is looked at on the machine the command runs on (machine::inspect_path), not on the
// process's own file system: a fake says what is there, and nothing real is touched.
TEST(Cli, DoctorRootIsLookedAtOnTheMachine) {
  fake_machine m;
  std::vector<std::filesystem::path> looked_at;
  platform::path_facts facts;
  m.host.inspect_path = [&](const std::filesystem::path& path) {
    looked_at.push_back(path);
    return facts;
  };
  facts.kind = platform::path_kind::unknown;
  facts.reason = "Permission denied (EACCES)";
  auto r = testing::run(m, {"doctor", "--root", "tree-of-the-test"});
  EXPECT_EQ(r.code, exit_usage);
  EXPECT_THAT(r.err, HasSubstr("--root: 'tree-of-the-test' cannot be read: Permission denied "
                               "(EACCES); give a directory holding proc/ and sys/"));
  facts = {};
  facts.kind = platform::path_kind::missing;
  r = testing::run(m, {"doctor", "--root", "tree-of-the-test"});
  EXPECT_THAT(r.err, HasSubstr("cannot be read: No such file or directory"));
  facts.kind = platform::path_kind::device;
  r = testing::run(m, {"doctor", "--root", "tree-of-the-test"});
  EXPECT_THAT(r.err, HasSubstr("--root: 'tree-of-the-test' is not a directory"));
  EXPECT_TRUE(m.tree_roots.empty());
  facts.kind = platform::path_kind::directory;
  r = testing::run(m, {"doctor", "--root", "tree-of-the-test"});
  EXPECT_EQ(r.code, exit_ok) << r.err;
  EXPECT_THAT(m.tree_roots, ElementsAre(std::filesystem::path("tree-of-the-test")));
  EXPECT_EQ(looked_at.size(), 4U);
}

// The doctor's refusal of --cpu is the user's mistake, said about --cpu; any other
// std::invalid_argument out of the doctor is the harness's own failure (exit 1), not relabelled.
TEST(Cli, OnlyTheDoctorsCpuRefusalIsAUsageErrorAboutCpu) {
  fake_machine m;
  m.host.doctor = [](const doctor::doctor_options&) -> doctor::doctor_report {
    throw doctor::cpu_error("CPU 9: not an online CPU; online CPUs are 0-3");
  };
  auto r = testing::run(m, {"doctor", "--cpu", "9"});
  EXPECT_EQ(r.code, exit_usage) << r.err;
  EXPECT_THAT(r.err, HasSubstr("--cpu: CPU 9: not an online CPU; online CPUs are 0-3"));
  m.host.doctor = [](const doctor::doctor_options&) -> doctor::doctor_report {
    throw std::invalid_argument("select_default_cpu: empty affinity mask");
  };
  r = testing::run(m, {"doctor", "--cpu", "1"});
  EXPECT_EQ(r.code, exit_failure) << r.err;
  EXPECT_THAT(r.err, HasSubstr("select_default_cpu: empty affinity mask"));
  EXPECT_THAT(r.err, Not(HasSubstr("--cpu")));
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
  EXPECT_THAT(r.out, HasSubstr(">= 0 (32000000)"));
  EXPECT_THAT(r.out, HasSubstr("file_open_close"));
}

// A workload's min_batch() is tagged with its count at the argument a run without one takes; a
// function that gives a count out of range there is said, and the list goes on (it did fail as
// "harness itself failed").
TEST(Cli, ListTagsEachMinimumBatchAndSaysOneOutOfRange) {
  fake_machine m;
  const auto invoker = [] { return detail::make_invoker([](std::int64_t) {}); };
  m.registry.add(workload("tenfold", invoker(), true, false)).default_arg(3).min_batch([](auto n) {
    return n * 10;
  });
  m.registry.add(workload("below", invoker(), true, false)).default_arg(2).min_batch([](auto n) {
    return n - 5;
  });
  m.registry.add(workload("swept", invoker(), true, false)).args({7, 8}).min_batch([](auto n) {
    return n;
  });
  m.registry.add(workload("required", invoker(), true, false)).min_batch(4);
  m.registry.add(workload("zero", invoker(), true, false)).default_arg(0).min_batch([](auto n) {
    return n;
  });
  const auto r = testing::run(m, {"list"});
  EXPECT_EQ(r.code, exit_ok) << r.err;
  EXPECT_THAT(r.out, HasSubstr("[30 calls a sample or more]"));
  EXPECT_THAT(r.out, HasSubstr("[min_batch() out of range for 2: a run of it is refused]"));
  EXPECT_THAT(r.out, HasSubstr("[7 calls a sample or more]"));
  EXPECT_THAT(r.out, HasSubstr("[a minimum count of calls a sample (min_batch)]"));
  EXPECT_THAT(r.out, HasSubstr("zero")) << r.out;
  EXPECT_THAT(r.out, Not(HasSubstr("[0 calls a sample"))) << r.out;
}

// The prepared phase pinned to CPU 1 runs 5% slower than the baseline did unpinned on CPU 0: the
// trust line names both CPUs, the next command pins to the baseline's, and the JSON says where
// each phase's samples and floors ran.
TEST(Cli, AFloorAboveABaselineOnAnotherCpuSaysWhichAndWhatToRun) {
  fake_machine m;
  m.os.unpinned_cpu = 0;
  m.registry.add(workload("cpu1_slower", detail::make_invoker([&m] {
                            const bool on_1 = m.os.allowed == platform::cpu_list{1};
                            m.clock.advance(on_1 ? testing::kCost * 105 / 100 : testing::kCost);
                          }),
                          false, false));
  const testing::scratch_folder dir("cli-cpu");
  const auto json = (dir.path() / "r.json").string();
  const auto r = testing::run(m, {"run", "-w", "cpu1_slower", "-n", "10", "--warmup", "0", "--cpu",
                                  "1", "--no-history", "-o", json.c_str()});
  EXPECT_EQ(r.code, exit_ok) << r.err;
  EXPECT_THAT(r.out, HasSubstr("whose lowest sample ran on CPU 0 and this one on CPU 1")) << r.out;
  EXPECT_THAT(r.out, HasSubstr("next: harness -w cpu1_slower --cpu 0")) << r.out;
  EXPECT_THAT(r.out, HasSubstr("higher than unprepared (unprepared on CPU 0, prepared on CPU 1)"));
  std::ifstream in(json);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_THAT(text, HasSubstr("\"baseline_floor_cpu\": 0"));
  EXPECT_THAT(text, HasSubstr("\"floor_cpu\": 1"));
  EXPECT_THAT(text, HasSubstr("\"samples_by_cpu\": {\n"));
  // --detail's sentence on what preparation changed says it too.
  const auto detail = testing::run(m, {"run", "-w", "cpu1_slower", "-n", "10", "--warmup", "0",
                                       "--cpu", "1", "--no-history", "--detail"});
  EXPECT_THAT(detail.out, HasSubstr("the baseline's lowest sample ran on CPU 0, the prepared "
                                    "phase's on CPU 1"))
      << detail.out;
  // Each phase's header says where its samples ran.
  EXPECT_THAT(detail.out, HasSubstr("    ran on CPU 0 (10 samples)\n"));
  EXPECT_THAT(detail.out, HasSubstr("    ran on CPU 1 ("));
}

TEST(Cli, TinyRunPrintsEveryPhase) {
  fake_machine m;
  const auto r =
      testing::run(m, {"run", "-w", "exact", "-n", "3", "--warmup", "1ms", "--no-pin", "--priority",
                       "normal", "--blocks", "1", "--no-history", "--detail"});
  EXPECT_EQ(r.code, exit_ok) << r.err;
  EXPECT_THAT(r.out, HasSubstr("first call (cold, alone)"));
  EXPECT_THAT(r.out, HasSubstr("baseline: 3 samples"));
  // Calls of 100 us and reads of 1 us of the fake clock: the tenth call passes 1 ms.
  EXPECT_THAT(r.out, HasSubstr("warmup: 1 ms requested, 1043 µs run, 10 calls"));
  EXPECT_THAT(r.out, HasSubstr("prepared: 3 samples"));
  EXPECT_THAT(r.out, HasSubstr("summary"));
  // --no-pin and --priority normal: the fake OS was neither pinned nor raised.
  EXPECT_THAT(r.out, HasSubstr("nothing to apply (--no-pin and --priority normal)"));
  EXPECT_TRUE(std::none_of(m.os.calls.begin(), m.os.calls.end(), [](const std::string& call) {
    return call.starts_with("set_affinity") || call.starts_with("raise_priority");
  })) << ::testing::PrintToString(m.os.calls);
}

}  // namespace
}  // namespace harness::cli
