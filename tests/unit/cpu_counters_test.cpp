// The CPU counters (issue 30): a count between two readings, exact or scaled when multiplexed;
// the sampler's reads around each sample through the fake OS, per call at the floor and median
// samples; every refusal reported; the pin's check; --counters' list; the writers' fields.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <sstream>

#include "cli/run_flags.hpp"
#include "fakes.hpp"
#include "harness/analysis.hpp"
#include "harness/errors.hpp"
#include "report/counters.hpp"

namespace harness {
namespace {

using testing::exact_options;
using testing::facts_of;
using testing::fake_os;
using testing::stepping_clock;

TEST(CountBetween, IsExactWhenTheCounterRanAllTheTime) {
  const auto c = count_between({100, 1000, 1000}, {350, 2000, 2000});
  ASSERT_TRUE(c);
  EXPECT_EQ(c->value, 250);
  EXPECT_FALSE(c->scaled);
}

TEST(CountBetween, ScalesAndFlagsAMultiplexedReading) {
  // Enabled 1000 ns, running 250 ns of them: 300 counted stands for 1200.
  const auto c = count_between({0, 0, 0}, {300, 1000, 250});
  ASSERT_TRUE(c);
  EXPECT_EQ(c->value, 1200);
  EXPECT_TRUE(c->scaled);
}

TEST(CountBetween, GivesNothingWhenTheCounterNeverRan) {
  EXPECT_FALSE(count_between({5, 100, 40}, {5, 900, 40}));
}

// A workload of `cost` ticks a call on the stepping clock.
workload costly(const stepping_clock& clock, std::uint64_t cost) {
  return testing::make_workload("costly", [&clock, cost] { clock.advance(cost); });
}

// Read n gives page faults 40 n and task-clock 1000 n, always running; instructions 3000 n with
// enabled 200 n but running 100 n (multiplexed half the time); cpu-migrations 0.
counter_snapshot scripted(std::size_t n) {
  counter_snapshot s{};
  const auto u = static_cast<std::uint64_t>(n);
  s[index_of(cpu_counter::page_faults)] = {40 * u, 10 * u, 10 * u};
  s[index_of(cpu_counter::task_clock)] = {1000 * u, 10 * u, 10 * u};
  s[index_of(cpu_counter::cpu_migrations)] = {0, 10 * u, 10 * u};
  s[index_of(cpu_counter::instructions)] = {3000 * u, 200 * u, 100 * u};
  s[index_of(cpu_counter::cycles)] = {1500 * u, 200 * u, 100 * u};
  return s;
}

workload_result run_counted(fake_os& os, std::uint64_t batch) {
  stepping_clock clock(1);
  workload w = costly(clock, 100);
  run_options options = exact_options(6);
  options.batch = batch;
  options.cpu = 1;
  options.counters = {cpu_counter::task_clock,     cpu_counter::page_faults,
                      cpu_counter::cpu_migrations, cpu_counter::cycles,
                      cpu_counter::instructions,   cpu_counter::branches};
  os.offer_counters = true;
  os.refuse_counter = {{cpu_counter::branches, ENOENT}};
  os.counter_reading = scripted;
  return run_workload({&w, std::nullopt}, options, facts_of(clock), os);
}

TEST(SampleCounters, ReadsEachSampleAndGivesExactCountsPerCall) {
  fake_os os;
  const workload_result r = run_counted(os, 4);
  ASSERT_FALSE(r.failed());
  ASSERT_TRUE(r.prepared);
  // Every counter asked for has a status, the refused one with its reason.
  ASSERT_EQ(r.counters.size(), 6u);
  EXPECT_FALSE(r.counters[5].available);
  EXPECT_EQ(r.counters[5].error_code, ENOENT);
  EXPECT_FALSE(r.counters[5].reason.empty());
  // The phase keeps the five that opened, one count per sample.
  const phase_result& p = *r.prepared;
  ASSERT_EQ(p.counters.size(), 5u);
  for (const counter_series& s : p.counters)
    ASSERT_EQ(s.counts.size(), p.values.size());
  const phase_counters c = counters_of(p, 0);
  const counter_figure* faults = c.find(cpu_counter::page_faults);
  ASSERT_NE(faults, nullptr);
  // Two reads a sample, one after the other: 40 a sample, over 4 calls.
  EXPECT_EQ(faults->at_floor, 10.0);
  EXPECT_EQ(faults->at_median, 10.0);
  EXPECT_FALSE(faults->scaled_at_floor);
  EXPECT_EQ(faults->scaled_samples, 0u);
  EXPECT_EQ(c.find(cpu_counter::task_clock)->at_floor, 250.0);
  // Over the whole phase: the reads between its first and its last, none running short.
  ASSERT_TRUE(faults->phase_total);
  EXPECT_GT(*faults->phase_total, 40.0 * static_cast<double>(p.values.size()));
  EXPECT_EQ(c.find(cpu_counter::cpu_migrations)->phase_total, 0.0);
  // The first call has its one sample counted too.
  ASSERT_TRUE(r.first);
  ASSERT_EQ(r.first->counters.size(), 5u);
  EXPECT_EQ(counters_of(*r.first, 0).find(cpu_counter::page_faults)->at_floor, 40.0);
}

TEST(SampleCounters, ScalesAndFlagsMultiplexedSamples) {
  fake_os os;
  const workload_result r = run_counted(os, 4);
  const phase_counters c = counters_of(*r.prepared, 0);
  const counter_figure* instructions = c.find(cpu_counter::instructions);
  ASSERT_NE(instructions, nullptr);
  // 3000 counted while running half the enabled time: 6000 a sample, 1500 a call.
  EXPECT_EQ(instructions->at_floor, 1500.0);
  EXPECT_TRUE(instructions->scaled_at_floor);
  EXPECT_TRUE(instructions->scaled_at_median);
  EXPECT_EQ(instructions->scaled_samples, r.prepared->values.size());
  EXPECT_TRUE(instructions->phase_total_scaled);
  // IPC from the scaled counts: 3000 / 1500.
  ASSERT_TRUE(c.ipc_at_floor);
  EXPECT_DOUBLE_EQ(*c.ipc_at_floor, 2.0);
}

TEST(SampleCounters, AFailedReadLeavesTheSampleUncountedNotZero) {
  fake_os os;
  os.read_fails = [](std::size_t n) { return n > 0; };  // every read after the first
  const workload_result r = run_counted(os, 1);
  ASSERT_TRUE(r.prepared);
  for (const counter_series& s : r.prepared->counters) {
    for (const double v : s.counts)
      EXPECT_TRUE(std::isnan(v)) << id_of(s.counter);
  }
  EXPECT_FALSE(counters_of(*r.prepared, 0).figures.front().at_floor);
}

TEST(SampleCounters, NoneAskedForReadsNothing) {
  fake_os os;
  os.offer_counters = true;
  os.counter_reading = scripted;
  stepping_clock clock(1);
  workload w = costly(clock, 100);
  run_options options = exact_options(4);
  options.counters.clear();
  const workload_result r = run_workload({&w, std::nullopt}, options, facts_of(clock), os);
  EXPECT_EQ(os.reads, 0u);
  EXPECT_TRUE(r.counters.empty());
  EXPECT_TRUE(r.prepared->counters.empty());
}

TEST(SampleCounters, MedianSampleIsTheOneAtTheMediansRank) {
  phase_result p;
  p.batch = 2;
  p.values = {5, 3, 9, 4};  // sorted: 3 (#1), 4 (#3), 5 (#0), 9 (#2); the lower middle is #3
  p.counters.push_back({cpu_counter::page_faults,
                        {10, 20, 30, 40},
                        {false, true, false, false},
                        std::nullopt,
                        false});
  const phase_counters c = counters_of(p, 1);
  EXPECT_EQ(c.median_index, 3u);
  EXPECT_EQ(c.figures[0].at_floor, 10.0);  // sample #1: 20 over 2 calls
  EXPECT_TRUE(c.figures[0].scaled_at_floor);
  EXPECT_EQ(c.figures[0].at_median, 20.0);  // sample #3: 40 over 2 calls
  EXPECT_EQ(c.figures[0].scaled_samples, 1u);
}

// ---- the pin's check ----------------------------------------------------------------------------

// A counted run of 4 calls a sample, analysed as the writers get it (the model points into it).
struct analysed_counted_run {
  fake_os os;
  stepping_clock clock{1};
  run_report run;
  report_model model;
  analysed_counted_run() {
    run.clock = facts_of(clock);
    run.results.push_back(run_counted(os, 4));
    model = analyze_run(run);
  }
  analysed_counted_run(const analysed_counted_run&) = delete;
  analysed_counted_run& operator=(const analysed_counted_run&) = delete;
  const workload_analysis& workload() const { return model.workloads.front(); }
};

TEST(PinCheck, ZeroMigrationsWhilePinnedIsSaid) {
  const analysed_counted_run counted;
  const workload_analysis& w = counted.workload();
  ASSERT_TRUE(w.pinned);
  ASSERT_EQ(w.prepared_migrations, 0.0);
  EXPECT_NE(report_detail::pin_check_text(w).find("the pin held"), std::string::npos);
}

TEST(PinCheck, MigrationsWhilePinnedFlagTheWorkload) {
  fake_os os;
  os.counter_reading = [](std::size_t n) {
    counter_snapshot s = scripted(n);
    s[index_of(cpu_counter::cpu_migrations)].value = n;  // one migration between reads
    return s;
  };
  stepping_clock clock(1);
  workload w = costly(clock, 100);
  run_options options = exact_options(6);
  options.cpu = 1;
  options.counters = {cpu_counter::cpu_migrations};
  os.offer_counters = true;
  run_report run;
  run.clock = facts_of(clock);
  run.results.push_back(run_workload({&w, std::nullopt}, options, facts_of(clock), os));
  const report_model model = analyze_run(run);
  const workload_analysis& a = model.workloads.front();
  ASSERT_TRUE(a.prepared_migrations);
  EXPECT_GT(*a.prepared_migrations, 0);
  EXPECT_FALSE(a.trust.ok);
  EXPECT_NE(a.trust.text.find("the pin did not hold"), std::string::npos) << a.trust.text;
  EXPECT_NE(report_detail::pin_check_text(a).find("did NOT hold"), std::string::npos);
}

// ---- --counters
// -----------------------------------------------------------------------------------

TEST(CountersFlag, TakesNamesGroupsAndNone) {
  EXPECT_TRUE(cli::parse_counters("none").empty());
  EXPECT_EQ(cli::parse_counters("default").size(), kCpuCounterCount);
  EXPECT_EQ(cli::parse_counters("software").size(), 6u);
  EXPECT_EQ(cli::parse_counters("hardware").front(), cpu_counter::cycles);
  EXPECT_EQ(cli::parse_counters("task-clock,page-faults"),
            (std::vector<cpu_counter>{cpu_counter::task_clock, cpu_counter::page_faults}));
}

TEST(CountersFlag, RefusesAnUnknownOrRepeatedName) {
  for (const char* bad : {"task_clock", "cycles,", "cycles,cycles", ""}) {
    try {
      (void)cli::parse_counters(bad);
      ADD_FAILURE() << bad;
    } catch (const usage_error& e) {
      EXPECT_NE(std::string(e.what()).find("--counters"), std::string::npos) << e.what();
    }
  }
}

// ---- the writers' fields ------------------------------------------------------------------------

TEST(CounterWriters, JsonCarriesStatusesFiguresAndUserCounters) {
  const analysed_counted_run counted;
  const workload_analysis& w = counted.workload();
  const nlohmann::ordered_json status = report_detail::counters_json(w);
  EXPECT_EQ(status["requested"], 6);
  EXPECT_EQ(status["status"][5]["name"], "branches");
  EXPECT_EQ(status["status"][5]["available"], false);
  EXPECT_EQ(status["status"][5]["error_code"], ENOENT);
  EXPECT_EQ(status["pin_check"]["held"], true);
  const phase_analysis* p = w.find(phase_kind::prepared);
  const nlohmann::ordered_json figures = report_detail::phase_counters_json(*p);
  EXPECT_EQ(figures["per_call"]["page-faults"]["at_floor"], 10.0);
  EXPECT_EQ(figures["per_call"]["instructions"]["scaled_at_floor"], true);
  nlohmann::ordered_json row;
  report_detail::add_aggregate_counters(row, *p, "min");
  EXPECT_EQ(row["page-faults"], 10.0);
  EXPECT_EQ(row["IPC"], 2.0);
  nlohmann::ordered_json sample;
  report_detail::add_sample_counters(sample, *p->phase, 0);
  EXPECT_EQ(sample["task-clock"], 250.0);
  // The short console's line: per call at the min, what is missing; what does not fit is left
  // out, the hardware's counts first kept.
  const std::string text = report_detail::short_counters_text(w, 200);
  EXPECT_EQ(text,
            "a call at the min: 1500* instructions, 750* cycles, IPC 2.00, 250 ns task-clock, 10 "
            "page-faults; 1 not available (ENOENT)");
  EXPECT_EQ(report_detail::short_counters_text(w, 61),
            "a call at the min: 1500* instructions, 750* cycles, IPC 2.00");
  EXPECT_EQ(report_detail::short_pin_text(w), "held: 0 cpu-migrations; baseline 0");
}

}  // namespace
}  // namespace harness
