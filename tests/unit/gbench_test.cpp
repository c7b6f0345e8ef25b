// `harness gbench` (gbench/gbench.hpp): Google Benchmark's JSON read into repetitions, the flags it
// refuses, repetitions turned into phases and blocks with their floor, and the invocations run
// through a fake launcher: what each is given, the preparation of the prepared ones, a stop passed
// on, and a binary that fails; and the command, which starts the binary through the machine's
// launcher (cli::machine).
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <csignal>
#include <fstream>
#include <map>

#include "fake_machine.hpp"
#include "gbench/gbench.hpp"
#include "harness/errors.hpp"
#include "scratch.hpp"

namespace harness::gbench {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Pair;

// As Google Benchmark 1.7.1 writes it with --benchmark_repetitions=2, trimmed: two repetitions
// and an aggregate of one benchmark, one in microseconds with rates and a counter, one skipped.
constexpr const char* kOutput = R"({
  "context": {"date": "2026-12-01T09:55:30+00:00", "library_build_type": "debug"},
  "benchmarks": [
    {"name": "BM_sum/256", "family_index": 0, "per_family_instance_index": 0,
     "run_name": "BM_sum/256", "run_type": "iteration", "repetitions": 2, "repetition_index": 0,
     "threads": 1, "iterations": 1000, "real_time": 130.5, "cpu_time": 83.25, "time_unit": "ns"},
    {"name": "BM_sum/256", "family_index": 0, "per_family_instance_index": 0,
     "run_name": "BM_sum/256", "run_type": "iteration", "repetitions": 2, "repetition_index": 1,
     "threads": 1, "iterations": 1000, "real_time": 120.0, "cpu_time": 83.0, "time_unit": "ns"},
    {"name": "BM_sum/256_mean", "family_index": 0, "per_family_instance_index": 0,
     "run_name": "BM_sum/256", "run_type": "aggregate", "repetitions": 2, "threads": 1,
     "aggregate_name": "mean", "aggregate_unit": "time", "iterations": 2, "real_time": 125.25,
     "cpu_time": 83.125, "time_unit": "ns"},
    {"name": "BM_copy/4096", "family_index": 1, "per_family_instance_index": 0,
     "run_name": "BM_copy/4096", "run_type": "iteration", "repetitions": 2, "repetition_index": 0,
     "threads": 1, "iterations": 500, "real_time": 2.5, "cpu_time": 2.0, "time_unit": "us",
     "buffers": 2.0, "bytes_per_second": 2048000000.0, "items_per_second": 500000.0},
    {"name": "BM_skipped", "family_index": 2, "per_family_instance_index": 0,
     "run_name": "BM_skipped", "run_type": "iteration", "repetitions": 2, "repetition_index": 0,
     "threads": 1, "error_occurred": true, "error_message": "no input", "iterations": 0,
     "real_time": 0.0, "cpu_time": 0.0, "time_unit": "ns"}
  ]
})";

TEST(GbenchParse, KeepsRepetitionsInNanosecondsAndLeavesAggregatesOut) {
  const output out = parse_output(kOutput);
  EXPECT_EQ(out.library_build_type, "debug");
  ASSERT_EQ(out.repetitions.size(), 4u);
  EXPECT_EQ(out.repetitions[0].name, "BM_sum/256");
  EXPECT_EQ(out.repetitions[0].iterations, 1000u);
  EXPECT_DOUBLE_EQ(out.repetitions[0].real_ns, 130.5);
  EXPECT_DOUBLE_EQ(out.repetitions[1].real_ns, 120.0);
  const repetition& copy = out.repetitions[2];
  EXPECT_DOUBLE_EQ(copy.real_ns, 2500);  // 2.5 us
  EXPECT_DOUBLE_EQ(copy.cpu_ns, 2000);
  EXPECT_EQ(copy.items_per_second, 500000.0);
  EXPECT_EQ(copy.bytes_per_second, 2048000000.0);
  EXPECT_THAT(copy.counters, ElementsAre(Pair("buffers", 2.0)));
  EXPECT_FALSE(copy.error);
  EXPECT_EQ(out.repetitions[3].error, "no input");
}

