// `harness history`'s report (issue 29): every writer over a synthetic set of saved runs on two
// machines, with and without the regressions block.
#include "harness/history_report.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

namespace harness {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

history_run run_at(std::string id, std::int64_t at, std::string machine, std::string commit,
                   double floor, bool confirmed) {
  history_run r;
  r.run = std::move(id);
  r.saved_at = at;
  r.machine = std::move(machine);
  r.host = r.machine == "m1" ? "ci-1" : "ci-2";
  r.cpu = "AMD EPYC";
  r.commit = std::move(commit);
  r.branch = "main";
  r.workload = "xor_loop/1000000";
  r.clock = "rdtsc";
  r.floor_seconds = floor;
  r.floor_lower = floor * 0.999;
  r.floor_upper = floor;
  r.confirmed = confirmed;
  if (!confirmed) r.unconfirmed = "no second block agreed";
  r.median_seconds = floor * 1.01;
  r.samples = 20;
  return r;
}

history_report synthetic(bool with_regressions) {
  history_report h;
  h.query.store = "/tmp/results.db";
  h.query.workload = "xor_loop/1000000";
  h.runs = {run_at("1", 1764698400, "m1", "aaaaaaaaaaaaaaaaaaaa", 270e-6, true),
            run_at("2", 1764698460, "m2", "aaaaaaaaaaaaaaaaaaaa", 300e-6, false),
            run_at("3", 1764698520, "m1", "bbbb", 280e-6, true),
            run_at("4", 1764698580, "m1", "", 281e-6, true)};
  h.runs[3].branch = "a,\"b\"";  // a branch CSV must quote
  if (with_regressions) {
    h.regression_settings = regressions::settings{};
    regressions::finding f;
    f.machine = "m1";
    f.workload = "xor_loop/1000000";
    f.commit_before = "aaaaaaaaaaaaaaaaaaaa";
    f.commit_after = "bbbb";
    f.runs_before = 5;
    f.runs_after = 5;
    f.floor_before = 270e-6;
    f.floor_after = 280e-6;
    f.change = 280.0 / 270.0 - 1;
    f.noise = 0.0029;
    f.p_value = 2.1e-6;
    h.findings.push_back(f);
  }
  return h;
}

std::string written(const history_report& h, report_format format) {
  std::ostringstream out;
  write_history_report(out, h, format);
  return out.str();
}

TEST(HistoryReport, UtcTextIsTheCalendarDateAndTime) {
  EXPECT_EQ(utc_text(0), "1970-01-01 00:00:00");
  EXPECT_EQ(utc_text(1764698400), "2025-12-02 18:00:00");
  EXPECT_EQ(utc_text(951782400), "2000-02-29 00:00:00");
  EXPECT_EQ(utc_text(-1), "1969-12-31 23:59:59");
}

TEST(HistoryReport, TheConsoleGroupsRunsByWorkloadAndMachine) {
  const std::string text = written(synthetic(false), report_format::console);
  EXPECT_THAT(text, HasSubstr("history: 4 runs of 2 series on 2 machines, from /tmp/results.db"));
  EXPECT_THAT(text, HasSubstr("xor_loop/1000000 on m1, clock rdtsc"));
  EXPECT_THAT(text, HasSubstr("xor_loop/1000000 on m2, clock rdtsc"));
  EXPECT_THAT(text, HasSubstr("2025-12-02 18:00:00  aaaaaaaaaaaa"));  // the commit cut to 12
  EXPECT_THAT(text, HasSubstr("270.0 µs"));
  EXPECT_THAT(text, Not(HasSubstr("regressions")));
}

TEST(HistoryReport, TheConsoleSaysEachFindingWithItsMachineAndCommits) {
  const std::string text = written(synthetic(true), report_format::console);
  EXPECT_THAT(text, HasSubstr("regressions (a move of more than 1.00% with p < 0.01, up to 5 "
                              "commits each side, per machine and CPU): 1 slower, 0 faster"));
  EXPECT_THAT(text, HasSubstr("xor_loop/1000000 on m1: +3.70% slower from aaaaaaaaaaaa to bbbb; "
                              "floor 270.0 µs -> 280.0 µs"));
  EXPECT_THAT(text, HasSubstr("p 2.1e-06"));
}

TEST(HistoryReport, JsonCarriesEveryRunAndFinding) {
  const auto doc = nlohmann::json::parse(written(synthetic(true), report_format::json));
  EXPECT_EQ(doc["history_schema_version"], 1);
  EXPECT_EQ(doc["store"], "/tmp/results.db");
  ASSERT_EQ(doc["runs"].size(), 4u);
  EXPECT_EQ(doc["runs"][1]["machine"], "m2");
  EXPECT_EQ(doc["runs"][1]["confirmed"], false);
  EXPECT_EQ(doc["runs"][1]["unconfirmed"], "no second block agreed");
  EXPECT_DOUBLE_EQ(doc["runs"][0]["floor_seconds"].get<double>(), 270e-6);
  EXPECT_EQ(doc["runs"][0]["saved_at"], "2025-12-02 18:00:00");
  EXPECT_EQ(doc["query"]["since"], nullptr);
  EXPECT_EQ(doc["regressions"]["slower"], true);
  ASSERT_EQ(doc["regressions"]["findings"].size(), 1u);
  EXPECT_EQ(doc["regressions"]["findings"][0]["direction"], "slower");
  EXPECT_EQ(doc["regressions"]["findings"][0]["commit_after"], "bbbb");
  const auto plain = nlohmann::json::parse(written(synthetic(false), report_format::json));
  EXPECT_EQ(plain["regressions"], nullptr);
}

TEST(HistoryReport, CsvHasARowPerRunQuotedAsRfc4180Asks) {
  const std::string text = written(synthetic(false), report_format::csv);
  std::istringstream lines(text);
  std::string line;
  std::size_t count = 0;
  while (std::getline(lines, line))
    ++count;
  EXPECT_EQ(count, 5u);  // the header and four runs
  EXPECT_THAT(text, HasSubstr(",\"a,\"\"b\"\"\","));
  EXPECT_THAT(text, HasSubstr("2025-12-02 18:01:00,2,m2,ci-2,AMD EPYC,aaaaaaaaaaaaaaaaaaaa,main,"));
}

TEST(HistoryReport, MarkdownHasASectionPerSeriesAndTheFindings) {
  const std::string text = written(synthetic(true), report_format::markdown);
  EXPECT_THAT(text, HasSubstr("## xor\\_loop/1000000 on m1"));
  EXPECT_THAT(text, HasSubstr("## Regressions"));
  EXPECT_THAT(text, HasSubstr("| saved (UTC)"));
}

TEST(HistoryReport, TheRegressionRuleReadsEveryRunWithAFloorAtItsCommit) {
  history_report h = synthetic(false);
  h.runs[2].floor_seconds.reset();
  const auto floors = floors_of(h.runs);
  ASSERT_EQ(floors.size(), 3u);
  EXPECT_EQ(floors[0].commit, "aaaaaaaaaaaaaaaaaaaa");
  EXPECT_EQ(floors[2].commit, "run 4");  // no commit given: the run stands alone
  EXPECT_EQ(floors[1].machine, "m2");
}

// A machine's CPUs need not run at one speed: runs whose floors ran on two CPUs of one machine are
// two series, listed apart and never one series of the regression rule; a run whose CPU is not
// known (saved before it was read) stays in the machine's own.
TEST(HistoryReport, EachCpuOfAMachineIsASeriesOfItsOwn) {
  history_report h = synthetic(false);
  h.runs[0].floor_cpu = 0;
  h.runs[2].floor_cpu = 1;
  EXPECT_EQ(series_of(h.runs[0]), "m1 | prepared on CPU 0");
  EXPECT_EQ(series_of(h.runs[3]), "m1");
  const auto floors = floors_of(h.runs);
  ASSERT_EQ(floors.size(), 4u);
  EXPECT_EQ(floors[0].machine, "m1 | prepared on CPU 0");
  EXPECT_EQ(floors[2].machine, "m1 | prepared on CPU 1");
  EXPECT_EQ(floors[3].machine, "m1");
  const std::string text = written(h, report_format::console);
  EXPECT_THAT(text, HasSubstr("history: 4 runs of 4 series on 2 machines"));
  EXPECT_THAT(text, HasSubstr("xor_loop/1000000 on m1 | prepared on CPU 1, clock rdtsc"));
  const auto doc = nlohmann::json::parse(written(h, report_format::json));
  EXPECT_EQ(doc["runs"][0]["floor_cpu"], 0);
  EXPECT_EQ(doc["runs"][0]["series"], "m1 | prepared on CPU 0");
  EXPECT_TRUE(doc["runs"][3]["floor_cpu"].is_null());
  const std::string csv = written(h, report_format::csv);
  EXPECT_THAT(csv, HasSubstr("median_seconds,samples,floor_cpu\n"));
}

TEST(HistoryReport, TheHtmlPageCarriesTheDocument) {
  const std::string page = written(synthetic(true), report_format::html);
  EXPECT_THAT(page, HasSubstr("<body data-page=\"history\">"));
  EXPECT_THAT(page, HasSubstr("\"history_schema_version\":1"));
  EXPECT_THAT(page, Not(HasSubstr("http://")));
}

}  // namespace
}  // namespace harness
