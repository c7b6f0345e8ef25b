// Checks of the chosen CPU itself: frequency scaling, turbo, its SMT sibling, kernel isolation and
// the device interrupts routed to it.
//
// Caveat: the IRQ check trusts effective_affinity_list (kernel 4.15+) when present; older kernels
// only say which CPUs an IRQ may go to, and a CPU without either file is judged by the counts it
// served since boot.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <numeric>
#include <set>

#include "doctor/checks.hpp"
#include "harness/platform.hpp"

namespace harness::doctor::detail {

namespace {

std::string cpu_dir(int cpu) {
  return fmt::format("sys/devices/system/cpu/cpu{}", cpu);
}

std::vector<int> without(const std::vector<int>& cpus, int cpu) {
  std::vector<int> rest;
  for (int c : cpus) {
    if (c != cpu) rest.push_back(c);
  }
  return rest;
}

}  // namespace

check_result check_governor(const system_probe& probe, int cpu) {
  check_result r{"governor", "CPU frequency governor", status::unknown, {}, {}};
  const std::string base = cpu_dir(cpu) + "/cpufreq";
  const auto governor = probe.read_trimmed(base + "/scaling_governor");
  if (!governor) {
    r.fact = fmt::format(
        "{} is missing: no cpufreq driver controls CPU {} here (VMs and containers "
        "usually have none)",
        probe.path(base + "/scaling_governor"), cpu);
    r.recommendation =
        "if this is bare metal, load the platform's cpufreq driver so the frequency "
        "policy can be seen and set";
    return r;
  }
  const auto min = probe.read_trimmed(base + "/scaling_min_freq");
  const auto max = probe.read_trimmed(base + "/scaling_max_freq");
  r.fact = fmt::format("CPU {}: governor {}, scaling_min_freq {} kHz, scaling_max_freq {} kHz ({})",
                       cpu, *governor, min.value_or("(missing)"), max.value_or("(missing)"),
                       probe.path(base));
  if (*governor == "performance") {
    r.state = status::ok;
    if (min && max && *min != *max) {
      r.recommendation = fmt::format(
          "for a fixed clock also set scaling_min_freq to scaling_max_freq: sudo cpupower -c {} "
          "frequency-set -d {}kHz",
          cpu, *max);
    }
  } else {
    r.state = status::warn;
    r.recommendation = fmt::format(
        "the frequency follows the load, so the first samples run slower: sudo cpupower -c {} "
        "frequency-set -g performance",
        cpu);
  }
  return r;
}

check_result check_turbo(const system_probe& probe) {
  check_result r{"turbo", "Turbo / boost", status::unknown, {}, {}};
  constexpr std::string_view kNoTurbo = "sys/devices/system/cpu/intel_pstate/no_turbo";
  constexpr std::string_view kBoost = "sys/devices/system/cpu/cpufreq/boost";
  const auto judge = [&](std::string_view file, const std::string& value, std::string_view off,
                         std::string_view on) {
    r.fact = fmt::format("{} = {}", probe.path(file), value);
    if (value == off) {
      r.state = status::ok;
      r.fact += " (turbo off)";
    } else if (value == on) {
      r.state = status::warn;
      r.fact += " (turbo on)";
      r.recommendation = fmt::format(
          "turbo frequency depends on temperature and on how many cores are busy: echo {} | sudo "
          "tee {}",
          off, probe.path(file));
    } else {
      r.fact += " (unexpected value)";
    }
  };
  if (const auto no_turbo = probe.read_trimmed(kNoTurbo)) {
    judge(kNoTurbo, *no_turbo, "1", "0");
  } else if (const auto boost = probe.read_trimmed(kBoost)) {
    judge(kBoost, *boost, "0", "1");
  } else {
    r.fact = fmt::format("neither {} nor {} exists", probe.path(kNoTurbo), probe.path(kBoost));
  }
  return r;
}

check_result judge_smt_siblings(int cpu, const std::vector<int>& siblings, std::string_view listing,
                                const load_sample& load, std::string_view load_source,
                                std::string_view remedy) {
  check_result r{"smt", "SMT sibling", status::unknown, {}, {}};
  if (siblings.empty()) {
    r.state = status::ok;
    r.fact = fmt::format("CPU {} has no SMT sibling ({})", cpu, listing);
    return r;
  }
  std::vector<std::string> loads;
  std::vector<int> busy;
  for (int s : siblings) {
    const auto found = load.busy.find(s);
    if (found == load.busy.end()) {
      r.fact = fmt::format("CPU {} shares its core with CPU {}, whose load is unknown ({})", cpu, s,
                           load.unknown_reason.empty() ? fmt::format("not in {}", load_source)
                                                       : load.unknown_reason);
      return r;
    }
    loads.push_back(cpu_load_text(s, found->second));
    if (found->second >= kBusyFraction) busy.push_back(s);
  }
  const std::string others = platform::format_cpu_list(siblings);
  r.fact = fmt::format("CPU {} shares its core with {} busy {}", cpu, fmt::join(loads, ", "),
                       window_text(load.seconds));
  if (busy.empty()) {
    r.state = status::ok;
    r.recommendation = fmt::format(
        "keep CPU {} idle while measuring: it shares the core's pipelines and caches", others);
  } else {
    r.state = status::warn;
    r.recommendation = fmt::format("work on CPU {} competes for the core: {}",
                                   platform::format_cpu_list(busy), remedy);
  }
  return r;
}

check_result check_smt(const system_probe& probe, int cpu, const load_sample& load) {
  const std::string file = cpu_dir(cpu) + "/topology/thread_siblings_list";
  const auto text = probe.read_trimmed(file);
  const auto siblings_list = text ? parse_cpu_list(*text) : std::nullopt;
  if (!siblings_list) {
    check_result r{"smt", "SMT sibling", status::unknown, {}, {}};
    r.fact = text ? fmt::format("{} = '{}' is not a CPU list", probe.path(file), *text)
                  : fmt::format("{} is missing", probe.path(file));
    return r;
  }
  return judge_smt_siblings(cpu, without(*siblings_list, cpu),
                            fmt::format("thread_siblings_list = {}", *text), load, "/proc/stat",
                            "move it away (taskset) or turn SMT off: echo off | sudo tee "
                            "/sys/devices/system/cpu/smt/control");
}

check_result check_isolation(const system_probe& probe, int cpu) {
  check_result r{"isolation", "CPU isolation (kernel command line)", status::unknown, {}, {}};
  const auto cmdline = probe.read("proc/cmdline");
  if (!cmdline) {
    r.fact = fmt::format("{} is missing", probe.path("proc/cmdline"));
    return r;
  }
  const auto params = parse_kernel_cmdline(*cmdline);
  std::vector<std::string> read;
  std::vector<std::string> missing;
  bool isolated = false;
  for (const std::string_view name : {"isolcpus", "nohz_full", "rcu_nocbs"}) {
    const auto found = params.find(std::string(name));
    if (found == params.end()) {
      missing.emplace_back(name);
      continue;
    }
    read.push_back(fmt::format("{}={}", name, found->second));
    const std::string_view value =
        name == "isolcpus" ? isolcpus_cpus(found->second) : std::string_view(found->second);
    const auto cpus = parse_cpu_list(value);
    const bool has = cpus && contains(*cpus, cpu);
    if (name == "isolcpus") isolated = has;
    if (!has) missing.emplace_back(name);
  }
  r.fact = fmt::format("{} on {}: CPU {} is {}",
                       read.empty() ? "none of isolcpus, nohz_full, "
                                      "rcu_nocbs"
                                    : fmt::format("{}", fmt::join(read, " ")),
                       probe.path("proc/cmdline"), cpu, isolated ? "isolated" : "not isolated");
  r.state = isolated ? status::ok : status::warn;
  if (!missing.empty()) {
    std::vector<std::string> add;
    for (const auto& name : missing)
      add.push_back(fmt::format("{}={}", name, cpu));
    r.recommendation = fmt::format(
        "{}boot with {} to keep other tasks, the scheduler tick and RCU callbacks off CPU {}",
        isolated ? "also " : "", fmt::join(add, " "), cpu);
  }
  return r;
}

check_result check_irqs(const system_probe& probe, int cpu) {
  check_result r{"irqs", "Device IRQs on the CPU", status::unknown, {}, {}};
  const auto text = probe.read("proc/interrupts");
  if (!text) {
    r.fact = fmt::format("{} is missing", probe.path("proc/interrupts"));
    return r;
  }
  const auto table = parse_interrupts(*text);
  if (!table) {
    r.fact = fmt::format("{} has no CPU header line", probe.path("proc/interrupts"));
    return r;
  }
  const auto column = std::find(table->column_cpus.begin(), table->column_cpus.end(), cpu);
  if (column == table->column_cpus.end()) {
    r.fact =
        fmt::format("{} has no column for CPU {} (offline?)", probe.path("proc/interrupts"), cpu);
    return r;
  }
  const auto index = static_cast<std::size_t>(column - table->column_cpus.begin());
  std::vector<std::string> routed;
  std::vector<std::string> routed_irqs;
  std::set<std::string> sources;
  int devices = 0;
  for (const auto& row : table->rows) {
    if (!row.device) continue;
    ++devices;
    const std::uint64_t on_cpu = index < row.counts.size() ? row.counts[index] : 0;
    const std::uint64_t total =
        std::accumulate(row.counts.begin(), row.counts.end(), std::uint64_t{0});
    bool to_cpu = on_cpu > 0;
    std::string source = "counts since boot";
    for (const std::string_view file : {"effective_affinity_list", "smp_affinity_list"}) {
      const auto mask = probe.read_trimmed(fmt::format("proc/irq/{}/{}", row.irq, file));
      const auto cpus = mask ? parse_cpu_list(*mask) : std::nullopt;
      if (cpus) {
        to_cpu = contains(*cpus, cpu);
        source = std::string(file);
        break;
      }
    }
    if (!to_cpu || total == 0) continue;
    sources.insert(source);
    const auto words = split_words(row.description);
    routed.push_back(fmt::format("{} {} ({} on CPU {})", row.irq,
                                 words.empty() ? std::string_view("?") : words.back(), on_cpu,
                                 cpu));
    routed_irqs.push_back(row.irq);
  }
  if (routed.empty()) {
    r.state = status::ok;
    r.fact = fmt::format("none of the {} device IRQs in {} that have fired is routed to CPU {}",
                         devices, probe.path("proc/interrupts"), cpu);
    return r;
  }
  r.state = status::warn;
  r.fact = fmt::format("{} device IRQs that have fired are routed to CPU {} (by {}): {}",
                       routed.size(), cpu, fmt::join(sources, ", "), fmt::join(routed, ", "));
  const auto others = without(table->column_cpus, cpu);
  r.recommendation =
      others.empty()
          ? std::string("a single CPU serves every interrupt; nothing can be moved")
          : fmt::format(
                "route them elsewhere (stop irqbalance first): for IRQ in {}; do echo {} | "
                "sudo tee /proc/irq/$IRQ/smp_affinity_list; done",
                fmt::join(routed_irqs, " "), platform::format_cpu_list(others));
  return r;
}

}  // namespace harness::doctor::detail
