// The HTML report (issue 18) without a browser: what the page carries and promises. A synthetic
// run on a fake 2 GHz clock; the browser's side is tests/e2e/html_e2e.sh.
// - no network address anywhere, and no text of the run can end the data element;
// - the page made from the JSON report (`harness report`) is the page the run writes;
// - a million samples a phase are drawn thinned, counted whole;
// - `harness report`'s bad inputs are usage errors naming them, and nothing is written;
// - harness ab's page carries its JSON document (its rounds as the ratios to draw) and a
//   histogram counted over every round, thinned as the run page above kHtmlMaxDrawn rounds.
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <numeric>
#include <sstream>
#include <string>
#include <utility>

#include "cli.hpp"
#include "fakes.hpp"
#include "harness/ab_report.hpp"
#include "harness/compare.hpp"
#include "harness/errors.hpp"
#include "harness/report.hpp"
#include "report/html.hpp"
#include "report/html_assets.hpp"
#include "report/table.hpp"
#include "report_text.hpp"
#include "scratch.hpp"

namespace harness {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// The clock the synthetic reports name (fakes.hpp).
const testing::report_clock kHtmlClock;

phase_result html_phase(phase_kind kind, std::vector<double> values) {
  phase_result p;
  p.kind = kind;
  p.values = std::move(values);
  p.batch = 1;
  p.overhead = 40;
  p.host_slowdown.assign(p.values.size(), false);
  p.blocks.push_back({0, p.values.size(), 0.0, 3000});
  return p;
}

// Two workloads: one with baseline and prepared of `samples` each (a spike and a disturbed sample
// in the prepared phase), one whose name tries to end the page's data element.
run_report synthetic_run(std::size_t samples) {
  run_report report;
  report.clock.clock = &kHtmlClock;
  report.clock.step = 20;
  report.clock.step_measured = true;
  report.clock_reason = "chosen by the test";
  report.options.samples = samples;
  report.context.host_name = "testhost";
  report.context.date = "2024-05-01T12:00:00+02:00";
  report.calibration = clock_calibration{"rdtsc", "CLOCK_MONOTONIC_RAW", 2e9, 7.5, 0.008, 4, true};
  workload_result a;
  a.name = "sort_ints/10000";
  a.first = html_phase(phase_kind::first, {5000});
  std::vector<double> base(samples);
  std::vector<double> prep(samples);
  for (std::size_t i = 0; i < samples; ++i) {
    base[i] = 1100 + static_cast<double>(i % 97);
    prep[i] = 1000 + static_cast<double>(i % 13);
  }
  prep[samples / 2] = 9000;  // one slow sample in the middle
  a.baseline = html_phase(phase_kind::baseline, base);
  a.prepared = html_phase(phase_kind::prepared, prep);
  a.prepared->host_slowdown[samples / 3] = true;
  report.results.push_back(a);
  workload_result b;
  b.name = "evil</script><script>alert(1)</script> http://example.com";
  b.prepared = html_phase(phase_kind::prepared, {3, 4, 3});
  report.results.push_back(b);
  return report;
}

std::string html_of(const run_report& report) {
  std::ostringstream out;
  write_report(out, analyze_run(report), report_format::html);
  return out.str();
}

// The page's data: the JSON in <script id="harness-data">.
nlohmann::json data_of(const std::string& page) {
  const std::string open = "<script id=\"harness-data\" type=\"application/json\">";
  const auto begin = page.find(open);
  EXPECT_NE(begin, std::string::npos);
  const auto end = page.find("</script>", begin);
  return nlohmann::json::parse(page.substr(begin + open.size(), end - begin - open.size()));
}

TEST(ReportHtml, OneSelfContainedPageWithoutNetworkAddresses) {
  const std::string page = html_of(synthetic_run(50));
  EXPECT_THAT(page, HasSubstr("<!DOCTYPE html>"));
  EXPECT_THAT(page, HasSubstr("<body data-page=\"run\">"));
  EXPECT_THAT(page, HasSubstr("Chart.js v3.9.1"));  // the library, inline
  EXPECT_THAT(page, HasSubstr("<pre id=\"harness-status\""));
  EXPECT_THAT(page, Not(HasSubstr("http://")));
  EXPECT_THAT(page, Not(HasSubstr("https://")));
  EXPECT_THAT(page, Not(HasSubstr("<script src")));
  EXPECT_THAT(page, Not(HasSubstr("<link")));
  // The workload's name cannot close the data element: one data element, three scripts in all.
  EXPECT_THAT(page, Not(HasSubstr("alert(1)</script>")));
  std::size_t scripts = 0;
  for (auto at = page.find("</script>"); at != std::string::npos;
       at = page.find("</script>", at + 1))
    ++scripts;
  EXPECT_EQ(scripts, 3u);
  // ... and reads back as it was.
  const auto data = data_of(page);
  EXPECT_EQ(data.at("report").at("harness").at("workloads").at(1).at("name"),
            "evil</script><script>alert(1)</script> http://example.com");
}

// Every page kind has its own script (src/report/html/<kind>.js), and a page carries the common
// script, then its own, and no other page's.
TEST(ReportHtml, EachPageCarriesTheCommonScriptAndItsOwn) {
  for (const auto& row : html::kPageKindNames.rows) {
    SCOPED_TRACE(row.id);
    const std::string_view own = html_assets::page_script(row.id);
    ASSERT_FALSE(own.empty());
    EXPECT_THAT(own, HasSubstr(fmt::format("H.draw('{}', ", row.id)));
    const std::string page = html::page(row.value, "title", nlohmann::ordered_json::object());
    EXPECT_THAT(page, HasSubstr(fmt::format("<script>\n{}\n{}\n</script>",
                                            html_assets::page_common_js(), own)));
    for (const auto& other : html::kPageKindNames.rows) {
      if (other.value != row.value) {
        EXPECT_THAT(page, Not(HasSubstr(std::string(html_assets::page_script(other.id)))));
      }
    }
  }
  EXPECT_TRUE(html_assets::page_script("no_such_page").empty());
}

TEST(ReportHtml, CarriesTheReportAndEverySampleOfASmallRun) {
  const auto data = data_of(html_of(synthetic_run(50)));
  EXPECT_EQ(data.at("page"), "run");
  const auto& report = data.at("report");
  EXPECT_FALSE(report.contains("benchmarks"));  // the rows are the series below
  EXPECT_EQ(report.at("harness").at("clock").at("calibration").at("reference"),
            "CLOCK_MONOTONIC_RAW");
  const auto& w = report.at("harness").at("workloads").at(0);
  EXPECT_THAT(w.at("preparation_sentence").get<std::string>(), HasSubstr("sort_ints/10000"));
  const auto& series = data.at("series");
  ASSERT_EQ(series.size(), 2u);
  const auto& prepared = series.at(0).at("phases").at("prepared");
  EXPECT_EQ(prepared.at("samples"), 50);
  EXPECT_EQ(prepared.at("every"), 1);
  ASSERT_EQ(prepared.at("t").size(), 50u);
  EXPECT_EQ(prepared.at("i").at(0), 1);  // 1-based, in the order taken
  EXPECT_EQ(prepared.at("t").at(25), 9000);
  EXPECT_EQ(prepared.at("d").at(16), 1);  // the disturbed sample, marked
  EXPECT_EQ(prepared.at("d").at(17), 0);
  EXPECT_FALSE(series.at(0).at("phases").contains("first"));  // one call: in the text only
  // The histogram counts every sample of both phases on one scale; the spike is above its top.
  const auto& h = series.at(0).at("histogram");
  for (const char* id : {"baseline", "prepared"}) {
    const auto counts = h.at("counts").at(id).get<std::vector<std::size_t>>();
    EXPECT_EQ(std::accumulate(counts.begin(), counts.end(), std::size_t{0}) +
                  h.at("above").at(id).get<std::size_t>(),
              50u)
        << id;
  }
  EXPECT_EQ(h.at("above").at("prepared"), 1);
  EXPECT_EQ(h.at("low_ticks"), 1000);
  EXPECT_LT(h.at("top_ticks").get<double>(), 9000);
}

TEST(ReportHtml, AMillionSamplesAPhaseAreDrawnThinnedAndCountedWhole) {
  const std::size_t n = 1000000;
  const std::string page = html_of(synthetic_run(n));
  // Measured here: the page stays small enough for a browser to open at once.
  EXPECT_LT(page.size(), 1500000u);
  const auto data = data_of(page);
  const auto& prepared = data.at("series").at(0).at("phases").at("prepared");
  EXPECT_EQ(prepared.at("samples"), n);
  EXPECT_EQ(prepared.at("every"), 500);  // 2000 stretches of 500 samples
  const auto ticks = prepared.at("t").get<std::vector<double>>();
  EXPECT_GE(ticks.size(), 4000u);  // each stretch varies: its lowest and its highest
  EXPECT_LE(ticks.size(), 3 * 2000u);
  // The floor, the spike and the disturbed sample are among those drawn.
  EXPECT_EQ(*std::min_element(ticks.begin(), ticks.end()), 1000);
  EXPECT_EQ(*std::max_element(ticks.begin(), ticks.end()), 9000);
  const auto index = prepared.at("i").get<std::vector<std::size_t>>();
  EXPECT_TRUE(std::is_sorted(index.begin(), index.end()));
  const auto at = std::find(index.begin(), index.end(), n / 3 + 1);
  ASSERT_NE(at, index.end());
  EXPECT_EQ(prepared.at("d").at(static_cast<std::size_t>(at - index.begin())), 1);
  const auto& h = data.at("series").at(0).at("histogram");
  const auto counts = h.at("counts").at("baseline").get<std::vector<std::size_t>>();
  EXPECT_EQ(std::accumulate(counts.begin(), counts.end(), std::size_t{0}) +
                h.at("above").at("baseline").get<std::size_t>(),
            n);
}

TEST(ReportHtml, ThePageFromTheJsonReportIsThePageOfTheRun) {
  const run_report report = synthetic_run(300);
  const report_model model = analyze_run(report);
  std::ostringstream json, direct, from_json;
  write_json_report(json, model);
  write_html_report(direct, model);
  std::istringstream in(json.str());
  write_html_from_json(from_json, in, "run.json");
  EXPECT_EQ(from_json.str(), direct.str());
}

std::string refusal(const std::string& text) {
  std::istringstream in(text);
  std::ostringstream out;
  try {
    write_html_from_json(out, in, "r.json");
  } catch (const usage_error& e) {
    EXPECT_TRUE(out.str().empty());
    return e.what();
  }
  ADD_FAILURE() << "accepted: " << text;
  return {};
}

TEST(ReportHtml, WhatIsNotAHarnessReportIsRefusedInWords) {
  EXPECT_THAT(refusal("not json"), HasSubstr("r.json: not JSON"));
  EXPECT_THAT(refusal("{\"benchmarks\": []}"), HasSubstr("r.json: not a harness JSON report"));
  EXPECT_THAT(refusal("{\"harness\": {\"schema_version\": 2}}"),
              HasSubstr("schema_version 2 is not one this harness reads (1)"));
  std::ostringstream json;
  write_json_report(json, analyze_run(synthetic_run(20)));
  nlohmann::json doc = nlohmann::json::parse(json.str());
  nlohmann::json bad = doc;
  bad["harness"]["clock"]["ticks_per_second"] = 0;
  EXPECT_EQ(refusal(bad.dump()),
            "r.json: harness.clock.ticks_per_second: 0 is out of range: a clock ticks from 1 to "
            "1e15 times a second");
  bad = doc;
  bad["benchmarks"][0]["family_index"] = 7;
  EXPECT_EQ(refusal(bad.dump()),
            "r.json: benchmarks[0].family_index: 7 names no workload (the report lists 2)");
  bad = doc;
  bad["benchmarks"][0]["family_index"] = -1;
  EXPECT_EQ(refusal(bad.dump()),
            "r.json: benchmarks[0].family_index: expected a whole number of 0 or more, got the "
            "number -1");
  // Each type error names the file and the value's place, never nlohmann's words.
  bad = doc;
  bad["benchmarks"][3]["ticks"] = "many";
  EXPECT_EQ(refusal(bad.dump()), "r.json: benchmarks[3].ticks: expected a number, got a string");
  bad = doc;
  bad["benchmarks"][3]["disturbed"] = 1;
  EXPECT_EQ(refusal(bad.dump()),
            "r.json: benchmarks[3].disturbed: expected true or false, got the number 1");
  bad = doc;
  bad["harness"].erase("workloads");
  EXPECT_EQ(refusal(bad.dump()), "r.json: harness.workloads: missing");
  bad = doc;
  bad["harness"]["workloads"][0]["phases"][1]["phase"] = 2;
  EXPECT_EQ(refusal(bad.dump()),
            "r.json: harness.workloads[0].phases[1].phase: expected a string, got the number 2");
  EXPECT_THAT(refusal(R"({"harness": {"schema_version": 1}, "benchmarks": [1e400]})"),
              HasSubstr("r.json: not JSON: number overflow parsing '1e400'"));
}

TEST(ReportHtml, ASampleBelowMinusItsOverheadIsRefused) {
  std::ostringstream json;
  write_json_report(json, analyze_run(synthetic_run(20)));
  const nlohmann::json doc = nlohmann::json::parse(json.str());
  // The first prepared sample row, and its phase's lowest possible sample: (0 - overhead) / batch.
  std::size_t row = 0;
  while (doc["benchmarks"][row]["phase"] != "prepared")
    ++row;
  const nlohmann::json& phase = doc["harness"]["workloads"][0]["phases"][2];
  ASSERT_EQ(phase["phase"], "prepared");
  const double lowest = -phase["overhead_ticks"].get<double>() / phase["batch"].get<double>();
  ASSERT_LT(lowest, 0);
  nlohmann::json edited = doc;
  edited["benchmarks"][row]["ticks"] = lowest;  // an empty workload's sample may be this low
  std::istringstream in(edited.dump());
  std::ostringstream page;
  EXPECT_NO_THROW(write_html_from_json(page, in, "r.json"));
  edited["benchmarks"][row]["ticks"] = lowest - 1;
  EXPECT_EQ(refusal(edited.dump()),
            fmt::format("r.json: benchmarks[{}].ticks: a sample of {} ticks is out of range: a "
                        "sample is its calls' time less the timer overhead, so it lies at or "
                        "above minus the overhead per call ({:g} ticks in {}'s prepared phase)",
                        row, nlohmann::json(lowest - 1).dump(), lowest,
                        doc["harness"]["workloads"][0]["name"].get<std::string>()));
}

TEST(ReportHtml, FormatByNameAndExtension) {
  EXPECT_EQ(parse_report_format("html"), report_format::html);
  EXPECT_EQ(format_for_extension("r.HTML"), report_format::html);
  EXPECT_EQ(format_for_extension("r.htm"), report_format::html);
  try {
    parse_report_format("pdf");
    ADD_FAILURE();
  } catch (const usage_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("markdown or html"));
  }
}

