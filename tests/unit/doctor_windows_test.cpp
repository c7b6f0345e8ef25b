// The Windows doctor over fake Win32 calls: per-CPU load from two processor-time readings, the
// CPU it chooses, the power plan, the right to raise priority (and Wine's recorded-only priority),
// the affinity mask read back, SMT siblings from core masks, cpuid's bits, and every refused read
// reported as unknown with the call and its error.
//
// Built only for Windows (it includes <windows.h>); it runs under Wine in CI.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "doctor/win32_doctor_calls.hpp"
#include "fake_win32.hpp"
#include "harness/errors.hpp"

namespace harness::doctor::detail {
namespace {

using platform::test::fake;
using ::testing::HasSubstr;

constexpr GUID kHighPerformance = {
    0x8c5e7fda, 0xe8bf, 0x4a96, {0x9a, 0x85, 0xa6, 0xe2, 0x3a, 0x8c, 0x63, 0x5c}};
constexpr GUID kBalanced = {
    0x381b4222, 0xf694, 0x41f0, {0x96, 0x85, 0xff, 0x5b, 0xb2, 0x60, 0xdf, 0x2e}};
constexpr GUID kCustom = {0x12345678, 0x9abc, 0xdef0, {1, 2, 3, 4, 5, 6, 7, 8}};

// 100 ns units: 0.2 s, the load window.
constexpr std::uint64_t kWindow = 2'000'000;

struct fake_doctor_state {
  // Busy fraction of each CPU over the window; turned into two processor-time readings.
  std::vector<double> busy = {0.0, 0.0, 0.0, 0.0};
  int readings = 0;
  DWORD refuse_times = 0;
  std::vector<DWORD> sleeps;
  std::vector<std::uint64_t> cores = {0b0011, 0b1100};
  DWORD refuse_cores = 0;
  privilege_reading privilege{true, false};
  DWORD refuse_privilege = 0;
  GUID scheme = kHighPerformance;
  std::string scheme_name = "High performance";
  DWORD refuse_scheme = 0;
  clocks::tsc_features features = [] {
    clocks::tsc_features f;
    f.x86_64 = true;
    f.invariant = true;
    return f;
  }();
};

fake_doctor_state state;

win32_doctor_calls fake_doctor_calls() {
  return win32_doctor_calls{
      platform::test::fake_calls(),
      [](std::vector<processor_time>* times) -> DWORD {
        if (state.refuse_times != 0) return state.refuse_times;
        const bool second = state.readings++ > 0;
        times->clear();
        for (const double busy : state.busy) {
          // Kernel time counts idle time, as Windows reports it.
          const auto idle = static_cast<std::uint64_t>((1.0 - busy) * kWindow);
          times->push_back(second ? processor_time{1000 + idle, 5000 + kWindow, 700}
                                  : processor_time{1000, 5000, 700});
        }
        return ERROR_SUCCESS;
      },
      [](DWORD milliseconds) { state.sleeps.push_back(milliseconds); },
      [](std::vector<std::uint64_t>* masks) -> DWORD {
        if (state.refuse_cores != 0) return state.refuse_cores;
        *masks = state.cores;
        return ERROR_SUCCESS;
      },
      [](privilege_reading* reading) -> DWORD {
        if (state.refuse_privilege != 0) return state.refuse_privilege;
        *reading = state.privilege;
        return ERROR_SUCCESS;
      },
      [](GUID* scheme, std::string* name) -> DWORD {
        if (state.refuse_scheme != 0) return state.refuse_scheme;
        *scheme = state.scheme;
        *name = state.scheme_name;
        return ERROR_SUCCESS;
      },
      []() { return state.features; },
  };
}

class windows_doctor_test : public ::testing::Test {
 protected:
  void SetUp() override {
    fake = platform::test::fake_win32{};
    state = fake_doctor_state{};
    options_.benchmark_build_type = [] { return std::optional<std::string>("release"); };
    options_.harness_build = build_info{true, true, "Release"};
  }

  doctor_report run() { return run_windows_doctor(options_, fake_doctor_calls()); }

  static std::map<std::string, check_result> by_id(const doctor_report& report) {
    std::map<std::string, check_result> checks;
    for (const auto& check : report.checks)
      checks[check.id] = check;
    return checks;
  }

