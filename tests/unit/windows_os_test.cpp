// The Windows OS backend over a fake Win32 call table: affinity masks, priority classes and
// thread priorities, refusals with their system message, silent downgrades, and restore.
//
// Built only for Windows (it includes <windows.h>); it runs under Wine in CI. The fake call table
// is in fake_win32.hpp.
#include <gtest/gtest.h>

#include <string>
#include <system_error>
#include <vector>

#include "fake_win32.hpp"
#include "harness/errors.hpp"
#include "platform/win32_calls.hpp"

namespace harness::platform {
namespace {

using test::fake;
using test::fake_calls;
using test::fake_win32;

class windows_os_test : public ::testing::Test {
 protected:
  void SetUp() override { fake = fake_win32{}; }
  std::unique_ptr<os_interface> os_ = make_windows_os(fake_calls());
};

TEST_F(windows_os_test, affinity_lists_the_bits_of_the_process_mask) {
  fake.process_mask = 0b1011;
  EXPECT_EQ(os_->affinity(), (cpu_list{0, 1, 3}));
  fake.process_mask = DWORD_PTR{1} << 63;
  EXPECT_EQ(os_->affinity(), (cpu_list{63}));
}

TEST_F(windows_os_test, unreadable_affinity_throws_with_the_error) {
  fake.refuse_reads = ERROR_ACCESS_DENIED;
  try {
    os_->affinity();
    FAIL() << "no exception";
  } catch (const std::system_error& e) {
    EXPECT_EQ(e.code().value(), ERROR_ACCESS_DENIED);
    EXPECT_NE(std::string(e.what()).find("GetProcessAffinityMask"), std::string::npos);
  }
}

TEST_F(windows_os_test, pinning_sets_the_mask_of_that_cpu) {
  const step_result r = os_->set_affinity({2});
  EXPECT_TRUE(r.applied);
  EXPECT_EQ(r.error_code, 0);
  EXPECT_EQ(r.action, "pin to CPU 2 (SetProcessAffinityMask)");
  EXPECT_EQ(fake.calls.back(), "SetProcessAffinityMask 4");
  EXPECT_EQ(os_->affinity(), (cpu_list{2}));
}

TEST_F(windows_os_test, restoring_several_cpus_names_them_as_a_list) {
  const step_result r = os_->set_affinity({0, 1, 2, 3});
  EXPECT_TRUE(r.applied);
  EXPECT_EQ(r.action, "allow CPUs 0-3 (SetProcessAffinityMask)");
  EXPECT_EQ(fake.calls.back(), "SetProcessAffinityMask 15");
}

TEST_F(windows_os_test, refused_affinity_carries_the_error_code_and_system_message) {
  fake.refuse_affinity = ERROR_ACCESS_DENIED;
  const step_result r = os_->set_affinity({1});
  EXPECT_FALSE(r.applied);
  EXPECT_EQ(r.error_code, ERROR_ACCESS_DENIED);
  // The text is the system's (it differs between Windows and Wine); the code is always appended.
  EXPECT_NE(r.reason.find("(error 5)"), std::string::npos) << r.reason;
  EXPECT_GT(r.reason.size(), std::string("(error 5)").size()) << r.reason;
  EXPECT_EQ(fake.process_mask, 0b1111U);
}

TEST_F(windows_os_test, a_cpu_outside_the_mask_is_a_usage_error_naming_it) {
  try {
    os_->set_affinity({64});
    FAIL() << "no exception";
  } catch (const usage_error& e) {
    EXPECT_NE(std::string(e.what()).find("CPU 64"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("0 to 63"), std::string::npos) << e.what();
  }
  EXPECT_THROW(os_->set_affinity({-1}), usage_error);
  EXPECT_TRUE(fake.calls.empty());
}

TEST_F(windows_os_test, high_sets_high_class_and_highest_thread_priority) {
  const auto steps = os_->raise_priority(priority_level::high);
  ASSERT_EQ(steps.size(), 2U);
  EXPECT_EQ(steps[0].action, "HIGH_PRIORITY_CLASS (SetPriorityClass)");
  EXPECT_EQ(steps[1].action, "THREAD_PRIORITY_HIGHEST (SetThreadPriority)");
  EXPECT_TRUE(steps[0].applied);
  EXPECT_TRUE(steps[1].applied);
  EXPECT_EQ(fake.priority_class, static_cast<DWORD>(HIGH_PRIORITY_CLASS));
  EXPECT_EQ(fake.thread_priority, THREAD_PRIORITY_HIGHEST);
  EXPECT_EQ(os_->describe_priority(), "HIGH_PRIORITY_CLASS, THREAD_PRIORITY_HIGHEST");
}

TEST_F(windows_os_test, realtime_sets_realtime_class_and_time_critical_thread_priority) {
  const auto steps = os_->raise_priority(priority_level::realtime);
  ASSERT_EQ(steps.size(), 2U);
  EXPECT_TRUE(steps[0].applied);
  EXPECT_TRUE(steps[1].applied);
  EXPECT_EQ(fake.priority_class, static_cast<DWORD>(REALTIME_PRIORITY_CLASS));
  EXPECT_EQ(fake.thread_priority, THREAD_PRIORITY_TIME_CRITICAL);
}

TEST_F(windows_os_test, normal_changes_nothing) {
  EXPECT_TRUE(os_->raise_priority(priority_level::normal).empty());
  EXPECT_TRUE(fake.calls.empty());
}

TEST_F(windows_os_test, a_silently_downgraded_realtime_class_is_reported_as_refused) {
  fake.realtime_grants = HIGH_PRIORITY_CLASS;
  const auto steps = os_->raise_priority(priority_level::realtime);
  ASSERT_EQ(steps.size(), 2U);
  EXPECT_FALSE(steps[0].applied);
  EXPECT_EQ(steps[0].error_code, 0);
  EXPECT_NE(steps[0].reason.find("runs at HIGH_PRIORITY_CLASS"), std::string::npos)
      << steps[0].reason;
  EXPECT_NE(steps[0].reason.find("SeIncreaseBasePriorityPrivilege"), std::string::npos);
  EXPECT_TRUE(steps[1].applied);
}

TEST_F(windows_os_test, refused_priority_steps_carry_their_errors) {
  fake.refuse_class = ERROR_ACCESS_DENIED;
  fake.refuse_thread = ERROR_INVALID_HANDLE;
  const auto steps = os_->raise_priority(priority_level::high);
  ASSERT_EQ(steps.size(), 2U);
  EXPECT_FALSE(steps[0].applied);
  EXPECT_EQ(steps[0].error_code, ERROR_ACCESS_DENIED);
  EXPECT_FALSE(steps[1].applied);
  EXPECT_EQ(steps[1].error_code, ERROR_INVALID_HANDLE);
  EXPECT_NE(steps[1].reason.find("(error 6)"), std::string::npos) << steps[1].reason;
  EXPECT_EQ(fake.priority_class, static_cast<DWORD>(NORMAL_PRIORITY_CLASS));
}

TEST_F(windows_os_test, restore_puts_back_the_saved_class_and_thread_priority) {
  fake.priority_class = ABOVE_NORMAL_PRIORITY_CLASS;
  fake.thread_priority = THREAD_PRIORITY_BELOW_NORMAL;
  const priority_snapshot saved = os_->save_priority();
  ASSERT_TRUE(saved.valid);
  os_->raise_priority(priority_level::realtime);
  const auto steps = os_->restore_priority(saved);
  ASSERT_EQ(steps.size(), 2U);
  EXPECT_TRUE(steps[0].applied);
  EXPECT_TRUE(steps[1].applied);
  EXPECT_EQ(steps[0].action, "restore ABOVE_NORMAL_PRIORITY_CLASS (SetPriorityClass)");
  EXPECT_EQ(fake.priority_class, static_cast<DWORD>(ABOVE_NORMAL_PRIORITY_CLASS));
  EXPECT_EQ(fake.thread_priority, THREAD_PRIORITY_BELOW_NORMAL);
}

TEST_F(windows_os_test, an_unreadable_priority_gives_an_invalid_snapshot_that_restores_nothing) {
  fake.refuse_reads = ERROR_ACCESS_DENIED;
  const priority_snapshot saved = os_->save_priority();
  EXPECT_FALSE(saved.valid);
  EXPECT_TRUE(os_->restore_priority(saved).empty());
  EXPECT_NE(os_->describe_priority().find("unreadable"), std::string::npos);
}

TEST_F(windows_os_test, under_wine_the_description_says_priority_is_not_passed_on) {
  fake.wine = "8.0";
  EXPECT_EQ(os_->describe_priority(),
            "NORMAL_PRIORITY_CLASS, THREAD_PRIORITY_NORMAL (Wine 8.0: recorded, not passed on to "
            "the Linux scheduler)");
}

TEST_F(windows_os_test, memory_locking_is_refused_as_not_supported) {
  const step_result lock = os_->lock_memory();
  EXPECT_FALSE(lock.applied);
  EXPECT_EQ(lock.error_code, ERROR_NOT_SUPPORTED);
  EXPECT_NE(lock.reason.find("mlockall"), std::string::npos) << lock.reason;
  EXPECT_FALSE(os_->unlock_memory().applied);
}

TEST_F(windows_os_test, context_switches_are_not_offered) {
  EXPECT_FALSE(os_->involuntary_switches().has_value());
}

TEST_F(windows_os_test, unknown_values_are_named_by_number) {
  EXPECT_EQ(priority_class_name(0x1234), "priority class 0x1234");
  EXPECT_EQ(thread_priority_name(7), "thread priority 7");
}

// The real backend against the real system (Wine in CI): pin to one allowed CPU, read it back,
// put the mask back. Skipped where the process may run on a single CPU only.
TEST(windows_native_os, pins_and_reads_back_then_restores) {
  auto os = make_native_os();
  EXPECT_EQ(os->name(), "windows");
  const cpu_list before = os->affinity();
  ASSERT_FALSE(before.empty());
  if (before.size() < 2) GTEST_SKIP() << "only one CPU allowed";
  const step_result pin = os->set_affinity({before.back()});
  ASSERT_TRUE(pin.applied) << pin.reason;
  EXPECT_EQ(os->affinity(), (cpu_list{before.back()}));
  EXPECT_TRUE(os->set_affinity(before).applied);
  EXPECT_EQ(os->affinity(), before);
}

TEST(windows_native_os, raises_and_restores_priority) {
  auto os = make_native_os();
  const priority_snapshot saved = os->save_priority();
  ASSERT_TRUE(saved.valid);
  for (const auto& s : os->raise_priority(priority_level::high)) {
    EXPECT_TRUE(s.applied) << s.action << ": " << s.reason;
  }
  EXPECT_NE(os->describe_priority().find("HIGH_PRIORITY_CLASS, THREAD_PRIORITY_HIGHEST"),
            std::string::npos);
  for (const auto& s : os->restore_priority(saved)) {
    EXPECT_TRUE(s.applied) << s.action << ": " << s.reason;
  }
  const priority_snapshot after = os->save_priority();
  EXPECT_EQ(after.process_value, saved.process_value);
  EXPECT_EQ(after.thread_value, saved.thread_value);
}

}  // namespace
}  // namespace harness::platform
