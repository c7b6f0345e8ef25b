// `harness run` from the command line to the report on a fake machine: a fake OS, a fake clock
// whose every reading is exact, a doctor and a context that read nothing. Every figure is known
// in advance, so the report is asserted exactly where it matters.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <csignal>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "cli.hpp"
#include "fake_machine.hpp"
#include "harness/log.hpp"
#include "run_command.hpp"

namespace harness::cli {
namespace {

using testing::fake_machine;
using ::testing::HasSubstr;
using testing::kCost;
using ::testing::Not;
using testing::outcome;
using testing::run;

TEST(CliRun, FromTheCommandLineToTheReportOnAFakeMachine) {
  fake_machine m;
  const auto r = run(m, {"-w", "exact", "-n", "12", "--warmup", "0", "--no-history", "--detail"});
  ASSERT_EQ(r.code, exit_ok) << r.err;
  // The fake clock and the fake doctor, as the report names them.
  EXPECT_THAT(r.out, HasSubstr("clock: stepping (test clock), 1000000000 ticks/s"));
  EXPECT_THAT(r.out, HasSubstr("  why this clock: the test's clock\n"));
  EXPECT_THAT(r.out, HasSubstr("CPU 2: chosen by the test\n"));
  // Every sample is exactly the workload's cost: one read of the clock costs 1000 ticks, which
  // the overhead (measured on the same clock) takes away again.
  EXPECT_THAT(r.out, HasSubstr("  first call (cold, alone): 100000 ticks  100.000 µs  (raw "
                               "101000, overhead 1000)\n"));
  EXPECT_THAT(r.out, HasSubstr("  baseline: 12 samples in 5 blocks unprepared"));
  EXPECT_THAT(r.out, HasSubstr("  prepared: 12 samples in 5 blocks; timer overhead 1000 ticks"));
  EXPECT_THAT(r.out, HasSubstr("    floor: 100000 ticks per call, confirmed: blocks 1 and 3 "));
  EXPECT_THAT(r.out, HasSubstr("    read back: CPUs 2 (were 0-3); nice -20 (was nice 0)\n"));
  EXPECT_THAT(r.out, HasSubstr("  exact     prepared         12  100000  100000  100000       0"));
  EXPECT_THAT(r.out, HasSubstr("  stable   confirmed\n"));
  // Without --detail: the answer, the trust line, what preparation changed.
  fake_machine again;
  const auto short_report =
      run(again, {"-w", "exact", "-n", "12", "--warmup", "0", "--no-history"});
  ASSERT_EQ(short_report.code, exit_ok) << short_report.err;
  EXPECT_THAT(short_report.out,
              HasSubstr("  prepared    min 100000 ticks (100.000 µs) [100000, 100000]\n"
                        "              median 100000 (100.000 µs) [100000, 100000]\n"));
  EXPECT_THAT(short_report.out, HasSubstr("  trust       ok: floor confirmed: blocks 1 and 3"));
  EXPECT_THAT(short_report.out,
              HasSubstr("  preparation set affinity, nice -20: nothing measurable"));
  EXPECT_THAT(short_report.out, Not(HasSubstr("why this clock")));
  // The fake OS was pinned and raised, then put back.
  EXPECT_THAT(m.os.calls, ::testing::Contains("set_affinity 2"));
  EXPECT_EQ(m.os.allowed, (platform::cpu_list{0, 1, 2, 3}));
  EXPECT_EQ(m.os.nice, 0);
}

// Fewer samples than --blocks: the phase takes one block a sample, and the header says so (it
// said "3 in 5 blocks").
TEST(CliRun, TheHeaderGivesTheBlocksTheSamplesFill) {
  fake_machine m;
  const auto r = run(m, {"-w", "exact", "-n", "3", "--warmup", "0", "--no-history", "--detail"});
  ASSERT_EQ(r.code, exit_ok) << r.err;
  EXPECT_THAT(r.out, HasSubstr("samples per phase: 3 in 3 blocks (the prepared phase takes more"));
  EXPECT_THAT(r.out, HasSubstr("  baseline: 3 samples in 3 blocks unprepared"));
  fake_machine one;
  const auto single =
      run(one, {"-w", "exact", "-n", "1", "--warmup", "0", "--no-history", "--detail"});
  ASSERT_EQ(single.code, exit_ok) << single.err;
  EXPECT_THAT(single.out, HasSubstr("samples per phase: 1 in 1 block (the prepared phase takes"));
}

TEST(CliRun, TheJsonReportOnAFakeMachine) {
  fake_machine m;
  const auto r = run(m, {"-w", "exact", "-n", "6", "--warmup", "0", "--no-history", "--no-baseline",
                         "--blocks", "3", "--format", "json"});
  ASSERT_EQ(r.code, exit_ok) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  const auto& w = doc.at("harness").at("workloads").at(0);
  EXPECT_EQ(w.at("name"), "exact");
  const auto& prepared = w.at("phases").at(1);
  EXPECT_EQ(prepared.at("phase"), "prepared");
  EXPECT_EQ(prepared.at("min_ticks"), 100000.0);
  // Three blocks 50 ms apart: the first and the last are 100 ms apart and confirm the floor, so
  // no block is added.
  EXPECT_EQ(prepared.at("blocks").size(), 3u);
  EXPECT_EQ(prepared.at("stopped_by"), "count");
  EXPECT_EQ(prepared.at("floor").at("confirmed"), true);
  EXPECT_EQ(prepared.at("floor").at("confirmed_by"), nlohmann::json::array({1, 3}));
  EXPECT_EQ(doc.at("context").at("host_name"), "fakehost");
  EXPECT_THAT(r.out, Not(HasSubstr("summary")));
}

// Found by the sanitizer build (issue 31): the command's logger, writing to the caller's error
// stream, outlived run_cli, and the next test to log wrote into that std::ostringstream after it
// was destroyed (the unit tests run as one process crashed). It ends with the command now.
TEST(CliRun, TheCommandsLoggerEndsWithTheCommand) {
  const std::shared_ptr<spdlog::logger> before = shared_logger();
  fake_machine m;
  const auto r =
      run(m, {"-w", "exact", "-n", "2", "--warmup", "0", "--no-history", "--log-level", "debug"});
  ASSERT_EQ(r.code, exit_ok) << r.err;
  EXPECT_THAT(r.err, HasSubstr("harness: debug: "));  // the command's logger, while it ran
  EXPECT_EQ(shared_logger(), before);
  EXPECT_EQ(logger().sinks(), before->sinks());
}

// Found by bench/soak.sh (issue 31): a SIGINT while the process was pinned to read the clock's
// facts, before the signal handlers were set, ended it pinned. Now it stops the run: exit 130,
// the affinity put back. The fake reads the clock's facts with the signal raised, if handled.
int interrupted_while_reading_the_clock(fake_machine& m, std::vector<const char*> args) {
  bool handled = false;
  const auto measure = m.host.measure_clock;
  m.host.measure_clock = [&](const clock_source& clock) {
    // std::signal, not sigaction: Windows has no sigaction. Put back at once.
    const auto now = std::signal(SIGINT, SIG_DFL);
    std::signal(SIGINT, now);
    handled = now == on_stop_signal;
    EXPECT_EQ(m.os.allowed, (platform::cpu_list{2}));  // pinned while it reads
    if (handled) std::raise(SIGINT);
    return measure(clock);
  };
  const auto r = run(m, std::move(args));
  EXPECT_TRUE(handled) << "SIGINT would end the process while pinned";
  EXPECT_EQ(m.os.allowed, (platform::cpu_list{0, 1, 2, 3}));
  EXPECT_EQ(m.os.nice, 0);
  return r.code;
}

TEST(CliRun, ASignalWhilePinnedForTheClocksFactsStopsTheRun) {
  fake_machine m;
  EXPECT_EQ(interrupted_while_reading_the_clock(
                m, {"-w", "exact", "-n", "4", "--warmup", "0", "--no-history"}),
            exit_sigint);
  fake_machine ab;
  EXPECT_EQ(interrupted_while_reading_the_clock(
                ab, {"ab", "exact", "exact", "--warmup", "0", "--max-time", "10ms"}),
            exit_sigint);
}

// A workload that fails is reported as failed in every format, with where it failed, and the
// command exits 3; the other workloads still run.
TEST(CliRun, AFailedWorkloadIsVisibleEverywhere) {
  const std::vector<const char*> common = {"-w",           "throws",   "-w", "negative", "-w",
                                           "exact",        "-n",       "6",  "--warmup", "0",
                                           "--no-history", "--blocks", "1"};
  const auto with = [&common](std::vector<const char*> more) {
    std::vector<const char*> args = common;
    args.insert(args.end(), more.begin(), more.end());
    return args;
  };
  {
    fake_machine m;
    const auto r = run(m, with({"--detail"}));
    EXPECT_EQ(r.code, exit_workload_failed) << r.err;
    EXPECT_THAT(r.out, HasSubstr("  FAILED in the prepared phase, sample 2 (block 1, 1 call): "
                                 "threw: disk on fire\n"));
    EXPECT_THAT(r.out, HasSubstr("  FAILED in the baseline phase, sample 2 (block 1, 1 call): it "
                                 "returned a negative iteration count"));
    EXPECT_THAT(r.out, HasSubstr("  throws    prepared          -       -"));
    EXPECT_THAT(r.out, HasSubstr("FAILED at sample 2"));
    EXPECT_THAT(r.out, HasSubstr("  exact     prepared"));  // the others still ran
  }
  {
    fake_machine m;
    const auto r = run(m, with({"--line", "{workload} {phase}: {verdict} {min}"}));
    EXPECT_EQ(r.code, exit_workload_failed);
    EXPECT_THAT(r.out, HasSubstr("throws baseline: too_few_samples 100 µs\n"
                                 "throws prepared: failed n/a\n"
                                 "negative first: n/a 100 µs\n"
                                 "negative baseline: failed n/a\n"));
  }
  {
    fake_machine m;
    const auto r = run(m, with({"--format", "json"}));
    EXPECT_EQ(r.code, exit_workload_failed);
    const auto doc = nlohmann::json::parse(r.out);
    const auto& failure = doc.at("harness").at("workloads").at(0).at("failure");
    EXPECT_EQ(failure.at("stage"), "prepared");
    EXPECT_EQ(failure.at("sample"), 2);
    EXPECT_EQ(failure.at("message"), "disk on fire");
    const auto& negative = doc.at("harness").at("workloads").at(1).at("failure");
    EXPECT_EQ(negative.at("stage"), "baseline");
    EXPECT_EQ(negative.at("threw"), false);
  }
}

// A user's own binary (linking harness::main): its help, list and messages name it as invoked, the
// examples name its own workloads, and without -w the first registered workload runs alone.
TEST(CliRun, TheUsersBinaryIsTheirs) {
  fake_machine m;
  const auto call = [&m](std::vector<const char*> args) {
    args.insert(args.begin(), "/home/me/build/my_bench");
    std::ostringstream out, err;
    const int code = run_cli(static_cast<int>(args.size()), args.data(), out, err, m.host);
    return outcome{code, out.str(), err.str()};
  };
  const auto help = call({"--help"});
  EXPECT_EQ(help.code, exit_ok);
  EXPECT_THAT(help.out, HasSubstr("my_bench -w exact -n 50"));
  EXPECT_THAT(help.out, HasSubstr("my_bench -w 'exact*' -n 5 --warmup 50ms"));
  EXPECT_THAT(help.out, HasSubstr("  my_bench list"));
  EXPECT_THAT(help.out, Not(HasSubstr("xor_loop")));
  EXPECT_THAT(help.out, Not(HasSubstr("'sort*'")));
  EXPECT_THAT(help.out, Not(HasSubstr("  harness ")));

  // Every subcommand's help and examples too (issue 27: `my_bench compare --help` showed
  // `harness compare old.json new.json`). What may still say harness: the history's default path
  // and its variable, the root's "(the harness command line)", and ab --a's words for what a
  // worker binary may be (the library, not this program).
  const std::vector<std::pair<const char*, const char*>> helps = {
      {"run", nullptr},
      {"list", nullptr},
      {"clocks", nullptr},
      {"doctor", nullptr},
      {"compare", "  my_bench compare old.json new.json\n"},
      {"report", "  my_bench -o run.json && my_bench report run.json -o run.html\n"},
      {"gbench", "  my_bench gbench -- ./my_benchmarks\n"},
      {"ab", "  my_bench ab "},
  };
  for (const auto& [command, example] : helps) {
    SCOPED_TRACE(command);
    const auto h = call({command, "--help"});
    EXPECT_EQ(h.code, exit_ok);
    if (example != nullptr) {
      EXPECT_THAT(h.out, HasSubstr(example));
    }
    std::string text = help.out + h.out;
    for (const std::string allowed :
         {"~/.local/state/harness/history.json", "~/.local/state/harness/results.db",
          "$HARNESS_HISTORY", "(the harness command line)",
          "a harness binary, or any program linked with harness::main"}) {
      for (auto at = text.find(allowed); at != std::string::npos; at = text.find(allowed))
        text.erase(at, allowed.size());
    }
    EXPECT_THAT(text, Not(HasSubstr("harness"))) << h.out;
  }
  EXPECT_THAT(call({"gbench", "--help"}).out, HasSubstr("my_bench sets --benchmark_repetitions"));
  EXPECT_THAT(call({"--help"}).out, HasSubstr("(see `my_bench clocks`"));

  const auto list = call({"list"});
  EXPECT_EQ(list.code, exit_ok);
  EXPECT_THAT(list.out, HasSubstr("run one with: my_bench -w NAME[/ARG] (without -w: exact)"));

  const auto bad = call({"--bogus"});
  EXPECT_EQ(bad.code, exit_usage);
  EXPECT_THAT(bad.err, HasSubstr("my_bench: '--bogus' is not an option of my_bench"));

  const auto r = call({"-n", "3", "--warmup", "0", "--no-history", "--blocks", "1"});
  EXPECT_EQ(r.code, exit_ok) << r.err;
  EXPECT_THAT(r.out, HasSubstr("\nexact\n"));
  EXPECT_THAT(r.out, Not(HasSubstr("\nthrows\n")));
  EXPECT_THAT(r.out, Not(HasSubstr("\nnegative\n")));
}

TEST(Cli, ProgramNameIsTheFileNameAsInvoked) {
  EXPECT_EQ(program_name("/home/me/build/my_bench"), "my_bench");
  EXPECT_EQ(program_name("./harness"), "harness");
  EXPECT_EQ(program_name("my_bench.EXE"), "my_bench");
  EXPECT_EQ(program_name(""), "harness");
  EXPECT_EQ(program_name(nullptr), "harness");
}

}  // namespace
}  // namespace harness::cli