// The report's clock is Google Benchmark's unit, never read: a read is the harness's bug, a failed
// check (docs/errors.md), not a message of its own.
TEST(GbenchClock, ReadingTheReportsClockIsAFailedCheck) {
  EXPECT_FALSE(reported_nanoseconds().available());
  EXPECT_DEATH((void)reported_nanoseconds().now(),
               "gbench_run.cpp:.*: check failed: false: the gbench_real_time clock was read");
}

TEST(GbenchParse, RefusesWhatIsNotGoogleBenchmarksJson) {
  EXPECT_THROW(parse_output("not json"), gbench_output_error);
  EXPECT_THROW(parse_output(R"({"context": {}})"), gbench_output_error);
  // Found by fuzz/gbench_json_fuzz: a number too large for a double is nlohmann's out_of_range,
  // which escaped as a harness failure instead of the file's error.
  EXPECT_THROW(parse_output(R"({"benchmarks": [{"name": "x", "real_time": 1e400}]})"),
               gbench_output_error);
  EXPECT_THROW(parse_output(R"({"benchmarks": [{"name": "x", "run_type": "iteration",
      "iterations": 1, "real_time": 1, "cpu_time": 1, "time_unit": "ps"}]})"),
               gbench_output_error);
  EXPECT_THROW(parse_output(R"({"benchmarks": [{"name": "x", "iterations": 1}]})"),
               gbench_output_error);
  // Found by fuzz/gbench_json_fuzz: an iteration count past 64 bits did not convert to one
  // (undefined behaviour); past Google Benchmark's int64 it is the file's error.
  for (const char* count : {"5.4212e20", "9223372036854775808", "18446744073709551616"}) {
    EXPECT_THROW(parse_output(fmt::format(R"({{"benchmarks": [{{"name": "x", "iterations": {},
      "real_time": 7, "cpu_time": 7}}]}})",
                                          count)),
                 gbench_output_error)
        << count;
  }
  EXPECT_EQ(parse_output(R"({"benchmarks": [{"name": "x", "iterations": 9223372036854774784,
      "real_time": 7, "cpu_time": 7}]})")
                .repetitions[0]
                .iterations,
            9223372036854774784u);
  // Without run_name (older versions), the name names the benchmark.
  const output old = parse_output(R"({"benchmarks": [{"name": "x", "iterations": 3,
      "real_time": 7, "cpu_time": 7}]})");
  ASSERT_EQ(old.repetitions.size(), 1u);
  EXPECT_EQ(old.repetitions[0].name, "x");
  EXPECT_DOUBLE_EQ(old.repetitions[0].real_ns, 7);
}

std::string refusal(const std::vector<std::string>& args) {
  try {
    check_binary_args(args);
  } catch (const usage_error& e) {
    return e.what();
  }
  return {};
}

TEST(GbenchFlags, RefusesTheFlagsTheHarnessOwnsAndPassesTheRest) {
  EXPECT_EQ(refusal({"--benchmark_filter=BM_sum", "--benchmark_display_aggregates_only=true",
                     "--benchmark_counters_tabular=true", "--benchmark_out_is_not_a_flag"}),
            "");
  for (const char* flag :
       {"--benchmark_repetitions=3", "--benchmark_out=x.json", "--benchmark_out_format=csv",
        "--benchmark_format=json", "--benchmark_min_time=1", "--benchmark_min_warmup_time=1",
        "--benchmark_report_aggregates_only=true", "--benchmark_list_tests",
        "--benchmark_dry_run=true"}) {
    EXPECT_THAT(refusal({"--benchmark_filter=x", flag}),
                HasSubstr(std::string("'") + flag + "' is refused"));
  }
  EXPECT_THAT(refusal({"--benchmark_repetitions=3"}), HasSubstr("-n N"));
}

TEST(GbenchBlocks, SpreadsTheRepetitionsOverTheInvocations) {
  EXPECT_THAT(block_sizes(20, 5), ElementsAre(4, 4, 4, 4, 4));
  EXPECT_THAT(block_sizes(7, 5), ElementsAre(2, 2, 1, 1, 1));
  EXPECT_THAT(block_sizes(3, 5), ElementsAre(1, 1, 1));
  EXPECT_THAT(block_sizes(4, 1), ElementsAre(4));
}

