// harness doctor: each check's ok, warn and unknown paths on fake /proc and /sys trees, the
// parsers of the kernel's formats, and the default-CPU choice.
//
// The trees under tests/data/doctor/ are whole machines (tuned: all ok; noisy: all warn; empty:
// all unknown); single-file variations are written to a temporary tree by the test itself. Load and
// steal come from two /proc/stat texts handed in through the sampler seam, so nothing sleeps.
//
// Why one file of ~500 lines: every check's three paths over the same fake trees and helpers; split
// by check, each file would repeat the trees' setup.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

#include "doctor/checks.hpp"
#include "doctor/probe.hpp"
#include "harness/doctor.hpp"
#include "harness/errors.hpp"

namespace harness::doctor {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

// tests/data/doctor, named by CMake (not __FILE__, which ccache with CCACHE_BASEDIR makes
// relative to the build folder).
const std::filesystem::path& data_dir() {
  static const std::filesystem::path dir = std::filesystem::path(HARNESS_TEST_DATA_DIR) / "doctor";
  return dir;
}

// The tree's proc/stat then proc/stat.after, 0.2 s apart.
stat_sampler two_file_sampler() {
  return [](const std::filesystem::path& root) {
    const detail::system_probe probe(root);
    return stat_window{probe.read("proc/stat"), probe.read("proc/stat.after"), 0.2};
  };
}

doctor_options options_for(const std::filesystem::path& root) {
  doctor_options options;
  options.root = root;
  options.sampler = two_file_sampler();
  options.harness_build = {true, true, "Release"};
  options.benchmark_build_type = [] { return std::optional<std::string>("release"); };
  return options;
}

std::map<std::string, check_result> by_id(const doctor_report& report) {
  std::map<std::string, check_result> checks;
  for (const auto& check : report.checks)
    checks.emplace(check.id, check);
  return checks;
}

const std::vector<std::string> kFileChecks = {"load",
                                              "steal",
                                              "governor",
                                              "turbo",
                                              "smt",
                                              "isolation",
                                              "irqs",
                                              "hypervisor",
                                              "tsc",
                                              "aslr",
                                              "perf_event_paranoid",
                                              "priority"};

// A temporary system root the test fills file by file; removed at the end of the test.
class temp_tree {
 public:
  temp_tree() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    root_ = std::filesystem::path(::testing::TempDir()) /
            (std::string("doctor_") + info->test_suite_name() + "_" + info->name());
    std::filesystem::remove_all(root_);
    std::filesystem::create_directories(root_);
  }
  ~temp_tree() { std::filesystem::remove_all(root_); }
  temp_tree(const temp_tree&) = delete;
  temp_tree& operator=(const temp_tree&) = delete;

  temp_tree& write(const std::string& relative, const std::string& text) {
    const auto path = root_ / relative;
    std::filesystem::create_directories(path.parent_path());
    std::ofstream(path) << text;
    return *this;
  }
  const std::filesystem::path& root() const { return root_; }
  detail::system_probe probe() const { return detail::system_probe(root_); }

 private:
  std::filesystem::path root_;
};

// ---- parsers ----

TEST(DoctorParse, CpuLists) {
  EXPECT_EQ(detail::parse_cpu_list("0-3,6"), (std::vector<int>{0, 1, 2, 3, 6}));
  EXPECT_EQ(detail::parse_cpu_list(" 5 , 1\n"), (std::vector<int>{1, 5}));
  EXPECT_EQ(detail::parse_cpu_list(""), std::vector<int>{});
  EXPECT_EQ(detail::parse_cpu_list("3-1"), std::nullopt);
  EXPECT_EQ(detail::parse_cpu_list("cpu1"), std::nullopt);
  EXPECT_EQ(detail::parse_cpu_list("1,,2"), std::nullopt);
}

TEST(DoctorParse, KernelCommandLineStopsAtInitArguments) {
  const auto params = detail::parse_kernel_cmdline("ro isolcpus=1 quiet -- isolcpus=0 nohz_full=0");
  EXPECT_EQ(params.at("isolcpus"), "1");
  EXPECT_EQ(params.at("ro"), "");
  EXPECT_FALSE(params.contains("nohz_full"));
}

