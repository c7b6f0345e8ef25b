// The error policy (docs/errors.md): a failed check prints where and what and aborts; only what
// escapes the workload's own call is "the workload threw"; a failure of the harness itself during
// a phase propagates out of run_workload, with affinity and priority put back first.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

#include "base/check.hpp"
#include "fakes.hpp"
#include "harness/runner.hpp"

namespace harness {
namespace {

using testing::facts_of;
using testing::fake_os;
using ::testing::HasSubstr;
using testing::stepping_clock;

// ---- HARNESS_CHECK ------------------------------------------------------------------------------

TEST(Check, APassingCheckEvaluatesItsConditionOnceAndNotItsMessage) {
  int evaluated = 0;
  int formatted = 0;
  const auto message_argument = [&] {
    ++formatted;
    return 1;
  };
  HARNESS_CHECK(++evaluated == 1, "never printed {}", message_argument());
  HARNESS_CHECK(evaluated == 1);
  EXPECT_EQ(evaluated, 1);
  EXPECT_EQ(formatted, 0);
}

TEST(Check, AFailedCheckPrintsFileLineConditionAndMessageAndAborts) {
  const int answer = 42;
  EXPECT_DEATH(HARNESS_CHECK(answer == 41, "the answer is {}", answer),
               "errors_test.cpp:.*: check failed: answer == 41: the answer is 42");
  EXPECT_DEATH(HARNESS_CHECK(answer == 41), "errors_test.cpp:.*: check failed: answer == 41");
}

// ---- run_workload: the workload's failure against the harness's --------------------------------

// Exact options, pinned to CPU 2 and raised, so a test can tell whether preparation was undone.
run_options raised_exact_options(std::size_t samples) {
  run_options options = testing::exact_options(samples);
  options.cpu = 2;
  return options;
}

void expect_restored(const fake_os& os) {
  EXPECT_EQ(os.allowed, (platform::cpu_list{0, 1, 2, 3}));
  EXPECT_EQ(os.nice, 0);
}

// The fake OS layer with one fault: reading the context switches fails in the prepared phase (the
// process is pinned then), as getrusage failing would: a failure on the harness's side, not the
// workload's.
class failing_switches_os final : public testing::forwarding_os {
 public:
  failing_switches_os() : forwarding_os(inner) {}

  fake_os inner;
  int reads_while_pinned = 0;