TEST(GbenchArgs, TheUsersFirstThenTheHarnessesWithTheWarmupSharedByThePreparedInvocations) {
  settings s;
  s.args = {"--benchmark_filter=BM_sum"};
  s.repetitions = 20;
  s.blocks = 5;
  s.min_time = std::chrono::milliseconds(50);
  s.warmup = std::chrono::milliseconds(1200);
  EXPECT_THAT(invocation_args(s, 4, false, "out.json"),
              ElementsAre("--benchmark_filter=BM_sum", "--benchmark_repetitions=4",
                          "--benchmark_out=out.json", "--benchmark_out_format=json",
                          "--benchmark_min_time=0.05"));
  EXPECT_THAT(invocation_args(s, 4, true, "out.json"),
              ElementsAre("--benchmark_filter=BM_sum", "--benchmark_repetitions=4",
                          "--benchmark_out=out.json", "--benchmark_out_format=json",
                          "--benchmark_min_time=0.05", "--benchmark_min_warmup_time=0.24"));
  s.warmup = std::chrono::nanoseconds(0);
  EXPECT_EQ(invocation_args(s, 4, true, "out.json").size(), 5u);
}

// One invocation's output of one benchmark: its repetitions' real times.
output repetitions_of(const std::string& name, std::vector<double> real_ns) {
  output out;
  for (const double ns : real_ns) {
    repetition r;
    r.name = name;
    r.iterations = 100;
    r.real_ns = ns;
    r.cpu_ns = ns;
    out.repetitions.push_back(r);
  }
  return out;
}

TEST(GbenchResults, EachInvocationIsABlockAndTheFloorIsCheckedFromThem) {
  std::vector<workload_result> results;
  add_invocation(results, repetitions_of("a", {12, 10}), phase_kind::baseline, 0.0);
  add_invocation(results, repetitions_of("a", {10, 11}), phase_kind::baseline, 0.5);
  finish_phase(results, phase_kind::baseline, 4, 1.0, false, floor_settings{}, floor_memory{});
  add_invocation(results, repetitions_of("a", {9, 9.5}), phase_kind::prepared, 0.0);
  add_invocation(results, repetitions_of("a", {9.8, 9.001}), phase_kind::prepared, 0.3);
  finish_phase(results, phase_kind::prepared, 4, 0.6, false, floor_settings{}, floor_memory{});
  ASSERT_EQ(results.size(), 1u);
  const workload_result& r = results[0];
  ASSERT_TRUE(r.baseline && r.prepared);
  EXPECT_THAT(r.baseline->values, ElementsAre(12, 10, 10, 11));
  ASSERT_EQ(r.baseline->blocks.size(), 2u);
  EXPECT_EQ(r.baseline->blocks[1].first, 2u);
  EXPECT_EQ(r.baseline->blocks[1].count, 2u);
  EXPECT_DOUBLE_EQ(r.baseline->blocks[1].start_seconds, 0.5);
  EXPECT_EQ(r.baseline->requested, 4u);
  EXPECT_THAT(r.baseline->sample_iterations, ElementsAre(100, 100, 100, 100));
  // Both blocks' minimums are 10, 0.5 s apart: confirmed.
  ASSERT_TRUE(r.baseline->floor);
  EXPECT_TRUE(r.baseline->floor->confirmed) << r.baseline->floor->reason;
  // 9 and 9.001 agree within 0.05%, 0.3 s apart, below the baseline's floor.
  ASSERT_TRUE(r.prepared->floor);
  EXPECT_TRUE(r.prepared->floor->confirmed) << r.prepared->floor->reason;
  ASSERT_TRUE(r.prepared->floor->context.baseline_floor);
  EXPECT_DOUBLE_EQ(*r.prepared->floor->context.baseline_floor, 10);
  EXPECT_FALSE(r.failed());
}

