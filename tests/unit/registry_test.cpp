#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "harness/errors.hpp"
#include "harness/workload.hpp"

namespace harness {
namespace {

using ::testing::HasSubstr;

template <class F>
workload make(std::string name, F fn) {
  return workload(std::move(name), detail::make_invoker(std::move(fn)), detail::takes_int_arg<F>,
                  detail::is_count<detail::result_of<F>>);
}

class RegistryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    reg.add(make("xor_loop", [](std::int64_t n) { return n; })).default_arg(1000).by_default();
    reg.add(make("sort_ints", [](std::int64_t n) { return n; })).default_arg(10);
    reg.add(make("sort_strings", [](std::int64_t n) { return n; })).default_arg(20);
    reg.add(make("empty", [] {}));
    reg.add(make("needs_arg", [](std::int64_t) {}));
  }
  workload_registry reg;
};

std::string usage_message(const workload_registry& reg, std::vector<std::string> patterns) {
  try {
    reg.select(patterns);
  } catch (const usage_error& e) {
    return e.what();
  }
  return "(accepted)";
}

TEST(GlobMatch, StarAndQuestionMark) {
  EXPECT_TRUE(glob_match("sort*", "sort_ints"));
  EXPECT_TRUE(glob_match("*", "anything"));
  EXPECT_TRUE(glob_match("*", ""));
  EXPECT_TRUE(glob_match("s?rt_*s", "sort_ints"));
  EXPECT_TRUE(glob_match("*_*_*", "a_b_c"));
  EXPECT_TRUE(glob_match("xor_loop", "xor_loop"));
  EXPECT_FALSE(glob_match("xor", "xor_loop"));
  EXPECT_FALSE(glob_match("sort?", "sort"));
  EXPECT_FALSE(glob_match("*ints", "sort_strings"));
  EXPECT_FALSE(glob_match("", "x"));
}

TEST_F(RegistryTest, SelectsByNameGlobAndArgument) {
  auto one = reg.select({"xor_loop/42"});
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0].def->name(), "xor_loop");
  EXPECT_EQ(one[0].arg, 42);
  EXPECT_EQ(one[0].display_name(), "xor_loop/42");

  auto sorts = reg.select({"sort*"});
  ASSERT_EQ(sorts.size(), 2u);
  EXPECT_EQ(sorts[0].display_name(), "sort_ints/10");  // the default argument
  EXPECT_EQ(sorts[1].display_name(), "sort_strings/20");

  auto plain = reg.select({"empty"});
  ASSERT_EQ(plain.size(), 1u);
  EXPECT_FALSE(plain[0].arg.has_value());
  EXPECT_EQ(plain[0].display_name(), "empty");

  EXPECT_EQ(reg.select({"xor_loop/-5"})[0].arg, -5);
  EXPECT_EQ(reg.select({"empty", "xor_loop"}).size(), 2u);
}

// A report, a history and a store hold one result per name: `-w fresh_pages/1000,1000 --save`
// measured it twice and the store refused the second (bench/soak.sh).
TEST_F(RegistryTest, AnInstanceSelectedTwiceIsMeasuredOnceWhereFirstSelected) {
  std::vector<std::string> repeated;
  const auto picked = reg.select(
      {"sort_strings", "sort*", "xor_loop/5,7,5", "empty", "empty", "xor_loop/7"}, &repeated);
  std::vector<std::string> names;
  for (const workload_instance& w : picked)
    names.push_back(w.display_name());
  EXPECT_EQ(names, (std::vector<std::string>{"sort_strings/20", "sort_ints/10", "xor_loop/5",
                                             "xor_loop/7", "empty"}));
  // Each left out once, in the order first met.
  EXPECT_EQ(repeated,
            (std::vector<std::string>{"sort_strings/20", "xor_loop/5", "empty", "xor_loop/7"}));
  // The same workload with another argument is another instance.
  EXPECT_EQ(reg.select({"xor_loop/5", "xor_loop/6"}).size(), 2u);
  EXPECT_EQ(reg.select({"empty", "empty"}).size(), 1u);  // without `repeated`
}