// ---- harness ab ------------------------------------------------------------------------------

// `pairs` pairs of `rounds` rounds each: A at 1000 ticks a call, B 1% slower give or take 0.03%,
// every 50th round hit by a context switch with B 30% slower in it; in the first pair, round 10's
// A minimum is 0 (no ratio). B's name tries to end the page's data element.
ab_report synthetic_ab(std::size_t pairs, std::size_t rounds) {
  ab_report r;
  r.clock = "fake";
  r.ticks_per_second = 2e9;
  r.clock_step = 20;
  r.context.host_name = "testhost";
  for (std::size_t p = 0; p < pairs; ++p) {
    ab_pair pair;
    pair.a.workload = "xor_loop/1000";
    pair.b.workload = "evil</script><script>alert(1)</script> http://example.com";
    for (ab_side_facts* side : {&pair.a, &pair.b}) {
      side->build = "this process";
      side->clock = "fake";
      side->ticks_per_second = 2e9;
    }
    pair.batch = 8;
    pair.batch_calibrated = true;
    pair.samples_per_side = 16;
    pair.warmup_rounds = 5;
    pair.stopped_by = ab_stop::max_time;
    for (std::size_t k = 0; k < rounds; ++k) {
      ab_round round;
      round.a_first = k % 2 == 0;
      round.a_min = p == 0 && k == 9 ? 0 : 1000;
      round.b_min = 1010 + static_cast<double>((k * 3 + p) % 7) * 0.1 - 0.3;
      round.reference = 3000;
      if (k % 50 == 49) {
        round.switches = 1;
        round.b_min = 1300;
      }
      pair.rounds.push_back(round);
    }
    pair.estimate = estimate_rounds(pair.rounds, r.options.tuning.slowdown_factor);
    r.pairs.push_back(std::move(pair));
  }
  conclude(r);
  return r;
}

