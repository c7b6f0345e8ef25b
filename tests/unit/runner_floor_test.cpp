// Blocks and the floor's confirmation in the sampler, on a fake clock: phases slowed on purpose,
// for a block or as a whole, are reported not confirmed, never silently.
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>

#include "experiment/sampler.hpp"
#include "fakes.hpp"
#include "harness/analysis.hpp"
#include "harness/runner.hpp"

namespace harness {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using testing::fake_os;
using ::testing::HasSubstr;
using ::testing::Not;
using testing::stepping_clock;

// The fake clock advances 1000 ticks (1 us) a read; a reference run (no iterations) is one read
// apart, 1000 ticks. Blocks are 1 ms apart and must begin 2 ms apart to confirm; the prepared
// phase may take extra blocks for 50 ms.
constexpr std::uint64_t kStep = 1000;
constexpr double kCost = 100'000;  // a call at full speed: 100 us

run_options block_options(std::size_t samples) {
  run_options o;
  o.samples = samples;
  o.blocks = 5;
  o.warmup = std::chrono::nanoseconds(0);
  o.batch = 1;
  o.cpu = 1;
  o.max_time = std::chrono::milliseconds(50);
  o.tuning.overhead_samples = 5;
  o.tuning.reference_iterations = 0;
  o.tuning.block_gap = std::chrono::milliseconds(1);
  o.tuning.baseline_block_gap = std::chrono::milliseconds(1);
  o.tuning.floor.min_separation = std::chrono::milliseconds(2);
  return o;
}

clock_facts granular_facts(const stepping_clock& clock) {
  clock_facts f{&clock, kStep, true};
  f.granularity = 1;
  return f;
}

// A workload whose call costs kCost, times what `slow(call in the prepared phase)` says while
// pinned (the prepared phase), or kCost in the baseline.
struct slowable {
  fake_os& os;
  stepping_clock& clock;
  std::function<double(int)> prepared_factor = [](int) { return 1.0; };
  int prepared_calls = 0;
  void operator()() {
    const bool prepared = os.allowed.size() == 1;
    const double factor = prepared ? prepared_factor(prepared_calls++) : 1.0;
    clock.advance(static_cast<std::uint64_t>(kCost * factor));
  }
};

TEST(RunnerFloor, BlocksAreSpreadOutAndAgreeingBlocksConfirmTheFloor) {
  fake_os os;
  stepping_clock clock(kStep);
  slowable s{os, clock};
  auto w = testing::make_workload("w", [&] { s(); });
  const auto r = run_workload({&w, std::nullopt}, block_options(10), granular_facts(clock), os);
  ASSERT_TRUE(r.baseline && r.prepared);
  for (const phase_result* p : {&*r.baseline, &*r.prepared}) {
    ASSERT_EQ(p->blocks.size(), 5u);
    for (std::size_t b = 0; b < 5; ++b) {
      EXPECT_EQ(p->blocks[b].first, 2 * b);
      EXPECT_EQ(p->blocks[b].count, 2u);
      if (b > 0) {
        EXPECT_GE(p->blocks[b].start_seconds - p->blocks[b - 1].start_seconds, 0.001);
      }
    }
    EXPECT_EQ(p->block_of(0), 0u);
    EXPECT_EQ(p->block_of(9), 4u);
    ASSERT_TRUE(p->floor);
    EXPECT_TRUE(p->floor->confirmed) << p->floor->reason;
    const auto [i, j] = *p->floor->confirmed_by;
    EXPECT_GE(p->blocks[j].start_seconds - p->blocks[i].start_seconds, 0.002);
    EXPECT_EQ(p->stopped_by, stop_reason::count);
    EXPECT_EQ(p->values.size(), 10u);  // confirmed by the planned blocks: nothing more
  }
  EXPECT_DOUBLE_EQ(r.prepared->floor->floor, kCost);
  ASSERT_TRUE(r.prepared->floor->context.baseline_floor);
  EXPECT_DOUBLE_EQ(*r.prepared->floor->context.baseline_floor, kCost);
  // The reference loop ran in the gaps too: its best is the clock's step.
  EXPECT_EQ(r.prepared->reference_best, kStep);
}

TEST(RunnerFloor, TheBaselinesGapsAreItsOwn) {
  // The baseline takes no extra blocks and only checks the prepared floor: its gaps are shorter
  // (25 ms to the prepared phase's 50 ms by default), and each phase keeps to its own.
  fake_os os;
  stepping_clock clock(kStep);
  slowable s{os, clock};
  auto w = testing::make_workload("w", [&] { s(); });
  run_options o = block_options(10);
  o.tuning.block_gap = std::chrono::milliseconds(8);
  o.tuning.baseline_block_gap = std::chrono::milliseconds(3);
  const auto r = run_workload({&w, std::nullopt}, o, granular_facts(clock), os);
  ASSERT_TRUE(r.baseline && r.prepared);
  // A block of two 100 us calls and a reference run or two lasts well under 1 ms.
  const auto gaps_within = [](const phase_result& p, double low, double high) {
    for (std::size_t b = 1; b < p.blocks.size(); ++b) {
      const double gap = p.blocks[b].start_seconds - p.blocks[b - 1].start_seconds;
      EXPECT_GE(gap, low) << "block " << b + 1;
      EXPECT_LT(gap, high) << "block " << b + 1;
    }
  };
  gaps_within(*r.baseline, 0.003, 0.004);
  gaps_within(*r.prepared, 0.008, 0.009);
  EXPECT_EQ(sampler_settings{}.baseline_block_gap, std::chrono::milliseconds(25));
  EXPECT_EQ(sampler_settings{}.block_gap, std::chrono::milliseconds(50));
}

TEST(RunnerFloor, OneBlockSlowedByHalfLeavesTheOthersToConfirm) {
  fake_os os;
  stepping_clock clock(kStep);
  slowable s{os, clock};
  s.prepared_factor = [](int call) { return call == 2 || call == 3 ? 1.5 : 1.0; };  // block 2
  auto w = testing::make_workload("w", [&] { s(); });
  const auto r = run_workload({&w, std::nullopt}, block_options(10), granular_facts(clock), os);
  ASSERT_TRUE(r.prepared && r.prepared->floor);
  const floor_check& f = *r.prepared->floor;
  EXPECT_TRUE(f.confirmed) << f.reason;
  EXPECT_DOUBLE_EQ(f.block_minimums[1], 1.5 * kCost);
  EXPECT_THAT(f.agreeing, ElementsAre(0, 2, 3, 4));
}

TEST(RunnerFloor, AWholePreparedPhaseSlowedIsReportedAndSampledUntilMaxTime) {
  fake_os os;
  stepping_clock clock(kStep);
  slowable s{os, clock};
  s.prepared_factor = [](int) { return 1.5; };
  auto w = testing::make_workload("w", [&] { s(); });
  const auto r = run_workload({&w, std::nullopt}, block_options(10), granular_facts(clock), os);
  ASSERT_TRUE(r.prepared && r.prepared->floor);
  const phase_result& p = *r.prepared;
  EXPECT_FALSE(p.floor->confirmed);
  EXPECT_THAT(p.floor->findings, ElementsAre(floor_finding::above_baseline));
  EXPECT_THAT(p.floor->reason, HasSubstr("50.00% above the unprepared baseline's (100000)"));
  // It kept taking blocks while the budget lasted, and says why it stopped.
  EXPECT_EQ(p.stopped_by, stop_reason::max_time);
  EXPECT_GT(p.blocks.size(), 5u);
  EXPECT_GT(p.values.size(), 10u);
  EXPECT_EQ(p.requested, 10u);
  EXPECT_GE(p.elapsed_seconds, 0.05);
}

// The unpinned baseline ran on CPU 0, the prepared phase pinned to CPU 1, which runs slower: the
// reason names both CPUs and --cpu 0, instead of "preparation hurt".
TEST(RunnerFloor, AFloorAboveABaselineOnAnotherCpuNamesBothCpus) {
  fake_os os;
  os.unpinned_cpu = 0;
  stepping_clock clock(kStep);
  slowable s{os, clock};
  s.prepared_factor = [](int) { return 1.05; };
  auto w = testing::make_workload("w", [&] { s(); });
  const auto r = run_workload({&w, std::nullopt}, block_options(10), granular_facts(clock), os);
  ASSERT_TRUE(r.baseline && r.baseline->floor && r.prepared && r.prepared->floor);
  EXPECT_EQ(r.baseline->cpu, std::vector<int>(r.baseline->values.size(), 0));
  EXPECT_EQ(r.prepared->cpu, std::vector<int>(r.prepared->values.size(), 1));
  const floor_check& f = *r.prepared->floor;
  EXPECT_EQ(r.baseline->floor->floor_cpu, 0);
  EXPECT_EQ(f.floor_cpu, 1);
  EXPECT_EQ(f.context.baseline_floor_cpu, 0);
  EXPECT_EQ(baseline_on_another_cpu(f), 0);
  EXPECT_THAT(f.findings, Contains(floor_finding::above_baseline));
  EXPECT_THAT(f.reason, HasSubstr("5.00% above the unprepared baseline's (100000), whose lowest "
                                  "sample ran on CPU 0 and this one on CPU 1"));
  EXPECT_THAT(f.reason, HasSubstr("--cpu 0 pins to the baseline's"));
  EXPECT_THAT(f.reason, Not(HasSubstr("preparation hurt")));
}

// Where the CPU cannot be read, nothing is recorded and the reason stays the general one.
TEST(RunnerFloor, NoCpuReadNoCpuNamed) {
  fake_os os;
  stepping_clock clock(kStep);
  slowable s{os, clock};
  s.prepared_factor = [](int) { return 1.05; };
  auto w = testing::make_workload("w", [&] { s(); });
  const auto r = run_workload({&w, std::nullopt}, block_options(10), granular_facts(clock), os);
  ASSERT_TRUE(r.prepared && r.prepared->floor);
  EXPECT_TRUE(r.prepared->cpu.empty());
  EXPECT_EQ(r.prepared->floor->floor_cpu, std::nullopt);
  EXPECT_THAT(r.prepared->floor->reason, HasSubstr("this phase was slowed, or preparation hurt"));
}

TEST(RunnerFloor, ASlowStartIsOutlastedByExtraBlocks) {
  fake_os os;
  stepping_clock clock(kStep);
  slowable s{os, clock};
  s.prepared_factor = [](int call) { return call < 10 ? 1.5 : 1.0; };  // the planned blocks
  auto w = testing::make_workload("w", [&] { s(); });
  const auto r = run_workload({&w, std::nullopt}, block_options(10), granular_facts(clock), os);
  ASSERT_TRUE(r.prepared && r.prepared->floor);
  const phase_result& p = *r.prepared;
  EXPECT_TRUE(p.floor->confirmed) << p.floor->reason;
  EXPECT_EQ(p.stopped_by, stop_reason::confirmed);
  EXPECT_DOUBLE_EQ(p.floor->floor, kCost);
  EXPECT_GT(p.blocks.size(), 5u);
  // Every planned block stood 50% above the floor the extra blocks found.
  for (std::size_t b = 0; b < 5; ++b)
    EXPECT_DOUBLE_EQ(p.floor->block_minimums[b], 1.5 * kCost);
}

TEST(RunnerFloor, TheHistoryCatchesARunSlowedAsAWhole) {
  fake_os os;
  stepping_clock clock(kStep);
  slowable s{os, clock};
  s.prepared_factor = [](int) { return 1.5; };
  auto w = testing::make_workload("w", [&] { s(); });
  run_options o = block_options(10);
  o.baseline = false;  // nothing in this run is faster: only the history knows better
  std::vector<std::string> asked;
  o.memory.floor_of = [&](std::string_view name, std::uint64_t batch) -> std::optional<double> {
    asked.push_back(fmt::format("{} {}", name, batch));
    return kCost;
  };
  const auto r = run_workload({&w, std::nullopt}, o, granular_facts(clock), os);
  ASSERT_TRUE(r.prepared && r.prepared->floor);
  EXPECT_THAT(asked, ElementsAre("w 1"));
  EXPECT_FALSE(r.prepared->floor->confirmed);
  EXPECT_THAT(r.prepared->floor->findings, ElementsAre(floor_finding::above_remembered));
  EXPECT_EQ(r.prepared->stopped_by, stop_reason::max_time);
}

TEST(RunnerFloor, TheFirstRunOfABuildStopsAtItsPlannedBlocks) {
  // Its blocks agree; only another run can confirm the floor, so extra blocks would cost time
  // for nothing.
  fake_os os;
  stepping_clock clock(kStep);
  slowable s{os, clock};
  auto w = testing::make_workload("w", [&] { s(); });
  run_options o = block_options(10);
  o.memory.floor_of = [](std::string_view, std::uint64_t) -> std::optional<double> {
    return std::nullopt;
  };
  const auto r = run_workload({&w, std::nullopt}, o, granular_facts(clock), os);
  ASSERT_TRUE(r.baseline && r.prepared && r.prepared->floor);
  EXPECT_FALSE(r.prepared->floor->confirmed);
  EXPECT_THAT(r.prepared->floor->findings, ElementsAre(floor_finding::first_of_build));
  EXPECT_EQ(r.prepared->stopped_by, stop_reason::needs_another_run);
  EXPECT_EQ(r.prepared->blocks.size(), 5u);
  EXPECT_EQ(to_string(stop_reason::needs_another_run),
            "the blocks agree; only another run of this build can confirm the floor");
  // The history is about prepared floors: the baseline is checked within the run.
  EXPECT_TRUE(r.baseline->floor->confirmed) << r.baseline->floor->reason;
  // A run of the same build whose floor agrees with the one remembered is confirmed.
  o.memory.floor_of = [](std::string_view, std::uint64_t) -> std::optional<double> {
    return kCost;
  };
  const auto again = run_workload({&w, std::nullopt}, o, granular_facts(clock), os);
  ASSERT_TRUE(again.prepared && again.prepared->floor);
  EXPECT_TRUE(again.prepared->floor->confirmed) << again.prepared->floor->reason;
  EXPECT_EQ(again.prepared->stopped_by, stop_reason::count);
}

TEST(RunnerFloor, NoBlockBeginsOnceTheTimeRanOutWaitingForFullSpeed) {
  // The host never runs the loop as fast as remembered: each extra block's gap waits, and the
  // one whose wait outlasts --max-time is not begun (it would hold one sample).
  fake_os os;
  stepping_clock clock(kStep);
  slowable s{os, clock};
  s.prepared_factor = [](int call) { return call == 0 ? 0.9 : 1.0; };  // a lone low block
  auto w = testing::make_workload("w", [&] { s(); });
  run_options o = block_options(10);
  o.baseline = false;
  o.memory.fastest_reference = kStep / 2;
  o.memory.fastest_reference_remembered = true;
  const auto r = run_workload({&w, std::nullopt}, o, granular_facts(clock), os);
  ASSERT_TRUE(r.prepared && r.prepared->floor);
  EXPECT_EQ(r.prepared->stopped_by, stop_reason::max_time);
  EXPECT_EQ(r.prepared->blocks.size(), 5u);
  EXPECT_EQ(r.prepared->values.size(), 10u);
}

TEST(RunnerFloor, BlocksAtALowerHostSpeedThanRememberedAreNotConfirmed) {
  fake_os os;
  stepping_clock clock(kStep);
  slowable s{os, clock};
  auto w = testing::make_workload("w", [&] { s(); });
  run_options o = block_options(10);
  o.memory.fastest_reference = kStep / 2;  // this machine once ran the loop twice as fast
  o.memory.fastest_reference_remembered = true;
  const auto r = run_workload({&w, std::nullopt}, o, granular_facts(clock), os);
  ASSERT_TRUE(r.baseline && r.prepared);
  for (const phase_result* p : {&*r.baseline, &*r.prepared}) {
    ASSERT_TRUE(p->floor);
    EXPECT_FALSE(p->floor->confirmed);
    EXPECT_THAT(p->floor->findings, Contains(floor_finding::below_full_speed));
    EXPECT_THAT(p->floor->reason, HasSubstr("remembered from an earlier run here"));
  }
}

TEST(RunnerFloor, TheWarmupReadsTheHostsSpeedToo) {
  fake_os os;
  stepping_clock clock(kStep);
  slowable s{os, clock};
  auto w = testing::make_workload("w", [&] { s(); });
  run_options o = block_options(10);
  o.warmup = std::chrono::milliseconds(5);
  o.tuning.reference_interval = std::chrono::microseconds(0);  // a reference run after each call
  const auto r = run_workload({&w, std::nullopt}, o, granular_facts(clock), os);
  // A warmup call is its 100 us and seven reads of 1 us (the sample's two, whether the reference
  // loop is due, the loop's two, when it is next due, the time): 107 us. The 47th call passes
  // 5 ms (46 end at 4.922 ms).
  EXPECT_EQ(r.warmup.calls, 47u);
  EXPECT_EQ(r.warmup.elapsed, std::chrono::microseconds(47 * 107));
  EXPECT_EQ(r.warmup.reference_best, kStep);  // a reference run is one clock step here
}

// The longest duration a user may give (parse_duration: under 2^63 ns) is 2.8e19 ticks at 3 GHz,
// past 2^64: the warmup and the --max-time take it as the most ticks there are. (Converted out of
// range, a warmup of 9223372036 s ended at once at 2.1 GHz.)
TEST(RunnerFloor, ALengthPast64BitsOfTicksIsTheMostTheyHold) {
  const stepping_clock clock(kStep, 3e9);
  EXPECT_EQ(detail::seconds_to_ticks(std::chrono::seconds(2), clock), 6'000'000'000u);
  EXPECT_EQ(detail::seconds_to_ticks(std::chrono::nanoseconds(9'223'372'036'854'774'784), clock),
            std::numeric_limits<std::uint64_t>::max());
  const std::uint64_t under = detail::seconds_to_ticks(std::chrono::seconds(6'000'000'000), clock);
  EXPECT_GT(under, 17'999'999'000'000'000'000u);
  EXPECT_LT(under, std::numeric_limits<std::uint64_t>::max());
}

TEST(RunnerFloor, OneBlockAskedForTakesNoMore) {
  fake_os os;
  stepping_clock clock(kStep);
  slowable s{os, clock};
  auto w = testing::make_workload("w", [&] { s(); });
  run_options o = block_options(4);
  o.blocks = 1;
  const auto r = run_workload({&w, std::nullopt}, o, granular_facts(clock), os);
  ASSERT_TRUE(r.prepared && r.prepared->floor);
  EXPECT_EQ(r.prepared->values.size(), 4u);
  EXPECT_EQ(r.prepared->blocks.size(), 1u);
  EXPECT_THAT(r.prepared->floor->findings, ElementsAre(floor_finding::too_few_blocks));
  EXPECT_EQ(r.prepared->stopped_by, stop_reason::count);
}

TEST(RunnerFloor, FewerSamplesThanBlocksMakeOneBlockPerSample) {
  fake_os os;
  stepping_clock clock(kStep);
  slowable s{os, clock};
  auto w = testing::make_workload("w", [&] { s(); });
  const auto r = run_workload({&w, std::nullopt}, block_options(3), granular_facts(clock), os);
  ASSERT_TRUE(r.baseline);
  EXPECT_EQ(r.baseline->blocks.size(), 3u);
  EXPECT_EQ(r.baseline->values.size(), 3u);
}

// A workload that learns its input: a call costs kCost until it has run 8 times with no pause of
// over 200 us between calls, then half that (a branch predictor trained by the same bytes).
struct learner {
  stepping_clock& clock;
  std::uint64_t last_end = 0;
  int streak = 0;
  void operator()() {
    if (clock.peek() - last_end > 200'000) streak = 0;
    clock.advance(static_cast<std::uint64_t>(streak >= 8 ? kCost / 2 : kCost));
    ++streak;
    last_end = clock.peek();
  }
};

TEST(RunnerFloor, AFirstBlockFarBelowTheRestIsCheckedByReWarmingTheWorkload) {
  fake_os os;
  stepping_clock clock(kStep);
  learner l{clock};
  auto w = testing::make_workload("w", [&] { l(); });
  run_options o = block_options(20);
  o.warmup = std::chrono::milliseconds(5);
  o.tuning.learning_check_rewarm = std::chrono::milliseconds(2);
  const auto r = run_workload({&w, std::nullopt}, o, granular_facts(clock), os);
  ASSERT_TRUE(r.prepared && r.prepared->floor);
  const phase_result& p = *r.prepared;
  // Trained after the warmup, untrained after every gap: the first block alone runs at half.
  EXPECT_DOUBLE_EQ(p.floor->block_minimums[0], kCost / 2);
  EXPECT_DOUBLE_EQ(p.floor->block_minimums[1], kCost);
  ASSERT_TRUE(p.learning_check.has_value());
  EXPECT_EQ(p.learning_check->samples, 8u);  // the first block's 4, raised to 8
  EXPECT_DOUBLE_EQ(p.learning_check->plain_min, kCost);
  EXPECT_DOUBLE_EQ(p.learning_check->rewarmed_min, kCost / 2);
  EXPECT_GE(p.learning_check->rewarm_seconds, 0.002);
  const auto f = detect_learning(p);
  ASSERT_TRUE(f.has_value());
  EXPECT_FALSE(f->falling);
  EXPECT_DOUBLE_EQ(f->first_block_lead, 0.5);
  EXPECT_EQ(f->rewarm_lead, 0.5);

  // No check asked for: the first block's lead alone names it, as before.
  learner again{clock};
  auto w2 = testing::make_workload("w", [&] { again(); });
  o.tuning.learning_check_rewarm = std::chrono::milliseconds(0);
  const auto unchecked = run_workload({&w2, std::nullopt}, o, granular_facts(clock), os);
  ASSERT_TRUE(unchecked.prepared);
  EXPECT_FALSE(unchecked.prepared->learning_check.has_value());
  ASSERT_TRUE(detect_learning(*unchecked.prepared).has_value());
  EXPECT_FALSE(detect_learning(*unchecked.prepared)->rewarm_lead.has_value());
}

TEST(RunnerFloor, AHostThatSlowedAfterTheFirstBlockIsNotCalledLearning) {
  // Deterministic work, its first block at full speed and every call after it 1.5x: the first
  // block lies a third below the rest, as a learning workload's would, but the check's re-warmed
  // block runs as slow as its plain one.
  fake_os os;
  stepping_clock clock(kStep);
  slowable s{os, clock};
  s.prepared_factor = [](int call) { return call < 4 ? 1.0 : 1.5; };
  auto w = testing::make_workload("w", [&] { s(); });
  run_options o = block_options(20);
  o.tuning.learning_check_rewarm = std::chrono::milliseconds(2);
  const auto r = run_workload({&w, std::nullopt}, o, granular_facts(clock), os);
  ASSERT_TRUE(r.prepared && r.prepared->floor);
  const phase_result& p = *r.prepared;
  EXPECT_DOUBLE_EQ(p.floor->block_minimums[0], kCost);
  EXPECT_DOUBLE_EQ(p.floor->block_minimums[1], 1.5 * kCost);
  ASSERT_TRUE(p.learning_check.has_value());
  EXPECT_DOUBLE_EQ(p.learning_check->plain_min, 1.5 * kCost);
  EXPECT_DOUBLE_EQ(p.learning_check->rewarmed_min, 1.5 * kCost);
  EXPECT_FALSE(detect_learning(p).has_value());
  // Work that runs alike in every block runs no check.
  slowable flat{os, clock};
  auto w2 = testing::make_workload("w", [&] { flat(); });
  const auto r2 = run_workload({&w2, std::nullopt}, o, granular_facts(clock), os);
  ASSERT_TRUE(r2.prepared);
  EXPECT_FALSE(r2.prepared->learning_check.has_value());
}

}  // namespace
}  // namespace harness
