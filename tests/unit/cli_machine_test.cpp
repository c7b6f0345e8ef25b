// Every subcommand takes the machine from cli::machine: `clocks` and `doctor` on a fake machine
// print what its clocks, survey and checks say and read nothing real, and the console's style is
// the machine's terminal and environment. (`run`, `ab`, `compare` and `report`: cli_run_test,
// ab_worker_test, compare_test; `gbench`'s launcher: gbench_test.)
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "cli.hpp"
#include "fake_machine.hpp"
#include "harness/report.hpp"

namespace harness::cli {
namespace {

using ::testing::ElementsAre;
using testing::fake_machine;
using ::testing::HasSubstr;
using ::testing::Not;

// The survey of the fake machine: its one clock, every estimate filled in.
void survey_the_fake_clock(fake_machine& m) {
  clock_survey_row row;
  row.source = &m.clock;
  row.cost = call_cost_estimate{1000, 2e-5, 10.0, false};
  row.percent_of_cheapest = 100.0;
  row.resolution = resolution_estimate{std::uint64_t{1000}, 3, 0.01};
  row.step = step_estimate{std::uint64_t{1000}, step_rule::none, 500, 499, 0.02};
  clock_granularity g;
  g.granularity_ticks = 1000.0;
  g.read_cost_ticks = 1000.0;
  g.read_cost_counted = true;
  g.reads = 600;
  g.changes = 599;
  g.sweeps = 2;
  g.searched_seconds = 0.03;
  row.granularity = g;
  m.survey = {row};
}

TEST(CliMachine, ClocksSurveysTheMachinesClocksPinnedToItsFirstCpu) {
  fake_machine m;
  survey_the_fake_clock(m);
  m.os.allowed = {2, 3};
  const auto r = testing::run(m, {"clocks"});
  ASSERT_EQ(r.code, exit_ok) << r.err;
  EXPECT_THAT(r.out, HasSubstr("\nstepping "));
  EXPECT_THAT(r.out, HasSubstr("10.0"));  // ns per call, the survey's
  EXPECT_THAT(r.out, HasSubstr("Default sampling clock: stepping\n  because the test's clock\n"));
  EXPECT_THAT(r.out, Not(HasSubstr("TSC calibration")));  // the machine has none
  EXPECT_THAT(r.out, HasSubstr("(measured pinned to CPU 2, then unpinned)"));
  EXPECT_THAT(m.os.calls, ElementsAre("affinity", "set_affinity 2", "set_affinity 2-3"));

  fake_machine refused;
  survey_the_fake_clock(refused);
  refused.os.refuse_affinity = true;
  const auto json = testing::run(refused, {"clocks", "--json"});
  ASSERT_EQ(json.code, exit_ok) << json.err;
  const auto doc = nlohmann::json::parse(json.out);
  ASSERT_EQ(doc["clocks"].size(), 1u);
  EXPECT_EQ(doc["clocks"][0]["name"], "stepping");
  EXPECT_EQ(doc["clocks"][0]["call_cost"]["ns_per_call"], 10.0);
  EXPECT_EQ(doc["default_clock"]["name"], "stepping");
  EXPECT_EQ(doc["default_clock"]["reason"], "the test's clock");
  EXPECT_TRUE(doc["tsc_calibration"].is_null());
  EXPECT_TRUE(doc["settings"]["pinned_cpu"].is_null());
}

TEST(CliMachine, DoctorPrintsTheMachinesChecks) {
  fake_machine m;
  auto r = testing::run(m, {"doctor"});
  ASSERT_EQ(r.code, exit_ok) << r.err;
  EXPECT_EQ(r.out,
            "harness doctor: checking CPU 2 (chosen by the test)\n"
            "summary: 0 ok, 0 warn, 0 unknown\n");
  r = testing::run(m, {"doctor", "--cpu", "5", "--json"});
  ASSERT_EQ(r.code, exit_ok) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["cpu"], 5);
  EXPECT_TRUE(m.tree_roots.empty());  // the platform's checks, not the tree's
}

TEST(CliMachine, TheConsoleStyleIsTheMachinesTerminalAndEnvironment) {
  fake_machine m;
  // No terminal, nothing set: plain, no width.
  console_style style = console_style_of(m.host, 1);
  EXPECT_FALSE(style.terminal);
  EXPECT_FALSE(style.color);
  EXPECT_EQ(style.width, 0u);
  EXPECT_TRUE(style.unicode);
  // Standard output is a terminal of 90 columns; standard error is not.
  m.host.is_terminal = [](int fd) { return fd == 1; };
  m.host.terminal_columns = [](int fd) {
    return fd == 1 ? std::optional<std::size_t>(90) : std::nullopt;
  };
  style = console_style_of(m.host, 1);
  EXPECT_TRUE(style.terminal);
  EXPECT_TRUE(style.color);
  EXPECT_EQ(style.width, 90u);
  m.env["NO_COLOR"] = "1";
  m.env["LANG"] = "C";
  m.env["COLUMNS"] = "60";
  style = console_style_of(m.host, 1);
  EXPECT_FALSE(style.color);
  EXPECT_FALSE(style.unicode);
  EXPECT_EQ(style.width, 90u);  // the terminal's own width first
  style = console_style_of(m.host, 2);
  EXPECT_FALSE(style.terminal);
  EXPECT_EQ(style.width, 60u);
}

}  // namespace
}  // namespace harness::cli