std::string ab_html_of(const ab_report& r) {
  std::ostringstream out;
  write_ab_report(out, r, report_format::html);
  return out.str();
}

// What a histogram's bars hold together: every pair's undisturbed rounds and the disturbed ones.
std::size_t counted(const nlohmann::json& histogram) {
  std::size_t n = 0;
  for (const auto& pair : histogram.at("counts")) {
    for (const auto& c : pair)
      n += c.get<std::size_t>();
  }
  for (const auto& c : histogram.at("disturbed"))
    n += c.get<std::size_t>();
  return n;
}

TEST(AbHtml, OneSelfContainedPageCarryingTheDocument) {
  const ab_report r = synthetic_ab(1, 200);
  const std::string page = ab_html_of(r);
  EXPECT_THAT(page, HasSubstr("<body data-page=\"ab\">"));
  EXPECT_THAT(page, HasSubstr("Chart.js v3.9.1"));
  EXPECT_THAT(page, HasSubstr("<pre id=\"harness-status\""));
  EXPECT_THAT(page, Not(HasSubstr("http://")));
  EXPECT_THAT(page, Not(HasSubstr("https://")));
  EXPECT_THAT(page, Not(HasSubstr("<script src")));
  EXPECT_THAT(page, Not(HasSubstr("<link")));
  EXPECT_THAT(page, Not(HasSubstr("alert(1)</script>")));
  std::size_t scripts = 0;
  for (auto at = page.find("</script>"); at != std::string::npos;
       at = page.find("</script>", at + 1))
    ++scripts;
  EXPECT_EQ(scripts, 3u);
  EXPECT_THAT(page, HasSubstr("<title>harness ab: xor_loop/1000 against evil&lt;/script&gt;"));
  // The document is ab's JSON, its rounds given as the series to draw.
  const auto data = data_of(page);
  EXPECT_EQ(data.at("page"), "ab");
  std::ostringstream json;
  write_ab_json(json, r);
  nlohmann::json document = nlohmann::json::parse(json.str());
  ASSERT_EQ(document.at("ab").at("pairs").at(0).at("rounds").size(), 200u);
  document["ab"]["pairs"][0].erase("rounds");
  EXPECT_EQ(data.at("report"), document);
  EXPECT_EQ(data.at("report").at("ab").at("b").at("workload"),
            "evil</script><script>alert(1)</script> http://example.com");
}

