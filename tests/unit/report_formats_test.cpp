// Reports in every format, made from synthetic results with a fake 2 GHz clock, against golden
// files (tests/golden/); and the pieces around them: format choice, the terminal's width and
// colour, --line templates and the progress line (report files: output_file_test.cpp).
//
// Regenerate the golden files after an intended change with HARNESS_UPDATE_GOLDEN=1 and review
// the diff.
//
// Why one file of ~600 lines: every format is checked against one synthetic run built here; split
// by format, each file would repeat that run.
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <spdlog/details/os.h>
#include <spdlog/logger.h>
#include <spdlog/sinks/ostream_sink.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "fakes.hpp"
#include "harness/compare.hpp"
#include "harness/errors.hpp"
#include "harness/report.hpp"
#include "harness/report_line.hpp"
#include "platform/files.hpp"
#include "report/progress.hpp"

namespace harness {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// The clock the synthetic reports name (fakes.hpp).
const testing::report_clock kClock;

phase_result make_phase(phase_kind kind, std::vector<double> values, std::uint64_t batch,
                        std::uint64_t overhead, std::vector<std::size_t> slow = {},
                        std::optional<std::vector<std::size_t>> switched = std::nullopt) {
  phase_result p;
  p.kind = kind;
  p.values = std::move(values);
  p.batch = batch;
  p.overhead = overhead;
  p.host_slowdown.assign(p.values.size(), false);
  for (const std::size_t i : slow)
    p.host_slowdown[i] = true;
  if (switched) {
    p.context_switch.assign(p.values.size(), false);
    for (const std::size_t i : *switched)
      p.context_switch[i] = true;
  }
  p.reference_every = 4;
  p.reference_best = 3000;
  p.reference_worst = 4500;
  p.reference_runs = 3;
  p.reference_slow = slow.empty() ? 0 : 1;
  return p;
}

// Splits a phase into blocks of `size` samples, 60 ms apart, each with the reference loop's best
// given, and checks its floor as the runner would.
void block(phase_result& p, std::size_t size, std::vector<std::uint64_t> reference_bests,
           floor_context context) {
  for (std::size_t first = 0, b = 0; first < p.values.size(); first += size, ++b) {
    p.blocks.push_back({first, std::min(size, p.values.size() - first),
                        0.06 * static_cast<double>(b), reference_bests[b]});
  }
  std::vector<block_view> views;
  for (const sample_block& b : p.blocks) {
    const auto begin = p.values.begin() + static_cast<std::ptrdiff_t>(b.first);
    views.push_back({*std::min_element(begin, begin + static_cast<std::ptrdiff_t>(b.count)),
                     b.start_seconds, b.reference_best, std::nullopt});
  }
  p.floor = check_floor(views, context);
  p.requested = 12;
  p.elapsed_seconds = 0.13;
}

// The CPU counters as a machine without a PMU gives them: the software set read in every sample
// (task-clock the sample's time, a context switch where the sample was preempted, page faults
// in the baseline's first sample), the hardware counters refused with ENOENT.
void add_counters(workload_result& r) {
  for (const cpu_counter c : all_cpu_counters()) {
    r.counters.push_back(is_hardware(c) ? counter_status{c, false,
                                                         "No such file or directory (ENOENT): "
                                                         "the kernel has no such hardware event "
                                                         "here (no PMU)",
                                                         ENOENT}
                                        : counter_status{c, true, {}, 0});
  }
  for (phase_result* p : {&*r.first, &*r.baseline, &*r.prepared}) {
    const bool baseline = p->kind == phase_kind::baseline;
    for (const cpu_counter c : all_cpu_counters()) {
      if (is_hardware(c)) continue;
      counter_series s{c, {}, {}, 0.0, false};
      for (std::size_t i = 0; i < p->values.size(); ++i) {
        double v = 0;
        if (c == cpu_counter::task_clock) v = p->values[i] / 2 * static_cast<double>(p->batch);
        if (c == cpu_counter::page_faults || c == cpu_counter::minor_faults)
          v = p->kind == phase_kind::first ? 12 : baseline && i == 0 ? 3 : 0;
        if (c == cpu_counter::context_switches)
          v = !p->context_switch.empty() && p->context_switch[i] ? 1 : 0;
        s.counts.push_back(v);
        s.scaled.push_back(false);
        *s.phase_total += v;
      }
      if (baseline && c == cpu_counter::cpu_migrations) s.phase_total = 2;
      p->counters.push_back(std::move(s));
    }
  }
}

run_report synthetic_report() {
  run_report report;
  report.clock.clock = &kClock;
  report.clock.step = 20;
  report.clock.step_measured = true;
  report.clock.granularity = 1;
  report.clock.read_cost = 20;
  report.history = {"/tmp/history.json",
                    "test CPU | fake at 2000 MHz | reference loop of 1000 iterations",
                    "xxh3:0123456789abcdef", 3000};
  report.clock_reason = "chosen by the test";
  report.options.samples = 12;
  report.options.warmup = std::chrono::milliseconds(10);
  report.options.cpu = 1;

  workload_result a;
  a.name = "xor_loop/1000";
  a.first = make_phase(phase_kind::first, {5000}, 1, 40);
  a.baseline = make_phase(phase_kind::baseline,
                          {1200, 1100, 1000, 1300, 1000, 1500, 1010, 1020, 1000, 2400, 1005, 1000},
                          1, 40, {9});
  // The whole baseline ran the reference loop 1.4x slower than the prepared phase.
  a.baseline->reference_best = 4200;
  a.baseline->reference_worst = 6000;
  a.prepared = make_phase(phase_kind::prepared,
                          {1000, 1000, 1002, 1000, 1001, 1000, 1003, 1000, 1000, 1000, 1001, 1000},
                          1, 40, {}, std::vector<std::size_t>{2});
  // The baseline's blocks agree; the prepared phase's too, but the history remembers a lower
  // floor for this build.
  floor_context base_context;
  base_context.granularity = 1;
  base_context.fastest_reference = 3000;
  block(*a.baseline, 4, {4200, 4300, 4200}, base_context);
  floor_context prep_context = base_context;
  prep_context.baseline_floor = 1000;
  prep_context.remembered_floor = 990;
  block(*a.prepared, 4, {3000, 3000, 3010}, prep_context);
  a.iterations_per_call = 1000;
  a.build = {true, false};  // a release build
  a.min_sample_ticks = 20000;
  a.preparation.affinity_before = {0, 1};
  a.preparation.affinity_applied = {1};
  a.preparation.priority_before = "nice 0";
  a.preparation.priority_applied = "nice 0";
  a.preparation.steps = {{"pin to CPU 1", true, 0, ""},
                         {"nice -20", false, EPERM, "Operation not permitted"}};
  a.preparation.restore_steps = {{"unpin", true, 0, ""}};
  a.warmup = {std::chrono::milliseconds(10), std::chrono::microseconds(10200), 1234};
  add_counters(a);
  report.results.push_back(a);

  workload_result b;
  b.name = "memcpy_bytes/64";
  b.bytes_per_call = 64;  // declared: the reports show bytes/s
  b.batch = 64;
  b.batch_calibrated = true;
  b.build = {false, true};  // registered from a debug build: the report says so
  b.min_sample_ticks = 20000;
  b.prepared = make_phase(phase_kind::prepared, {12.5, 12.25, 12.75, 12.5, 13.0}, 64, 40);
  block(*b.prepared, 5, {3000}, base_context);
  report.results.push_back(b);

  workload_result c;
  c.name = "odd,name|x";
  c.prepared = make_phase(phase_kind::prepared, {3, 3}, 1, 40);
  report.results.push_back(c);

  // It threw in its third baseline sample: its first call is all that was measured.
  workload_result d;
  d.name = "throws/3";
  d.first = make_phase(phase_kind::first, {800}, 1, 40);
  d.failure = workload_failure{.message = "boom, said the \"workload\"",
                               .stage = run_stage::baseline,
                               .sample = 3,
                               .block = 1,
                               .calls_per_sample = 1};
  report.results.push_back(d);

  report.context.date = "2024-05-01T12:00:00+02:00";
  report.context.host_name = "testhost";
  report.context.executable = "/usr/bin/harness";
  report.context.num_cpus = 2;
  report.context.mhz_per_cpu = 2596;
  report.context.caches = {{"Data", 1, 32768, 1}, {"Unified", 2, 524288, 1}};
  report.context.load_avg = {0.5, 0.25, 0.125};
  report.context.library_build_type = "release";
  report.context.harness_version = "0.0.0-test";
  doctor::doctor_summary summary;
  summary.cpu = 1;
  summary.cpu_reason = "the test chose it";
  summary.ok = 5;
  summary.warn = 1;
  summary.warned = {"CPU frequency governor"};
  report.context.doctor = summary;
  return report;
}

std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Columns a line takes on a terminal: one per UTF-8 code point.
std::size_t display_columns(const std::string& line) {
  std::size_t n = 0;
  for (const unsigned char c : line)
    n += (c & 0xC0) != 0x80 ? 1 : 0;
  return n;
}

void expect_golden(const std::string& actual, const std::string& file) {
  const std::filesystem::path path = std::filesystem::path(HARNESS_GOLDEN_DIR) / file;
  if (std::getenv("HARNESS_UPDATE_GOLDEN") != nullptr) {
    std::ofstream(path, std::ios::binary) << actual;
    GTEST_SKIP() << "updated " << path;
  }
  ASSERT_TRUE(std::filesystem::exists(path))
      << path << " missing; run with HARNESS_UPDATE_GOLDEN=1";
  EXPECT_EQ(actual, read_text(path)) << "differs from " << path;
}

std::string rendered(report_format format, const console_style& style = {}, bool detail = true) {
  run_report report = synthetic_report();
  report.detail = detail;
  std::ostringstream out;
  write_report(out, analyze_run(report), format, style);
  return out.str();
}

// ---- golden files -----------------------------------------------------------------------------

TEST(ReportGolden, Console) {
  expect_golden(rendered(report_format::console), "report.txt");
}

TEST(ReportGolden, ConsoleNarrowAscii) {
  console_style style;
  style.width = 60;
  style.unicode = false;
  expect_golden(rendered(report_format::console, style), "report_narrow.txt");
}

// The default console report, without --detail: about ten lines a workload.
TEST(ReportGolden, ConsoleShort) {
  expect_golden(rendered(report_format::console, {}, false), "report_short.txt");
}

TEST(ReportGolden, ConsoleShortNarrowAscii) {
  console_style style;
  style.width = 60;
  style.unicode = false;
  expect_golden(rendered(report_format::console, style, false), "report_short_narrow.txt");
}

TEST(ReportConsole, TheShortReportKeepsEachWorkloadWithinFifteenLinesAndTheSummaryIn100Columns) {
  const std::string text = rendered(report_format::console, {}, false);
  std::istringstream lines(text);
  std::string line;
  std::size_t in_workload = 0;
  std::size_t longest_block = 0;
  bool in_summary = false;
  while (std::getline(lines, line)) {
    if (line.rfind("summary", 0) == 0) in_summary = true;
    if (in_summary) {
      EXPECT_LE(display_columns(line), 100U) << line;
    }
    if (line.empty()) {
      in_workload = 0;
      continue;
    }
    if (!in_summary) longest_block = std::max(longest_block, ++in_workload);
  }
  EXPECT_LE(longest_block, 15U);
  EXPECT_TRUE(in_summary);
  EXPECT_EQ(text.find("all samples: n"), std::string::npos);  // the statistics block: --detail
  EXPECT_NE(rendered(report_format::console).find("all samples: n"), std::string::npos);
}

TEST(ReportGolden, Json) {
  expect_golden(rendered(report_format::json), "report.json");
}
TEST(ReportGolden, Csv) {
  expect_golden(rendered(report_format::csv), "report.csv");
}
TEST(ReportGolden, Markdown) {
  expect_golden(rendered(report_format::markdown), "report.md");
}

// ---- JSON: Google Benchmark's rows ------------------------------------------------------------

TEST(ReportJson, RowsFollowGoogleBenchmark) {
  const auto doc = nlohmann::json::parse(rendered(report_format::json));
  const auto& rows = doc.at("benchmarks");
  std::size_t prepared_iterations = 0;
  for (const auto& row : rows) {
    if (row.at("name") == "xor_loop/1000" && row.at("run_type") == "iteration") {
      EXPECT_EQ(row.at("repetition_index"), prepared_iterations);
      EXPECT_EQ(row.at("repetitions"), 12);
      EXPECT_EQ(row.at("iterations"), 1);
      EXPECT_EQ(row.at("threads"), 1);
      EXPECT_EQ(row.at("time_unit"), "ns");
      // 2 GHz: half a nanosecond a tick.
      EXPECT_DOUBLE_EQ(row.at("real_time").get<double>(), row.at("ticks").get<double>() / 2);
      EXPECT_EQ(row.at("cpu_time"), row.at("real_time"));
      EXPECT_EQ(row.at("phase"), "prepared");
      EXPECT_EQ(row.at("disturbed").get<bool>(), prepared_iterations == 2);
      ++prepared_iterations;
    }
  }
  EXPECT_EQ(prepared_iterations, 12u);
  auto find = [&](const std::string& name) {
    for (const auto& row : rows) {
      if (row.at("name") == name) return row;
    }
    ADD_FAILURE() << "no row " << name;
    return nlohmann::json();
  };
  EXPECT_EQ(find("xor_loop/1000/baseline_min").at("real_time"), 500.0);
  EXPECT_EQ(find("xor_loop/1000/baseline_max").at("real_time"), 1200.0);
  EXPECT_EQ(find("xor_loop/1000/first").at("real_time"), 2500.0);
  const auto cv = find("xor_loop/1000_cv");
  EXPECT_EQ(cv.at("aggregate_unit"), "percentage");
  EXPECT_LT(cv.at("real_time").get<double>(), 0.01);  // a fraction, as Google Benchmark writes it
  EXPECT_EQ(find("xor_loop/1000_median").at("aggregate_unit"), "time");
  // Batched: per call, iterations = calls per sample.
  EXPECT_EQ(find("memcpy_bytes/64_min").at("real_time"), 6.125);
  // Two equal samples: stddev 0 is defined and written.
  EXPECT_EQ(find("odd,name|x_stddev").at("real_time"), 0.0);
  const auto& harness_block = doc.at("harness");
  EXPECT_EQ(harness_block.at("schema_version"), kReportSchemaVersion);
  EXPECT_EQ(harness_block.at("clock").at("ticks_per_second"), 2e9);
  const auto& prep = harness_block.at("workloads").at(0).at("preparation");
  EXPECT_EQ(prep.at("applied"), nlohmann::json::array({"pin to CPU 1"}));
  EXPECT_EQ(prep.at("refused").at(0).at("action"), "nice -20");
  EXPECT_EQ(harness_block.at("workloads").at(1).at("error"), nullptr);
  EXPECT_EQ(harness_block.at("workloads").at(1).at("failure"), nullptr);
  const auto& failed = harness_block.at("workloads").at(3);
  EXPECT_EQ(failed.at("error"), "boom, said the \"workload\"");
  EXPECT_EQ(failed.at("failure").at("stage"), "baseline");
  EXPECT_EQ(failed.at("failure").at("sample"), 3);
  EXPECT_EQ(failed.at("failure").at("block"), 1);
  EXPECT_EQ(failed.at("failure").at("threw"), true);
}

TEST(ReportJson, NoAggregateForOneSampleAndNoUndefinedFigure) {
  run_report report = synthetic_report();
  report.results.resize(1);
  report.results[0].prepared = make_phase(phase_kind::prepared, {0, 4}, 1, 40);
  std::ostringstream out;
  write_json_report(out, analyze_run(report));
  const auto doc = nlohmann::json::parse(out.str());
  for (const auto& row : doc.at("benchmarks")) {
    // The first call has one sample: no aggregate; the cv of a minimum of 0 is undefined.
    EXPECT_NE(row.at("name"), "xor_loop/1000/first_mean");
    EXPECT_NE(row.at("name"), "xor_loop/1000_cv");
  }
}

// ---- CSV and Markdown ---------------------------------------------------------------------------

TEST(ReportCsv, OneRowPerSampleQuotedWhereNeeded) {
  const std::string csv = rendered(report_format::csv);
  std::istringstream lines(csv);
  std::string line;
  std::size_t n = 0;
  while (std::getline(lines, line))
    ++n;
  EXPECT_EQ(n, 1u + (1 + 12 + 12) + 5 + 2 + (1 + 1));
  // The last columns are the block, empty in a phase without blocks, ns per iteration (the
  // workload returned 1000 per call), items/s and bytes/s (when declared), and the error; then
  // the six CPU counters xor_loop/1000 has per call, empty for the workloads without them.
  EXPECT_THAT(csv, HasSubstr(",bytes_per_second,error,task-clock,page-faults,minor-faults,"
                             "major-faults,context-switches,cpu-migrations\n"));
  EXPECT_THAT(csv, HasSubstr("\"odd,name|x\",prepared,0,3,1.5,0,43,1,0,,,,,,,,,,,,\n"));
  EXPECT_THAT(csv, HasSubstr("xor_loop/1000,prepared,2,1002,501,1,1042,1,0,1,1,0.501,,,,501,0,0,0,"
                             "1,0\n"));
  EXPECT_THAT(csv, HasSubstr("xor_loop/1000,prepared,4,1001,500.5,0,1041,1,0,0,2,0.5005,,,,500.5,"
                             "0,0,0,0,0\n"));
  // 64 bytes in 6.125 ns.
  EXPECT_THAT(csv, HasSubstr("memcpy_bytes/64,prepared,1,12.25,6.125,0,824,64,0,,1,,,"
                             "10448979591.836735,,,,,,,\n"));
  // A failure: the stage, the 0-based sample, its block, what it threw; no figures.
  EXPECT_THAT(csv, HasSubstr("throws/3,baseline,2,,,,,1,,,1,,,,\"threw: boom, said the "
                             "\"\"workload\"\"\",,,,,,\n"));
}

TEST(ReportMarkdown, TableEscapesCells) {
  const std::string md = rendered(report_format::markdown);
  EXPECT_THAT(md, HasSubstr("| odd,name\\|x | prepared |"));
  EXPECT_THAT(
      md,
      HasSubstr(
          "**throws/3 failed** in the baseline phase, sample 3 (block 1, 1 call): threw: boom"));
}

// ---- console ------------------------------------------------------------------------------------

TEST(ReportConsole, ColourOnlyWhenAsked) {
  console_style style;
  style.color = true;
  EXPECT_THAT(rendered(report_format::console, style), HasSubstr("\x1b[31mFAILED\x1b[0m"));
  EXPECT_THAT(rendered(report_format::console), Not(HasSubstr("\x1b[")));
}

TEST(ReportConsole, NarrowTerminalDropsLessImportantColumns) {
  console_style style;
  style.width = 70;
  const std::string text = rendered(report_format::console, style);
  const auto at = text.find("\n  workload");
  ASSERT_NE(at, std::string::npos);
  const std::string header = text.substr(at + 1, text.find('\n', at + 1) - at - 1);
  EXPECT_LE(header.size(), 70u);
  EXPECT_THAT(header, HasSubstr("min"));
  EXPECT_THAT(header, HasSubstr("verdict"));
  EXPECT_THAT(header, HasSubstr("floor"));
  EXPECT_THAT(header, Not(HasSubstr("max")));
  EXPECT_THAT(header, Not(HasSubstr("median")));
  // Least important first (a failure's "FAILED at sample 3" widens the verdict); the rate columns
  // go with the minimum's time.
  EXPECT_THAT(text, HasSubstr("not shown: spread, max, disturbed, samples, bytes/s, time/iter, min "
                              "time, spread %, median"));
}

TEST(ReportConsole, PictureSharesOneScale) {
  const std::string text = rendered(report_format::console);
  // Baseline and prepared of xor_loop share the scale 1000..p95 of the baseline; the prepared
  // samples all sit in the first columns, the baseline's 2400 lies beyond the scale.
  EXPECT_THAT(text, HasSubstr("one scale for the phases: 1000 to"));
  EXPECT_THAT(text, HasSubstr(" 1 above"));
  EXPECT_THAT(text, HasSubstr("    prepared │█"));
}

TEST(ConsoleStyle, FollowsTheTerminalAndTheEnvironmentItIsGiven) {
  terminal_facts facts;  // no terminal, nothing set
  console_style style = console_style_for(facts);
  EXPECT_FALSE(style.terminal);
  EXPECT_FALSE(style.color);
  EXPECT_EQ(style.width, 0u);
  EXPECT_TRUE(style.unicode);  // no locale at all: UTF-8
  facts.columns_env = "72";
  EXPECT_EQ(console_style_for(facts).width, 72u);  // $COLUMNS off a terminal too
  facts.terminal = true;
  facts.columns = 100;
  style = console_style_for(facts);
  EXPECT_TRUE(style.terminal);
  EXPECT_TRUE(style.color);
  EXPECT_EQ(style.width, 100u);  // the terminal's own width first
  facts.columns.reset();
  EXPECT_EQ(console_style_for(facts).width, 72u);
  for (const char* bad : {"", "0", "-3", "72x", "x"}) {
    facts.columns_env = bad;
    EXPECT_EQ(console_style_for(facts).width, 0u) << bad;
  }
  // no-color.org: set to anything but the empty string.
  facts.no_color = "";
  EXPECT_TRUE(console_style_for(facts).color);
  facts.no_color = "1";
  EXPECT_FALSE(console_style_for(facts).color);
  // The first of LC_ALL, LC_CTYPE and LANG that is set and not empty decides.
  facts.lang = "C";
  EXPECT_FALSE(console_style_for(facts).unicode);
  facts.lc_ctype = "de_DE.UTF-8";
  EXPECT_TRUE(console_style_for(facts).unicode);
  facts.lc_all = "en_US.ISO-8859-1";
  EXPECT_FALSE(console_style_for(facts).unicode);
  facts.lc_all = "";
  facts.lc_ctype = "POSIX";
  EXPECT_FALSE(console_style_for(facts).unicode);
  facts.lc_ctype = "en_GB.utf8";
  EXPECT_TRUE(console_style_for(facts).unicode);
  facts.lc_ctype = "en_GB";
  EXPECT_TRUE(console_style_for(facts).unicode);
}

// ---- format choice ------------------------------------------------------------------------------

TEST(ReportFormat, ParsesNamesAndRejectsOthers) {
  EXPECT_EQ(parse_report_format("json"), report_format::json);
  EXPECT_EQ(parse_report_format("markdown"), report_format::markdown);
  try {
    parse_report_format("xml");
    FAIL() << "xml accepted";
  } catch (const usage_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("'xml'"));
    EXPECT_THAT(e.what(), HasSubstr("console, json, csv, markdown or html"));
  }
}

