// The preparation sequence against a fake OS layer: what is applied, refused, read back and
// restored, also when the workload throws.
#include "harness/preparation.hpp"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <csignal>
#include <stdexcept>

#include "fakes.hpp"
#include "harness/runner.hpp"
#include "harness/statistics.hpp"

namespace harness {
namespace {

using ::testing::ElementsAre;
using testing::exact_options;
using testing::facts_of;
using testing::fake_os;
using testing::stepping_clock;

TEST(Preparation, AppliesReadsBackAndRestores) {
  fake_os os;
  {
    preparation prep(os);
    prep.apply({2, platform::priority_level::high});
    EXPECT_EQ(os.allowed, platform::cpu_list{2});
    EXPECT_EQ(os.nice, -20);
    EXPECT_TRUE(prep.report().all_applied());
    EXPECT_EQ(prep.report().affinity_before, (platform::cpu_list{0, 1, 2, 3}));
    EXPECT_EQ(prep.report().affinity_applied, platform::cpu_list{2});
    EXPECT_EQ(prep.report().priority_before, "nice 0");
    EXPECT_EQ(prep.report().priority_applied, "nice -20");
    prep.restore();
    EXPECT_EQ(os.allowed, (platform::cpu_list{0, 1, 2, 3}));
    EXPECT_EQ(os.nice, 0);
    prep.restore();  // a second restore does nothing
  }
  EXPECT_THAT(os.calls,
              ElementsAre("affinity", "save_priority", "set_affinity 2", "raise_priority high",
                          "affinity", "restore_priority 0", "set_affinity 0-3"));
}

TEST(Preparation, RefusalsAreReportedAndNothingRefusedIsRestored) {
  fake_os os;
  os.refuse_priority = true;
  preparation prep(os);
  prep.apply({1, platform::priority_level::realtime});
  const auto refused = prep.report().refused();
  ASSERT_EQ(refused.size(), 1u);
  EXPECT_EQ(refused[0].error_code, EACCES);
  EXPECT_EQ(refused[0].reason, "Permission denied");
  EXPECT_EQ(os.allowed, platform::cpu_list{1});  // pinning still worked
  prep.restore();
  // The refused raise changed nothing, so only the affinity is put back.
  EXPECT_EQ(os.calls.back(), "set_affinity 0-3");
  EXPECT_EQ(std::count(os.calls.begin(), os.calls.end(), "restore_priority 0"), 0);
}

TEST(Preparation, NoPinAndNormalPriorityChangeNothing) {
  fake_os os;
  preparation prep(os);
  prep.apply({std::nullopt, platform::priority_level::normal});
  prep.restore();
  EXPECT_TRUE(prep.report().steps.empty());
  EXPECT_TRUE(prep.report().restore_steps.empty());
}

TEST(Preparation, DestructorRestores) {
  fake_os os;
  {
    preparation prep(os);
    prep.apply({3, platform::priority_level::high});
  }
  EXPECT_EQ(os.allowed, (platform::cpu_list{0, 1, 2, 3}));
  EXPECT_EQ(os.nice, 0);
}

TEST(RunWorkload, PhasesInOrderWithExactTicksAfterOverhead) {
  fake_os os;
  stepping_clock clock(7);
  std::vector<std::string> seen;  // OS state as each call of the workload saw it
  auto w = testing::make_workload("w", [&](std::int64_t n) {
    seen.push_back(os.allowed.size() == 1 ? "pinned" : "free");
    clock.advance(100);
    return n;
  });
  run_options options = exact_options(3);
  options.cpu = 1;
  const auto r = run_workload({&w, 5}, options, facts_of(clock), os);
  EXPECT_FALSE(r.failed());
  EXPECT_EQ(r.name, "w/5");
  ASSERT_TRUE(r.first && r.baseline && r.prepared);
  // Raw samples are 107 ticks: the workload's 100 plus one clock step, which is exactly what an
  // empty sample measures, so 100 remain after the overhead.
  EXPECT_EQ(r.first->overhead, 7u);
  EXPECT_THAT(r.first->values, ElementsAre(100.0));
  EXPECT_EQ(r.first->raw(0), 107u);
  EXPECT_THAT(r.baseline->values, ElementsAre(100.0, 100.0, 100.0));
  EXPECT_THAT(r.prepared->values, ElementsAre(100.0, 100.0, 100.0));
  EXPECT_EQ(r.prepared->overhead, 7u);
  EXPECT_EQ(r.prepared->disturbed_count(), 0u);
  EXPECT_EQ(r.iterations_per_call, 5u);
  EXPECT_THAT(seen, ElementsAre("free", "free", "free", "free", "pinned", "pinned", "pinned"));
  EXPECT_EQ(os.allowed, (platform::cpu_list{0, 1, 2, 3}));
}

TEST(RunWorkload, ShortWorkloadsAreBatchedAndReportedPerCall) {
  fake_os os;
  stepping_clock clock(7);
  auto w = testing::make_workload("tiny", [&] { clock.advance(100); });
  run_options options = exact_options(4);
  options.batch.reset();
  options.min_sample_time = std::chrono::microseconds(1);  // 1000 ticks at 1e9 ticks/s
  const auto r = run_workload({&w, std::nullopt}, options, facts_of(clock), os);
  // 100 ticks a call: one call is too short, 10 calls make 1000 ticks (the growth is capped at
  // 10x).
  EXPECT_TRUE(r.batch_calibrated);
  EXPECT_EQ(r.batch, 10u);
  EXPECT_EQ(r.min_sample_ticks, 1000u);
  ASSERT_TRUE(r.prepared);
  EXPECT_EQ(r.prepared->batch, 10u);
  EXPECT_THAT(r.prepared->values, ElementsAre(100.0, 100.0, 100.0, 100.0));
  EXPECT_EQ(r.prepared->raw(0), 1007u);
  EXPECT_EQ(r.first->batch, 1u);  // the cold call is always alone
}

TEST(RunWorkload, AWorkloadsDeclaredMinimumSampleTimeSetsItsBatchUnlessTheOptionIsGiven) {
  fake_os os;
  stepping_clock clock(1);
  auto w = testing::make_workload("varying", [&] { clock.advance(100); });
  w.min_sample_time(std::chrono::microseconds(20));  // 20000 ticks at 1e9 ticks/s
  run_options options = exact_options(2);
  options.batch.reset();
  // The default aims at 1000 steps of the clock, 1000 ticks: the workload asks for longer.
  auto r = run_workload({&w, std::nullopt}, options, facts_of(clock), os);
  EXPECT_EQ(r.min_sample_ticks, 20000u);
  EXPECT_EQ(r.min_sample_source, min_sample_origin::workload);
  // Calibration grows the batch 1, 10, 100, then aims 20% past the goal: 240 calls.
  EXPECT_EQ(r.batch, 240u);
  EXPECT_THAT(r.prepared->values, ElementsAre(100.0, 100.0));

  // --min-sample-time decides, shorter or not.
  options.min_sample_time = std::chrono::microseconds(1);
  r = run_workload({&w, std::nullopt}, options, facts_of(clock), os);
  EXPECT_EQ(r.min_sample_ticks, 1000u);
  EXPECT_EQ(r.min_sample_source, min_sample_origin::option);
  EXPECT_EQ(r.batch, 10u);

  // A declared time shorter than the default leaves the default.
  auto quick = testing::make_workload("quick", [&] { clock.advance(100); });
  quick.min_sample_time(std::chrono::nanoseconds(500));
  options.min_sample_time.reset();
  r = run_workload({&quick, std::nullopt}, options, facts_of(clock), os);
  EXPECT_EQ(r.min_sample_ticks, 1000u);
  EXPECT_EQ(r.min_sample_source, min_sample_origin::clock_steps);
  EXPECT_EQ(r.batch, 10u);
}

TEST(RunWorkload, AWorkloadsMinimumBatchRaisesTheBatchUnlessBatchIsGiven) {
  fake_os os;
  stepping_clock clock(1);
  auto w = testing::make_workload("inputs", [&] { clock.advance(100); });
  w.min_batch(50);
  run_options options = exact_options(2);
  options.batch.reset();
  // Samples of 1000 ticks need 10 calls of 100; the workload asks for 50 a sample.
  auto r = run_workload({&w, std::nullopt}, options, facts_of(clock), os);
  EXPECT_TRUE(r.batch_calibrated);
  EXPECT_EQ(r.min_sample_ticks, 1000u);
  EXPECT_EQ(r.min_batch, 50u);
  EXPECT_TRUE(r.batch_raised);
  EXPECT_EQ(r.batch, 50u);
  ASSERT_TRUE(r.prepared);
  EXPECT_EQ(r.prepared->batch, 50u);
  EXPECT_EQ(r.prepared->raw(0), 5001u);  // 50 calls of 100, and the read's step of 1
  EXPECT_THAT(r.prepared->values, ElementsAre(100.0, 100.0));

  // A call too long to calibrate (a batch of 1) is raised the same way.
  auto slow = testing::make_workload("slow", [&] { clock.advance(100'000); });
  slow.min_batch(3);
  r = run_workload({&slow, std::nullopt}, options, facts_of(clock), os);
  EXPECT_FALSE(r.batch_calibrated);
  EXPECT_TRUE(r.batch_raised);
  EXPECT_EQ(r.batch, 3u);

  // Fewer than the length asks: the length's batch stays.
  w.min_batch(5);
  r = run_workload({&w, std::nullopt}, options, facts_of(clock), os);
  EXPECT_FALSE(r.batch_raised);
  EXPECT_EQ(r.min_batch, 5u);
  EXPECT_EQ(r.batch, 10u);

  // --batch decides.
  w.min_batch(50);
  options.batch = 4;
  r = run_workload({&w, std::nullopt}, options, facts_of(clock), os);
  EXPECT_FALSE(r.batch_raised);
  EXPECT_EQ(r.batch, 4u);
}

TEST(RunWorkload, ExplicitBatchIsUsedAsGiven) {
  fake_os os;
  stepping_clock clock(1);
  auto w = testing::make_workload("tiny", [&] { clock.advance(3); });
  run_options options = exact_options(2);
  options.batch = 4;
  const auto r = run_workload({&w, std::nullopt}, options, facts_of(clock), os);
  EXPECT_FALSE(r.batch_calibrated);
  EXPECT_THAT(r.baseline->values, ElementsAre(3.0, 3.0));
}

TEST(RunWorkload, ProgressIsReportedBetweenSamplesAtMostEveryInterval) {
  fake_os os;
  stepping_clock clock(1);
  bool timing = false;  // true while the workload runs, i.e. inside a timed sample
  bool reported_while_timing = false;
  auto w = testing::make_workload("w", [&] {
    timing = true;
    clock.advance(100);
    timing = false;
  });
  std::vector<std::string> seen;
  run_options options = exact_options(3);
  options.tuning.progress_interval = std::chrono::milliseconds(0);  // report after every sample
  options.progress = [&](const sampling_progress& p) {
    reported_while_timing = reported_while_timing || timing;
    seen.push_back(fmt::format("{} {} {}/{}", p.workload, p.stage, p.done, p.total));
  };
  run_workload({&w, 2}, options, facts_of(clock), os);
  EXPECT_FALSE(reported_while_timing);
  // Each stage says when it begins (nothing counted yet), then the phases count their samples.
  EXPECT_THAT(seen, ElementsAre("w/2 cold first call 0/0", "w/2 unprepared samples 0/0",
                                "w/2 unprepared samples 1/3", "w/2 unprepared samples 2/3",
                                "w/2 unprepared samples 3/3", "w/2 warmup 0/0",
                                "w/2 prepared samples 0/0", "w/2 prepared samples 1/3",
                                "w/2 prepared samples 2/3", "w/2 prepared samples 3/3"));

  // With an interval longer than the run (whose clock moves ~1 us), only the stages are said.
  seen.clear();
  options.tuning.progress_interval = std::chrono::milliseconds(1000);
  run_workload({&w, 2}, options, facts_of(clock), os);
  EXPECT_THAT(seen, ElementsAre("w/2 cold first call 0/0", "w/2 unprepared samples 0/0",
                                "w/2 warmup 0/0", "w/2 prepared samples 0/0"));
}

TEST(RunWorkload, WarmupProgressCarriesItsBudget) {
  fake_os os;
  stepping_clock clock(1);
  auto w = testing::make_workload("w", [&] { clock.advance(250'000); });
  std::vector<sampling_progress> warmups;
  run_options options = exact_options(1);
  options.baseline = false;
  options.warmup = std::chrono::milliseconds(1);
  options.tuning.progress_interval = std::chrono::milliseconds(0);
  options.progress = [&](const sampling_progress& p) {
    if (p.stage == "warmup" && p.done > 0) warmups.push_back(p);  // not the announcement
  };
  const auto r = run_workload({&w, std::nullopt}, options, facts_of(clock), os);
  // A call is 0.25 ms of the fake clock, and the warmup's few reads a call add a few ticks: the
  // fourth call ends it, 1 ms after it began. Each call is reported (the interval is 0).
  EXPECT_EQ(r.warmup.calls, 4u);
  ASSERT_EQ(warmups.size(), 4u);
  for (std::size_t i = 0; i < warmups.size(); ++i) {
    EXPECT_EQ(warmups[i].done, i + 1);
    EXPECT_EQ(warmups[i].total, 0u);
    EXPECT_DOUBLE_EQ(warmups[i].budget_seconds, 0.001);
  }
}

TEST(RunWorkload, HostSlowdownsAreFoundByTheReferenceLoop) {
  fake_os os;
  stepping_clock clock(10);
  int calls = 0;
  auto w = testing::make_workload("w", [&] {
    ++calls;
    clock.advance(1000);
    // The host runs slow from prepared sample 3 on until sample 4 is taken (calls 2-5 of the
    // prepared phase are 1 first + 0 baseline + ...): the step doubles, as every read slows.
    if (calls == 4) clock.set_step(20);
    if (calls == 5) clock.set_step(10);
  });
  run_options options = exact_options(6);
  options.baseline = false;
  options.tuning.reference_interval = std::chrono::microseconds(0);  // a reference run per sample
  options.tuning.reference_iterations = 0;                           // ticks = one clock step
  const auto r = run_workload({&w, std::nullopt}, options, facts_of(clock), os);
  ASSERT_TRUE(r.prepared);
  const phase_result& p = *r.prepared;
  EXPECT_EQ(p.reference_every, 1u);
  EXPECT_EQ(p.reference_runs, 7u);  // one before each sample, one when the block ends
  EXPECT_EQ(p.reference_best, 10u);
  EXPECT_EQ(p.reference_worst, 20u);
  EXPECT_EQ(p.reference_slow, 1u);
  // Call 4 (prepared sample 3, index 2) made the host slow; the reference run before sample index
  // 3 saw it. That run speaks for sample 3 and, since a slow-down may start within a block, for
  // sample 2 as well.
  EXPECT_THAT(p.host_slowdown, ElementsAre(false, false, true, true, false, false));
  EXPECT_EQ(p.host_slowdown_count(), 2u);
}

TEST(RunWorkload, PreemptedSamplesAreCountedWhenLongEnough) {
  fake_os os;
  stepping_clock clock(1);
  int calls = 0;
  auto w = testing::make_workload("w", [&] {
    clock.advance(100'000);  // 100 us at 1e9 ticks/s: long enough to read switches around
    if (++calls == 3) *os.switches += 1;
  });
  run_options options = exact_options(3);
  options.baseline = false;
  const auto r = run_workload({&w, std::nullopt}, options, facts_of(clock), os);
  ASSERT_TRUE(r.prepared);
  EXPECT_THAT(r.prepared->context_switch, ElementsAre(false, true, false));
  EXPECT_EQ(r.prepared->disturbed_count(), 1u);
}

// Each sample's CPU, read after it: an unpinned phase may move (here during its third call).
TEST(RunWorkload, EachSamplesCpuIsReadAndCountedByCpu) {
  fake_os os;
  os.unpinned_cpu = 3;
  stepping_clock clock(1);
  int calls = 0;
  auto w = testing::make_workload("w", [&] {
    clock.advance(100);
    if (++calls == 3) os.unpinned_cpu = 0;
  });
  run_options options = exact_options(3);  // no --cpu: neither phase is pinned
  const auto r = run_workload({&w, std::nullopt}, options, facts_of(clock), os);
  ASSERT_TRUE(r.baseline && r.prepared);
  // The first call is call 1; the baseline's samples are calls 2-4, and the move came in call 3.
  EXPECT_THAT(r.baseline->cpu, ElementsAre(3, 0, 0));
  EXPECT_THAT(r.prepared->cpu, ElementsAre(0, 0, 0));
  phase_result p;
  p.cpu = {1, 0, 1, -1, 1};  // -1: that read failed
  EXPECT_THAT(p.samples_by_cpu(),
              ElementsAre(std::pair{0, std::size_t{1}}, std::pair{1, std::size_t{3}}));
}

TEST(RunWorkload, ShortSamplesDoNotReadSwitches) {
  fake_os os;
  stepping_clock clock(1);
  auto w = testing::make_workload("w", [&] { clock.advance(100); });  // 100 ns
  const auto r = run_workload({&w, std::nullopt}, exact_options(3), facts_of(clock), os);
  EXPECT_TRUE(r.prepared->context_switch.empty());
}

TEST(RunWorkload, AutoSamplingStopsAtTheTarget) {
  fake_os os;
  stepping_clock clock(1);
  auto w = testing::make_workload("w", [&] { clock.advance(500); });
  run_options options = exact_options(0);
  options.auto_samples = true;
  options.max_time = std::chrono::seconds(100);
  const auto r = run_workload({&w, std::nullopt}, options, facts_of(clock), os);
  ASSERT_TRUE(r.prepared);
  // Every sample is equal, so the floor is known to one clock step. The checks come at each
  // block's end (blocks of 20): at 20 samples there are too few for the rule, at 40 the target
  // is met for the first time, at 60 for the second time in a row, with three blocks agreeing.
  EXPECT_EQ(r.prepared->stopped_by, stop_reason::target);
  EXPECT_EQ(r.prepared->values.size(), 60u);
  EXPECT_EQ(r.prepared->blocks.size(), 3u);
  ASSERT_TRUE(r.prepared->floor);
  EXPECT_TRUE(r.prepared->floor->confirmed);
}

TEST(RunWorkload, AutoSamplingStopsAtMaxTime) {
  fake_os os;
  stepping_clock clock(1);
  int calls = 0;
  // Values that never settle: 1000, 2000, 3000, ...
  auto w = testing::make_workload(
      "w", [&] { clock.advance(1000 * static_cast<std::uint64_t>(++calls)); });
  run_options options = exact_options(0);
  options.auto_samples = true;
  options.baseline = false;
  options.max_time = std::chrono::microseconds(100);  // 100,000 ticks
  const auto r = run_workload({&w, std::nullopt}, options, facts_of(clock), os);
  ASSERT_TRUE(r.prepared);
  EXPECT_EQ(r.prepared->stopped_by, stop_reason::max_time);
  EXPECT_LT(r.prepared->values.size(), 20u);
}

TEST(RunWorkload, WarmupRunsTheWorkloadUntilItsTimeHasPassedOnTheSamplingClock) {
  fake_os os;
  stepping_clock clock(1);
  int calls = 0;
  auto w = testing::make_workload("w", [&] {
    ++calls;
    clock.advance(1'000'000);  // 1 ms of the fake clock
  });
  run_options options = exact_options(2);
  options.baseline = false;
  options.warmup = std::chrono::milliseconds(5);
  const auto r = run_workload({&w, std::nullopt}, options, facts_of(clock), os);
  EXPECT_FALSE(r.baseline.has_value());
  // Each warmup call is 1 ms plus 7 reads of 1 tick: the sample's two, whether the reference loop
  // is due (it is, after every call of 1 ms), the loop's two, when it is next due, and the time.
  // After 4 calls 4.000028 ms have passed, after 5 calls 5.000035 ms: the warmup ends there.
  EXPECT_EQ(r.warmup.calls, 5u);
  EXPECT_EQ(r.warmup.elapsed, std::chrono::nanoseconds(5'000'035));
  EXPECT_EQ(r.warmup.reference_best, 1u);  // an empty loop is one clock step
  EXPECT_EQ(calls, 1 + 5 + 2);             // the first call, the warmup, the prepared samples
}

TEST(RunWorkload, ARealtimeSamplerPausesEveryMaxHoldOfTheSamplingClock) {
  fake_os os;
  stepping_clock clock(1);
  auto w = testing::make_workload("w", [&] { clock.advance(300'000); });  // 0.3 ms
  run_options options = exact_options(10);
  options.baseline = false;
  options.priority = platform::priority_level::realtime;
  options.realtime_pause = std::chrono::nanoseconds(0);  // the pause is counted, not slept
  // Ten samples of 0.3 ms (and a few reads): the hold passes 1 ms after samples 4 and 8, and
  // 2 ms after sample 7.
  for (const auto& [max_hold, pauses] :
       {std::pair{std::chrono::milliseconds(1), 2u}, std::pair{std::chrono::milliseconds(2), 1u},
        std::pair{std::chrono::milliseconds(4), 0u}}) {
    SCOPED_TRACE(max_hold.count());
    options.max_hold = max_hold;
    const auto r = run_workload({&w, std::nullopt}, options, facts_of(clock), os);
    ASSERT_TRUE(r.prepared);
    EXPECT_EQ(r.prepared->values.size(), 10u);
    EXPECT_EQ(r.prepared->realtime_pauses, pauses);
  }
  // Only a real-time sampler pauses.
  options.max_hold = std::chrono::milliseconds(1);
  options.priority = platform::priority_level::high;
  const auto r = run_workload({&w, std::nullopt}, options, facts_of(clock), os);
  ASSERT_TRUE(r.prepared);
  EXPECT_EQ(r.prepared->realtime_pauses, 0u);
}

TEST(RunWorkload, RestoresWhenTheWorkloadThrows) {
  fake_os os;
  stepping_clock clock(1);
  int calls = 0;
  auto w = testing::make_workload("boom", [&] {
    // Throws in the prepared phase, with the process pinned and at raised priority.
    if (++calls == 4) throw std::runtime_error("disk on fire");
  });
  run_options options = exact_options(2);
  options.cpu = 2;
  const auto r = run_workload({&w, std::nullopt}, options, facts_of(clock), os);
  EXPECT_TRUE(r.failed());
  ASSERT_TRUE(r.failed());
  EXPECT_EQ(r.failure->message, "disk on fire");
  EXPECT_EQ(r.failure->stage, run_stage::prepared);
  EXPECT_TRUE(r.baseline.has_value());  // gathered before the throw
  EXPECT_FALSE(r.prepared.has_value());
  EXPECT_EQ(os.allowed, (platform::cpu_list{0, 1, 2, 3}));
  EXPECT_EQ(os.nice, 0);
  EXPECT_FALSE(r.preparation.restore_steps.empty());
}

TEST(RunWorkload, AStopRequestEndsSamplingAndRestores) {
  fake_os os;
  stepping_clock clock(1);
  int calls = 0;
  auto w = testing::make_workload("w", [&] {
    if (++calls == 5) request_stop(SIGINT);  // the fourth baseline sample
  });
  run_options options = exact_options(10);
  options.cpu = 3;
  const auto r = run_workload({&w, std::nullopt}, options, facts_of(clock), os);
  EXPECT_EQ(stop_signal(), SIGINT);
  clear_stop();
  EXPECT_TRUE(r.interrupted);
  ASSERT_TRUE(r.baseline);
  EXPECT_EQ(r.baseline->values.size(), 4u);  // calls 2-5; call 5 asked to stop after it
  EXPECT_EQ(r.baseline->stopped_by, stop_reason::interrupted);
  EXPECT_FALSE(r.prepared.has_value());
  EXPECT_EQ(os.allowed, (platform::cpu_list{0, 1, 2, 3}));
}

TEST(RunWorkload, MemoryIsLockedForThePreparedPhaseOnly) {
  fake_os os;
  stepping_clock clock(1);
  auto w = testing::make_workload("w", [] {});
  run_options options = exact_options(1);
  options.lock_memory = true;
  const auto r = run_workload({&w, std::nullopt}, options, facts_of(clock), os);
  EXPECT_NE(std::find(os.calls.begin(), os.calls.end(), "lock_memory"), os.calls.end());
  EXPECT_EQ(os.calls.back(), "unlock_memory");
  os.calls.clear();
  os.refuse_lock = true;
  const auto refused = run_workload({&w, std::nullopt}, options, facts_of(clock), os);
  ASSERT_FALSE(refused.preparation.refused().empty());
  EXPECT_EQ(refused.preparation.refused()[0].error_code, ENOMEM);
  EXPECT_EQ(std::count(os.calls.begin(), os.calls.end(), "unlock_memory"), 0);
}

}  // namespace
}  // namespace harness