// The console block in lines of the width given (the terminal's, at most 100), the same text.
TEST(AbConsole, ItsLinesFitTheWidthGiven) {
  const ab_report r = synthetic_ab(2, 50);
  std::ostringstream wide, narrow;
  print_ab_console(wide, r, 100);
  print_ab_console(narrow, r, 60);
  for (const auto& [text, width] : {std::pair{wide.str(), 100U}, std::pair{narrow.str(), 60U}}) {
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);)
      EXPECT_LE(report_detail::display_width(line), width) << line;
  }
  EXPECT_NE(wide.str(), narrow.str());
  EXPECT_EQ(testing::unwrapped(wide.str()), testing::unwrapped(narrow.str()));
}

TEST(AbHtml, EveryRoundOfASmallRunIsDrawnAndCounted) {
  const ab_report r = synthetic_ab(1, 200);
  const auto data = data_of(ab_html_of(r));
  // The answer in the console's words.
  ASSERT_TRUE(r.answer);
  const std::string headline = data.at("headline");
  EXPECT_EQ(headline, ab_headline(*r.answer) + " [" + ab_change_text(r.answer->lower) + ", " +
                          ab_change_text(r.answer->upper) + "]");
  EXPECT_THAT(headline, HasSubstr("B is 1.00% slower than A"));
  std::ostringstream console;
  print_ab_console(console, r);
  EXPECT_THAT(console.str(), HasSubstr(headline));
  ASSERT_EQ(data.at("series").size(), 1u);
  const auto& s = data.at("series").at(0);
  EXPECT_EQ(s.at("rounds"), 200);
  EXPECT_EQ(s.at("with_ratio"), 199);  // round 10 gave none
  EXPECT_EQ(s.at("every"), 1);
  ASSERT_EQ(s.at("r").size(), 199u);
  EXPECT_EQ(s.at("i").at(8), 9);
  EXPECT_EQ(s.at("i").at(9), 11);  // numbered as taken, round 10 left out
  EXPECT_DOUBLE_EQ(s.at("r").at(9).get<double>(), r.pairs[0].rounds[10].ratio());
  EXPECT_EQ(s.at("d").at(48), 1);  // round 50, hit by a switch
  EXPECT_EQ(s.at("d").at(47), 0);
  EXPECT_EQ(s.at("stopped"), to_string(ab_stop::max_time));
  EXPECT_THAT(s.at("change").get<std::string>(), HasSubstr("+1.00% ["));
  // The histogram counts every round with a ratio; the disturbed ones (B 30% slower) lie beyond
  // the fences, in the top edge bar, and push no other round into one bin.
  const auto& h = data.at("histogram");
  EXPECT_EQ(counted(h), 199u);
  const auto disturbed = h.at("disturbed").get<std::vector<std::size_t>>();
  ASSERT_EQ(disturbed.size(), h.at("bins").get<std::size_t>() + 2);
  EXPECT_EQ(disturbed.back(), 4u);
  EXPECT_EQ(std::accumulate(disturbed.begin(), disturbed.end(), std::size_t{0}), 4u);
  EXPECT_DOUBLE_EQ(h.at("highest").get<double>(), 1.3);
  EXPECT_LT(h.at("top").get<double>(), 1.02);
  EXPECT_LE(h.at("low").get<double>(), r.answer->lower);
  EXPECT_GE(h.at("top").get<double>(), r.answer->upper);
  const auto counts = h.at("counts").at(0).get<std::vector<std::size_t>>();
  EXPECT_EQ(counts.front(), 0u);  // none below the scale
  EXPECT_LT(*std::max_element(counts.begin(), counts.end()), 100u);
}

