// `harness gbench --vs` (gbench/vs.hpp): the listings, the ABBA schedule of invocations, the
// pairing of invocation i of OLD with invocation i of NEW, a benchmark only one lists, a binary
// that fails or a benchmark that reports an error, a stop passed on; and its report through ab's
// writers. Driven by fake children on a fake clock: every expectation is exact.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <csignal>
#include <fstream>
#include <map>
#include <sstream>

#include "gbench/vs.hpp"
#include "harness/ab_report.hpp"
#include "harness/errors.hpp"
#include "harness/runner.hpp"
#include "scratch.hpp"

namespace harness::gbench {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(GbenchVsList, ReadsOneNameALineInItsOrder) {
  EXPECT_THAT(parse_list("BM_sum/256\nBM_copy/4096\r\n\nBM_sleep/real_time\n"),
              ElementsAre("BM_sum/256", "BM_copy/4096", "BM_sleep/real_time"));
  EXPECT_TRUE(parse_list("").empty());
}

TEST(GbenchVsFilter, MatchesTheNameAloneWithItsRegexCharactersEscaped) {
  EXPECT_EQ(exact_filter("BM_copy/4096"), "^BM_copy/4096$");
  EXPECT_EQ(exact_filter("BM_x<int>/min_time:0.500/threads:2"),
            "^BM_x<int>/min_time:0\\.500/threads:2$");
  EXPECT_EQ(exact_filter("a.b[c](d)*+?{e}|^$\\"),
            "^a\\.b\\[c\\]\\(d\\)\\*\\+\\?\\{e\\}\\|\\^\\$\\\\$");
}

TEST(GbenchVsArgs, TheUsersFirstThenTheHarnessesWithItsFilterLast) {
  vs_settings s;
  s.args = {"--benchmark_filter=BM_", "--my_flag"};
  s.repetitions = 3;
  s.min_time = std::chrono::milliseconds(10);
  EXPECT_THAT(vs_invocation_args(s, "BM_a/1", "o.json"),
              ElementsAre("--benchmark_filter=BM_", "--my_flag", "--benchmark_repetitions=3",
                          "--benchmark_out=o.json", "--benchmark_out_format=json",
                          "--benchmark_min_time=0.01", "--benchmark_filter=^BM_a/1$"));
  s.warmup = std::chrono::milliseconds(5);
  EXPECT_THAT(vs_invocation_args(s, "BM_a/1", "o.json"),
              ::testing::Contains("--benchmark_min_warmup_time=0.005"));
}

// What a fake binary does: the benchmarks it lists, and per benchmark and invocation of it
// (0-based, counted per binary and benchmark) the repetitions' real times in ns.
struct fake_binary {
  std::vector<std::string> benchmarks;
  std::function<std::vector<double>(const std::string& name, std::size_t invocation)> times;
  std::map<std::string, std::string> errors;  // a benchmark's SkipWithError message
  int fail_at = -1;         // this invocation (counted over all its measured ones) exits 7
  bool list_fails = false;  // its listing crashes (SIGSEGV)
  int stop_at = -1;         // this invocation requests a stop (SIGINT) and runs until stopped
  std::string time_unit = "ns";
};

struct launch_record {
  std::string binary;
  std::string filter;  // the last --benchmark_filter, or "list"
  std::vector<std::string> calls;
};

class vs_fake_child final : public platform::child_process {
 public:
  vs_fake_child(platform::child_spec spec, const fake_binary& b, launch_record& record,
                std::size_t invocation, std::size_t measured, std::uint64_t& clock)
      : spec_(std::move(spec)),
        b_(b),
        record_(record),
        invocation_(invocation),
        measured_(measured),
        clock_(clock) {}
  int id() const override { return 4000 + static_cast<int>(measured_); }
  platform::cpu_list affinity() override {
    record_.calls.push_back("affinity");
    return cpus_;
  }
  std::string describe_priority() override { return "nice " + std::to_string(nice_); }
  platform::step_result set_affinity(const platform::cpu_list& cpus) override {
    record_.calls.push_back("set_affinity " + platform::format_cpu_list(cpus));
    cpus_ = cpus;
    return {"pin to CPU " + platform::format_cpu_list(cpus), true, 0, {}};
  }
  std::vector<platform::step_result> raise_priority(platform::priority_level level) override {
    record_.calls.push_back(std::string("raise_priority ") +
                            std::string(platform::to_string(level)));
    nice_ = -20;
    return {{"nice -20 (setpriority)", false, 13, "Permission denied (EACCES)"}};
  }
  void resume() override {
    record_.calls.push_back("resume");
    clock_ += 50'000'000;  // every invocation takes 50 ms of the fake clock
    if (record_.filter == "list") {
      std::ofstream(spec_.out_file) << fmt::format("{}\n", fmt::join(b_.benchmarks, "\n"));
      if (b_.list_fails) exit_ = {true, SIGSEGV};
      return;
    }
    if (static_cast<int>(measured_) == b_.stop_at) {
      request_stop(SIGINT);
      runs_ = true;
      return;
    }
    if (static_cast<int>(measured_) == b_.fail_at) {
      std::ofstream(spec_.err_file) << "fake: told to fail\n";
      exit_ = {false, 7};
      return;
    }
    const std::string name = record_.filter.substr(1, record_.filter.size() - 2);
    nlohmann::json rows = nlohmann::json::array();
    if (const auto e = b_.errors.find(name); e != b_.errors.end()) {
      rows.push_back({{"name", name},
                      {"run_type", "iteration"},
                      {"error_occurred", true},
                      {"error_message", e->second},
                      {"iterations", 0},
                      {"real_time", 0},
                      {"cpu_time", 0},
                      {"time_unit", "ns"}});
    } else {
      for (const double t : b_.times(name, invocation_)) {
        rows.push_back({{"name", name},
                        {"run_name", name},
                        {"run_type", "iteration"},
                        {"iterations", 1000},
                        {"real_time", t},
                        {"cpu_time", t},
                        {"time_unit", b_.time_unit}});
      }
    }
    for (const std::string& a : spec_.args) {
      if (a.rfind("--benchmark_out=", 0) == 0)
        std::ofstream(a.substr(16)) << nlohmann::json{{"benchmarks", rows}}.dump();
    }
  }
  std::optional<platform::child_exit> poll() override {
    if (runs_) return std::nullopt;
    return exit_;
  }
  void stop(int) override {
    record_.calls.push_back("stop");
    runs_ = false;
    exit_ = {true, SIGINT};
  }
  void kill() override { record_.calls.push_back("kill"); }
  // gbench --vs never talks to its children.
  void send(std::string_view) override { ADD_FAILURE() << "send() to a gbench child"; }
  platform::read_status read_line(std::string&, std::chrono::milliseconds) override {
    ADD_FAILURE() << "read_line() from a gbench child";
    return platform::read_status::closed;
  }

