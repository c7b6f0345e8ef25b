// A workload that learns its input, found in its blocks, and the trust line with its next command:
// synthetic phases, exact expectations.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "fakes.hpp"
#include "harness/analysis.hpp"

namespace harness {
namespace {

// A prepared phase of `blocks` blocks of `size` samples: each block's samples from `shape(b, k)`.
template <class Shape>
phase_result blocked(std::size_t blocks, std::size_t size, Shape&& shape) {
  phase_result p;
  p.kind = phase_kind::prepared;
  for (std::size_t b = 0; b < blocks; ++b) {
    p.blocks.push_back({p.values.size(), size, 0.06 * static_cast<double>(b), 3000});
    for (std::size_t k = 0; k < size; ++k)
      p.values.push_back(shape(b, k));
  }
  p.host_slowdown.assign(p.values.size(), false);
  return p;
}

TEST(DetectLearning, FindsBlocksThatStartSlowAfterEachGapAndFallBack) {
  // The branchy sum: the first block trained (after the warmup), every later one starting
  // at 220 and falling towards 165.
  const phase_result p = blocked(5, 4, [](std::size_t b, std::size_t k) {
    if (b == 0) return 117.0;
    return std::vector<double>{220, 190, 170, 165}[k];
  });
  const auto f = detect_learning(p);
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->blocks_examined, 4U);
  EXPECT_EQ(f->blocks_falling, 4U);
  EXPECT_DOUBLE_EQ(f->median_drop, 220.0 / 167.5 - 1);
}

TEST(DetectLearning, IsNotFlatNoisyOrOneOddBlock) {
  EXPECT_FALSE(detect_learning(blocked(5, 4, [](std::size_t, std::size_t) { return 100.0; })));
  // Noise: a high sample anywhere in a block, now first, now last.
  EXPECT_FALSE(detect_learning(
      blocked(5, 4, [](std::size_t b, std::size_t k) { return k == b % 4 ? 120.0 : 100.0; })));
  // One block of four starting slow is a host stall, not a pattern (1 of 4 < 75%).
  EXPECT_FALSE(detect_learning(blocked(
      5, 4, [](std::size_t b, std::size_t k) { return b == 2 && k == 0 ? 150.0 : 100.0; })));
  // A drop under 5% is no learning worth a word.
  EXPECT_FALSE(detect_learning(
      blocked(5, 4, [](std::size_t, std::size_t k) { return k == 0 ? 104.0 : 100.0; })));
  // Blocks of three samples are too short to say, and so are two blocks after the first.
  EXPECT_FALSE(detect_learning(
      blocked(5, 3, [](std::size_t, std::size_t k) { return k == 0 ? 200.0 : 100.0; })));
  EXPECT_FALSE(detect_learning(
      blocked(3, 4, [](std::size_t, std::size_t k) { return k == 0 ? 200.0 : 100.0; })));
}

TEST(DetectLearning, FindsAFirstBlockFarBelowEveryBlockAfterAGap) {
  // The branchy sum on a 2596 MHz AMD host: the first block, right after the warmup, at 240;
  // every later one near 500-650, noisy, not relearning within its four samples.
  const std::vector<std::vector<double>> later = {
      {658, 617, 610, 708}, {621, 530, 563, 575}, {711, 537, 511, 495}, {506, 530, 505, 514}};
  const phase_result p = blocked(5, 4, [&](std::size_t b, std::size_t k) {
    return b == 0 ? 239.0 + static_cast<double>(k) : later[b - 1][k];
  });
  const auto f = detect_learning(p);
  ASSERT_TRUE(f.has_value());
  EXPECT_FALSE(f->falling);  // 2 of 4 falling: under 75%
  EXPECT_EQ(f->blocks_examined, 4U);
  EXPECT_DOUBLE_EQ(f->first_block_lead, 1 - 239.0 / 495);
}

TEST(DetectLearning, AFirstBlockLessThanATenthBelowTheOthersOrAboveThemIsNoFinding) {
  // 9% below every later block: the bound is 10%.
  EXPECT_FALSE(detect_learning(
      blocked(5, 4, [](std::size_t b, std::size_t) { return b == 0 ? 91.0 : 100.0; })));
  // 11% below: a finding.
  EXPECT_TRUE(detect_learning(
      blocked(5, 4, [](std::size_t b, std::size_t) { return b == 0 ? 89.0 : 100.0; })));
  // A first block slower than the rest.
  EXPECT_FALSE(detect_learning(
      blocked(5, 4, [](std::size_t b, std::size_t) { return b == 0 ? 200.0 : 100.0; })));
  // A far lower first block, but only two blocks after it.
  EXPECT_FALSE(detect_learning(
      blocked(3, 4, [](std::size_t b, std::size_t) { return b == 0 ? 50.0 : 100.0; })));
}

TEST(DetectLearning, FindsTheFirstBlockOfAMilderHost) {
  // The branchy sum on a 2096 MHz AMD host (block minimums of one process, thousand ticks): the
  // first block 17.5% below the lowest later one.
  const std::vector<double> minimums = {432.3, 536.3, 543.3, 541.5, 549.0,
                                        548.2, 553.7, 543.6, 552.7, 524.2};
  const phase_result p = blocked(
      10, 4, [&](std::size_t b, std::size_t k) { return minimums[b] + static_cast<double>(k); });
  const auto f = detect_learning(p);
  ASSERT_TRUE(f.has_value());
  EXPECT_FALSE(f->falling);
  EXPECT_NEAR(f->first_block_lead, 1 - 432.3 / 524.2, 1e-12);
}

TEST(DetectLearning, AFirstBlocksLeadNeedsTheLearningCheckToAgree) {
  // A first block 50% below the rest: the check's re-warmed block at least half that (25%) below
  // its plain one says learning; less, a host that slowed after the first block.
  phase_result p = blocked(5, 4, [](std::size_t b, std::size_t) { return b == 0 ? 50.0 : 100.0; });
  p.learning_check = learning_check_result{
      .samples = 4, .plain_min = 100, .rewarmed_min = 75, .rewarm_seconds = 0.2};
  auto f = detect_learning(p);
  ASSERT_TRUE(f.has_value());
  EXPECT_FALSE(f->falling);
  EXPECT_EQ(f->rewarm_lead, 0.25);
  p.learning_check->rewarmed_min = 76;
  EXPECT_FALSE(detect_learning(p).has_value());
  p.learning_check->rewarmed_min = 102;  // slower after re-warming
  EXPECT_FALSE(detect_learning(p).has_value());
  // Blocks that fall after each gap say it themselves, whatever the check.
  phase_result falling = blocked(5, 4, [](std::size_t b, std::size_t k) {
    if (b == 0) return 117.0;
    return std::vector<double>{220, 190, 170, 165}[k];
  });
  falling.learning_check = learning_check_result{
      .samples = 4, .plain_min = 100, .rewarmed_min = 100, .rewarm_seconds = 0.2};
  f = detect_learning(falling);
  ASSERT_TRUE(f.has_value());
  EXPECT_TRUE(f->falling);
  EXPECT_FALSE(f->rewarm_lead.has_value());
}

TEST(DetectLearning, LeavesOutABlockWhoseFirstSampleTheHostSlowed) {
  phase_result p = blocked(5, 4, [](std::size_t, std::size_t k) { return k == 0 ? 200.0 : 100.0; });
  p.host_slowdown[4] = true;  // block 2's first sample
  p.host_slowdown[8] = true;  // block 3's
  const auto f = detect_learning(p);
  EXPECT_FALSE(f.has_value());  // two examined: too few
}

TEST(DetectLearning, CountsAFirstBlockTheHostMarkedWhole) {
  // A 2694 MHz AMD host (2026-12-07): the branchy sum's first block at 585k ticks a call, every
  // sample of it marked as slowed by the host (its reference runs slow right after the warmup),
  // every later block at 696k-718k. A disturbance only adds time: the lead stands.
  const std::vector<double> minimums = {585.3, 707.9, 698.3, 717.7, 700.5, 696.5, 705.8, 695.8};
  phase_result p = blocked(
      8, 4, [&](std::size_t b, std::size_t k) { return minimums[b] + static_cast<double>(k); });
  for (std::size_t i = 0; i < 4; ++i)
    p.host_slowdown[i] = true;
  const auto f = detect_learning(p);
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->blocks_examined, 7U);
  EXPECT_NEAR(f->first_block_lead, 1 - 585.3 / 695.8, 1e-12);
  // The same with one sample of the first block marked: its lowest sample counts all the same.
  p.host_slowdown.assign(p.values.size(), false);
  p.host_slowdown[0] = true;
  EXPECT_NEAR(detect_learning(p)->first_block_lead, 1 - 585.3 / 695.8, 1e-12);
}