TEST(ReportFormat, FileFormatFromExtensionUnlessChosen) {
  EXPECT_EQ(format_for_file("r.json", std::nullopt), report_format::json);
  EXPECT_EQ(format_for_file("dir/r.CSV", std::nullopt), report_format::csv);
  EXPECT_EQ(format_for_file("r.md", std::nullopt), report_format::markdown);
  EXPECT_EQ(format_for_file("r.txt", std::nullopt), report_format::console);
  EXPECT_EQ(format_for_file("r.json", report_format::csv), report_format::csv);
  EXPECT_EQ(format_for_file("r.out", report_format::json), report_format::json);
  try {
    format_for_file("r.out", std::nullopt);
    FAIL() << ".out accepted";
  } catch (const usage_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("'.out'"));
    EXPECT_THAT(e.what(), HasSubstr(".json, .csv, .md"));
    EXPECT_THAT(e.what(), HasSubstr("--format"));
  }
  EXPECT_THROW(format_for_file("noext", std::nullopt), usage_error);
}

// ---- --line -------------------------------------------------------------------------------------

TEST(ReportLine, EveryTokenPerPhase) {
  const auto line = parse_line_template(
      "{workload}|{phase}|{samples}|{runs}|{ticks}|{time:.9f}|{frequency:.1f}|{ns_per_run}|"
      "{min:.3e}|{median:.3e}|{max:.3e}|{spread:.3e}|{verdict}|{disturbed}|{clock}|{0}|{{}}");
  run_report report = synthetic_report();
  report.results.resize(2);
  std::ostringstream out;
  print_lines(out, analyze_run(report), line);
  std::vector<std::string> lines;
  std::istringstream in(out.str());
  for (std::string l; std::getline(in, l);)
    lines.push_back(l);
  ASSERT_EQ(lines.size(), 4u);
  // 5000 ticks at 2 GHz = 2.5 us; one call.
  EXPECT_EQ(lines[0],
            "xor_loop/1000|first|1|1|5 000|0.000002500|400000.0|2500.00|2.500e-06|2.500e-06|"
            "2.500e-06|0.000e+00|n/a|0|fake|1|{}");
  // 12 samples of 1 call, 12007 ticks in all.
  EXPECT_THAT(lines[2], HasSubstr("xor_loop/1000|prepared|12|12|12 007|"));
  // min 1000, median 1000, max 1003 ticks, spread 3 ticks.
  EXPECT_THAT(lines[2], HasSubstr("|5.000e-07|5.000e-07|5.015e-07|1.500e-09|"));
  EXPECT_THAT(lines[2], HasSubstr("|1|fake|12|{}"));
  // Batched: runs = 5 samples x 64 calls; ticks = 64 x (12.5 + 12.25 + 12.75 + 12.5 + 13).
  EXPECT_THAT(lines[3], HasSubstr("memcpy_bytes/64|prepared|5|320|4 032|"));
}