TEST(DoctorParse, IsolcpusFlagsAreSkipped) {
  EXPECT_EQ(detail::isolcpus_cpus("managed_irq,domain,2-3"), "2-3");
  EXPECT_EQ(detail::isolcpus_cpus("1,3"), "1,3");
  EXPECT_EQ(detail::isolcpus_cpus("nohz"), "");
}

TEST(DoctorParse, LimitsWithUnlimitedBounds) {
  const std::string text =
      "Limit                     Soft Limit           Hard Limit           Units\n"
      "Max nice priority         unlimited            unlimited\n"
      "Max realtime priority     5                    10\n";
  const auto nice = detail::parse_limit(text, "Max nice priority");
  ASSERT_TRUE(nice);
  EXPECT_FALSE(nice->soft);
  EXPECT_FALSE(nice->hard);
  const auto rt = detail::parse_limit(text, "Max realtime priority");
  ASSERT_TRUE(rt);
  EXPECT_EQ(rt->soft, 5u);
  EXPECT_EQ(rt->hard, 10u);
  EXPECT_FALSE(detail::parse_limit(text, "Max locked memory"));
}

TEST(DoctorParse, InterruptsColumnsAndRows) {
  const auto table = detail::parse_interrupts(
      "           CPU0       CPU2\n"
      "  24:          1          7   IO-APIC   5-edge      ACPI:Ged\n"
      " LOC:      22077      22778   Local timer interrupts\n"
      " ERR:          0\n");
  ASSERT_TRUE(table);
  EXPECT_THAT(table->column_cpus, ElementsAre(0, 2));
  ASSERT_EQ(table->rows.size(), 3u);
  EXPECT_TRUE(table->rows[0].device);
  EXPECT_THAT(table->rows[0].counts, ElementsAre(1u, 7u));
  EXPECT_EQ(table->rows[0].description, "IO-APIC   5-edge      ACPI:Ged");
  EXPECT_FALSE(table->rows[1].device);
  EXPECT_THAT(table->rows[2].counts, ElementsAre(0u));
  EXPECT_FALSE(detail::parse_interrupts("garbage\n"));
}

TEST(DoctorParse, LoadFromTwoStatReadings) {
  const auto load =
      detail::compute_load("cpu  10 0 10 80 0 0 0 0\ncpu0 10 0 10 80 0 0 0 0\n",
                           "cpu  15 0 15 150 0 0 0 20\ncpu0 15 0 15 150 0 0 0 20\n", 0.2, "stat");
  EXPECT_THAT(load.unknown_reason, IsEmpty());
  EXPECT_DOUBLE_EQ(load.busy.at(0), 10.0 / 100.0);
  EXPECT_DOUBLE_EQ(load.steal.at(0), 20.0 / 100.0);
  EXPECT_DOUBLE_EQ(*load.steal_all, 20.0 / 100.0);
  EXPECT_DOUBLE_EQ(*load.steal_since_boot, 0.0);
}

TEST(DoctorParse, EqualStatReadingsGiveNoLoad) {
  const std::string stat = "cpu  1 2 3 4 5 6 7 8\ncpu0 1 2 3 4 5 6 7 8\n";
  const auto load = detail::compute_load(stat, stat, 0.0, "/x/proc/stat");
  EXPECT_THAT(load.unknown_reason, HasSubstr("no ticks elapsed"));
  EXPECT_THAT(detail::compute_load(std::nullopt, stat, 0.0, "/x/proc/stat").unknown_reason,
              HasSubstr("/x/proc/stat could not be read"));
  EXPECT_THAT(detail::compute_load("intr 1\n", stat, 0.0, "/x/proc/stat").unknown_reason,
              HasSubstr("no readable cpu lines"));
}

// ---- select_default_cpu ----

TEST(SelectDefaultCpu, LeastLoadedWins) {
  const auto choice = select_default_cpu({0, 1, 2, 3}, {{0, 0.5}, {1, 0.3}, {2, 0.2}, {3, 0.9}});
  EXPECT_EQ(choice.cpu, 2);
  EXPECT_THAT(choice.reason, HasSubstr("least loaded of the allowed CPUs 0-3"));
  EXPECT_THAT(choice.reason, HasSubstr("CPU 2 20.0%"));
}