// With a history, a benchmark's prepared floor must agree with the one earlier runs of the binary
// showed here, as in `harness run`: blocks 9 and 9.001 agree, so only the history decides.
std::vector<workload_result> two_benchmarks_against(const floor_memory& memory) {
  std::vector<workload_result> results;
  for (const double start : {0.0, 0.3}) {
    output out = repetitions_of("a", {9, 9.001});
    const output b = repetitions_of("b", {20, 20.001});
    out.repetitions.insert(out.repetitions.end(), b.repetitions.begin(), b.repetitions.end());
    add_invocation(results, out, phase_kind::prepared, start);
  }
  finish_phase(results, phase_kind::prepared, 4, 0.6, false, floor_settings{}, memory);
  return results;
}

std::vector<std::string> findings_of(const workload_result& r) {
  std::vector<std::string> ids;
  for (const floor_finding f : r.prepared->floor->findings)
    ids.emplace_back(id_of(f));
  return ids;
}

TEST(GbenchResults, WithAHistoryTheFloorMustAgreeWithTheOneEarlierRunsShowed) {
  std::vector<std::pair<std::string, std::uint64_t>> asked;
  floor_memory memory;
  memory.floor_of = [&asked](std::string_view name, std::uint64_t batch) {
    asked.emplace_back(name, batch);
    // "a" was seen at 9.002 (within the 0.05% tolerance), "b" never.
    return name == "a" ? std::optional<double>(9.002) : std::nullopt;
  };
  const auto results = two_benchmarks_against(memory);
  ASSERT_EQ(results.size(), 2u);
  EXPECT_THAT(asked, ElementsAre(Pair("a", 1u), Pair("b", 1u)));
  EXPECT_TRUE(results[0].prepared->floor->confirmed) << results[0].prepared->floor->reason;
  EXPECT_THAT(results[0].prepared->floor->reason, HasSubstr("agreeing with the floor"));
  EXPECT_FALSE(results[1].prepared->floor->confirmed);
  EXPECT_THAT(findings_of(results[1]), ElementsAre("first_of_build"));

  // Earlier runs at 10 (a) and 19 (b): one now below what was shown, one above it.
  memory.floor_of = [](std::string_view name, std::uint64_t) {
    return std::optional<double>(name == "a" ? 10.0 : 19.0);
  };
  const auto moved = two_benchmarks_against(memory);
  EXPECT_THAT(findings_of(moved[0]), ElementsAre("below_remembered"));
  EXPECT_THAT(findings_of(moved[1]), ElementsAre("above_remembered"));
  EXPECT_THAT(moved[0].prepared->floor->recommendation, HasSubstr("run it again"));

  // No history: the blocks alone confirm.
  const auto alone = two_benchmarks_against(floor_memory{});
  EXPECT_TRUE(alone[0].prepared->floor->confirmed);
  EXPECT_TRUE(alone[1].prepared->floor->confirmed);
}

TEST(GbenchResults, RatesBecomeItemsAndBytesPerIterationAndCountersStayWithTheirSample) {
  std::vector<workload_result> results;
  add_invocation(results, parse_output(kOutput), phase_kind::prepared, 0.0);
  ASSERT_EQ(results.size(), 3u);
  const workload_result& copy = results[1];
  ASSERT_TRUE(copy.items_per_call && copy.bytes_per_call);
  // Rates per CPU second: 500000/s x 2 us of CPU = 1 item, 2.048e9 B/s x 2 us = 4096 bytes.
  EXPECT_NEAR(*copy.items_per_call, 1, 1e-9);
  EXPECT_NEAR(*copy.bytes_per_call, 4096, 1e-6);
  ASSERT_EQ(copy.prepared->sample_counters.size(), 1u);
  EXPECT_THAT(copy.prepared->sample_counters[0], ElementsAre(Pair("buffers", 2.0)));
  EXPECT_FALSE(results[0].items_per_call);
}

TEST(GbenchResults, ASkippedBenchmarkIsItsFailureAndTakesNoMoreSamples) {
  std::vector<workload_result> results;
  add_invocation(results, parse_output(kOutput), phase_kind::baseline, 0.0);
  const workload_result& skipped = results[2];
  ASSERT_TRUE(skipped.failed());
  EXPECT_FALSE(skipped.baseline);  // no sample, no phase
  EXPECT_EQ(skipped.failure->stage, run_stage::baseline);
  EXPECT_EQ(skipped.failure->sample, 1u);
  EXPECT_EQ(skipped.failure->block, 1u);
  EXPECT_FALSE(skipped.failure->threw);
  EXPECT_THAT(skipped.failure->what(), HasSubstr("(SkipWithError): no input"));
  // A later invocation's rows of it are not taken.
  add_invocation(results, repetitions_of("BM_skipped", {5, 6}), phase_kind::prepared, 0.2);
  EXPECT_FALSE(results[2].prepared);
  EXPECT_FALSE(results[0].failed());
}