TEST_F(RegistryTest, DefaultSelectionIsTheMarkedWorkload) {
  auto d = reg.default_selection();
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].display_name(), "xor_loop/1000");
}

TEST(Registry, DefaultSelectionWithoutMarkIsTheFirstRegistered) {
  workload_registry reg;
  EXPECT_TRUE(reg.default_selection().empty());
  reg.add(make("b", [] {}));
  reg.add(make("a", [] {}));
  const auto d = reg.default_selection();
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].display_name(), "b");
}

// HARNESS_WORKLOAD records the build of the file it is expanded in: the built-in workloads'
// (workloads/builtin.cpp), compiled with the build type's flags, like this file.
TEST(Registry, MacroRecordsTheBuildOfItsFile) {
  workload_build expected;
#if defined(__OPTIMIZE__)
  expected.optimized = true;
#elif defined(__GNUC__)
  expected.optimized = false;
#endif
#if defined(NDEBUG)
  expected.assertions = false;
#else
  expected.assertions = true;
#endif
  const workload* w = global_registry().find("xor_loop");
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->build().optimized, expected.optimized);
  EXPECT_EQ(w->build().assertions, expected.assertions);
  EXPECT_EQ(w->build().suspect(), expected.optimized == false || expected.assertions == true);
  // A workload made without the macro has no recorded build, and is not suspected.
  const workload plain = make("plain", [] {});
  EXPECT_FALSE(plain.build().optimized.has_value());
  EXPECT_FALSE(plain.build().suspect());
}

TEST(Registry, SuspectBuilds) {
  EXPECT_FALSE((workload_build{true, false}.suspect()));
  EXPECT_TRUE((workload_build{false, false}.suspect()));
  EXPECT_TRUE((workload_build{true, true}.suspect()));
  EXPECT_FALSE((workload_build{std::nullopt, std::nullopt}.suspect()));
}

TEST_F(RegistryTest, RejectsUnknownWorkloadListingKnownOnes) {
  const auto msg = usage_message(reg, {"nope"});
  EXPECT_THAT(msg, HasSubstr("'nope' matches no workload"));
  EXPECT_THAT(msg, HasSubstr("xor_loop, sort_ints, sort_strings, empty, needs_arg"));
}

TEST_F(RegistryTest, RefusesAnArgumentWhoseMinimumBatchIsOutOfRange) {
  reg.add(make("batched", [](std::int64_t) {})).default_arg(4).min_batch([](std::int64_t n) {
    return n - 5;
  });
  EXPECT_EQ(usage_message(reg, {"batched/8"}), "(accepted)");
  EXPECT_EQ(usage_message(reg, {"batched/5"}), "(accepted)");  // 0: no minimum
  // The default argument 4 gives -1.
  EXPECT_THAT(usage_message(reg, {"batched"}),
              ::testing::AllOf(HasSubstr("--workload: 'batched/4'"), HasSubstr("gave -1 calls")));
}

TEST_F(RegistryTest, RejectsArgumentOnWorkloadWithoutOne) {
  EXPECT_THAT(usage_message(reg, {"empty/5"}), HasSubstr("'empty' takes no argument"));
}

TEST_F(RegistryTest, RejectsMalformedArgument) {
  EXPECT_THAT(usage_message(reg, {"xor_loop/abc"}), HasSubstr("invalid argument 'abc'"));
  EXPECT_THAT(usage_message(reg, {"xor_loop/"}), HasSubstr("invalid argument ''"));
  EXPECT_THAT(usage_message(reg, {"xor_loop/1x"}), HasSubstr("invalid argument '1x'"));
}

TEST_F(RegistryTest, RejectsMissingRequiredArgument) {
  EXPECT_THAT(usage_message(reg, {"needs_arg"}), HasSubstr("needs an integer argument"));
  EXPECT_EQ(reg.select({"needs_arg/3"})[0].arg, 3);
}

