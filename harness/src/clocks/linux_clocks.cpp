// The Linux clock sources: the TSC variants, the clock_gettime() clocks, and the older calls
// (gettimeofday, time, times, getrusage).
//
// Ticks are each call's native unit: nanoseconds for clock_gettime, microseconds for gettimeofday
// and getrusage, seconds for time, clock ticks (sysconf(_SC_CLK_TCK)) for times. The declared
// resolution is clock_getres() where the call has one, else the unit of the value returned. The
// vDSO serves the wall clocks without a system call; the CPU-time clocks are system calls.
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/times.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "clocks/platform_clocks.hpp"
#include "clocks/tsc.hpp"

namespace harness::clocks {

namespace {

std::uint64_t to_ns(const timespec& ts) noexcept {
  return static_cast<std::uint64_t>(ts.tv_sec) * 1'000'000'000U +
         static_cast<std::uint64_t>(ts.tv_nsec);
}

// The Linux sources give now() and the declared resolution over the shared base.
using linux_clock = basic_clock;

class posix_clock final : public linux_clock {
 public:
  posix_clock(clockid_t id, std::string_view name, std::string_view description, clock_kind kind,
              bool monotonic)
      : linux_clock(name, description, kind, monotonic, 1e9), id_(id) {
    timespec ts{};
    if (clock_gettime(id_, &ts) != 0) {
      const int err = errno;
      set_unavailable(fmt::format("clock_gettime({}) failed: {}", name, std::strerror(err)));
      return;
    }
    if (clock_getres(id_, &ts) == 0) resolution_ = static_cast<double>(to_ns(ts)) / 1e9;
  }

  std::optional<double> declared_resolution() const noexcept override { return resolution_; }
  std::uint64_t now() const noexcept override {
    timespec ts;
    clock_gettime(id_, &ts);
    return to_ns(ts);
  }

 private:
  clockid_t id_;
  std::optional<double> resolution_;
};

class gettimeofday_clock final : public linux_clock {
 public:
  gettimeofday_clock()
      : linux_clock("gettimeofday", "gettimeofday(): calendar time in microseconds (vDSO)",
                    clock_kind::wall, false, 1e6) {}
  std::optional<double> declared_resolution() const noexcept override { return 1e-6; }
  std::uint64_t now() const noexcept override {
    timeval tv;
    gettimeofday(&tv, nullptr);
    return static_cast<std::uint64_t>(tv.tv_sec) * 1'000'000U +
           static_cast<std::uint64_t>(tv.tv_usec);
  }
};

class time_clock final : public linux_clock {
 public:
  time_clock()
      : linux_clock("time", "time(): calendar time in whole seconds (vDSO)", clock_kind::wall,
                    false, 1.0) {}
  std::optional<double> declared_resolution() const noexcept override { return 1.0; }
  std::uint64_t now() const noexcept override { return static_cast<std::uint64_t>(time(nullptr)); }
};

class times_clock final : public linux_clock {
 public:
  explicit times_clock(long clk_tck)
      : linux_clock("times",
                    "times(): user + system CPU time of the process in clock ticks (system call)",
                    clock_kind::process_cpu, true, static_cast<double>(clk_tck)) {
    if (clk_tck <= 0) set_unavailable("sysconf(_SC_CLK_TCK) gave no clock tick rate");
  }
  std::optional<double> declared_resolution() const noexcept override {
    return 1.0 / ticks_per_second();
  }
  std::uint64_t now() const noexcept override {
    tms t;
    times(&t);
    return static_cast<std::uint64_t>(t.tms_utime) + static_cast<std::uint64_t>(t.tms_stime);
  }
};

class getrusage_clock final : public linux_clock {
 public:
  getrusage_clock()
      : linux_clock("getrusage_thread",
                    "getrusage(RUSAGE_THREAD): user + system CPU time of the thread in "
                    "microseconds (system call)",
                    clock_kind::thread_cpu, true, 1e6) {
    rusage usage{};
    if (getrusage(RUSAGE_THREAD, &usage) != 0) {
      const int err = errno;
      set_unavailable(fmt::format("getrusage(RUSAGE_THREAD) failed: {}", std::strerror(err)));
    }
  }
  std::optional<double> declared_resolution() const noexcept override { return 1e-6; }
  std::uint64_t now() const noexcept override {
    rusage usage;
    getrusage(RUSAGE_THREAD, &usage);
    const auto us = [](const timeval& tv) {
      return static_cast<std::uint64_t>(tv.tv_sec) * 1'000'000U +
             static_cast<std::uint64_t>(tv.tv_usec);
    };
    return us(usage.ru_utime) + us(usage.ru_stime);
  }
};

std::uint64_t monotonic_raw_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
  return to_ns(ts);
}

}  // namespace

std::vector<std::unique_ptr<clock_source>> make_platform_clocks(const tsc_inputs& tsc) {
  // The TSC is calibrated against CLOCK_MONOTONIC_RAW because NTP does not slew it: a slewed
  // reference can be off by up to 500 ppm, fifty times the calibration's tolerance.
  std::vector<std::unique_ptr<clock_source>> clocks =
      make_tsc_clocks(tsc, monotonic_raw_ns, "CLOCK_MONOTONIC_RAW");
  const auto add_posix = [&](clockid_t id, std::string_view name, std::string_view description,
                             clock_kind kind, bool monotonic) {
    clocks.push_back(std::make_unique<posix_clock>(id, name, description, kind, monotonic));
  };
  const auto wall = clock_kind::wall;
  add_posix(CLOCK_MONOTONIC, "CLOCK_MONOTONIC", "clock_gettime: monotonic, slewed by NTP (vDSO)",
            wall, true);
  add_posix(CLOCK_MONOTONIC_RAW, "CLOCK_MONOTONIC_RAW",
            "clock_gettime: monotonic, not slewed by NTP (vDSO)", wall, true);
  add_posix(CLOCK_MONOTONIC_COARSE, "CLOCK_MONOTONIC_COARSE",
            "clock_gettime: monotonic, updated once per scheduler tick (vDSO)", wall, true);
  add_posix(CLOCK_BOOTTIME, "CLOCK_BOOTTIME",
            "clock_gettime: monotonic, counting time suspended (vDSO)", wall, true);
  add_posix(CLOCK_REALTIME, "CLOCK_REALTIME", "clock_gettime: calendar time (vDSO)", wall, false);
  add_posix(CLOCK_REALTIME_COARSE, "CLOCK_REALTIME_COARSE",
            "clock_gettime: calendar time, updated once per scheduler tick (vDSO)", wall, false);
  add_posix(CLOCK_PROCESS_CPUTIME_ID, "CLOCK_PROCESS_CPUTIME_ID",
            "clock_gettime: CPU time of the whole process (system call)", clock_kind::process_cpu,
            true);
  add_posix(CLOCK_THREAD_CPUTIME_ID, "CLOCK_THREAD_CPUTIME_ID",
            "clock_gettime: CPU time of the calling thread (system call)", clock_kind::thread_cpu,
            true);
  clocks.push_back(std::make_unique<gettimeofday_clock>());
  clocks.push_back(std::make_unique<time_clock>());
  clocks.push_back(std::make_unique<times_clock>(sysconf(_SC_CLK_TCK)));
  clocks.push_back(std::make_unique<getrusage_clock>());
  return clocks;
}

}  // namespace harness::clocks