run_report run_with(workload_result r) {
  run_report run;
  static const testing::report_clock clock;
  run.clock.clock = &clock;
  run.program = "my_bench";
  run.results.push_back(std::move(r));
  return run;
}

TEST(JudgeTrust, NamesTheLearningInPlainWordsWithItsRemedy) {
  workload_result r;
  r.name = "sum/65536";
  r.prepared = blocked(5, 4, [](std::size_t b, std::size_t k) {
    return b == 0 ? 117.0 : std::vector<double>{220, 190, 170, 165}[k];
  });
  const run_report run = run_with(r);
  const report_model model = analyze_run(run);
  const trust_note& t = model.workloads[0].trust;
  EXPECT_FALSE(t.ok);
  EXPECT_NE(t.text.find("the workload speeds up with repetition: 4 of 4 blocks after a gap started "
                        "31% slower and fell back (a branch predictor or cache trained by the same "
                        "input, or a CPU that runs code faster once it has run it a while)"),
            std::string::npos)
      << t.text;
  EXPECT_NE(t.text.find("fresh input per call (with_fresh_input)"), std::string::npos);
  EXPECT_EQ(t.next, "my_bench -w sum/65536 --block-rewarm 100ms");
}

TEST(JudgeTrust, NamesAFirstBlockFarBelowTheRestAsLearning) {
  workload_result r;
  r.name = "sum/65536";
  r.prepared = blocked(5, 4, [](std::size_t b, std::size_t) { return b == 0 ? 50.0 : 100.0; });
  const trust_note t = analyze_run(run_with(r)).workloads[0].trust;
  EXPECT_FALSE(t.ok);
  EXPECT_NE(t.text.find("the workload speeds up with repetition: the first block, right after "
                        "the warmup, ran 50% below every one of the 4 blocks after a gap (a "
                        "branch predictor or cache trained by the same input, or a CPU that runs "
                        "code faster once it has run it a while)"),
            std::string::npos)
      << t.text;
  EXPECT_EQ(t.next, "my_bench -w sum/65536 --block-rewarm 100ms");
  // With the learning check that confirmed it, the line says what the check saw.
  r.prepared->learning_check = learning_check_result{
      .samples = 4, .plain_min = 100, .rewarmed_min = 60, .rewarm_seconds = 0.2};
  const trust_note checked = analyze_run(run_with(r)).workloads[0].trust;
  EXPECT_NE(checked.text.find("ran 50% below every one of the 4 blocks after a gap, and a block "
                              "after 200 ms of re-warming ran 40% below the block before it (a "
                              "branch predictor"),
            std::string::npos)
      << checked.text;
  // A check that ran both its blocks alike: no learning is named.
  r.prepared->learning_check->rewarmed_min = 100;
  const trust_note refuted = analyze_run(run_with(r)).workloads[0].trust;
  EXPECT_EQ(refuted.text.find("speeds up with repetition"), std::string::npos) << refuted.text;
}