TEST(ReportLine, TheFloorAndWhetherItIsConfirmed) {
  const auto line = parse_line_template("{workload} {phase}: {confirmed} {floor} {floor:.3e}");
  run_report report = synthetic_report();
  report.results.resize(2);
  report.results[0].prepared->floor->confirmed = true;
  std::ostringstream out;
  print_lines(out, analyze_run(report), line);
  EXPECT_EQ(out.str(),
            "xor_loop/1000 first: n/a n/a n/a\n"
            "xor_loop/1000 baseline: no 500 ns 5.000e-07\n"
            "xor_loop/1000 prepared: yes 500 ns 5.000e-07\n"
            "memcpy_bytes/64 prepared: no 6.12 ns 6.125e-09\n");
}

// A workload that failed gets a line of its own: the stage as its phase, verdict "failed", every
// figure n/a.
TEST(ReportLine, AFailedWorkloadGetsALine) {
  const auto line = parse_line_template("{workload} {phase}: {verdict} {min} {samples} {clock}");
  std::ostringstream out;
  print_lines(out, analyze_run(synthetic_report()), line);
  EXPECT_THAT(out.str(), HasSubstr("throws/3 first: n/a 400 ns 1 fake\n"
                                   "throws/3 baseline: failed n/a n/a fake\n"));
}