  std::optional<std::uint64_t> involuntary_switches() override {
    // The first read decides whether switches are counted; the second and third come before and
    // after the first prepared sample.
    if (inner.allowed.size() == 1 && ++reads_while_pinned == 3) {
      throw std::system_error(EIO, std::generic_category(), "getrusage");
    }
    return inner.involuntary_switches();
  }
};

TEST(RunWorkloadErrors, AHarnessFailureInThePreparedPhaseIsNotTheWorkloadsAndIsRestored) {
  failing_switches_os os;
  stepping_clock clock(1);
  int calls = 0;
  // 100 us a call: long enough that the sampler reads the context switches around each sample.
  auto w = testing::make_workload("w", [&] {
    ++calls;
    clock.advance(100'000);
  });
  try {
    run_workload({&w, std::nullopt}, raised_exact_options(3), facts_of(clock), os);
    ADD_FAILURE() << "the harness's own failure was swallowed";
  } catch (const std::system_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("getrusage"));
  }
  // It failed right after the first prepared sample: the workload ran in the first call, the three
  // baseline samples and that sample, and never threw.
  EXPECT_EQ(calls, 1 + 3 + 1);
  expect_restored(os.inner);
}

TEST(RunWorkloadErrors, AProgressCallbackThatThrowsPropagatesAndRestores) {
  fake_os os;
  stepping_clock clock(1);
  auto w = testing::make_workload("w", [&] { clock.advance(100); });
  run_options options = raised_exact_options(3);
  options.tuning.progress_interval = std::chrono::milliseconds(0);
  options.progress = [](const sampling_progress& p) {
    if (p.stage == "prepared samples") throw std::runtime_error("the terminal went away");
  };
  EXPECT_THROW(run_workload({&w, std::nullopt}, options, facts_of(clock), os), std::runtime_error);
  expect_restored(os);
}

// Whichever call of the workload throws (first call, batch calibration, warmup, a baseline or a
// prepared sample), it is the workload's failure: kept in `failure` with the stage and the sample
// it happened in, and the process put back.
TEST(RunWorkloadErrors, EveryCallOfTheWorkloadIsTheWorkloads) {
  struct where {
    const char* name;
    int throwing_call;  // 1-based count of the workload's calls
    std::function<void(run_options&)> adjust;
    run_stage stage;
    std::size_t sample;  // 1-based sample of the phase or warmup; 0: none
    const char* where_text;
  };
  const std::vector<where> cases = {
      {"first call", 1, [](run_options&) {}, run_stage::first_call, 0, "the first call"},
      // 100 ticks a call against 1000 wanted: the first call is short, so the batch is calibrated.
      {"batch calibration", 2,
       [](run_options& o) {
         o.batch.reset();
         o.min_sample_time = std::chrono::microseconds(1);
       },
       run_stage::batch_calibration, 0, "the batch calibration"},
      {"warmup", 2,
       [](run_options& o) {
         o.baseline = false;
         o.warmup = std::chrono::milliseconds(1);
       },
       run_stage::warmup, 1, "the warmup, sample 1 (1 calls)"},
      // Calls 2, 3, 4 are the baseline's samples; 5, 6, 7 the prepared phase's.
      {"baseline sample", 3, [](run_options&) {}, run_stage::baseline, 2,
       "the baseline phase, sample 2 (block 1, 1 call)"},
      {"prepared sample", 7, [](run_options&) {}, run_stage::prepared, 3,
       "the prepared phase, sample 3 (block 1, 1 call)"},
  };
  for (const where& c : cases) {
    SCOPED_TRACE(c.name);
    fake_os os;
    stepping_clock clock(1);
    int calls = 0;
    auto w = testing::make_workload("w", [&] {
      clock.advance(100);
      if (++calls == c.throwing_call) throw std::runtime_error(c.name);
    });
    run_options options = raised_exact_options(3);
    c.adjust(options);
    const workload_result r = run_workload({&w, std::nullopt}, options, facts_of(clock), os);
    ASSERT_TRUE(r.failed());
    EXPECT_EQ(r.failure->message, c.name);
    EXPECT_TRUE(r.failure->threw);
    EXPECT_EQ(r.failure->what(), std::string("threw: ") + c.name);
    EXPECT_EQ(r.failure->stage, c.stage);
    EXPECT_EQ(r.failure->sample, c.sample);
    EXPECT_EQ(r.failure->where(), c.where_text);
    EXPECT_EQ(calls, c.throwing_call);  // nothing ran after it
    expect_restored(os);
  }
}

// A failure on the harness's side inside the sampling path, within the very call the sampler
// hands on as the workload's: here the sampler's bug is played by a session that asks its
// with_fresh_input session for one call more than the sample's inputs were made for. The harness's
// session then fails a check (its message on stderr, the process aborted), and the run never
// reports "the workload threw" for it: a workload_result with a failure would end the death test
// with exit 0 and fail it.
class overasking_session final : public workload_session {
 public:
  explicit overasking_session(std::unique_ptr<workload_session> inner) : inner_(std::move(inner)) {}
  void before_sample(std::uint64_t reps) override { inner_->before_sample(reps); }
  std::uint64_t run(std::uint64_t reps) override { return inner_->run(reps + 1); }
  void finish() override { inner_->finish(); }