TEST(AbHtml, ManyRoundsAreDrawnThinnedAndCountedWhole) {
  const std::size_t n = 50000;
  const std::string page = ab_html_of(synthetic_ab(1, n));
  // Measured here: the page stays small enough for a browser to open at once.
  EXPECT_LT(page.size(), 450000u);  // 317 kB, of which the inline scripts are some 255 kB
  const auto data = data_of(page);
  const auto& s = data.at("series").at(0);
  EXPECT_EQ(s.at("rounds"), n);
  EXPECT_EQ(s.at("every"), 25);  // 2000 stretches of 25 ratios
  const auto ratios = s.at("r").get<std::vector<double>>();
  EXPECT_GE(ratios.size(), kHtmlMaxDrawn);
  EXPECT_LE(ratios.size(), 3 * kHtmlMaxDrawn / 2);
  // The extremes and the disturbed rounds stay in the picture.
  EXPECT_DOUBLE_EQ(*std::max_element(ratios.begin(), ratios.end()), 1.3);
  EXPECT_DOUBLE_EQ(*std::min_element(ratios.begin(), ratios.end()), 1.0097);
  const auto index = s.at("i").get<std::vector<std::size_t>>();
  EXPECT_TRUE(std::is_sorted(index.begin(), index.end()));
  const auto at = std::find(index.begin(), index.end(), 30000u);
  ASSERT_NE(at, index.end());
  EXPECT_EQ(s.at("d").at(static_cast<std::size_t>(at - index.begin())), 1);
  EXPECT_EQ(counted(data.at("histogram")), n - 1);
}

TEST(AbHtml, SeveralPairsAreDrawnOneSeriesEach) {
  const ab_report r = synthetic_ab(3, 100);
  const auto data = data_of(ab_html_of(r));
  ASSERT_EQ(data.at("series").size(), 3u);
  EXPECT_EQ(data.at("series").at(1).at("with_ratio"), 100);
  EXPECT_EQ(data.at("report").at("ab").at("pair_ratios").size(), 3u);
  const auto& h = data.at("histogram");
  EXPECT_EQ(h.at("counts").size(), 3u);
  EXPECT_EQ(counted(h), 299u);
  ASSERT_TRUE(r.answer);
  EXPECT_EQ(data.at("answer"), ab_change_text(r.answer->ratio) + " [" +
                                   ab_change_text(r.answer->lower) + ", " +
                                   ab_change_text(r.answer->upper) + "]");
}

TEST(AbHtml, APageWithoutRoundsSaysSo) {
  ab_report r;
  r.interrupted = true;
  conclude(r);
  const auto data = data_of(ab_html_of(r));
  EXPECT_EQ(data.at("headline"), "No rounds were measured");
  EXPECT_TRUE(data.at("histogram").is_null());
  EXPECT_TRUE(data.at("series").empty());
  // Five rounds: a ratio each, and no interval yet.
  const ab_report few = synthetic_ab(1, 5);
  const auto some = data_of(ab_html_of(few));
  EXPECT_EQ(some.at("headline"), "Not answered: 5 rounds gave a ratio, and an interval needs 6");
  EXPECT_FALSE(some.at("histogram").is_null());
  EXPECT_EQ(counted(some.at("histogram")), 5u);
}

// gbench --vs: each benchmark its own comparison of one pair. The page draws each one (its series,
// its histogram, its answer in the console's words) and says how the suite came out; the top
// level, of the pairs a suite does not have, draws nothing.
// gbench --vs's report of ./old_bench against ./new_bench: the benchmarks `names`, each the one
// pair of synthetic_ab(1, 40), and BM_fails, which failed in B.
ab_report synthetic_gbench_vs(std::initializer_list<const char*> names) {
  ab_report r;
  r.mode = ab_mode::gbench;
  r.clock = "gbench_real_time";
  r.ticks_per_second = 1e9;
  r.build_a = "./old_bench";
  r.build_b = "./new_bench";
  const ab_report one = synthetic_ab(1, 40);
  for (const char* name : names) {
    ab_benchmark b;
    b.name = name;
    b.pair = one.pairs[0];
    r.benchmarks.push_back(std::move(b));
  }
  ab_benchmark failed;
  failed.name = "BM_fails";
  failed.error = "B ('./new_bench') reported an error in invocation 1 (SkipWithError)";
  r.benchmarks.push_back(std::move(failed));
  conclude(r);
  return r;
}