TEST(ReportLine, HumanUnitsAndBadTemplate) {
  const auto line = parse_line_template("{workload} {phase}: min {min}, {per_run}");
  run_report report = synthetic_report();
  report.results.resize(1);
  report.results[0].baseline.reset();
  report.results[0].prepared.reset();
  std::ostringstream out;
  print_lines(out, analyze_run(report), line);
  EXPECT_EQ(out.str(), "xor_loop/1000 first: min 2.50 µs, 2.50 µs\n");
  try {
    parse_line_template("{workload} {nope}");
    FAIL() << "unknown token accepted";
  } catch (const usage_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("{workload} {nope}"));
    EXPECT_THAT(e.what(), HasSubstr("{median}"));
  }
}

// ---- compare reads what the JSON report writes ------------------------------------------------

TEST(CompareReadsJsonReports, PreparedSamplesAndFactsSurviveTheRoundTrip) {
  const run_report report = synthetic_report();
  std::ostringstream json_text;
  write_report(json_text, analyze_run(report), report_format::json, console_style{});
  const compare::run_file run = compare::parse_run(json_text.str(), "synthetic.json");
  EXPECT_EQ(run.clock, "fake");
  EXPECT_DOUBLE_EQ(run.ticks_per_second, 2e9);
  EXPECT_DOUBLE_EQ(run.step_ticks, 20);
  EXPECT_DOUBLE_EQ(run.slowdown_factor, 1.3);
  EXPECT_EQ(run.date, "2024-05-01T12:00:00+02:00");
  ASSERT_EQ(run.workloads.size(), 3u);
  const compare::workload_run& xor_loop = run.workloads[0];
  EXPECT_EQ(xor_loop.name, "xor_loop/1000");
  EXPECT_EQ(xor_loop.values, report.results[0].prepared->values);
  EXPECT_EQ(xor_loop.batch, 1u);
  EXPECT_EQ(xor_loop.reference_best, 3000u);
  EXPECT_EQ(xor_loop.verdict, "stable");
  EXPECT_EQ(run.workloads[1].name, "memcpy_bytes/64");
  EXPECT_EQ(run.workloads[1].batch, 64u);
  EXPECT_EQ(run.workloads[1].values, report.results[1].prepared->values);
}