  doctor_options options_;
};

TEST_F(windows_doctor_test, quiet_machine_reads_every_win32_fact) {
  state.busy = {0.5, 0.0, 0.0, 0.0};
  const doctor_report report = run();
  EXPECT_EQ(report.system, "windows");
  EXPECT_TRUE(report.root.empty());
  EXPECT_EQ(state.sleeps, (std::vector<DWORD>{200}));
  EXPECT_DOUBLE_EQ(report.window_seconds, 0.2);
  EXPECT_EQ(report.allowed, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_DOUBLE_EQ(report.load.at(0), 0.5);
  EXPECT_DOUBLE_EQ(report.load.at(3), 0.0);
  // Idle CPUs tie; the tie goes to the highest number.
  EXPECT_EQ(report.cpu, 3);

  const auto checks = by_id(report);
  for (const char* id : {"load", "power_plan", "smt", "hypervisor", "tsc", "priority", "affinity",
                         "harness_build", "benchmark_build"}) {
    EXPECT_EQ(checks.at(id).state, status::ok) << id << ": " << checks.at(id).fact;
  }
  for (const char* id : {"steal", "turbo", "isolation", "irqs", "aslr"}) {
    EXPECT_EQ(checks.at(id).state, status::unknown) << id;
    EXPECT_THAT(checks.at(id).fact, HasSubstr("not read on Windows")) << id;
  }
  EXPECT_FALSE(checks.contains("governor"));
  EXPECT_THAT(checks.at("load").fact, HasSubstr("NtQuerySystemInformation"));
  EXPECT_THAT(checks.at("load").fact, HasSubstr("CPU 0 50.0%"));
  EXPECT_THAT(checks.at("power_plan").fact,
              HasSubstr("'High performance' {8c5e7fda-e8bf-4a96-9a85-a6e23a8c635c}"));
  EXPECT_THAT(checks.at("smt").fact, HasSubstr("CPU 3 shares its core with CPU 2 0.0%"));
  EXPECT_THAT(checks.at("priority").fact,
              HasSubstr("process at NORMAL_PRIORITY_CLASS, thread at THREAD_PRIORITY_NORMAL"));
  EXPECT_THAT(checks.at("priority").fact, HasSubstr("REALTIME_PRIORITY_CLASS allowed"));
  EXPECT_TRUE(checks.at("priority").recommendation.empty());
  EXPECT_THAT(checks.at("affinity").fact,
              HasSubstr("may run on CPUs 0-3 (mask 0xf) of the system's 0-3 (mask 0xf)"));

  const doctor_summary summary = summarize(report);
  EXPECT_EQ(summary.ok, 9);
  EXPECT_EQ(summary.warn, 0);
  EXPECT_EQ(summary.unknown, 5);
}

TEST_F(windows_doctor_test, noisy_machine_warns_with_the_fix) {
  state.busy = {0.0, 0.0, 0.6, 0.0};
  state.scheme = kBalanced;
  state.scheme_name = "";  // no friendly name: the built-in name is used
  state.privilege = privilege_reading{false, false};
  state.features.hypervisor = true;
  state.features.invariant = false;
  options_.cpu = 3;
  const auto checks = by_id(run());

  EXPECT_EQ(checks.at("power_plan").state, status::warn);
  EXPECT_THAT(checks.at("power_plan").fact, HasSubstr("'Balanced'"));
  EXPECT_THAT(checks.at("power_plan").recommendation, HasSubstr("powercfg /setactive SCHEME_MIN"));
  EXPECT_EQ(checks.at("smt").state, status::warn);
  EXPECT_THAT(checks.at("smt").recommendation, HasSubstr("work on CPU 2 competes for the core"));
  EXPECT_EQ(checks.at("hypervisor").state, status::warn);
  EXPECT_EQ(checks.at("tsc").state, status::warn);
  EXPECT_THAT(checks.at("tsc").recommendation, HasSubstr("QueryPerformanceCounter"));
  // HIGH_PRIORITY_CLASS needs no privilege: still ok, with what realtime would get.
  EXPECT_EQ(checks.at("priority").state, status::ok);
  EXPECT_THAT(checks.at("priority").fact, HasSubstr("SeIncreaseBasePriorityPrivilege not held"));
  EXPECT_THAT(checks.at("priority").recommendation, HasSubstr("elevated"));
}

// Both cpuid bits are judged by one table-driven check: its words, for each value of each bit.
TEST_F(windows_doctor_test, cpuid_bits_say_what_was_read_and_what_to_do) {
  const auto fit = by_id(run());
  EXPECT_EQ(fit.at("hypervisor").fact, "cpuid leaf 1 ECX bit 31 (hypervisor) is clear");
  EXPECT_EQ(fit.at("hypervisor").title, "Hypervisor");
  EXPECT_TRUE(fit.at("hypervisor").recommendation.empty());
  EXPECT_EQ(fit.at("tsc").fact,
            "cpuid leaf 0x80000007 EDX bit 8 (invariant TSC) is set: one rate in every P- and "
            "C-state");
  EXPECT_EQ(fit.at("tsc").title, "Invariant TSC");
  EXPECT_TRUE(fit.at("tsc").recommendation.empty());

  state.features.hypervisor = true;
  state.features.invariant = false;
  const auto unfit = by_id(run());
  EXPECT_EQ(unfit.at("hypervisor").fact,
            "cpuid leaf 1 ECX bit 31 (hypervisor) is set: a virtual machine, or Windows itself on "
            "Hyper-V (virtualisation-based security sets it on bare metal too)");
  EXPECT_THAT(unfit.at("hypervisor").recommendation, HasSubstr("take final numbers on bare metal"));
  EXPECT_EQ(unfit.at("tsc").fact, "cpuid leaf 0x80000007 EDX bit 8 (invariant TSC) is clear");
  EXPECT_EQ(unfit.at("tsc").recommendation,
            "the TSC may change rate with frequency or stop in deep idle: use --clock "
            "QueryPerformanceCounter rather than rdtsc");
}

TEST_F(windows_doctor_test, wine_records_priority_without_effect) {
  fake.wine = "8.0";
  const auto checks = by_id(run());
  EXPECT_EQ(checks.at("priority").state, status::warn);
  EXPECT_THAT(checks.at("priority").fact,
              HasSubstr("under Wine 8.0 priority classes are recorded, not passed on"));
}

TEST_F(windows_doctor_test, refused_reads_are_unknown_naming_call_and_error) {
  fake.refuse_reads = ERROR_ACCESS_DENIED;
  state.refuse_times = ERROR_ACCESS_DENIED;
  state.refuse_cores = ERROR_INVALID_FUNCTION;
  state.refuse_scheme = ERROR_CALL_NOT_IMPLEMENTED;
  state.features.x86_64 = false;
  const doctor_report report = run();
  EXPECT_EQ(report.cpu, 0);
  EXPECT_THAT(report.cpu_reason, HasSubstr("CPU 0 assumed: GetProcessAffinityMask failed"));
  EXPECT_TRUE(report.load.empty());
  EXPECT_TRUE(state.sleeps.empty()) << "no window is waited for after the first reading failed";

  const auto checks = by_id(report);
  const std::map<std::string, std::string> expected = {
      {"load", "NtQuerySystemInformation(SystemProcessorPerformanceInformation) failed"},
      {"power_plan", "PowerGetActiveScheme failed"},
      {"smt", "GetLogicalProcessorInformationEx failed"},
      {"priority", "GetPriorityClass failed"},
      {"affinity", "GetProcessAffinityMask failed"},
      {"hypervisor", "cpuid not read"},
      {"tsc", "cpuid not read"},
  };
  for (const auto& [id, call] : expected) {
    EXPECT_EQ(checks.at(id).state, status::unknown) << id;
    EXPECT_THAT(checks.at(id).fact, HasSubstr(call)) << id;
  }
  EXPECT_THAT(checks.at("power_plan").fact, HasSubstr("(error 120)"));
  EXPECT_THAT(checks.at("load").fact, HasSubstr("(error 5)"));
}

TEST_F(windows_doctor_test, unreadable_privileges_leave_realtime_unknown) {
  state.refuse_privilege = ERROR_ACCESS_DENIED;
  const auto checks = by_id(run());
  EXPECT_EQ(checks.at("priority").state, status::ok);
  EXPECT_THAT(checks.at("priority").fact, HasSubstr("REALTIME_PRIORITY_CLASS unknown"));
  EXPECT_THAT(checks.at("priority").fact, HasSubstr("(error 5)"));
}

TEST_F(windows_doctor_test, custom_plan_is_named_but_not_judged) {
  state.scheme = kCustom;
  state.scheme_name = "Lab bench";
  const check_result plan = by_id(run()).at("power_plan");
  EXPECT_EQ(plan.state, status::unknown);
  EXPECT_THAT(plan.fact, HasSubstr("'Lab bench' {12345678-9abc-def0-0102-030405060708}"));
  EXPECT_THAT(plan.fact, HasSubstr("custom plan"));
  EXPECT_THAT(plan.recommendation, HasSubstr("minimum processor state is 100%"));
}

TEST_F(windows_doctor_test, narrowed_mask_is_read_back_and_chosen_from) {
  fake.process_mask = 0b0011;
  state.cores = {0b0001, 0b0010, 0b0100, 0b1000};
  const doctor_report report = run();
  EXPECT_EQ(report.allowed, (std::vector<int>{0, 1}));
  EXPECT_EQ(report.cpu, 1);
  const auto checks = by_id(report);
  EXPECT_EQ(checks.at("affinity").state, status::ok);
  EXPECT_THAT(checks.at("affinity").fact, HasSubstr("whoever started it narrowed the mask"));
  EXPECT_EQ(checks.at("smt").state, status::ok);
  EXPECT_THAT(checks.at("smt").fact, HasSubstr("CPU 1 has no SMT sibling"));
}

TEST_F(windows_doctor_test, chosen_cpu_outside_the_mask_warns) {
  fake.process_mask = 0b0011;
  options_.cpu = 3;
  const check_result affinity = by_id(run()).at("affinity");
  EXPECT_EQ(affinity.state, status::warn);
  EXPECT_THAT(affinity.fact, HasSubstr("CPU 3 is outside it"));
  EXPECT_THAT(affinity.recommendation, HasSubstr("choose one of CPUs 0-1"));
}

TEST_F(windows_doctor_test, the_callers_mask_chooses_the_cpu) {
  options_.allowed = std::vector<int>{1, 2};
  state.busy = {0.0, 0.0, 0.9, 0.0};
  const doctor_report report = run();
  EXPECT_EQ(report.allowed, (std::vector<int>{1, 2}));
  EXPECT_EQ(report.cpu, 1);
}

TEST_F(windows_doctor_test, cpus_outside_the_system_are_invalid_arguments) {
  options_.cpu = 7;
  try {
    run();
    FAIL() << "no exception";
  } catch (const cpu_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("CPU 7: not an online CPU; online CPUs are 0-3"));
  }
  options_.cpu = -1;
  EXPECT_THROW(run(), cpu_error);
}

TEST_F(windows_doctor_test, load_readings_that_do_not_compare_are_unknown) {
  win32_doctor_calls calls = fake_doctor_calls();
  calls.processor_times = [](std::vector<processor_time>* times) -> DWORD {
    // The second reading is earlier than the first.
    *times = {processor_time{state.readings++ == 0 ? 9000U : 10U, 20000, 300}};
    return ERROR_SUCCESS;
  };
  const doctor_report report = run_windows_doctor(options_, calls);
  EXPECT_TRUE(report.load.empty());
  const auto checks = by_id(report);
  EXPECT_EQ(checks.at("load").state, status::unknown);
  EXPECT_THAT(checks.at("load").fact, HasSubstr("went backwards"));

  state.readings = 0;
  calls.processor_times = [](std::vector<processor_time>* times) -> DWORD {
    times->assign(state.readings++ == 0 ? 2 : 3, processor_time{});
    return ERROR_SUCCESS;
  };
  const auto resized = by_id(run_windows_doctor(options_, calls));
  EXPECT_THAT(resized.at("load").fact, HasSubstr("listed 2 CPUs, then 3"));
}

TEST(windows_doctor_names, guids_and_builtin_plans) {
  EXPECT_EQ(guid_text(kBalanced), "{381b4222-f694-41f0-9685-ff5bb260df2e}");
  EXPECT_EQ(builtin_power_scheme_name(kHighPerformance), "High performance");
  EXPECT_EQ(builtin_power_scheme_name(kBalanced), "Balanced");
  EXPECT_EQ(builtin_power_scheme_name(kCustom), "");
}

}  // namespace
}  // namespace harness::doctor::detail