TEST(GbenchBinary, WhatCannotBeExecutedIsFoundBeforeAnythingRuns) {
  const harness::testing::scratch_folder dir("gbench-exec");
  const auto file = [&](const char* name, std::filesystem::perms perms) {
    const std::filesystem::path p = dir.path() / name;
    std::ofstream(p) << "#!/bin/sh\nexit 0\n";
    std::filesystem::permissions(p, perms);
    return p;
  };
  using std::filesystem::perms;
  EXPECT_EQ(platform::cannot_execute(file("runs", perms::owner_all)), "");
#ifndef _WIN32
  EXPECT_THAT(platform::cannot_execute(file("plain", perms::owner_read | perms::owner_write)),
              HasSubstr("not executable"));
#endif
  EXPECT_THAT(platform::cannot_execute(dir.path() / "missing"), HasSubstr("No such file"));
  EXPECT_EQ(platform::cannot_execute(dir.path()), "it is a directory");
}

// A child that does what its script says when released: writes the JSON file named by its
// --benchmark_out, and ends (or runs until stopped).
struct fake_behaviour {
  std::function<std::string(std::size_t invocation)> json;  // empty text: writes no file
  platform::child_exit exit;
  std::string stderr_text;
  bool runs_until_stopped = false;
  int stop_at_invocation = -1;  // requests a stop (SIGTERM) while this invocation runs
};

struct fake_log {
  std::vector<std::vector<std::string>> args;
  std::vector<std::string> calls;  // per child: what was done to it, in order
  std::vector<int> stops;
  int killed = 0;
};

class fake_child final : public platform::child_process {
 public:
  fake_child(platform::child_spec spec, const fake_behaviour& b, fake_log& log, std::size_t n)
      : spec_(std::move(spec)), b_(b), log_(log), n_(n) {}
  int id() const override { return 1000 + static_cast<int>(n_); }
  platform::cpu_list affinity() override {
    log_.calls.push_back("affinity");
    return cpus_;
  }
  std::string describe_priority() override { return "nice " + std::to_string(nice_); }
  platform::step_result set_affinity(const platform::cpu_list& cpus) override {
    log_.calls.push_back("set_affinity " + platform::format_cpu_list(cpus));
    cpus_ = cpus;
    return {"pin to CPU " + platform::format_cpu_list(cpus), true, 0, {}};
  }
  std::vector<platform::step_result> raise_priority(platform::priority_level level) override {
    log_.calls.push_back(std::string("raise_priority ") + std::string(platform::to_string(level)));
    nice_ = -20;
    return {{"nice -20", true, 0, {}}};
  }
  void resume() override {
    log_.calls.push_back("resume");
    std::ofstream(spec_.err_file, std::ios::binary) << b_.stderr_text;
    const std::string text = b_.json ? b_.json(n_) : std::string();
    if (!text.empty()) {
      for (const std::string& a : spec_.args) {
        if (a.rfind("--benchmark_out=", 0) == 0) std::ofstream(a.substr(16)) << text;
      }
    }
    if (static_cast<int>(n_) == b_.stop_at_invocation) request_stop(SIGTERM);
  }
  std::optional<platform::child_exit> poll() override {
    if (stopped_ || !(b_.runs_until_stopped || static_cast<int>(n_) == b_.stop_at_invocation))
      return stopped_ ? platform::child_exit{true, SIGTERM} : b_.exit;
    return std::nullopt;
  }
  void stop(int sig) override {
    log_.stops.push_back(sig);
    stopped_ = true;
  }
  void kill() override { ++log_.killed; }
  // gbench never talks to its children.
  void send(std::string_view) override { ADD_FAILURE() << "send() to a gbench child"; }
  platform::read_status read_line(std::string&, std::chrono::milliseconds) override {
    ADD_FAILURE() << "read_line() from a gbench child";
    return platform::read_status::closed;
  }