TEST(SelectDefaultCpu, NearTiesGoToTheHighestNumber) {
  EXPECT_EQ(select_default_cpu({1, 2, 3}, {{1, 0.02}, {2, 0.0}, {3, 0.01}}).cpu, 3);
  EXPECT_EQ(select_default_cpu({1, 2, 3}, {{1, 0.0}, {2, 0.0}, {3, 0.30}}).cpu, 2);
}

TEST(SelectDefaultCpu, CpuZeroOnlyWhenClearlyLessLoaded) {
  EXPECT_EQ(select_default_cpu({0, 1}, {{0, 0.0}, {1, 0.08}}).cpu, 1);
  EXPECT_EQ(select_default_cpu({0, 1}, {{0, 0.0}, {1, 0.0}}).cpu, 1);
  EXPECT_EQ(select_default_cpu({0, 1}, {{0, 0.0}, {1, 0.90}}).cpu, 0);
  EXPECT_EQ(select_default_cpu({0}, {{0, 0.95}}).cpu, 0);
}

TEST(SelectDefaultCpu, OnlyAllowedCpusWithALoadCount) {
  EXPECT_EQ(select_default_cpu({0, 1}, {{0, 0.5}, {1, 0.5}, {7, 0.0}}).cpu, 1);
  const auto choice = select_default_cpu({0, 1, 2}, {{0, 0.5}, {1, 0.4}});
  EXPECT_EQ(choice.cpu, 1);
  EXPECT_THAT(choice.reason, HasSubstr("without a load reading were skipped"));
}

TEST(SelectDefaultCpu, UnknownLoadTakesTheHighestAllowed) {
  const auto choice = select_default_cpu({0, 2, 5}, {});
  EXPECT_EQ(choice.cpu, 5);
  EXPECT_THAT(choice.reason, HasSubstr("load is unknown"));
  EXPECT_EQ(select_default_cpu({0}, {}).cpu, 0);
}

TEST(SelectDefaultCpu, EmptyMaskIsABug) {
  EXPECT_THROW(select_default_cpu({}, {{0, 0.0}}), std::invalid_argument);
}

// ---- whole trees ----

TEST(DoctorTree, TunedMachineIsOkEverywhere) {
  const auto report = run_tree_doctor(options_for(data_dir() / "tuned"));
  EXPECT_EQ(report.cpu, 3);
  EXPECT_THAT(report.allowed, ElementsAre(0, 1, 2, 3));
  EXPECT_DOUBLE_EQ(report.load.at(0), 0.5);
  EXPECT_DOUBLE_EQ(report.load.at(1), 0.3);
  EXPECT_DOUBLE_EQ(report.window_seconds, 0.2);
  ASSERT_EQ(report.checks.size(), kFileChecks.size() + 2);
  for (const auto& check : report.checks) {
    EXPECT_EQ(check.state, status::ok) << check.id << ": " << check.fact;
  }
  const auto checks = by_id(report);
  EXPECT_THAT(checks.at("governor").fact, HasSubstr("governor performance"));
  EXPECT_THAT(checks.at("governor").recommendation, IsEmpty());
  EXPECT_THAT(checks.at("turbo").fact, HasSubstr("no_turbo = 1 (turbo off)"));
  EXPECT_THAT(checks.at("smt").fact, HasSubstr("no SMT sibling"));
  EXPECT_THAT(checks.at("isolation").fact, HasSubstr("isolcpus=managed_irq,domain,2-3"));
  EXPECT_THAT(checks.at("isolation").recommendation, IsEmpty());
  // IRQ 24 served CPU 3 once but its effective affinity is now CPU 0; IRQ 25 never fired.
  EXPECT_THAT(checks.at("irqs").fact, HasSubstr("none of the 3 device IRQs"));
  EXPECT_THAT(checks.at("hypervisor").fact, HasSubstr("sys_vendor Dell Inc."));
  EXPECT_THAT(checks.at("tsc").fact, HasSubstr("constant_tsc nonstop_tsc"));
  EXPECT_THAT(checks.at("priority").fact, HasSubstr("nice -20 allowed, SCHED_FIFO allowed"));
}