// ---- progress -----------------------------------------------------------------------------------

TEST(Progress, RewritesOneLineAndLogMessagesClearIt) {
  std::ostringstream terminal;
  std::ostringstream logs;
  auto next = std::make_shared<spdlog::sinks::ostream_sink_mt>(logs);
  next->set_pattern("%l: %v");
  auto sink = std::make_shared<progress_sink>(next, terminal, true, 30);
  spdlog::logger test_log("t", sink);
  test_log.set_level(spdlog::level::warn);
  sink->set_position(1, 2);
  // A stage begins: the runner says so on the progress channel, not on the log.
  sink->show(progress_text({.workload = "xor_loop", .stage = "prepared samples"}));
  // Cut to 29 columns: one is kept free so the line never wraps.
  EXPECT_EQ(terminal.str(), "\r\x1b[K[1/2] xor_loop: prepared samp");
  test_log.info("below the log level: neither logged nor clearing the line");
  EXPECT_EQ(logs.str(), "");
  test_log.warn("cannot raise priority");
  // spdlog ends a line with the platform's end of line ("\r\n" on Windows).
  EXPECT_EQ(logs.str(),
            std::string("warning: cannot raise priority") + spdlog::details::os::default_eol);
  EXPECT_THAT(terminal.str(), ::testing::EndsWith("\r\x1b[K"));
  const std::string before = terminal.str();
  sink->clear();  // nothing shown: nothing to clear
  EXPECT_EQ(terminal.str(), before);
}