TEST(AbHtml, GbenchVsDrawsEachBenchmark) {
  ab_report r = synthetic_gbench_vs({"BM_copy/64", "BM_copy/4096"});
  r.only_in_a = {"BM_old_only"};
  const std::string page = ab_html_of(r);
  EXPECT_THAT(page, HasSubstr("<title>harness gbench --vs: ./old_bench against ./new_bench"));
  const auto data = data_of(page);
  EXPECT_EQ(data.at("headline"), "3 benchmarks compared: 2 slower, 1 not answered");
  EXPECT_TRUE(data.at("series").empty());
  EXPECT_TRUE(data.at("histogram").is_null());
  const auto& drawn = data.at("benchmarks");
  ASSERT_EQ(drawn.size(), 3u);
  const auto& answer = r.benchmarks[0].pair.estimate.rounds;
  ASSERT_TRUE(answer);
  EXPECT_EQ(drawn.at(0).at("headline"), ab_headline(*answer) + " [" +
                                            ab_change_text(answer->lower) + ", " +
                                            ab_change_text(answer->upper) + "]");
  ASSERT_EQ(drawn.at(1).at("series").size(), 1u);
  EXPECT_EQ(drawn.at(1).at("series").at(0).at("with_ratio"), 39);  // round 10 gave none
  EXPECT_EQ(counted(drawn.at(1).at("histogram")), 39u);
  EXPECT_EQ(drawn.at(2).at("headline"),
            "Not answered: 0 rounds gave a ratio, and an interval needs 6");
  EXPECT_TRUE(drawn.at(2).at("histogram").is_null());
  // The report is the JSON document, each comparison's rounds given as its series.
  const auto& compared = data.at("report").at("ab").at("comparisons");
  ASSERT_EQ(compared.size(), 3u);
  EXPECT_FALSE(compared.at(0).at("pair").contains("rounds"));
  EXPECT_EQ(compared.at(2).at("error"), *r.benchmarks[2].error);
  EXPECT_EQ(data.at("report").at("ab").at("only_in_a").at(0), "BM_old_only");
}

// ---- harness report ---------------------------------------------------------------------------

struct outcome {
  int code;
  std::string out;
  std::string err;
};
outcome run(std::vector<std::string> args) {
  std::vector<const char*> argv{"harness"};
  for (const auto& a : args)
    argv.push_back(a.c_str());
  std::ostringstream out, err;
  const int code = cli::run_cli(static_cast<int>(argv.size()), argv.data(), out, err);
  return {code, out.str(), err.str()};
}