TEST(Invoker, CountsIterationsAndRepeats) {
  int calls = 0;
  auto counting = make("c", [&calls](std::int64_t n) {
    ++calls;
    return n;
  });
  EXPECT_TRUE(counting.takes_arg());
  EXPECT_TRUE(counting.returns_count());
  EXPECT_EQ(counting.run(7, 3), 21u);
  EXPECT_EQ(calls, 3);

  auto silent = make("s", [&calls] { ++calls; });
  EXPECT_FALSE(silent.takes_arg());
  EXPECT_FALSE(silent.returns_count());
  EXPECT_EQ(silent.run(0, 4), 0u);
  EXPECT_EQ(calls, 7);

  // A non-integral result is sunk, not taken for a count.
  auto other = make("d", [] { return 2.5; });
  EXPECT_FALSE(other.returns_count());
  EXPECT_EQ(other.run(0, 2), 0u);
}

// Names are for the shell: letters, digits and _ - . : only; a bad one is the registering
// program's mistake, named in the exception.
TEST(Registration, NamesAreNonEmptyAndShellFriendly) {
  workload_registry reg;
  for (const char* good : {"a", "xor_loop", "map.lookup", "ns::fn", "sort-ints", "A9"})
    EXPECT_NO_THROW(reg.add(make(good, [] {}))) << good;
  const auto refused = [&reg](const std::string& name) -> std::string {
    try {
      reg.add(make(name, [] {}));
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "(accepted)";
  };
  EXPECT_THAT(refused(""), HasSubstr("empty name"));
  EXPECT_THAT(refused("with space"), HasSubstr("workload name 'with space' holds ' '"));
  EXPECT_THAT(refused("a/b"), HasSubstr("holds '/'"));
  EXPECT_THAT(refused("glob*"), HasSubstr("holds '*'"));
  EXPECT_THAT(refused("quote'"), HasSubstr("holds '''"));
  EXPECT_THAT(refused("a"), HasSubstr("workload 'a' registered twice"));
  EXPECT_EQ(reg.all().size(), 6u);  // nothing refused was added
}

// The arguments a workload accepts are declared at registration; the command line refuses the
// others before any run.
TEST_F(RegistryTest, ArgumentsOutsideTheDeclaredRangeAreUsageErrors) {
  reg.add(make("counted", [](std::int64_t n) { return n; })).default_arg(10).min_arg(0);
  reg.add(make("ranged", [](std::int64_t n) { return n; })).min_arg(1).max_arg(64);
  EXPECT_EQ(usage_message(reg, {"counted/-5"}),
            "--workload: 'counted/-5': counted takes an integer of 0 or more, not -5");
  EXPECT_EQ(usage_message(reg, {"ranged/0"}),
            "--workload: 'ranged/0': ranged takes an integer from 1 to 64, not 0");
  EXPECT_EQ(usage_message(reg, {"ranged/65"}),
            "--workload: 'ranged/65': ranged takes an integer from 1 to 64, not 65");
  EXPECT_EQ(usage_message(reg, {"counted/0", "ranged/1", "ranged/64"}), "(accepted)");
  // A glob with an argument is checked against each workload it matches.
  EXPECT_THAT(usage_message(reg, {"*ed/0"}), HasSubstr("ranged takes an integer from 1 to 64"));
  EXPECT_EQ(reg.find("ranged")->accepted_args(), "an integer from 1 to 64");
  EXPECT_EQ(reg.find("xor_loop")->accepted_args(), "an integer");
}

TEST(Registration, ADefaultOutsideTheRangeOrARangeOnNoArgumentIsRefused) {
  auto w = make("w", [](std::int64_t n) { return n; });
  w.default_arg(-1);
  EXPECT_THROW(w.min_arg(0), std::invalid_argument);  // its default -1 is below it
  auto v = make("v", [](std::int64_t n) { return n; });
  v.min_arg(5);
  EXPECT_THROW(v.default_arg(4), std::invalid_argument);
  EXPECT_THROW(v.max_arg(4), std::invalid_argument);  // below the minimum
  auto none = make("none", [] {});
  EXPECT_THROW(none.min_arg(0), std::invalid_argument);
  EXPECT_THROW(none.default_arg(0), std::invalid_argument);
}

TEST(Registration, AMinimumSampleTimeIsAboveZeroAndAtMostTenSeconds) {
  auto w = make("w", [] {});
  EXPECT_FALSE(w.min_sample_time());
  EXPECT_THROW(w.min_sample_time(std::chrono::nanoseconds(0)), std::invalid_argument);
  EXPECT_THROW(w.min_sample_time(std::chrono::nanoseconds(-1)), std::invalid_argument);
  EXPECT_THROW(w.min_sample_time(std::chrono::seconds(10) + std::chrono::nanoseconds(1)),
               std::invalid_argument);
  EXPECT_FALSE(w.min_sample_time());
  w.min_sample_time(std::chrono::milliseconds(20));
  EXPECT_EQ(w.min_sample_time(), std::chrono::milliseconds(20));
  w.min_sample_time(std::chrono::seconds(10));
  EXPECT_EQ(w.min_sample_time(), std::chrono::seconds(10));
}

TEST(Registration, AMinimumBatchIsFromOneToAMillionCalls) {
  auto w = make("w", [] {});
  EXPECT_FALSE(w.min_batch_for(0));
  EXPECT_THROW(w.min_batch(0), std::invalid_argument);
  EXPECT_THROW(w.min_batch(kMaxMinBatch + 1), std::invalid_argument);
  EXPECT_FALSE(w.min_batch_for(0));
  try {
    w.min_batch(0);
    ADD_FAILURE() << "min_batch(0) was taken";
  } catch (const std::invalid_argument& e) {
    EXPECT_THAT(e.what(), ::testing::AllOf(HasSubstr("'w'"), HasSubstr("from 1 to 1000000"),
                                           HasSubstr("not 0")));
  }
  w.min_batch(80);
  EXPECT_EQ(w.min_batch_for(0), 80u);
  EXPECT_EQ(w.min_batch_for(1'000'000), 80u);
  w.min_batch(kMaxMinBatch);
  EXPECT_EQ(w.min_batch_for(0), kMaxMinBatch);
}

TEST(Registration, AMinimumBatchMayBeAFunctionOfTheArgumentCheckedWhenAsked) {
  auto w = make("w", [](std::int64_t) {});
  w.min_batch([](std::int64_t n) { return n; });
  EXPECT_EQ(w.min_batch_for(5), 5u);
  EXPECT_FALSE(w.min_batch_for(0));  // 0: no minimum for that argument
  EXPECT_EQ(w.min_batch_for(static_cast<std::int64_t>(kMaxMinBatch)), kMaxMinBatch);
  EXPECT_THROW(w.min_batch_for(-1), std::invalid_argument);
  try {
    w.min_batch_for(static_cast<std::int64_t>(kMaxMinBatch) + 1);
    ADD_FAILURE() << "a count above the most was taken";
  } catch (const std::invalid_argument& e) {
    EXPECT_THAT(e.what(), ::testing::AllOf(HasSubstr("'w'"), HasSubstr("gave 1000001 calls"),
                                           HasSubstr("argument 1000001")));
  }
}

// A negative iteration count is the workload's failure: the invoker throws after its calls.
TEST(Registration, ANegativeIterationCountFailsTheCall) {
  int calls = 0;
  auto w = make("neg", [&calls](std::int64_t n) -> int {
    ++calls;
    return calls == 2 ? -3 : static_cast<int>(n);
  });
  EXPECT_THROW(w.run(1, 3), detail::negative_count_error);
  EXPECT_EQ(calls, 3);  // checked once, after the calls
  auto unsigned_count = make("u", [] { return 7u; });
  EXPECT_EQ(unsigned_count.run(0, 2), 14u);
}

// -w NAME/LIST and -w NAME/LO..HI:xF or :+S: each argument its own instance, each checked.
TEST_F(RegistryTest, ArgumentListsAndRanges) {
  const auto args_of = [this](const std::string& pattern) {
    std::vector<std::int64_t> args;
    for (const workload_instance& i : reg.select({pattern}))
      args.push_back(*i.arg);
    return args;
  };
  EXPECT_EQ(args_of("xor_loop/1000,10000,100000"),
            (std::vector<std::int64_t>{1000, 10000, 100000}));
  EXPECT_EQ(args_of("xor_loop/1000..1000000:x10"),
            (std::vector<std::int64_t>{1000, 10000, 100000, 1000000}));
  // Google Benchmark's Range: the steps below HI, then HI.
  EXPECT_EQ(args_of("xor_loop/8..100:x8"), (std::vector<std::int64_t>{8, 64, 100}));
  EXPECT_EQ(args_of("xor_loop/0..64:+16"), (std::vector<std::int64_t>{0, 16, 32, 48, 64}));
  EXPECT_EQ(args_of("xor_loop/5..5:x2"), (std::vector<std::int64_t>{5}));
  EXPECT_EQ(reg.select({"xor_loop/1,2"})[1].display_name(), "xor_loop/2");
  // No overflow near the top of the range.
  EXPECT_EQ(args_of("xor_loop/4611686018427387904..9223372036854775807:x2").size(), 2u);
  EXPECT_THAT(usage_message(reg, {"xor_loop/1,,2"}), HasSubstr("invalid argument '' in"));
  EXPECT_THAT(usage_message(reg, {"xor_loop/10..1:x2"}), HasSubstr("10..1 is empty"));
  EXPECT_THAT(usage_message(reg, {"xor_loop/1..100:x1"}),
              HasSubstr("the factor must be 2 or more"));
  EXPECT_THAT(usage_message(reg, {"xor_loop/0..100:x2"}), HasSubstr("starts above 0"));
  EXPECT_THAT(usage_message(reg, {"xor_loop/1..100"}), HasSubstr("expected LO..HI:xFACTOR"));
  EXPECT_THAT(usage_message(reg, {"xor_loop/0..1000000:+1"}),
              HasSubstr("expands to more than 1000 arguments"));
  EXPECT_THAT(usage_message(reg, {"empty/1,2"}), HasSubstr("'empty' takes no argument"));
}

// A sweep declared at registration runs when the workload is selected without an argument.
TEST(Registration, ADefaultSweepRunsWithoutAnArgument) {
  workload_registry reg;
  reg.add(make("map_lookup", [](std::int64_t n) { return n; })).range(1000, 1000000, 10);
  reg.add(make("listed", [](std::int64_t n) { return n; })).args({3, 5}).min_arg(1);
  std::vector<std::string> names;
  for (const workload_instance& i : reg.select({"map_lookup", "listed"}))
    names.push_back(i.display_name());
  EXPECT_EQ(names,
            (std::vector<std::string>{"map_lookup/1000", "map_lookup/10000", "map_lookup/100000",
                                      "map_lookup/1000000", "listed/3", "listed/5"}));
  EXPECT_EQ(reg.select({"map_lookup/7"}).size(), 1u);  // an argument given replaces the sweep
  auto w = make("w", [](std::int64_t n) { return n; });
  w.min_arg(1);
  EXPECT_THROW(w.args({0, 1}), std::invalid_argument);  // 0 is below the minimum
  EXPECT_THROW(w.range(1, 100, 1), std::invalid_argument);
  EXPECT_THROW(w.args({}), std::invalid_argument);
}

TEST(Registration, MacroRegistersInGlobalRegistry) {
  // The built-in workloads are linked into this test binary.
  const workload* w = global_registry().find("xor_loop");
  ASSERT_NE(w, nullptr);
  EXPECT_TRUE(w->takes_arg());
  EXPECT_TRUE(w->returns_count());
  EXPECT_TRUE(w->is_default());
  for (const char* name :
       {"empty", "sort_ints", "memcpy_bytes", "unordered_map_insert", "file_open_close"}) {
    EXPECT_NE(global_registry().find(name), nullptr) << name;
  }
}

}  // namespace
}  // namespace harness