 private:
  platform::child_spec spec_;
  const fake_binary& b_;
  launch_record& record_;
  std::size_t invocation_;
  std::size_t measured_;
  std::uint64_t& clock_;
  platform::cpu_list cpus_{0, 1, 2, 3};
  int nice_ = 0;
  bool runs_ = false;
  platform::child_exit exit_{};
};

class vs_fake_launcher final : public platform::process_launcher {
 public:
  std::map<std::string, fake_binary> binaries;  // by path
  std::vector<launch_record> launches;
  std::uint64_t clock = 0;

  std::unique_ptr<platform::child_process> launch(const platform::child_spec& spec) override {
    std::string filter;
    for (const std::string& a : spec.args) {
      if (a == "--benchmark_list_tests=true") filter = "list";
      if (a.rfind("--benchmark_filter=", 0) == 0 && filter != "list") filter = a.substr(19);
    }
    const std::string binary = spec.program.string();
    std::size_t invocation = 0;  // of this binary and benchmark
    std::size_t measured = 0;    // of this binary, listings left out
    for (const launch_record& r : launches) {
      if (r.binary != binary || r.filter == "list") continue;
      ++measured;
      if (r.filter == filter) ++invocation;
    }
    launches.push_back({binary, filter, {"launch"}});
    return std::make_unique<vs_fake_child>(spec, binaries.at(binary), launches.back(), invocation,
                                           measured, clock);
  }
  // "old ^a$", "new list"...: who ran what, in order.
  std::vector<std::string> order() const {
    std::vector<std::string> out;
    for (const launch_record& r : launches)
      out.push_back(r.binary + " " + r.filter);
    return out;
  }
};

class GbenchVs : public ::testing::Test {
 protected:
  void SetUp() override {
    clear_stop();
    s.old_binary = "old";
    s.new_binary = "new";
    s.work_dir = dir.path();
    s.poll_interval = std::chrono::milliseconds(0);
    s.options.cpu = 2;
    s.repetitions = 3;  // as many as the fake binaries write
    s.options.now_ns = [this] { return launcher.clock; };
    s.options.max_time = std::chrono::seconds(100);
    s.options.tuning.max_rounds = 4;
    // OLD's times grow with each invocation, NEW's are 2% above OLD's of the same invocation:
    // every round's ratio is 1.02 only when invocation i is paired with invocation i.
    fake_binary& old_binary = launcher.binaries["old"];
    old_binary.benchmarks = {"a", "b"};
    old_binary.times = [](const std::string&, std::size_t i) {
      const double t = 1000.0 + 100.0 * static_cast<double>(i);
      return std::vector<double>{t + 5, t, t + 9};
    };
    fake_binary& new_binary = launcher.binaries["new"];
    new_binary.benchmarks = {"a", "b"};
    new_binary.times = [](const std::string&, std::size_t i) {
      const double t = 1.02 * (1000.0 + 100.0 * static_cast<double>(i));
      return std::vector<double>{t, t + 3, t + 1};
    };
  }
  void TearDown() override { clear_stop(); }