TEST(DoctorTree, NoisyMachineWarnsEverywhere) {
  const auto report = run_tree_doctor(options_for(data_dir() / "noisy"));
  // CPU 0 and 3 were idle; CPU 0 counts busier for housekeeping.
  EXPECT_EQ(report.cpu, 3);
  const auto checks = by_id(report);
  for (const auto& id : kFileChecks) {
    if (id == "load") continue;  // CPU 3 itself was idle; see the next test
    EXPECT_EQ(checks.at(id).state, status::warn) << id << ": " << checks.at(id).fact;
    EXPECT_THAT(checks.at(id).recommendation, Not(IsEmpty())) << id;
  }
  EXPECT_EQ(checks.at("load").state, status::ok);
  EXPECT_THAT(checks.at("governor").fact, HasSubstr("governor powersave, scaling_min_freq 800000"));
  EXPECT_THAT(checks.at("governor").recommendation,
              HasSubstr("cpupower -c 3 frequency-set -g performance"));
  EXPECT_THAT(checks.at("turbo").fact, HasSubstr("cpufreq/boost = 1 (turbo on)"));
  EXPECT_THAT(checks.at("smt").fact, HasSubstr("CPU 1 60.0%"));
  EXPECT_THAT(checks.at("isolation").recommendation,
              HasSubstr("isolcpus=3 nohz_full=3 rcu_nocbs=3"));
  EXPECT_THAT(checks.at("irqs").fact, HasSubstr("16 ehci_hcd:usb1 (50 on CPU 3)"));
  EXPECT_THAT(checks.at("irqs").fact, Not(HasSubstr("xhci_hcd")));
  EXPECT_THAT(checks.at("irqs").recommendation, HasSubstr("echo 0-2 |"));
  EXPECT_THAT(checks.at("steal").fact, HasSubstr("10.0% of all CPUs' time (CPU 3 10.0%)"));
  EXPECT_THAT(checks.at("hypervisor").fact, HasSubstr("flag 'hypervisor'"));
  EXPECT_THAT(checks.at("hypervisor").fact, HasSubstr("type = xen"));
  EXPECT_THAT(checks.at("hypervisor").fact, HasSubstr("sys_vendor = QEMU"));
  EXPECT_THAT(checks.at("tsc").fact, HasSubstr("absent: nonstop_tsc"));
  EXPECT_THAT(checks.at("aslr").fact, HasSubstr("randomize_va_space = 2"));
  EXPECT_THAT(checks.at("perf_event_paranoid").fact, HasSubstr("= 3"));
  EXPECT_THAT(checks.at("priority").fact, HasSubstr("nice -20 refused, SCHED_FIFO refused"));
}

TEST(DoctorTree, BusyChosenCpuWarns) {
  auto options = options_for(data_dir() / "noisy");
  options.cpu = 1;
  const auto report = run_tree_doctor(options);
  EXPECT_EQ(report.cpu, 1);
  EXPECT_EQ(report.cpu_reason, "chosen by the user");
  const auto load = by_id(report).at("load");
  EXPECT_EQ(load.state, status::warn);
  EXPECT_THAT(load.fact, HasSubstr("CPU 1 60.0%"));
  EXPECT_THAT(load.recommendation, HasSubstr("CPU 1 was busy"));
}

TEST(DoctorTree, EmptyRootIsUnknownNamingThePath) {
  const auto root = data_dir() / "empty";
  const auto report = run_tree_doctor(options_for(root));
  EXPECT_EQ(report.cpu, 0);
  EXPECT_THAT(report.cpu_reason, HasSubstr("CPU 0 assumed"));
  EXPECT_THAT(report.load, IsEmpty());
  const auto checks = by_id(report);
  for (const auto& id : kFileChecks) {
    EXPECT_EQ(checks.at(id).state, status::unknown) << id << ": " << checks.at(id).fact;
    // Paths print with '/' on every platform (generic form).
    EXPECT_THAT(checks.at(id).fact, HasSubstr(root.generic_string())) << id;
  }
  EXPECT_THAT(checks.at("governor").fact, HasSubstr("cpu0/cpufreq/scaling_governor is missing"));
  EXPECT_THAT(checks.at("isolation").fact, HasSubstr("proc/cmdline is missing"));
}