 private:
  platform::child_spec spec_;
  const fake_behaviour& b_;
  fake_log& log_;
  std::size_t n_;
  platform::cpu_list cpus_{0, 1, 2, 3};
  int nice_ = 0;
  bool stopped_ = false;
};

class fake_launcher final : public platform::process_launcher {
 public:
  fake_behaviour behaviour;
  fake_log log;
  std::unique_ptr<platform::child_process> launch(const platform::child_spec& spec) override {
    log.args.push_back(spec.args);
    log.calls.push_back("launch");
    return std::make_unique<fake_child>(spec, behaviour, log, log.args.size() - 1);
  }
};

class GbenchRun : public ::testing::Test {
 protected:
  void SetUp() override {
    clear_stop();
    s.binary = "./bench";
    s.repetitions = 4;
    s.blocks = 2;
    s.cpu = 2;
    s.warmup = std::chrono::milliseconds(100);
    s.work_dir = dir.path();
    s.poll_interval = std::chrono::milliseconds(0);
    launcher.behaviour.json = [](std::size_t) {
      return std::string(R"({"benchmarks": [
        {"name": "a", "run_type": "iteration", "iterations": 10, "real_time": 5, "cpu_time": 5,
         "time_unit": "ns"},
        {"name": "a", "run_type": "iteration", "iterations": 10, "real_time": 6, "cpu_time": 6,
         "time_unit": "ns"}]})");
    };
  }
  void TearDown() override { clear_stop(); }
  harness::testing::scratch_folder dir{"gbench"};
  settings s;
  fake_launcher launcher;
};

TEST_F(GbenchRun, BaselineAsTheUserRunsItThenPreparedThroughTheChild) {
  const outcome o = run(s, launcher);
  EXPECT_FALSE(o.failure);
  EXPECT_EQ(o.stop_signal, 0);
  ASSERT_EQ(launcher.log.args.size(), 4u);  // two invocations per phase
  // Baseline invocations: launched and released, nothing else; no warmup flag.
  EXPECT_THAT(std::vector<std::string>(launcher.log.calls.begin(), launcher.log.calls.begin() + 4),
              ElementsAre("launch", "resume", "launch", "resume"));
  EXPECT_EQ(launcher.log.args[0].back(), "--benchmark_min_time=0.05");
  // Prepared: read, pinned, raised, read back, then released, with its share of the warmup.
  EXPECT_THAT(
      std::vector<std::string>(launcher.log.calls.begin() + 4, launcher.log.calls.begin() + 10),
      ElementsAre("launch", "affinity", "set_affinity 2", "raise_priority high", "affinity",
                  "resume"));
  EXPECT_EQ(launcher.log.args[2].back(), "--benchmark_min_warmup_time=0.05");
  ASSERT_EQ(o.results.size(), 1u);
  const workload_result& r = o.results[0];
  ASSERT_TRUE(r.baseline && r.prepared);
  EXPECT_EQ(r.baseline->values.size(), 4u);
  EXPECT_EQ(r.prepared->blocks.size(), 2u);
  EXPECT_THAT(r.preparation.affinity_before, ElementsAre(0, 1, 2, 3));
  EXPECT_THAT(r.preparation.affinity_applied, ElementsAre(2));
  EXPECT_EQ(r.preparation.priority_applied, "nice -20");
  EXPECT_EQ(r.preparation.steps.size(), 2u);
  EXPECT_EQ(r.warmup.requested, std::chrono::milliseconds(100));
  EXPECT_EQ(launcher.log.killed, 0);
}

TEST_F(GbenchRun, AStopIsPassedOnAndWhatCameBeforeIsKept) {
  launcher.behaviour.stop_at_invocation = 1;  // the baseline's second invocation
  const outcome o = run(s, launcher);
  EXPECT_EQ(o.stop_signal, SIGTERM);
  EXPECT_THAT(launcher.log.stops, ElementsAre(SIGTERM));
  EXPECT_EQ(launcher.log.args.size(), 2u);  // nothing after it started
  ASSERT_EQ(o.results.size(), 1u);
  EXPECT_TRUE(o.results[0].interrupted);
  ASSERT_TRUE(o.results[0].baseline);
  EXPECT_EQ(o.results[0].baseline->values.size(), 2u);  // the first invocation's
  EXPECT_EQ(o.results[0].baseline->stopped_by, stop_reason::interrupted);
  EXPECT_FALSE(o.results[0].prepared);
}