 private:
  std::unique_ptr<workload_session> inner_;
};

// where() words every stage from its name (run_results.hpp's table): a sample only within a phase
// or the warmup, a block only within a phase, "call" for one call.
TEST(WorkloadFailure, WhereNamesEveryStageAndItsSample) {
  const auto where = [](run_stage stage, std::size_t sample, std::size_t block,
                        std::uint64_t calls) {
    workload_failure f;
    f.stage = stage;
    f.sample = sample;
    f.block = block;
    f.calls_per_sample = calls;
    return f.where();
  };
  EXPECT_EQ(where(run_stage::setup, 0, 0, 1), "the setup");
  EXPECT_EQ(where(run_stage::setup, 4, 2, 8), "the setup");
  EXPECT_EQ(where(run_stage::first_call, 0, 0, 1), "the first call");
  EXPECT_EQ(where(run_stage::batch_calibration, 3, 0, 8), "the batch calibration");
  EXPECT_EQ(where(run_stage::warmup, 0, 0, 8), "the warmup");
  EXPECT_EQ(where(run_stage::warmup, 3, 1, 1), "the warmup, sample 3 (1 calls)");
  EXPECT_EQ(where(run_stage::baseline, 0, 0, 1), "the baseline phase");
  EXPECT_EQ(where(run_stage::baseline, 2, 0, 1), "the baseline phase, sample 2 (1 call)");
  EXPECT_EQ(where(run_stage::prepared, 7, 2, 8), "the prepared phase, sample 7 (block 2, 8 calls)");
  EXPECT_EQ(where(run_stage::teardown, 0, 0, 1), "the teardown");
}

TEST(RunWorkloadErrors, AHarnessFailureInsideTheSampledCallIsNotTheWorkloads) {
  const workload fresh = make_workload("fresh", with_fresh_input([] { return 1; }, [](int&) {}));
  const workload w(
      "w",
      [&fresh](std::int64_t arg) -> std::unique_ptr<workload_session> {
        return std::make_unique<overasking_session>(fresh.start(arg));
      },
      false, false, workload::setup_kind::per_call);
  const auto run = [&w] {
    fake_os os;
    stepping_clock clock(1);
    const workload_result r =
        run_workload({&w, std::nullopt}, raised_exact_options(3), facts_of(clock), os);
    std::fprintf(stderr, "%s\n", r.failed() ? r.failure->what().c_str() : "no failure");
    std::exit(0);
  };
  EXPECT_DEATH(run(),
               "check failed: fresh && reps <= made: a with_fresh_input session was asked for 2 "
               "calls with 1 input made for it");
}

TEST(RunWorkloadErrors, AnExceptionNotDerivedFromStdExceptionIsTheWorkloadsToo) {
  fake_os os;
  stepping_clock clock(1);
  auto w = testing::make_workload("w", [] { throw 42; });
  const workload_result r =
      run_workload({&w, std::nullopt}, raised_exact_options(3), facts_of(clock), os);
  ASSERT_TRUE(r.failed());
  EXPECT_EQ(r.failure->message, "an exception not derived from std::exception");
  EXPECT_FALSE(r.baseline.has_value());
}

// A returned count that cannot be an iteration count fails the workload as a negative one does
// (issue 27): the report's time per iteration would otherwise divide by it without a word.
TEST(RunWorkloadErrors, ACountThatCannotBeAnIterationCountFailsTheWorkload) {
  struct returning {
    const char* name;
    std::function<std::uint64_t(int call)> count;  // what the workload's 1-based call returns
    run_stage stage;
    std::size_t sample;
    const char* message;
  };
  const std::vector<returning> cases = {
      // std::string::find's "not found": 1.8e19 iterations in a 100 ns call.
      {"npos", [](int) { return std::uint64_t{std::string::npos}; }, run_stage::first_call, 0,
       "it returned 18446744073709551615 iterations a call, and 1 call took at most 101 ns: "
       "1.83e+26 iterations a second, more than any CPU does (1e+14)"},
      // 10.2 million in 101 ns (the 100 measured and one clock step): a loop optimised away.
      {"too fast", [](int) { return std::uint64_t{10'200'000}; }, run_stage::first_call, 0,
       "it returned 10200000 iterations a call, and 1 call took at most 101 ns: 1.01e+14 "
       "iterations a second"},
      // A checksum, or a count that depends on the input: not the first call's.
      {"changes", [](int call) { return std::uint64_t(100 + call / 2); }, run_stage::baseline, 1,
       "the call returned 101 iterations, not the first call's 100: an iteration count is the "
       "same in every call"},
      {"first is zero", [](int call) { return std::uint64_t(call == 1 ? 0 : 5); },
       run_stage::baseline, 1, "the call returned 5 iterations, not the first call's 0"},
  };
  for (const returning& c : cases) {
    SCOPED_TRACE(c.name);
    fake_os os;
    stepping_clock clock(1);
    int calls = 0;
    auto w = testing::make_workload("w", [&]() -> std::uint64_t {
      clock.advance(100);
      return c.count(++calls);
    });
    const workload_result r =
        run_workload({&w, std::nullopt}, raised_exact_options(3), facts_of(clock), os);
    ASSERT_TRUE(r.failed());
    EXPECT_FALSE(r.failure->threw);
    EXPECT_THAT(r.failure->what(), HasSubstr(c.message));
    EXPECT_EQ(r.failure->stage, c.stage);
    EXPECT_EQ(r.failure->sample, c.sample);
    expect_restored(os);
  }
  // Ten million in 101 ns, under 1e14 a second, and the same in every call: a count.
  fake_os os;
  stepping_clock clock(1);
  auto w = testing::make_workload("w", [&]() -> std::uint64_t {
    clock.advance(100);
    return 10'000'000;
  });
  run_options options = raised_exact_options(3);
  options.batch = 4;  // the invoker's sum of four calls is four counts
  const workload_result r = run_workload({&w, std::nullopt}, options, facts_of(clock), os);
  EXPECT_FALSE(r.failed()) << r.failure->what();
  EXPECT_EQ(r.iterations_per_call, 10'000'000u);
  ASSERT_TRUE(r.prepared.has_value());
  EXPECT_EQ(r.prepared->values.size(), 3u);
}

// A caller of the library can give options the command line would have refused: that is checked
// at the API's edge, before anything runs.
TEST(RunWorkloadErrors, AnAutoTargetThatIsNoPositiveFractionIsAnInvalidArgument) {
  fake_os os;
  stepping_clock clock(1);
  int calls = 0;
  auto w = testing::make_workload("w", [&] { ++calls; });
  run_options options = raised_exact_options(0);
  options.auto_samples = true;
  options.target = 0;
  EXPECT_THROW(run_workload({&w, std::nullopt}, options, facts_of(clock), os),
               std::invalid_argument);
  EXPECT_EQ(calls, 0);
  EXPECT_TRUE(os.calls.empty());
}

}  // namespace
}  // namespace harness