TEST(DoctorTree, RealSamplerSleepsTheWindowAndReadsTwice) {
  std::vector<std::chrono::milliseconds> sleeps;
  auto options = options_for(data_dir() / "tuned");
  options.sampler = sleeping_stat_sampler(
      std::chrono::milliseconds(200), [&](std::chrono::milliseconds d) { sleeps.push_back(d); });
  const auto report = run_tree_doctor(options);
  EXPECT_THAT(sleeps, ElementsAre(std::chrono::milliseconds(200)));
  // Both readings are the same file: no tick elapsed, so no load and the highest allowed CPU.
  EXPECT_THAT(report.load, IsEmpty());
  EXPECT_EQ(report.cpu, 3);
  EXPECT_EQ(by_id(report).at("load").state, status::unknown);
  EXPECT_THAT(by_id(report).at("load").fact, HasSubstr("no ticks elapsed"));
}

TEST(DoctorTree, BadCpuIsAnInvalidArgument) {
  auto options = options_for(data_dir() / "tuned");
  options.cpu = 9;
  try {
    run_tree_doctor(options);
    FAIL() << "no cpu_error";
  } catch (const cpu_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("CPU 9: not an online CPU; online CPUs are 0-3"));
  }
  options.cpu = -1;
  EXPECT_THROW(run_tree_doctor(options), cpu_error);
}

// ---- single checks on small trees ----

TEST(DoctorCheck, TurboValues) {
  temp_tree tree;
  tree.write("sys/devices/system/cpu/intel_pstate/no_turbo", "0\n");
  const auto on = detail::check_turbo(tree.probe());
  EXPECT_EQ(on.state, status::warn);
  EXPECT_THAT(on.recommendation, HasSubstr("echo 1 | sudo tee"));
  tree.write("sys/devices/system/cpu/intel_pstate/no_turbo", "7\n");
  EXPECT_EQ(detail::check_turbo(tree.probe()).state, status::unknown);
}

TEST(DoctorCheck, GovernorPerformanceWithRangeSuggestsFixedClock) {
  temp_tree tree;
  tree.write("sys/devices/system/cpu/cpu2/cpufreq/scaling_governor", "performance\n")
      .write("sys/devices/system/cpu/cpu2/cpufreq/scaling_min_freq", "800000\n")
      .write("sys/devices/system/cpu/cpu2/cpufreq/scaling_max_freq", "3000000\n");
  const auto r = detail::check_governor(tree.probe(), 2);
  EXPECT_EQ(r.state, status::ok);
  EXPECT_THAT(r.recommendation, HasSubstr("-d 3000000kHz"));
}

TEST(DoctorCheck, SmtSiblingWithoutLoadOrMalformedIsUnknown) {
  temp_tree tree;
  tree.write("sys/devices/system/cpu/cpu1/topology/thread_siblings_list", "0-1\n");
  detail::load_sample no_load;
  no_load.unknown_reason = "stat unreadable";
  const auto r = detail::check_smt(tree.probe(), 1, no_load);
  EXPECT_EQ(r.state, status::unknown);
  EXPECT_THAT(r.fact, HasSubstr("CPU 0, whose load is unknown (stat unreadable)"));
  detail::load_sample idle;
  idle.busy = {{0, 0.0}, {1, 0.0}};
  EXPECT_EQ(detail::check_smt(tree.probe(), 1, idle).state, status::ok);
  tree.write("sys/devices/system/cpu/cpu1/topology/thread_siblings_list", "x\n");
  EXPECT_EQ(detail::check_smt(tree.probe(), 1, idle).state, status::unknown);
}

TEST(DoctorCheck, IsolatedWithoutNohzFullSuggestsTheRest) {
  temp_tree tree;
  tree.write("proc/cmdline", "root=/dev/sda isolcpus=1\n");
  const auto r = detail::check_isolation(tree.probe(), 1);
  EXPECT_EQ(r.state, status::ok);
  EXPECT_THAT(r.recommendation, HasSubstr("also boot with nohz_full=1 rcu_nocbs=1"));
  EXPECT_EQ(detail::check_isolation(tree.probe(), 0).state, status::warn);
}

