// Workloads as users write them (issue 16): setups outside every timed region (with_setup once per
// argument, with_fresh_input before each sample), the state reaching the call without globals,
// teardown after the last call, and what a call processes (items and bytes per call) turned into
// time per iteration, items/s and bytes/s in every report.
//
// The setups and input makers advance the fake clock by a million ticks: any of that inside a
// timed region would show in the samples, which must hold the call's own 100 ticks alone.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "fakes.hpp"
#include "harness/analysis.hpp"
#include "harness/format_template.hpp"
#include "harness/report.hpp"
#include "harness/report_line.hpp"
#include "harness/runner.hpp"

namespace harness {
namespace {

using ::testing::Each;
using ::testing::ElementsAre;
using testing::exact_options;
using testing::facts_of;
using testing::fake_os;
using ::testing::HasSubstr;
using testing::stepping_clock;

constexpr std::uint64_t kSetupTicks = 1'000'000;
constexpr std::uint64_t kCallTicks = 100;

// ---- with_setup ------------------------------------------------------------------------------

struct table {
  std::map<std::int64_t, std::int64_t> entries;
  int lookups = 0;
};

TEST(WithSetup, TheStateIsBuiltOncePerArgumentOutsideEveryTimedRegion) {
  fake_os os;
  stepping_clock clock(1);
  int setups = 0;
  int teardowns = 0;
  std::vector<int> lookups_at_teardown;
  const workload w = make_workload(
      "map_lookup", with_setup(
                        [&](std::int64_t n) {
                          ++setups;
                          clock.advance(kSetupTicks);
                          table t;
                          for (std::int64_t i = 0; i < n; ++i)
                            t.entries[i] = i;
                          return t;
                        },
                        [&](table& t, std::int64_t n) {
                          ++t.lookups;
                          clock.advance(kCallTicks);
                          return static_cast<std::int64_t>(t.entries.size()) == n ? 1 : 0;
                        },
                        [&](table& t) {
                          ++teardowns;
                          lookups_at_teardown.push_back(t.lookups);
                          clock.advance(kSetupTicks);
                        }));
  EXPECT_EQ(w.setup(), workload::setup_kind::per_argument);
  EXPECT_TRUE(w.takes_arg());
  EXPECT_TRUE(w.returns_count());

  const workload_result r = run_workload({&w, 1000}, exact_options(3), facts_of(clock), os);
  ASSERT_FALSE(r.failed()) << r.failure->what();
  EXPECT_EQ(r.setup, workload::setup_kind::per_argument);
  EXPECT_EQ(setups, 1);
  EXPECT_EQ(teardowns, 1);
  // The setup's time is measured and reported apart: its million ticks, and the clock's reads.
  EXPECT_GE(r.setup_seconds, 1e-3);
  EXPECT_LT(r.setup_seconds, 1.1e-3);
  // The first call, the three baseline and the three prepared samples used the one state.
  EXPECT_THAT(lookups_at_teardown, ElementsAre(7));
  // The state built from the argument reached every call: each found 1000 entries.
  EXPECT_EQ(r.iterations_per_call, 1u);
  // Not a tick of the setup is in the first call or any sample.
  EXPECT_THAT(r.first->values, ElementsAre(100.0));
  EXPECT_THAT(r.baseline->values, Each(100.0));
  EXPECT_THAT(r.prepared->values, Each(100.0));
}

TEST(WithSetup, EachArgumentGetsItsOwnState) {
  fake_os os;
  stepping_clock clock(1);
  std::vector<std::int64_t> built;
  const workload w = make_workload("sized", with_setup(
                                                [&](std::int64_t n) {
                                                  built.push_back(n);
                                                  return std::vector<int>(static_cast<size_t>(n));
                                                },
                                                [&](const std::vector<int>& v) {
                                                  clock.advance(kCallTicks);
                                                  return v.size();
                                                }));
  const workload_result a = run_workload({&w, 10}, exact_options(2), facts_of(clock), os);
  const workload_result b = run_workload({&w, 20}, exact_options(2), facts_of(clock), os);
  EXPECT_THAT(built, ElementsAre(10, 20));
  EXPECT_EQ(a.iterations_per_call, 10u);
  EXPECT_EQ(b.iterations_per_call, 20u);
}

TEST(WithSetup, ASetupThatTakesNoArgumentAndAWorkloadThatTakesOne) {
  const workload w = make_workload(
      "x", with_setup([] { return 3; }, [](int& s, std::int64_t n) { return s * n; }));
  EXPECT_TRUE(w.takes_arg());
  EXPECT_EQ(w.run(5, 2), 30u);
  const workload none = make_workload("y", with_setup([] { return 3; }, [](int& s) { ++s; }));
  EXPECT_FALSE(none.takes_arg());
  EXPECT_FALSE(none.returns_count());
}

TEST(WithSetup, ASetupThatThrowsFailsTheWorkloadInTheSetupStageBeforeAnyCall) {
  fake_os os;
  stepping_clock clock(1);
  int calls = 0;
  const workload w = make_workload(
      "bad_setup",
      with_setup([](std::int64_t) -> int { throw std::runtime_error("no memory for the map"); },
                 [&](int&) { ++calls; }));
  const workload_result r = run_workload({&w, 1}, exact_options(3), facts_of(clock), os);
  ASSERT_TRUE(r.failed());
  EXPECT_EQ(r.failure->stage, run_stage::setup);
  EXPECT_EQ(r.failure->where(), "the setup");
  EXPECT_EQ(r.failure->what(), "threw: no memory for the map");
  EXPECT_EQ(calls, 0);
  EXPECT_FALSE(r.first.has_value());
}

TEST(WithSetup, ATeardownThatThrowsFailsTheWorkloadAfterItsPhasesAndKeepsThem) {
  fake_os os;
  stepping_clock clock(1);
  const workload w = make_workload(
      "bad_teardown", with_setup([] { return 0; }, [&](int&) { clock.advance(kCallTicks); },
                                 [](int&) { throw std::runtime_error("cannot close"); }));
  run_options options = exact_options(3);
  options.cpu = 1;
  const workload_result r = run_workload({&w, std::nullopt}, options, facts_of(clock), os);
  ASSERT_TRUE(r.failed());
  EXPECT_EQ(r.failure->stage, run_stage::teardown);
  EXPECT_EQ(r.failure->where(), "the teardown");
  ASSERT_TRUE(r.prepared.has_value());
  EXPECT_THAT(r.prepared->values, Each(100.0));
  // Preparation was still undone.
  EXPECT_EQ(os.allowed, (platform::cpu_list{0, 1, 2, 3}));
}

TEST(WithSetup, TheTeardownRunsAfterAWorkloadThatThrew) {
  fake_os os;
  stepping_clock clock(1);
  int teardowns = 0;
  int calls = 0;
  const workload w = make_workload("throws", with_setup([] { return 0; },
                                                        [&](int&) {
                                                          if (++calls == 3)
                                                            throw std::runtime_error("boom");
                                                        },
                                                        [&](int&) { ++teardowns; }));
  const workload_result r = run_workload({&w, std::nullopt}, exact_options(3), facts_of(clock), os);
  ASSERT_TRUE(r.failed());
  EXPECT_EQ(r.failure->stage, run_stage::baseline);
  EXPECT_EQ(teardowns, 1);
}

// ---- with_fresh_input ------------------------------------------------------------------------

TEST(WithFreshInput, EveryCallGetsAnInputOfItsOwnMadeOutsideTheTimedRegion) {
  fake_os os;
  stepping_clock clock(1);
  int made = 0;
  std::set<int> consumed;
  int reused = 0;
  const workload w = make_workload(
      "sort_fresh", with_fresh_input(
                        [&](std::int64_t n) {
                          clock.advance(kSetupTicks);
                          return std::vector<int>(static_cast<std::size_t>(n), ++made);
                        },
                        [&](std::vector<int>& v) {
                          clock.advance(kCallTicks);
                          if (v.empty() || !consumed.insert(v[0]).second) ++reused;
                          v.clear();  // consumed
                          return std::int64_t{1};
                        }));
  EXPECT_EQ(w.setup(), workload::setup_kind::per_call);
  run_options options = exact_options(3);
  options.batch = 4;  // four calls per sample: four inputs made before each
  const workload_result r = run_workload({&w, 8}, options, facts_of(clock), os);
  ASSERT_FALSE(r.failed()) << r.failure->what();
  EXPECT_EQ(r.setup, workload::setup_kind::per_call);
  // The first call (1) and 3 + 3 samples of 4 calls: one input each, never one twice.
  EXPECT_EQ(made, 1 + 6 * 4);
  EXPECT_EQ(static_cast<int>(consumed.size()), made);
  EXPECT_EQ(reused, 0);
  EXPECT_THAT(r.first->values, ElementsAre(100.0));
  EXPECT_THAT(r.baseline->values, Each(100.0));
  EXPECT_THAT(r.prepared->values, Each(100.0));
}

TEST(WithFreshInput, AMakerThatThrowsIsTheWorkloadsFailureSaidAsSuch) {
  fake_os os;
  stepping_clock clock(1);
  int made = 0;
  const workload w = make_workload("bad_maker", with_fresh_input(
                                                    [&] {
                                                      if (++made == 3)
                                                        throw std::runtime_error("out of input");
                                                      return 0;
                                                    },
                                                    [](int&) {}));
  const workload_result r = run_workload({&w, std::nullopt}, exact_options(3), facts_of(clock), os);
  ASSERT_TRUE(r.failed());
  EXPECT_EQ(r.failure->stage, run_stage::baseline);
  EXPECT_EQ(r.failure->sample, 2u);
  EXPECT_TRUE(r.failure->making_input);
  EXPECT_EQ(r.failure->what(), "its fresh input's maker threw: out of input");
}

// Asking for a sample its inputs were not made for is the sampler's bug: a failed check, never an
// exception the sampler would hand on as the workload's (docs/errors.md).
TEST(WithFreshInput, ASessionNeverHandsOutAConsumedInput) {
  const workload w = make_workload("once", with_fresh_input([] { return 1; }, [](int&) {}));
  const auto session = w.start(0);
  session->before_sample(2);
  EXPECT_EQ(session->run(2), 0u);
  EXPECT_DEATH(session->run(1),
               "check failed: fresh && reps <= made: a with_fresh_input session was asked for 1 "
               "call with no fresh input made since its last sample");
  session->before_sample(1);
  EXPECT_DEATH(session->run(2), "check failed: .*asked for 2 calls with 1 input made for it");
}

// ---- items, bytes, iterations ----------------------------------------------------------------

TEST(Throughput, ItemsAndBytesPerCallAreNumbersOrFunctionsOfTheArgument) {
  workload w = make_workload("copy", [](std::int64_t n) { return n; });
  EXPECT_FALSE(w.items_for(5).has_value());
  w.items_per_call(1000).bytes_per_call([](std::int64_t n) { return 8 * n; });
  EXPECT_EQ(w.items_for(5), 1000.0);
  EXPECT_EQ(w.bytes_for(5), 40.0);

  fake_os os;
  stepping_clock clock(1);
  const workload_result r = run_workload({&w, 3}, exact_options(2), facts_of(clock), os);
  EXPECT_EQ(r.items_per_call, 1000.0);
  EXPECT_EQ(r.bytes_per_call, 24.0);
}

// A run of one phase, 1e9 ticks a second: 4 samples of 100, 100, 200 and 400 ns per call.
run_report rated_run(std::optional<double> items, std::optional<double> bytes,
                     std::uint64_t iterations) {
  static const stepping_clock clock(1);
  run_report run;
  run.clock = facts_of(clock);
  workload_result r;
  r.name = "rated";
  r.items_per_call = items;
  r.bytes_per_call = bytes;
  r.iterations_per_call = iterations;
  phase_result p;
  p.kind = phase_kind::prepared;
  p.values = {100, 100, 200, 400};
  p.host_slowdown.assign(4, false);
  r.prepared = p;
  run.results.push_back(r);
  return run;
}

TEST(Throughput, RatesAreTakenAtTheMinimumAndTheMedian) {
  const run_report run = rated_run(1000, 1 << 30, 50);
  const report_model model = analyze_run(run);
  const phase_rates& rates = model.workloads[0].phases[0].rates;
  // min 100 ns, median 150 ns.
  ASSERT_TRUE(rates.seconds_per_iteration && rates.items_per_second && rates.bytes_per_second);
  EXPECT_DOUBLE_EQ(rates.seconds_per_iteration->at_min, 2e-9);
  EXPECT_DOUBLE_EQ(rates.seconds_per_iteration->at_median, 3e-9);
  EXPECT_DOUBLE_EQ(rates.items_per_second->at_min, 1e10);
  EXPECT_DOUBLE_EQ(rates.bytes_per_second->at_median, (1 << 30) / 150e-9);
}

TEST(Throughput, NothingIsDerivedThatWasNotReportedOrDeclared) {
  const report_model model = analyze_run(rated_run(std::nullopt, std::nullopt, 0));
  const phase_rates& rates = model.workloads[0].phases[0].rates;
  EXPECT_FALSE(rates.seconds_per_iteration || rates.items_per_second || rates.bytes_per_second);
}

TEST(Throughput, TheConsoleShowsTheRatesAndTheSummaryTheirColumns) {
  run_report run = rated_run(1000, 1 << 30, 50);
  run.detail = true;
  std::ostringstream out;
  print_console_report(out, analyze_run(run));
  const std::string text = out.str();
  EXPECT_THAT(text, HasSubstr("per iteration (50 per call, as the workload returned): 2.000 ns at "
                              "the minimum, 3.000 ns at the median"));
  // 1000 items in 100 ns; 1 GiB in 100 ns.
  EXPECT_THAT(text, HasSubstr("throughput (1000 items per call, as declared): 10.00 G items/s at "
                              "the minimum, 6.667 G items/s at the median"));
  EXPECT_THAT(text, HasSubstr("throughput (1073741824 bytes per call, as declared): 9.537 PiB/s "
                              "at the minimum"));
  EXPECT_THAT(text, HasSubstr("time/iter"));
  EXPECT_THAT(text, HasSubstr("items/s"));
  EXPECT_THAT(text, HasSubstr("10.00 G items/s"));
}

TEST(Throughput, JsonRowsCarryGoogleBenchmarksCounters) {
  const run_report run = rated_run(std::nullopt, 64, 0);
  std::ostringstream out;
  write_json_report(out, analyze_run(run));
  const std::string json = out.str();
  // 64 bytes in 100 ns, each sample a row; the min row too; the mean row has none.
  EXPECT_THAT(json, HasSubstr("\"bytes_per_second\": 640000000.0"));
  EXPECT_THAT(json, HasSubstr("\"bytes_per_call\": 64.0"));
  EXPECT_THAT(json, ::testing::Not(HasSubstr("items_per_second\": 6")));
}

TEST(Throughput, LineTokensArePlainWithASpec) {
  const run_report run = rated_run(1000, 64, 50);
  const format_template line = parse_line_template(
      "{iterations} {per_iteration} {ns_per_iteration} {items_per_second} {bytes_per_second} "
      "{items_per_second:.0f} {bytes_per_second:.0f}");
  std::ostringstream out;
  print_lines(out, analyze_run(run), line);
  // 4 calls of 50 iterations in 800 ns: 4 ns per iteration; 4000 items and 256 bytes in 800 ns.
  EXPECT_EQ(out.str(), "200 4.00 ns 4.00 5.000 G items/s 305.2 MiB/s 5000000000 320000000\n");
}

TEST(Throughput, LineTokensAreNotAvailableWhenNothingWasDeclared) {
  const run_report run = rated_run(std::nullopt, std::nullopt, 0);
  const format_template line =
      parse_line_template("{iterations} {per_iteration} {items_per_second} {bytes_per_second}");
  std::ostringstream out;
  print_lines(out, analyze_run(run), line);
  EXPECT_EQ(out.str(), "n/a n/a n/a n/a\n");
}

TEST(Throughput, RatesReadAsPeopleReadThem) {
  EXPECT_EQ(human_text(87.08 * (1ull << 30), human_style::byte_rate), "87.08 GiB/s");
  EXPECT_EQ(human_text(512, human_style::byte_rate), "512.0 B/s");
  EXPECT_EQ(human_text(1023.99 * 1024, human_style::byte_rate), "1.000 MiB/s");
  EXPECT_EQ(human_text(12.345e6, human_style::item_rate), "12.35 M items/s");
  EXPECT_EQ(human_text(999.96e3, human_style::item_rate), "1.000 M items/s");
  EXPECT_EQ(human_text(5, human_style::item_rate), "5.000 items/s");
}

}  // namespace
}  // namespace harness
