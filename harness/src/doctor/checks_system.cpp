// Checks of the machine and process as a whole: hypervisor, invariant TSC, ASLR,
// perf_event_paranoid, the right to raise priority, and how harness and Google Benchmark were
// built.
//
// Caveat: privileges are read from /proc/self (euid, CapEff, limits) of the process running the
// doctor, which is the measuring process when the doctor runs inside `harness run`.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <array>
#include <charconv>

#include "doctor/checks.hpp"

namespace harness::doctor::detail {

namespace {

// Whoever runs this process, as /proc/self/status says.
struct privileges {
  std::optional<long> euid;
  std::optional<std::uint64_t> cap_effective;

  bool has_cap(int bit) const { return cap_effective && ((*cap_effective >> bit) & 1U) != 0; }
  // true: root or the capability; false: known to be neither; nullopt: cannot tell.
  std::optional<bool> privileged(int cap_bit) const {
    if ((euid && *euid == 0) || has_cap(cap_bit)) return true;
    if (euid && cap_effective) return false;
    return std::nullopt;
  }
};

privileges read_privileges(const system_probe& probe) {
  privileges p;
  const auto status = probe.read("proc/self/status");
  if (!status) return p;
  if (const auto uid = status_field(*status, "Uid")) {
    // Real, effective, saved, filesystem: the effective one decides.
    const auto words = split_words(*uid);
    long value = 0;
    if (words.size() >= 2 &&
        std::from_chars(words[1].data(), words[1].data() + words[1].size(), value).ec ==
            std::errc{}) {
      p.euid = value;
    }
  }
  if (const auto caps = status_field(*status, "CapEff")) {
    std::uint64_t value = 0;
    if (std::from_chars(caps->data(), caps->data() + caps->size(), value, 16).ec == std::errc{}) {
      p.cap_effective = value;
    }
  }
  return p;
}

std::string describe(const privileges& p) {
  return fmt::format("euid {}, CAP_SYS_NICE {}", p.euid ? std::to_string(*p.euid) : "unknown",
                     p.cap_effective ? (p.has_cap(kCapSysNiceBit) ? "yes" : "no") : "unknown");
}

std::string describe(const std::optional<limit_row>& row) {
  if (!row) return "unknown";
  const auto bound = [](const std::optional<std::uint64_t>& v) {
    return v ? std::to_string(*v) : std::string("unlimited");
  };
  return fmt::format("{}/{}", bound(row->soft), bound(row->hard));
}

// CAP_PERFMON (Linux 5.8) and CAP_SYS_ADMIN let a process count events whatever the paranoia.
constexpr int kCapSysAdminBit = 21;
constexpr int kCapPerfmonBit = 38;

}  // namespace

check_result check_hypervisor(const system_probe& probe) {
  check_result r{"hypervisor", "Hypervisor", status::unknown, {}, {}};
  const auto cpuinfo = probe.read("proc/cpuinfo");
  const auto flags = cpuinfo ? parse_cpuinfo_flags(*cpuinfo) : std::nullopt;
  const auto type = probe.read_trimmed("sys/hypervisor/type");
  const auto vendor = probe.read_trimmed("sys/class/dmi/id/sys_vendor");
  // DMI vendors that only virtual machines report (Microsoft is left out: its laptops say so too).
  constexpr std::array<std::string_view, 9> kVmVendors = {
      "QEMU", "VMware", "innotek GmbH", "Xen", "Amazon EC2", "Google", "Parallels", "Bochs", "KVM"};
  std::vector<std::string> evidence;
  if (flags && flags->contains("hypervisor")) {
    evidence.push_back(fmt::format("flag 'hypervisor' in {}", probe.path("proc/cpuinfo")));
  }
  if (type && !type->empty()) {
    evidence.push_back(fmt::format("{} = {}", probe.path("sys/hypervisor/type"), *type));
  }
  if (vendor) {
    for (const auto vm : kVmVendors) {
      if (vendor->starts_with(vm)) {
        evidence.push_back(
            fmt::format("{} = {}", probe.path("sys/class/dmi/id/sys_vendor"), *vendor));
        break;
      }
    }
  }
  if (!evidence.empty()) {
    r.state = status::warn;
    r.fact = fmt::format("running under a hypervisor: {}", fmt::join(evidence, "; "));
    r.recommendation =
        "other guests share the physical CPUs: watch steal time, and take final numbers on bare "
        "metal";
    return r;
  }
  if (flags) {
    r.state = status::ok;
    r.fact = fmt::format("no 'hypervisor' flag in {}{}", probe.path("proc/cpuinfo"),
                         vendor ? fmt::format(", sys_vendor {}", *vendor) : std::string());
  } else if (vendor) {
    r.state = status::ok;
    r.fact = fmt::format("{} = {}, not a virtual machine's vendor (no cpuinfo flags to confirm)",
                         probe.path("sys/class/dmi/id/sys_vendor"), *vendor);
  } else {
    r.fact =
        fmt::format("none of the flags in {}, {}, {} could be read", probe.path("proc/cpuinfo"),
                    probe.path("sys/hypervisor/type"), probe.path("sys/class/dmi/id/sys_vendor"));
  }
  return r;
}

check_result check_tsc(const system_probe& probe) {
  check_result r{"tsc", "Invariant TSC", status::unknown, {}, {}};
  const auto cpuinfo = probe.read("proc/cpuinfo");
  if (!cpuinfo) {
    r.fact = fmt::format("{} is missing", probe.path("proc/cpuinfo"));
    return r;
  }
  const auto flags = parse_cpuinfo_flags(*cpuinfo);
  if (!flags) {
    r.fact = fmt::format("{} has no flags line (not an x86 CPU?)", probe.path("proc/cpuinfo"));
    return r;
  }
  std::vector<std::string> present;
  std::vector<std::string> absent;
  for (const std::string_view flag : {"constant_tsc", "nonstop_tsc", "tsc_reliable"}) {
    (flags->contains(flag) ? present : absent).emplace_back(flag);
  }
  r.fact = fmt::format("cpuinfo flags: {}{}",
                       present.empty() ? "none of constant_tsc, nonstop_tsc"
                                       : fmt::format("{}", fmt::join(present, " ")),
                       absent.empty() ? "" : fmt::format("; absent: {}", fmt::join(absent, " ")));
  if (const auto source =
          probe.read_trimmed("sys/devices/system/clocksource/clocksource0/current_clocksource")) {
    r.fact += fmt::format("; kernel clocksource {}", *source);
  }
  if (flags->contains("constant_tsc") && flags->contains("nonstop_tsc")) {
    r.state = status::ok;
  } else {
    r.state = status::warn;
    r.recommendation =
        "the TSC may change rate with frequency or stop in deep idle: use a CLOCK_MONOTONIC clock "
        "rather than rdtsc";
  }
  return r;
}

check_result check_aslr(const system_probe& probe) {
  check_result r{"aslr", "Address space layout randomisation", status::unknown, {}, {}};
  constexpr std::string_view kFile = "proc/sys/kernel/randomize_va_space";
  const auto value = probe.read_trimmed(kFile);
  const auto personality = probe.read_trimmed("proc/self/personality");
  unsigned long persona = 0;
  const bool persona_read =
      personality &&
      std::from_chars(personality->data(), personality->data() + personality->size(), persona, 16)
              .ec == std::errc{};
  if (persona_read && (persona & kAddrNoRandomize) != 0) {
    r.state = status::ok;
    r.fact =
        fmt::format("off for this process (ADDR_NO_RANDOMIZE in {} = {}); system setting {}",
                    probe.path("proc/self/personality"), *personality, value.value_or("unknown"));
    return r;
  }
  if (!value) {
    r.fact = fmt::format("{} is missing", probe.path(kFile));
    return r;
  }
  r.fact = fmt::format("{} = {}", probe.path(kFile), *value);
  if (*value == "0") {
    r.state = status::ok;
  } else if (*value == "1" || *value == "2") {
    r.state = status::warn;
    r.fact += " (stack, libraries and heap move from process to process)";
    r.recommendation =
        "code and data alignment then differs between runs: run under `setarch -R harness ...` "
        "to compare runs of separate processes";
  } else {
    r.fact += " (unexpected value)";
  }
  return r;
}

check_result check_perf_paranoid(const system_probe& probe) {
  check_result r{"perf_event_paranoid", "perf_event_paranoid", status::unknown, {}, {}};
  constexpr std::string_view kFile = "proc/sys/kernel/perf_event_paranoid";
  const auto text = probe.read_trimmed(kFile);
  int value = 0;
  if (!text ||
      std::from_chars(text->data(), text->data() + text->size(), value).ec != std::errc{}) {
    r.fact = text ? fmt::format("{} = '{}' is not a number", probe.path(kFile), *text)
                  : fmt::format("{} is missing (kernel without perf events?)", probe.path(kFile));
    return r;
  }
  const auto who = read_privileges(probe);
  const bool privileged =
      who.privileged(kCapSysAdminBit).value_or(false) || who.has_cap(kCapPerfmonBit);
  r.fact = fmt::format("{} = {}", probe.path(kFile), value);
  if (value <= kPerfParanoidUserCounting) {
    r.state = status::ok;
    r.fact += value <= 1 ? " (user and kernel events of own processes may be counted)"
                         : " (user-space events of own processes may be counted)";
  } else if (privileged) {
    r.state = status::ok;
    r.fact += fmt::format(" (counting needs privilege; this process has it: {})", describe(who));
  } else {
    r.state = status::warn;
    r.fact += " (no performance counters for unprivileged users)";
    r.recommendation = fmt::format(
        "hardware counters (cycles, instructions) are refused: sudo sysctl "
        "kernel.perf_event_paranoid={}",
        kPerfParanoidUserCounting);
  }
  return r;
}

check_result check_priority(const system_probe& probe) {
  check_result r{"priority", "Right to raise priority", status::unknown, {}, {}};
  const auto who = read_privileges(probe);
  const auto limits = probe.read("proc/self/limits");
  const auto nice = limits ? parse_limit(*limits, "Max nice priority") : std::nullopt;
  const auto rtprio = limits ? parse_limit(*limits, "Max realtime priority") : std::nullopt;
  const auto privileged = who.privileged(kCapSysNiceBit);

  const auto allows = [](const std::optional<limit_row>& row,
                         std::uint64_t needed) -> std::optional<bool> {
    if (!row) return std::nullopt;
    return !row->soft || *row->soft >= needed;
  };
  const auto decide = [&](std::optional<bool> by_limit) -> std::optional<bool> {
    if (privileged.value_or(false) || by_limit.value_or(false)) return true;
    if (privileged && by_limit) return false;
    return std::nullopt;
  };
  const auto high = decide(allows(nice, kNiceLimitForMinus20));
  const auto realtime = decide(allows(rtprio, 1));

  const auto verdict = [](std::optional<bool> v) {
    return v ? (*v ? "allowed" : "refused") : "unknown";
  };
  r.fact = fmt::format(
      "{}, RLIMIT_NICE {}, RLIMIT_RTPRIO {} (soft/hard, {}): nice -20 {}, "
      "SCHED_FIFO {}",
      describe(who), describe(nice), describe(rtprio), probe.path("proc/self/limits"),
      verdict(high), verdict(realtime));
  if (!high && !realtime) {
    if (!limits) r.fact += fmt::format("; {} is missing", probe.path("proc/self/limits"));
    return r;
  }
  if (high.value_or(false)) {
    r.state = status::ok;
    if (!realtime.value_or(false)) {
      r.recommendation =
          "--priority realtime (SCHED_FIFO) would be refused; it helps mainly long samples while "
          "other CPUs are busy; allow it with an rtprio line in /etc/security/limits.conf";
    }
    return r;
  }
  if (high) {
    r.state = status::warn;
    const std::uint64_t soft = nice && nice->soft ? *nice->soft : 0;
    r.fact +=
        fmt::format(" (RLIMIT_NICE allows nice down to {} only)", 20 - static_cast<long>(soft));
    r.recommendation =
        "other tasks can preempt the measurement: run as root, grant CAP_SYS_NICE (sudo setcap "
        "cap_sys_nice+ep <harness binary>), or add '<user> - nice -20' to "
        "/etc/security/limits.conf";
  }
  return r;
}

check_result check_harness_build(const build_info& build) {
  check_result r{"harness_build", "harness build", status::unknown, {}, {}};
  r.fact = fmt::format("harness compiled {} NDEBUG, {}, CMake build type {}",
                       build.ndebug ? "with" : "without",
                       build.optimized ? "optimised (__OPTIMIZE__)" : "not optimised",
                       build.build_type.empty() ? "not recorded" : build.build_type);
  if (build.ndebug && build.optimized) {
    r.state = status::ok;
  } else {
    r.state = status::warn;
    r.recommendation =
        "the harness's own loop is slower and heavier on the caches in a debug build: configure "
        "with -DCMAKE_BUILD_TYPE=Release (or RelWithDebInfo)";
  }
  return r;
}

check_result check_benchmark_build(const std::optional<std::string>& build_type) {
  check_result r{"benchmark_build", "Google Benchmark build", status::unknown, {}, {}};
  if (!build_type) {
    r.fact = "the linked Google Benchmark's JSON context has no library_build_type";
    return r;
  }
  r.fact =
      fmt::format("the linked Google Benchmark reports library_build_type \"{}\"", *build_type);
  if (*build_type == "release") {
    r.state = status::ok;
  } else if (*build_type == "debug") {
    // Not a warning: the harness takes no timing through the library, only its inline
    // DoNotOptimize and ClobberMemory, compiled into the caller's own code. It matters only to
    // Google Benchmark's own timings (the bench/ targets), and those print its DEBUG warning.
    r.state = status::ok;
    r.fact +=
        " (Debian's libbenchmark is built without NDEBUG): no effect on the harness's figures, "
        "which use only its inline DoNotOptimize and ClobberMemory, compiled into your code";
    r.recommendation =
        "only timings Google Benchmark takes itself (the harness's bench/ targets) carry its debug "
        "checks: for those, build Google Benchmark from source with -DCMAKE_BUILD_TYPE=Release";
  } else {
    r.fact += " (unexpected value)";
  }
  return r;
}

}  // namespace harness::doctor::detail