TEST(ReportCommand, DrawsAJsonReportIntoAPage) {
  const testing::scratch_folder folder("report-html");
  const auto json_path = folder.path() / "run.json";
  {
    std::ofstream json(json_path, std::ios::binary);
    write_json_report(json, analyze_run(synthetic_run(30)));
  }
  const auto page = folder.path() / "run.html";
  const auto r = run({"report", json_path.string(), "-o", page.string()});
  EXPECT_EQ(r.code, cli::exit_ok) << r.err;
  std::ifstream in(page, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  EXPECT_THAT(text.str(), HasSubstr("<body data-page=\"run\">"));
  EXPECT_EQ(data_of(text.str()).at("series").size(), 2u);
  // Without -o, on stdout.
  const auto to_stdout = run({"report", json_path.string()});
  EXPECT_EQ(to_stdout.code, cli::exit_ok);
  EXPECT_EQ(to_stdout.out, text.str());
}

// An ab report's JSON file drawn later is the page the run drew: the same bytes, for two
// workloads, several pairs of processes and gbench --vs.
TEST(ReportCommand, DrawsAnAbReportAsTheRunDrewIt) {
  const testing::scratch_folder folder("report-ab");
  ab_report builds = synthetic_ab(3, 60);
  builds.mode = ab_mode::builds;
  conclude(builds);
  for (const ab_report& r : {synthetic_ab(1, 200), builds, synthetic_gbench_vs({"BM_copy/64"})}) {
    const auto json_path = folder.path() / "ab.json";
    {
      std::ofstream json(json_path, std::ios::binary);
      write_ab_json(json, r);
    }
    const auto drawn = run({"report", json_path.string()});
    EXPECT_EQ(drawn.code, cli::exit_ok) << drawn.err;
    EXPECT_EQ(drawn.out, ab_html_of(r)) << to_string(r.mode);
  }
}

// What the ab page reads is checked as a run report's figures are: the file, the place and why.
TEST(ReportCommand, RefusesAnAbReportItsPageCannotDraw) {
  const testing::scratch_folder folder("report-ab-bad");
  std::ostringstream text;
  write_ab_json(text, synthetic_ab(1, 20));
  const nlohmann::ordered_json good = nlohmann::ordered_json::parse(text.str());
  std::ostringstream gbench_text;
  write_ab_json(gbench_text, synthetic_gbench_vs({"BM_copy/64"}));
  const nlohmann::ordered_json gbench = nlohmann::ordered_json::parse(gbench_text.str());
  struct edit {
    const nlohmann::ordered_json* from;
    nlohmann::ordered_json::json_pointer where;
    nlohmann::ordered_json value;
    std::string said;
  };
  const std::vector<edit> edits{
      {&good, "/ab/pairs/0/rounds/3/ratio"_json_pointer, "1.01",
       "ab.pairs[0].rounds[3].ratio: expected a number, got a string"},
      {&good, "/ab/pairs/0/rounds/3/ratio"_json_pointer, -1.01,
       "ab.pairs[0].rounds[3].ratio: -1.01 is out of range: a ratio B/A lies above 0"},
      {&good, "/ab/answer/lower"_json_pointer, 2.0, "ab.answer.lower: lies above the ratio"},
      {&good, "/ab/verdict"_json_pointer, "worse",
       "ab.verdict: \"worse\" is not one of faster, slower, same, unsure"},
      {&good, "/ab/mode"_json_pointer, "tournament",
       "ab.mode: \"tournament\" is not one of workloads, builds, gbench"},
      {&good, "/ab/pairs/0/stopped_by"_json_pointer, nullptr,
       "ab.pairs[0].stopped_by: expected a string, got null"},
      {&gbench, "/ab/comparisons/0/pair/rounds/0/disturbed"_json_pointer, 0,
       "ab.comparisons[0].pair.rounds[0].disturbed: expected true or false, got the number 0"},
  };
  const auto page = (folder.path() / "ab.html").string();
  for (const edit& e : edits) {
    nlohmann::ordered_json doc = *e.from;
    doc[e.where] = e.value;
    const auto path = (folder.path() / "ab.json").string();
    std::ofstream(path, std::ios::binary) << doc.dump(2);
    const auto r = run({"report", path, "-o", page});
    EXPECT_EQ(r.code, cli::exit_usage) << e.said;
    EXPECT_THAT(r.err, HasSubstr(path + ": " + e.said));
  }
  // A missing ratio, as a missing member anywhere.
  nlohmann::ordered_json doc = good;
  doc["ab"]["pairs"][0]["rounds"][0].erase("ratio");
  const auto path = (folder.path() / "ab.json").string();
  std::ofstream(path, std::ios::binary) << doc.dump(2);
  const auto r = run({"report", path, "-o", page});
  EXPECT_EQ(r.code, cli::exit_usage);
  EXPECT_THAT(r.err, HasSubstr("ab.pairs[0].rounds[0].ratio: missing"));
  EXPECT_EQ(folder.entries(), 1u);  // ab.json alone: no page written
}

TEST(CompareHtml, ThePageCarriesTheComparisonsJson) {
  const testing::scratch_folder folder("compare-html");
  std::vector<std::string> files;
  for (const char* name : {"a.json", "b.json"}) {
    files.push_back((folder.path() / name).string());
    std::ofstream json(files.back(), std::ios::binary);
    write_json_report(json, analyze_run(synthetic_run(30)));
  }
  const auto html = run({"compare", "--format", "html", files[0], files[1]});
  const auto json = run({"compare", "--format", "json", files[0], files[1]});
  EXPECT_EQ(html.code, json.code) << html.err;
  EXPECT_THAT(html.out, HasSubstr("<body data-page=\"compare\">"));
  EXPECT_THAT(html.out, Not(HasSubstr("http://")));
  EXPECT_THAT(html.out, Not(HasSubstr("https://")));
  EXPECT_EQ(data_of(html.out), nlohmann::json::parse(json.out));
}

TEST(ReportCommand, BadInputsExitTwoAndWriteNothing) {
  const testing::scratch_folder folder("report-bad");
  const auto page = (folder.path() / "out.html").string();
  const auto missing = (folder.path() / "missing.json").string();
  auto r = run({"report", missing, "-o", page});
  EXPECT_EQ(r.code, cli::exit_usage);
  EXPECT_THAT(r.err, HasSubstr("cannot read '" + missing + "'"));
  r = run({"report", folder.path().string(), "-o", page});
  EXPECT_EQ(r.code, cli::exit_usage);
  EXPECT_THAT(r.err, HasSubstr("it is a folder"));
  const auto text = folder.path() / "notes.txt";
  std::ofstream(text) << "not a report\n";
  r = run({"report", text.string(), "-o", page});
  EXPECT_EQ(r.code, cli::exit_usage);
  EXPECT_THAT(r.err, HasSubstr("not JSON"));
  r = run({"report", text.string(), "-o", (folder.path() / "out.json").string()});
  EXPECT_EQ(r.code, cli::exit_usage);
  EXPECT_THAT(r.err, HasSubstr("harness report writes an HTML page"));
  r = run({"report"});
  EXPECT_EQ(r.code, cli::exit_usage);
  EXPECT_EQ(folder.entries(), 1u);  // notes.txt alone: nothing written
}

// ---- one reader: compare and report accept and refuse the same files ---------------------------

// The message the one reader gives for `text` read from `path`, or "no error".
std::string reader_error(const std::string& text, const std::string& path) {
  try {
    compare::parse_run(text, path);
  } catch (const usage_error& e) {
    return e.what();
  }
  return "no error";
}

// A JSON report of synthetic_run(20), broken in one place by `edit`.
template <class Edit>
std::string broken_report(Edit&& edit) {
  std::ostringstream json;
  write_json_report(json, analyze_run(synthetic_run(20)));
  nlohmann::ordered_json doc = nlohmann::ordered_json::parse(json.str());
  edit(doc);
  return doc.dump(1);
}

// The first sample row of workload 0's phase `id`.
std::size_t row_of(const nlohmann::ordered_json& doc, const std::string& id) {
  const auto& rows = doc.at("benchmarks");
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (rows[i].at("run_type") == "iteration" && rows[i].at("phase") == id &&
        rows[i].at("family_index") == 0)
      return i;
  }
  ADD_FAILURE() << "no " << id << " row";
  return 0;
}