TEST_F(GbenchRun, ABinaryThatFailsIsTheRunsFailureWithItsStderr) {
  launcher.behaviour.exit = {false, 7};  // a crash is the e2e test's (gbench_e2e.sh)
  launcher.behaviour.stderr_text = "first\r\nsecond line of the crash\r\n";  // as on Windows
  const outcome o = run(s, launcher);
  ASSERT_TRUE(o.failure);
  EXPECT_THAT(*o.failure, HasSubstr("'./bench' (baseline invocation 1 of 2) exited with status 7"));
  EXPECT_THAT(*o.failure, HasSubstr("    | first\n    | second line of the crash"));
  EXPECT_THAT(*o.failure, ::testing::Not(HasSubstr("\r")));
  EXPECT_EQ(launcher.log.args.size(), 1u);
  EXPECT_TRUE(o.results.empty());
}

TEST_F(GbenchRun, ABinaryThatWritesNoJsonIsNoGoogleBenchmarkBinary) {
  launcher.behaviour.json = nullptr;
  const outcome o = run(s, launcher);
  ASSERT_TRUE(o.failure);
  EXPECT_THAT(*o.failure, HasSubstr("wrote no JSON to --benchmark_out: is it a Google Benchmark"));
  EXPECT_THAT(*o.failure, HasSubstr("its stderr was empty"));
}

TEST_F(GbenchRun, AFailureInThePreparedPhaseKeepsTheBaselineAndTheBlocksBefore) {
  launcher.behaviour.json = [](std::size_t n) {
    return n < 3 ? std::string(R"({"benchmarks": [{"name": "a", "iterations": 1,
        "real_time": 5, "cpu_time": 5}]})")
                 : std::string("{ truncated");
  };
  const outcome o = run(s, launcher);
  ASSERT_TRUE(o.failure);
  EXPECT_THAT(*o.failure, HasSubstr("not Google Benchmark's JSON"));
  ASSERT_EQ(o.results.size(), 1u);
  ASSERT_TRUE(o.results[0].baseline && o.results[0].prepared);
  EXPECT_EQ(o.results[0].prepared->values.size(), 1u);
  EXPECT_TRUE(o.results[0].prepared->floor);  // the phase was closed with what it had
}

// The machine's launcher, handing every launch to the fixture's.
class forwarding_launcher final : public platform::process_launcher {
 public:
  explicit forwarding_launcher(fake_launcher& to) : to_(to) {}
  std::unique_ptr<platform::child_process> launch(const platform::child_spec& spec) override {
    return to_.launch(spec);
  }

 private:
  fake_launcher& to_;
};

#ifndef _WIN32  // an executable file of the test's own: a mode bit on Linux
TEST_F(GbenchRun, TheCommandStartsTheBinaryThroughTheMachinesLauncher) {
  harness::testing::fake_machine m;
  m.host.launcher = [this] { return std::make_unique<forwarding_launcher>(launcher); };
  const std::filesystem::path bench = dir.path() / "bench";
  std::ofstream(bench) << "#!/bin/sh\n";
  std::filesystem::permissions(bench, std::filesystem::perms::owner_all);
  const auto r =
      harness::testing::run(m, {"gbench", "-n", "4", "--blocks", "2", "--warmup", "0",
                                "--no-history", "--", bench.c_str(), "--benchmark_filter=a"});
  ASSERT_EQ(r.code, cli::exit_ok) << r.err;
  ASSERT_EQ(launcher.log.args.size(), 4u);  // two invocations per phase, all the fake's
  EXPECT_EQ(launcher.log.args[0].front(), "--benchmark_filter=a");
  EXPECT_THAT(launcher.log.calls, ::testing::Contains("set_affinity 2"));  // the fake doctor's CPU
  EXPECT_THAT(r.out, HasSubstr("a"));
}
#endif

}  // namespace
}  // namespace harness::gbench