TEST(DoctorCheck, IrqsByCountsWhenNoAffinityFilesAndUnknownColumn) {
  temp_tree tree;
  tree.write("proc/interrupts",
             "      CPU0   CPU1\n"
             " 10:     0     5   IO-APIC 10-edge eth0\n"
             " 11:     9     0   IO-APIC 11-edge sda\n");
  const auto r = detail::check_irqs(tree.probe(), 1);
  EXPECT_EQ(r.state, status::warn);
  EXPECT_THAT(r.fact, HasSubstr("by counts since boot): 10 eth0 (5 on CPU 1)"));
  EXPECT_EQ(detail::check_irqs(tree.probe(), 0).state, status::warn);
  const auto missing = detail::check_irqs(tree.probe(), 7);
  EXPECT_EQ(missing.state, status::unknown);
  EXPECT_THAT(missing.fact, HasSubstr("no column for CPU 7"));
}

TEST(DoctorCheck, StealWithoutStealColumnIsUnknown) {
  const auto load = detail::compute_load("cpu  1 0 1 8\ncpu0 1 0 1 8\n",
                                         "cpu  2 0 2 16\ncpu0 2 0 2 16\n", 0.2, "s");
  EXPECT_EQ(detail::check_steal(load, 0, "s").state, status::unknown);
  EXPECT_EQ(detail::check_load(load, 0, "s").state, status::warn);  // 2 of 10 ticks busy
  EXPECT_EQ(detail::check_load(load, 4, "s").state, status::unknown);
}

TEST(DoctorCheck, HypervisorFromVendorAloneAndTscWithoutFlags) {
  temp_tree tree;
  tree.write("proc/cpuinfo", "processor\t: 0\nFeatures\t: fp asimd\n")
      .write("sys/class/dmi/id/sys_vendor", "Lenovo\n");
  const auto hv = detail::check_hypervisor(tree.probe());
  EXPECT_EQ(hv.state, status::ok);
  EXPECT_THAT(hv.fact, HasSubstr("not a virtual machine's vendor"));
  const auto tsc = detail::check_tsc(tree.probe());
  EXPECT_EQ(tsc.state, status::unknown);
  EXPECT_THAT(tsc.fact, HasSubstr("no flags line"));
  tree.write("sys/class/dmi/id/sys_vendor", "VMware, Inc.\n");
  EXPECT_EQ(detail::check_hypervisor(tree.probe()).state, status::warn);
}

TEST(DoctorCheck, AslrOffForThisProcessByPersonality) {
  temp_tree tree;
  tree.write("proc/sys/kernel/randomize_va_space", "2\n")
      .write("proc/self/personality", "00040000\n");
  const auto r = detail::check_aslr(tree.probe());
  EXPECT_EQ(r.state, status::ok);
  EXPECT_THAT(r.fact, HasSubstr("ADDR_NO_RANDOMIZE"));
  tree.write("proc/sys/kernel/randomize_va_space", "9\n").write("proc/self/personality", "0\n");
  EXPECT_EQ(detail::check_aslr(tree.probe()).state, status::unknown);
}

const char* const kNoLimits =
    "Limit                     Soft Limit           Hard Limit           Units\n"
    "Max nice priority         0                    0\n"
    "Max realtime priority     0                    0\n";

TEST(DoctorCheck, PrivilegeFromRootOrCapability) {
  temp_tree tree;
  tree.write("proc/self/limits", kNoLimits)
      .write("proc/self/status", "Uid:\t0\t0\t0\t0\nCapEff:\t0000000000000000\n")
      .write("proc/sys/kernel/perf_event_paranoid", "3\n");
  EXPECT_EQ(detail::check_priority(tree.probe()).state, status::ok);
  EXPECT_EQ(detail::check_perf_paranoid(tree.probe()).state, status::ok);
  // uid 1000 with CAP_SYS_NICE (bit 23 = 0x800000) only.
  tree.write("proc/self/status", "Uid:\t1000\t1000\t1000\t1000\nCapEff:\t0000000000800000\n");
  const auto cap = detail::check_priority(tree.probe());
  EXPECT_EQ(cap.state, status::ok);
  EXPECT_THAT(cap.fact, HasSubstr("CAP_SYS_NICE yes"));
  EXPECT_EQ(detail::check_perf_paranoid(tree.probe()).state, status::warn);
}