TEST(Progress, ShowRewritesTheLineWithTheRunnersProgress) {
  std::ostringstream terminal;
  auto next = std::make_shared<spdlog::sinks::ostream_sink_mt>(terminal);
  progress_sink sink(next, terminal, true, 0);
  sink.set_position(2, 3);
  sink.show(progress_text({"xor_loop", "prepared samples", 120, 1000, 0.5, 0.0}));
  EXPECT_EQ(terminal.str(), "\r\x1b[K[2/3] xor_loop: prepared samples 120/1000 ...");
  terminal.str("");
  sink.show(progress_text({"xor_loop", "warmup", 55, 0, 0.5, 1.2}));
  EXPECT_EQ(terminal.str(), "\r\x1b[K[2/3] xor_loop: warmup 500 ms of 1.20 s ...");
  EXPECT_EQ(progress_text({"w", "prepared samples", 1520, 0, 3.2, 10.0}),
            "w: prepared samples 1520 (3.20 s of at most 10.0 s)");
  EXPECT_EQ(progress_text({"w", "prepared samples", 7, 0, 0.1, 0.0}), "w: prepared samples 7");
  EXPECT_EQ(progress_text({.workload = "w", .stage = "cold first call"}), "w: cold first call");
  progress_sink off(next, terminal, false, 0);
  terminal.str("");
  off.show("anything");
  EXPECT_EQ(terminal.str(), "");
}

TEST(Progress, OffATerminalLogMessagesStillPass) {
  std::ostringstream terminal;
  std::ostringstream logs;
  auto next = std::make_shared<spdlog::sinks::ostream_sink_mt>(logs);
  next->set_pattern("%l: %v");
  auto sink = std::make_shared<progress_sink>(next, terminal, false, 0);
  spdlog::logger test_log("t", sink);
  test_log.set_level(spdlog::level::info);  // --log-level info
  sink->show("xor_loop: prepared samples");
  test_log.info("xor_loop: prepared samples");
  sink->clear();
  EXPECT_EQ(terminal.str(), "");
  EXPECT_EQ(logs.str(),
            std::string("info: xor_loop: prepared samples") + spdlog::details::os::default_eol);
}

}  // namespace
}  // namespace harness
