// The Linux counters over a fake perf_event_open table (issue 30): task-clock alone, the other
// software events in one group and the hardware events in another, each read whole
// (PERF_FORMAT_GROUP with the enabled and running times); every refusal reported with its errno and
// what it means (ENOENT without a PMU, EOPNOTSUPP, EACCES with perf_event_paranoid's value); the
// descriptors closed.
#include <gtest/gtest.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <vector>

#include "platform/linux_syscalls.hpp"

namespace harness::platform {
namespace {

// The fake kernel; plain globals because the seam takes function pointers.
struct fake_perf {
  std::map<std::uint64_t, int> refuse_hardware;  // config -> errno
  int refuse_all_hardware = 0;                   // errno for every hardware event; 0: none
  std::optional<int> paranoid = 2;
  struct event {
    perf_event_attr attr;
    int group;
  };
  std::vector<event> opened;  // by fd - 100
  std::vector<int> closed;
  std::vector<std::uint64_t> values;  // what a read gives each member of a group, by fd - 100
  std::uint64_t enabled = 1000;
  std::uint64_t running = 1000;
};
fake_perf kernel;

perf_syscalls fake_perf_calls() {
  return {
      [](perf_event_attr* attr, pid_t, int, int group, unsigned long) {
        if (attr->type == PERF_TYPE_HARDWARE) {
          const auto refused = kernel.refuse_hardware.find(attr->config);
          const int err = refused != kernel.refuse_hardware.end() ? refused->second
                                                                  : kernel.refuse_all_hardware;
          if (err != 0) return errno = err, -1;
        }
        kernel.opened.push_back({*attr, group});
        return static_cast<int>(99 + kernel.opened.size());
      },
      [](int fd, void* buffer, std::size_t size) -> ssize_t {
        // The group led by fd: nr, time_enabled, time_running, its members' values.
        std::vector<std::uint64_t> words{0, kernel.enabled, kernel.running};
        for (std::size_t i = 0; i < kernel.opened.size(); ++i) {
          const int member = static_cast<int>(100 + i);
          if (member == fd || kernel.opened[i].group == fd) {
            ++words[0];
            words.push_back(i < kernel.values.size() ? kernel.values[i] : 0);
          }
        }
        const std::size_t bytes = words.size() * sizeof(std::uint64_t);
        if (size < bytes) return errno = ENOSPC, -1;
        std::memcpy(buffer, words.data(), bytes);
        return static_cast<ssize_t>(bytes);
      },
      [](int fd) {
        kernel.closed.push_back(fd);
        return 0;
      },
      []() { return kernel.paranoid; },
  };
}

class PerfEvents : public ::testing::Test {
 protected:
  void SetUp() override { kernel = fake_perf{}; }
};

TEST_F(PerfEvents, OpensTaskClockSoftwareAndHardwareAsThreeGroupsReadWhole) {
  counter_opening o =
      open_linux_counters(fake_perf_calls(), {cpu_counter::task_clock, cpu_counter::page_faults,
                                              cpu_counter::cycles, cpu_counter::instructions});
  ASSERT_EQ(o.status.size(), 4u);
  for (const counter_status& s : o.status)
    EXPECT_TRUE(s.available) << id_of(s.counter);
  ASSERT_EQ(kernel.opened.size(), 4u);
  // Leaders first in their group; members join their own kind's leader; task-clock alone (led by
  // it, the other software events counted no page fault).
  EXPECT_EQ(kernel.opened[0].group, -1);
  EXPECT_EQ(kernel.opened[1].group, -1);
  EXPECT_EQ(kernel.opened[2].group, -1);
  EXPECT_EQ(kernel.opened[3].group, 102);
  for (const auto& e : kernel.opened) {
    EXPECT_EQ(e.attr.read_format,
              PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING);
    EXPECT_EQ(e.attr.exclude_kernel, e.attr.type == PERF_TYPE_HARDWARE ? 1u : 0u);
  }
  EXPECT_EQ(kernel.opened[0].attr.config, static_cast<std::uint64_t>(PERF_COUNT_SW_TASK_CLOCK));
  EXPECT_EQ(kernel.opened[3].attr.config, static_cast<std::uint64_t>(PERF_COUNT_HW_INSTRUCTIONS));
  kernel.values = {5000, 7, 3000, 6000};
  kernel.running = 500;  // the hardware group multiplexed: the reader passes both times on
  counter_snapshot s{};
  ASSERT_TRUE(o.reader->read(s));
  EXPECT_EQ(s[index_of(cpu_counter::task_clock)].value, 5000u);
  EXPECT_EQ(s[index_of(cpu_counter::page_faults)].value, 7u);
  EXPECT_EQ(s[index_of(cpu_counter::instructions)].value, 6000u);
  EXPECT_EQ(s[index_of(cpu_counter::instructions)].enabled, 1000u);
  EXPECT_EQ(s[index_of(cpu_counter::instructions)].running, 500u);
  o.reader.reset();
  EXPECT_EQ(kernel.closed.size(), 4u);
}

TEST_F(PerfEvents, WithoutAPmuEveryHardwareCounterSaysENOENTAndTheSoftwareOnesStillRead) {
  kernel.refuse_all_hardware = ENOENT;
  counter_opening o = open_linux_counters(fake_perf_calls(), all_cpu_counters());
  ASSERT_EQ(o.status.size(), kCpuCounterCount);
  for (const counter_status& s : o.status) {
    EXPECT_EQ(s.available, !is_hardware(s.counter)) << id_of(s.counter);
    if (!is_hardware(s.counter)) continue;
    EXPECT_EQ(s.error_code, ENOENT);
    EXPECT_NE(s.reason.find("ENOENT"), std::string::npos) << s.reason;
    EXPECT_NE(s.reason.find("no PMU"), std::string::npos) << s.reason;
  }
  ASSERT_NE(o.reader, nullptr);
  counter_snapshot s{};
  EXPECT_TRUE(o.reader->read(s));
}

TEST_F(PerfEvents, EveryRefusalReasonIsReported) {
  kernel.paranoid = 3;
  kernel.refuse_hardware = {{PERF_COUNT_HW_CPU_CYCLES, EACCES},
                            {PERF_COUNT_HW_INSTRUCTIONS, EOPNOTSUPP},
                            {PERF_COUNT_HW_BRANCH_INSTRUCTIONS, EINVAL},
                            {PERF_COUNT_HW_BRANCH_MISSES, ENOSPC},
                            {PERF_COUNT_HW_CACHE_REFERENCES, EMFILE}};
  const counter_opening o = open_linux_counters(
      fake_perf_calls(),
      {cpu_counter::cycles, cpu_counter::instructions, cpu_counter::branches,
       cpu_counter::branch_misses, cpu_counter::cache_references, cpu_counter::cache_misses});
  ASSERT_EQ(o.status.size(), 6u);
  EXPECT_NE(o.status[0].reason.find("EACCES"), std::string::npos);
  EXPECT_NE(o.status[0].reason.find("perf_event_paranoid is 3"), std::string::npos)
      << o.status[0].reason;
  EXPECT_NE(o.status[1].reason.find("EOPNOTSUPP"), std::string::npos) << o.status[1].reason;
  EXPECT_NE(o.status[2].reason.find("EINVAL"), std::string::npos) << o.status[2].reason;
  EXPECT_NE(o.status[3].reason.find("ENOSPC"), std::string::npos) << o.status[3].reason;
  EXPECT_NE(o.status[4].reason.find("EMFILE"), std::string::npos) << o.status[4].reason;
  for (std::size_t i = 0; i < 5; ++i)
    EXPECT_FALSE(o.status[i].available);
  // The one that opened leads its own group.
  EXPECT_TRUE(o.status[5].available);
  ASSERT_EQ(kernel.opened.size(), 1u);
  EXPECT_EQ(kernel.opened[0].group, -1);
}

TEST_F(PerfEvents, AnUnreadableParanoidSettingIsSaid) {
  kernel.paranoid = std::nullopt;
  kernel.refuse_all_hardware = EPERM;
  const counter_opening o = open_linux_counters(fake_perf_calls(), {cpu_counter::cycles});
  EXPECT_NE(o.status[0].reason.find("perf_event_paranoid is unreadable"), std::string::npos)
      << o.status[0].reason;
  EXPECT_EQ(o.reader, nullptr);
}

TEST_F(PerfEvents, AShortReadFailsTheSnapshot) {
  counter_opening o = open_linux_counters(fake_perf_calls(), {cpu_counter::task_clock});
  // A member the reader does not know of makes the group's answer longer than expected.
  kernel.opened.push_back({kernel.opened[0].attr, 100});
  counter_snapshot s{};
  EXPECT_FALSE(o.reader->read(s));
}

}  // namespace
}  // namespace harness::platform