  harness::testing::scratch_folder dir{"gbench-vs"};
  vs_fake_launcher launcher;
  vs_settings s;
};

TEST_F(GbenchVs, ListsBothThenRunsEachBenchmarkInABBAOrder) {
  const vs_outcome o = run_vs(s, launcher);
  EXPECT_FALSE(o.failure);
  EXPECT_THAT(launcher.order(), ElementsAre("old list", "new list",                      //
                                            "old ^a$", "new ^a$", "new ^a$", "old ^a$",  //
                                            "old ^a$", "new ^a$", "new ^a$", "old ^a$",  //
                                            "old ^b$", "new ^b$", "new ^b$", "old ^b$",  //
                                            "old ^b$", "new ^b$", "new ^b$", "old ^b$"));
  EXPECT_EQ(o.invocations, 18u);
  ASSERT_EQ(o.benchmarks.size(), 2u);
  EXPECT_EQ(o.benchmarks[0].name, "a");
  std::vector<bool> a_first;
  for (const ab_round& r : o.benchmarks[0].pair.rounds)
    a_first.push_back(r.a_first);
  EXPECT_THAT(a_first, ElementsAre(true, false, true, false));
  EXPECT_EQ(o.benchmarks[0].pair.stopped_by, ab_stop::max_rounds);
}

TEST_F(GbenchVs, RoundIPairsInvocationIOfEachAtTheirRepetitionsMinimum) {
  const vs_outcome o = run_vs(s, launcher);
  const ab_pair& p = o.benchmarks[1].pair;
  ASSERT_EQ(p.rounds.size(), 4u);
  for (std::size_t i = 0; i < 4; ++i) {
    const double t = 1000.0 + 100.0 * static_cast<double>(i);
    EXPECT_DOUBLE_EQ(p.rounds[i].a_min, t) << i;
    EXPECT_DOUBLE_EQ(p.rounds[i].b_min, 1.02 * t) << i;
    EXPECT_FALSE(p.rounds[i].disturbed);
  }
  EXPECT_EQ(p.a.workload, "b");
  EXPECT_EQ(p.a.build, "old");
  EXPECT_EQ(p.b.build, "new");
  EXPECT_EQ(p.a.clock, "gbench_real_time");
  EXPECT_EQ(p.samples_per_side, 3u);
  ASSERT_TRUE(p.estimate.floor_a && p.estimate.floor_b);
  EXPECT_DOUBLE_EQ(*p.estimate.floor_a, 1000);
  EXPECT_DOUBLE_EQ(*p.estimate.floor_b, 1020);
  // Four rounds give no interval (6 are needed): the answer waits for more.
  EXPECT_FALSE(p.estimate.rounds);
  // Every measured invocation is prepared as gbench's prepared ones, the listings are not.
  EXPECT_THAT(launcher.launches[0].calls, ElementsAre("launch", "resume"));
  EXPECT_THAT(launcher.launches[2].calls, ElementsAre("launch", "affinity", "set_affinity 2",
                                                      "raise_priority high", "affinity", "resume"));
  // The first preparation whole; the same refusal later is not repeated.
  ASSERT_TRUE(o.preparation);
  EXPECT_EQ(o.preparation->steps.size(), 2u);
  EXPECT_THAT(o.preparation->affinity_applied, ElementsAre(2));
}

TEST_F(GbenchVs, UnitsAreConvertedToNanoseconds) {
  launcher.binaries["new"].time_unit = "us";
  launcher.binaries["new"].times = [](const std::string&, std::size_t) {
    return std::vector<double>{1.5};
  };
  launcher.binaries["old"].times = [](const std::string&, std::size_t) {
    return std::vector<double>{1000};
  };
  const vs_outcome o = run_vs(s, launcher);
  EXPECT_DOUBLE_EQ(o.benchmarks[0].pair.rounds[0].b_min, 1500);
  EXPECT_DOUBLE_EQ(o.benchmarks[0].pair.rounds[0].ratio(), 1.5);
}

TEST_F(GbenchVs, RoundsStopAtTheTargetOrTheTimeLimit) {
  s.options.tuning.max_rounds = 1000;
  s.options.tuning.min_rounds = 10;
  s.options.tuning.check_every = 2;
  s.options.tuning.checks_in_a_row = 2;
  // Every ratio 1.02: the interval has no width, met at the checks after rounds 10 and 12.
  vs_outcome o = run_vs(s, launcher);
  ASSERT_EQ(o.benchmarks.size(), 2u);
  EXPECT_EQ(o.benchmarks[0].pair.stopped_by, ab_stop::target);
  EXPECT_EQ(o.benchmarks[0].pair.rounds.size(), 12u);
  EXPECT_EQ(o.benchmarks[0].pair.checks, 2u);
  ASSERT_TRUE(o.benchmarks[0].pair.estimate.rounds);
  EXPECT_DOUBLE_EQ(o.benchmarks[0].pair.estimate.rounds->ratio, 1.02);

  // 0.5 s per benchmark at 100 ms a round (50 ms an invocation): 5 rounds, each benchmark.
  s.options.max_time = std::chrono::milliseconds(500);
  launcher.launches.clear();
  o = run_vs(s, launcher);
  EXPECT_EQ(o.benchmarks[0].pair.stopped_by, ab_stop::max_time);
  EXPECT_EQ(o.benchmarks[0].pair.rounds.size(), 5u);
  EXPECT_EQ(o.benchmarks[1].pair.rounds.size(), 5u);
  EXPECT_DOUBLE_EQ(o.benchmarks[1].pair.seconds, 0.5);
}

TEST_F(GbenchVs, ABenchmarkOnlyOneBinaryListsIsReportedNotCompared) {
  launcher.binaries["old"].benchmarks = {"gone", "a", "b"};
  launcher.binaries["new"].benchmarks = {"b", "added", "a"};
  const vs_outcome o = run_vs(s, launcher);
  EXPECT_FALSE(o.failure);
  ASSERT_EQ(o.benchmarks.size(), 2u);  // in OLD's order
  EXPECT_EQ(o.benchmarks[0].name, "a");
  EXPECT_EQ(o.benchmarks[1].name, "b");
  EXPECT_THAT(o.only_in_old, ElementsAre("gone"));
  EXPECT_THAT(o.only_in_new, ElementsAre("added"));
  for (const launch_record& r : launcher.launches) {
    EXPECT_NE(r.filter, "^gone$");
    EXPECT_NE(r.filter, "^added$");
  }
}

TEST_F(GbenchVs, NoBenchmarkInCommonIsAFailure) {
  launcher.binaries["new"].benchmarks = {"c"};
  const vs_outcome o = run_vs(s, launcher);
  ASSERT_TRUE(o.failure);
  EXPECT_THAT(*o.failure, HasSubstr("'old' and 'new' list no benchmark in common"));
  EXPECT_THAT(o.only_in_old, ElementsAre("a", "b"));
  EXPECT_EQ(launcher.launches.size(), 2u);
}

TEST_F(GbenchVs, ABinaryThatFailsEndsTheRunAndKeepsTheRoundsBefore) {
  launcher.binaries["new"].fail_at = 2;  // NEW's third measured invocation: round 2 of "a"
  const vs_outcome o = run_vs(s, launcher);
  ASSERT_TRUE(o.failure);
  EXPECT_THAT(*o.failure, HasSubstr("'new' (--vs B, a invocation 3) exited with status 7"));
  EXPECT_THAT(*o.failure, HasSubstr("    | fake: told to fail"));
  ASSERT_EQ(o.benchmarks.size(), 1u);
  EXPECT_EQ(o.benchmarks[0].pair.rounds.size(), 2u);
  ASSERT_TRUE(o.benchmarks[0].pair.estimate.floor_a);  // estimated from what it had
  EXPECT_EQ(launcher.launches.size(), 2u + 6u);        // nothing after the failure
}

TEST_F(GbenchVs, AListingThatFailsIsAFailure) {
  launcher.binaries["new"].list_fails = true;
  vs_outcome o = run_vs(s, launcher);
  ASSERT_TRUE(o.failure);
  // How a crash reads is the platform's (a signal on Linux, an exit status on Windows).
  EXPECT_THAT(*o.failure, HasSubstr("'new' (--vs B, listing its benchmarks with "
                                    "--benchmark_list_tests) " +
                                    platform::child_exit{true, 11}.describe()));
  EXPECT_TRUE(o.benchmarks.empty());
  EXPECT_EQ(launcher.launches.size(), 2u);

  // One that lists nothing (a filter of the user's that matches none of its benchmarks).
  launcher.binaries["new"].list_fails = false;
  launcher.binaries["old"].benchmarks.clear();
  o = run_vs(s, launcher);
  ASSERT_TRUE(o.failure);
  EXPECT_THAT(*o.failure, HasSubstr("(0 and 2 benchmarks)"));
}

TEST_F(GbenchVs, ABenchmarksErrorIsItsOwnAndTheOthersGoOn) {
  launcher.binaries["new"].errors["a"] = "no input";
  const vs_outcome o = run_vs(s, launcher);
  EXPECT_FALSE(o.failure);
  ASSERT_EQ(o.benchmarks.size(), 2u);
  ASSERT_TRUE(o.benchmarks[0].error);
  EXPECT_EQ(*o.benchmarks[0].error,
            "B ('new') reported an error in invocation 1 (SkipWithError): no input");
  EXPECT_EQ(o.benchmarks[0].pair.stopped_by, ab_stop::failed);
  EXPECT_TRUE(o.benchmarks[0].pair.rounds.empty());
  EXPECT_FALSE(o.benchmarks[1].error);
  EXPECT_EQ(o.benchmarks[1].pair.rounds.size(), 4u);
}

TEST_F(GbenchVs, AStopIsPassedOnAndTheRoundsBeforeAreKept) {
  launcher.binaries["old"].stop_at = 2;  // OLD's 3rd measured invocation: round 3 of "a", A first
  const vs_outcome o = run_vs(s, launcher);
  EXPECT_EQ(o.stop_signal, SIGINT);
  EXPECT_FALSE(o.failure);
  ASSERT_EQ(o.benchmarks.size(), 1u);
  EXPECT_EQ(o.benchmarks[0].pair.rounds.size(), 2u);
  EXPECT_EQ(o.benchmarks[0].pair.stopped_by, ab_stop::interrupted);
  EXPECT_THAT(launcher.launches.back().calls, ::testing::Contains("stop"));
  EXPECT_EQ(launcher.launches.back().filter, "^a$");
}

// ---- the report: ab's writers with one comparison per benchmark ------------------------------

ab_report report_of(const vs_outcome& o, const vs_settings& s) {
  ab_report r;
  r.mode = ab_mode::gbench;
  r.options = s.options;
  r.clock = "gbench_real_time";
  r.ticks_per_second = 1e9;
  r.build_a = "old";
  r.build_b = "new";
  r.plan = "each invocation --benchmark_filter=^NAME$";
  r.benchmarks = o.benchmarks;
  r.only_in_a = o.only_in_old;
  r.only_in_b = o.only_in_new;
  conclude(r);
  return r;
}

class GbenchVsReport : public GbenchVs {
 protected:
  void SetUp() override {
    GbenchVs::SetUp();
    s.options.tuning.max_rounds = 8;
    s.options.fail_if_slower = 0.01;
    launcher.binaries["old"].benchmarks = {"a", "b", "gone"};
    launcher.binaries["new"].errors["b"] = "no input";
    report = report_of(run_vs(s, launcher), s);
  }
  std::string written(report_format format) const {
    std::ostringstream out;
    write_ab_report(out, report, format);
    return out.str();
  }
  ab_report report;
};

TEST_F(GbenchVsReport, EachBenchmarkIsDecidedAndTheGateSeesAny) {
  ASSERT_EQ(report.benchmarks.size(), 2u);
  ASSERT_TRUE(report.benchmarks[0].decision);
  EXPECT_EQ(report.benchmarks[0].decision->verdict, ab_verdict::slower);
  EXPECT_TRUE(report.benchmarks[0].decision->gate_failed);  // +2% beyond 1%
  EXPECT_FALSE(report.benchmarks[1].decision);              // no rounds: its error
  EXPECT_FALSE(report.decision);                            // a suite has no one answer
  EXPECT_TRUE(ab_gate_failed(report));
  report.options.fail_if_slower = 0.05;
  conclude(report);
  EXPECT_FALSE(ab_gate_failed(report));
}

TEST_F(GbenchVsReport, TheConsoleHasABlockPerBenchmark) {
  const std::string text = written(report_format::console);
  EXPECT_THAT(text, HasSubstr("A: old (--vs)\nB: new\na\n  B is 2.00% slower than A [+2.00%, "
                              "+2.00%] (95%, median of 8 rounds"));
  EXPECT_THAT(text, HasSubstr("  verdict: slower: the interval [+2.00%, +2.00%] lies above"));
  EXPECT_THAT(text, HasSubstr("  floors over the run: A 1.00 µs, B 1.02 µs per iteration, B/A "
                              "1.02000\n"));
  // No reference loop runs beside an invocation: the host line names none.
  // Lines of 100 columns, the rest under the line's label.
  EXPECT_THAT(text, HasSubstr("  host: the rounds' minimums at a median 1.35x A's floor and 1.35x "
                              "B's; most rounds ran 1.20x their\n        floor or more (the host"));
  EXPECT_THAT(text, HasSubstr("  rounds: 8 (ABBA order), 3 repetitions an invocation; stopped: "
                              "the round limit was reached"));
  EXPECT_THAT(text, HasSubstr("b\n  not answered: 0 rounds gave a ratio"));
  EXPECT_THAT(text, HasSubstr("  FAILED: B ('new') reported an error in invocation 1"));
  EXPECT_THAT(text, HasSubstr("gone\n  only in A: not compared\n"));
  EXPECT_THAT(text,
              HasSubstr("figures: gbench_real_time (Google Benchmark's real_time per "
                        "iteration, ns); each invocation\n         --benchmark_filter=^NAME$"));
}

TEST_F(GbenchVsReport, TheJsonHoldsAComparisonPerBenchmark) {
  const auto doc = nlohmann::json::parse(written(report_format::json));
  const auto& ab = doc["ab"];
  EXPECT_EQ(ab["mode"], "gbench");
  EXPECT_TRUE(ab["answer"].is_null());
  EXPECT_EQ(ab["gate_failed"], true);
  EXPECT_EQ(ab["builds"]["a"], "old");
  EXPECT_EQ(ab["only_in_a"], nlohmann::json::array({"gone"}));
  EXPECT_EQ(ab["only_in_b"], nlohmann::json::array());
  ASSERT_EQ(ab["comparisons"].size(), 2u);
  const auto& a = ab["comparisons"][0];
  EXPECT_EQ(a["benchmark"], "a");
  EXPECT_DOUBLE_EQ(a["answer"]["ratio"].get<double>(), 1.02);
  EXPECT_NEAR(a["change_percent"].get<double>(), 2, 1e-9);
  EXPECT_EQ(a["verdict"], "slower");
  EXPECT_TRUE(a["error"].is_null());
  EXPECT_EQ(a["pair"]["rounds"].size(), 8u);
  EXPECT_EQ(a["pair"]["rounds"][1]["a_first"], false);
  const auto& b = ab["comparisons"][1];
  EXPECT_TRUE(b["verdict"].is_null());
  EXPECT_EQ(b["pair"]["stopped_by"], "failed");
  EXPECT_THAT(b["error"].get<std::string>(), HasSubstr("no input"));
}

TEST_F(GbenchVsReport, CsvMarkdownAndLineGoPerBenchmark) {
  const std::string csv = written(report_format::csv);
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 1 + 8);
  EXPECT_THAT(csv, HasSubstr("\n1,2,\"a\",\"a\",0,1100,1122"));
  // Nothing watches a disturbance of an invocation: disturbed, reference and switches are empty.
  EXPECT_THAT(csv, HasSubstr("\n1,2,\"a\",\"a\",0,1100,1122,1.02,,,\n"));
  const std::string md = written(report_format::markdown);
  // The host cell: the invocations' minimums run 1000-1700 ns (B's 2% more), their median 1350
  // over the floor 1000.
  EXPECT_THAT(md, HasSubstr("| a of old | a of new | 1.02000 | +2.00% | [+2.00%, +2.00%] | "
                            "slower | 8 | n/a | 1.35x / 1.35x |\n"));
  EXPECT_THAT(md,
              HasSubstr("| b of old | b of new | n/a | n/a | n/a | failed | 0 | n/a | n/a |\n"));
  // A benchmark only one binary lists, a row too, as the console says it.
  EXPECT_THAT(md, HasSubstr("| gone of old | - | n/a | n/a | n/a | only in A | 0 | n/a | n/a |\n"));
  std::ostringstream line;
  print_ab_line(line, report,
                parse_ab_line_template("{a} {change} {verdict} {rounds} {slow_a:.3f} "
                                       "{slow_b:.3f} {slow_reference}"));
  EXPECT_EQ(line.str(), "a 2.00% slower 8 1.350 1.350 n/a\nb n/a n/a 0 n/a n/a n/a\n");
}

}  // namespace
}  // namespace harness::gbench