TEST(ReportReader, CompareAndReportAcceptAndRefuseTheSameFilesInTheSameWords) {
  using doc_t = nlohmann::ordered_json;
  struct bad_file {
    std::string name;
    std::string text;
    std::string message;  // what the refusal says after "FILE: "
  };
  const auto edit = [](auto&& f) { return broken_report(f); };
  const std::vector<bad_file> files{
      {"negative",
       edit([](doc_t& d) { d["benchmarks"][row_of(d, "prepared")]["ticks"] = -1280.3; }),
       "a sample of -1280.3 ticks is out of range"},
      {"negative-baseline",
       edit([](doc_t& d) { d["benchmarks"][row_of(d, "baseline")]["ticks"] = -1280.3; }),
       "a sample of -1280.3 ticks is out of range"},
      {"huge", edit([](doc_t& d) { d["benchmarks"][row_of(d, "baseline")]["ticks"] = 2e15; }),
       "a sample of 2e+15 ticks is out of range (at most 1e15)"},
      {"string-ticks",
       edit([](doc_t& d) { d["benchmarks"][row_of(d, "prepared")]["ticks"] = "500"; }),
       "ticks: expected a number, got a string"},
      {"overflow", "{\"harness\": {\"schema_version\": 1}, \"benchmarks\": [1e400]}",
       "not JSON: number overflow parsing '1e400'"},
      {"row-not-object", edit([](doc_t& d) { d["benchmarks"][2] = 7; }),
       "benchmarks[2]: expected an object, got the number 7"},
      {"row-without-run-type", edit([](doc_t& d) { d["benchmarks"][1].erase("run_type"); }),
       "benchmarks[1].run_type: missing"},
      {"family", edit([](doc_t& d) { d["benchmarks"][0]["family_index"] = 7; }),
       "benchmarks[0].family_index: 7 names no workload (the report lists 2)"},
      {"run-name",
       edit([](doc_t& d) { d["benchmarks"][row_of(d, "prepared") + 1]["run_name"] = "x"; }),
       "run_name: \"x\" differs from the run_name of the phase's first row"},
      {"phase", edit([](doc_t& d) { d["benchmarks"][row_of(d, "prepared")]["phase"] = "warmup"; }),
       ".phase: \"warmup\" is not a phase harness.workloads[0] (\"sort_ints/10000\") lists"},
      {"disturbed", edit([](doc_t& d) { d["benchmarks"][3]["disturbed"] = 1; }),
       "benchmarks[3].disturbed: expected true or false, got the number 1"},
      {"schema-text", edit([](doc_t& d) { d["harness"]["schema_version"] = "1"; }),
       "schema_version \"1\" is not one this harness reads (1)"},
      {"no-context", edit([](doc_t& d) { d.erase("context"); }), "context: missing"},
      // harness report's title read it with nlohmann's own words (a type_error, exit 1).
      {"host-name", edit([](doc_t& d) { d["context"]["host_name"] = 5; }),
       "context.host_name: expected a string, got the number 5"},
      {"rate", edit([](doc_t& d) { d["harness"]["clock"]["ticks_per_second"] = 0; }),
       "harness.clock.ticks_per_second: 0 is out of range"},
      {"step", edit([](doc_t& d) { d["harness"]["clock"]["step_ticks"] = -10; }),
       "harness.clock.step_ticks: -10 is out of range: expected 0 to 1e15 ticks"},
      // compare read only the prepared phase's figures, report only some of each phase's.
      {"baseline-batch",
       edit([](doc_t& d) { d["harness"]["workloads"][0]["phases"][1]["batch"] = 0; }),
       "harness.workloads[0].phases[1].batch: expected a whole number of 1 or more, got the "
       "number 0"},
      {"first-factor", edit([](doc_t& d) {
         d["harness"]["workloads"][0]["phases"][0]["reference_loop"]["slowdown_factor"] = 0.5;
       }),
       "harness.workloads[0].phases[0].reference_loop.slowdown_factor: 0.5 is out of range"},
      {"rows-not-array", edit([](doc_t& d) { d["benchmarks"] = doc_t::object(); }),
       "benchmarks: expected an array, got an object"},
  };
  const testing::scratch_folder folder("one-reader");
  const auto good = (folder.path() / "good.json").string();
  {
    std::ofstream out(good, std::ios::binary);
    out << broken_report([](doc_t&) {});
  }
  const auto page = (folder.path() / "out.html").string();
  // The good file: both read it.
  // (The second workload's 3 samples cannot be compared.)
  EXPECT_EQ(run({"compare", "--allow-not-compared", good, good}).code, cli::exit_ok);
  EXPECT_EQ(run({"report", good, "-o", page}).code, cli::exit_ok);
  std::filesystem::remove(page);
  for (const bad_file& f : files) {
    const auto path = (folder.path() / (f.name + ".json")).string();
    {
      std::ofstream out(path, std::ios::binary);
      out << f.text;
    }
    const std::string message = reader_error(f.text, path);
    EXPECT_THAT(message, HasSubstr(path + ": ")) << f.name;
    EXPECT_THAT(message, HasSubstr(f.message)) << f.name;
    const auto compared = run({"compare", good, path});
    EXPECT_EQ(compared.code, cli::exit_usage) << f.name << ": " << compared.err;
    EXPECT_THAT(compared.err, HasSubstr(message)) << f.name;
    const auto reported = run({"report", path, "-o", page});
    EXPECT_EQ(reported.code, cli::exit_usage) << f.name << ": " << reported.err;
    EXPECT_THAT(reported.err, HasSubstr(message)) << f.name;
    EXPECT_FALSE(std::filesystem::exists(page)) << f.name;
  }
}

}  // namespace
}  // namespace harness