TEST(JudgeTrust, SaysFailedInterruptedOrTooFewBeforeAnythingElse) {
  workload_result failed;
  failed.name = "x";
  failed.failure = workload_failure{.message = "boom", .stage = run_stage::first_call};
  EXPECT_EQ(analyze_run(run_with(failed)).workloads[0].trust.text,
            "FAILED in the first call: threw: boom");
  workload_result few;
  few.name = "odd name";
  few.prepared = blocked(1, 2, [](std::size_t, std::size_t) { return 5.0; });
  const run_report run = run_with(few);
  const trust_note t = analyze_run(run).workloads[0].trust;
  EXPECT_FALSE(t.ok);
  EXPECT_EQ(t.text.rfind("too few samples to judge", 0), 0U) << t.text;
  EXPECT_EQ(t.next, "my_bench -w 'odd name' -n 20");
  // Interrupted, even with a learning workload's samples: the interruption is said first.
  workload_result stopped;
  stopped.name = "sum/65536";
  stopped.prepared =
      blocked(5, 4, [](std::size_t b, std::size_t) { return b == 0 ? 50.0 : 100.0; });
  stopped.interrupted = true;
  const trust_note i = analyze_run(run_with(stopped)).workloads[0].trust;
  EXPECT_FALSE(i.ok);
  EXPECT_EQ(i.text, "interrupted: the figures are what was measured before");
  EXPECT_EQ(i.next, "my_bench -w sum/65536");
}

TEST(ShellWord, LeavesPlainWordsAndQuotesTheRestQuoteAndAll) {
  EXPECT_EQ(shell_word("--benchmark_filter=^sum/65536$"), "'--benchmark_filter=^sum/65536$'");
  EXPECT_EQ(shell_word("./bench"), "./bench");
  EXPECT_EQ(shell_word("it's"), "'it'\\''s'");
  EXPECT_EQ(shell_word(""), "''");
}

}  // namespace
}  // namespace harness