TEST(DoctorCheck, PartialNiceLimitWarnsAndMissingFilesAreUnknown) {
  temp_tree tree;
  tree.write("proc/self/status", "Uid:\t1000\t1000\t1000\t1000\nCapEff:\t0000000000000000\n")
      .write("proc/self/limits",
             "Max nice priority         30                   40\n"
             "Max realtime priority     unlimited            unlimited\n");
  const auto r = detail::check_priority(tree.probe());
  EXPECT_EQ(r.state, status::warn);
  EXPECT_THAT(r.fact, HasSubstr("nice down to -10 only"));
  EXPECT_THAT(r.fact, HasSubstr("SCHED_FIFO allowed"));
  std::filesystem::remove(tree.root() / "proc/self/limits");
  const auto unknown = detail::check_priority(tree.probe());
  EXPECT_EQ(unknown.state, status::unknown);
  EXPECT_THAT(unknown.fact, HasSubstr("limits is missing"));
}

TEST(DoctorCheck, Builds) {
  EXPECT_EQ(detail::check_harness_build({true, true, "Release"}).state, status::ok);
  const auto debug = detail::check_harness_build({false, false, ""});
  EXPECT_EQ(debug.state, status::warn);
  EXPECT_THAT(debug.fact,
              HasSubstr("without NDEBUG, not optimised, CMake build type not recorded"));
  EXPECT_EQ(detail::check_benchmark_build("release").state, status::ok);
  // Debian's debug libbenchmark touches no harness figure: no warning in every run's header.
  const auto debug_benchmark = detail::check_benchmark_build("debug");
  EXPECT_EQ(debug_benchmark.state, status::ok);
  EXPECT_THAT(debug_benchmark.fact, HasSubstr("no effect on the harness's figures"));
  EXPECT_THAT(debug_benchmark.recommendation, HasSubstr("bench/"));
  EXPECT_EQ(detail::check_benchmark_build(std::nullopt).state, status::unknown);
  EXPECT_EQ(detail::check_benchmark_build("weird").state, status::unknown);
}

TEST(DoctorBuild, LinkedBenchmarkReportsItsBuildType) {
  const auto type = benchmark_library_build_type();
  ASSERT_TRUE(type);
  EXPECT_TRUE(*type == "debug" || *type == "release") << *type;
}

// ---- summary and output ----

TEST(DoctorOutput, SummaryCountsAndNamesWarnings) {
  auto options = options_for(data_dir() / "noisy");
  options.harness_build = {false, true, "Debug"};
  const auto summary = summarize(run_tree_doctor(options));
  EXPECT_EQ(summary.cpu, 3);
  EXPECT_EQ(summary.ok, 2);  // load on CPU 3, Google Benchmark build
  EXPECT_EQ(summary.warn, 12);
  EXPECT_EQ(summary.unknown, 0);
  const auto text = format_summary(summary);
  EXPECT_THAT(text, HasSubstr("CPU 3: least loaded of the allowed CPUs 0-3"));
  EXPECT_THAT(text, HasSubstr("doctor: 2 ok, 12 warn, 0 unknown"));
  EXPECT_THAT(text, HasSubstr("warn: Steal time"));
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 2);
}

TEST(DoctorOutput, TextHasOneLinePerCheck) {
  const auto report = run_tree_doctor(options_for(data_dir() / "empty"));
  std::ostringstream out;
  write_text(out, report);
  const std::string text = out.str();
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'),
            static_cast<long>(report.checks.size()) + 2);
  EXPECT_THAT(text, HasSubstr("unknown Turbo / boost: neither"));
  EXPECT_THAT(text, HasSubstr("summary: 2 ok, 0 warn, 12 unknown\n"));
}

TEST(DoctorOutput, JsonCarriesEveryCheck) {
  const auto report = run_tree_doctor(options_for(data_dir() / "tuned"));
  const auto json = nlohmann::json::parse(to_json_text(report));
  EXPECT_EQ(json.at("cpu"), 3);
  EXPECT_EQ(json.at("allowed_cpus"), nlohmann::json({0, 1, 2, 3}));
  EXPECT_DOUBLE_EQ(json.at("load_busy_fraction").at("0").get<double>(), 0.5);
  ASSERT_EQ(json.at("checks").size(), report.checks.size());
  EXPECT_EQ(json.at("checks").at(0).at("id"), "load");
  EXPECT_EQ(json.at("checks").at(0).at("status"), "ok");
  EXPECT_EQ(json.at("summary").at("ok"), 14);
}

}  // namespace
}  // namespace harness::doctor
