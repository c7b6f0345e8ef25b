// Load and steal over a short window, and the choice of the default CPU from that load.
//
// Caveat: /proc/stat counts whole USER_HZ ticks charged at timer interrupts, so over 200 ms a CPU's
// load is known to about 5%, and a guest can be slowed by its host without any steal being
// counted (the notes on this machine show 2x slow stretches with zero steal).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <thread>

#include "base/numbers.hpp"
#include "doctor/checks.hpp"
#include "harness/duration.hpp"
#include "harness/platform.hpp"

namespace harness::doctor {

stat_sampler sleeping_stat_sampler(std::chrono::milliseconds window,
                                   std::function<void(std::chrono::milliseconds)> sleep) {
  if (!sleep) sleep = [](std::chrono::milliseconds d) { std::this_thread::sleep_for(d); };
  return [window, sleep = std::move(sleep)](const std::filesystem::path& root) {
    const detail::system_probe probe(root);
    stat_window w;
    const auto start = std::chrono::steady_clock::now();
    w.before = probe.read("proc/stat");
    sleep(window);
    w.after = probe.read("proc/stat");
    w.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return w;
  };
}

cpu_choice select_default_cpu(const std::vector<int>& allowed, const cpu_load_map& load) {
  if (allowed.empty()) throw std::invalid_argument("select_default_cpu: empty affinity mask");
  std::vector<int> known;
  for (int cpu : allowed) {
    if (load.contains(cpu)) known.push_back(cpu);
  }
  const std::string mask = platform::format_cpu_list(allowed);
  if (known.empty()) {
    const int cpu = *std::max_element(allowed.begin(), allowed.end());
    return {cpu, fmt::format("highest-numbered of the allowed CPUs {} (their load is unknown; CPU "
                             "0 serves most housekeeping)",
                             mask)};
  }
  const auto score = [&](int cpu) {
    return load.at(cpu) + (cpu == 0 && known.size() > 1 ? detail::kCpu0Penalty : 0.0);
  };
  double best = score(known.front());
  for (int cpu : known)
    best = std::min(best, score(cpu));
  int chosen = -1;
  for (int cpu : known) {
    if (score(cpu) <= best + detail::kLoadTieTolerance) chosen = std::max(chosen, cpu);
  }
  std::vector<std::string> loads;
  for (int cpu : known)
    loads.push_back(detail::cpu_load_text(cpu, load.at(cpu)));
  std::string reason =
      fmt::format("least loaded of the allowed CPUs {} ({})", mask, fmt::join(loads, ", "));
  if (known.size() > 1) {
    reason += fmt::format(
        "; loads within {} points tie, ties go to the highest number, CPU 0 "
        "counts {} points busier for its housekeeping",
        fixed_text(detail::kLoadTieTolerance * 100.0, 0),
        fixed_text(detail::kCpu0Penalty * 100.0, 0));
  }
  if (known.size() < allowed.size()) reason += "; CPUs without a load reading were skipped";
  return {chosen, reason};
}

namespace detail {

std::string cpu_load_text(int cpu, double fraction) {
  return fmt::format("CPU {} {}", cpu, percent_text(fraction, 1));
}

std::string window_text(double seconds) {
  return "over " + format_seconds(seconds, kSpanFormat);
}

check_result check_load(const load_sample& load, int cpu, const std::string& stat_path) {
  check_result r{"load", "Load on each CPU", status::unknown, {}, {}};
  if (!load.unknown_reason.empty()) {
    r.fact = load.unknown_reason;
    return r;
  }
  std::vector<std::string> loads;
  for (const auto& [c, busy] : load.busy)
    loads.push_back(cpu_load_text(c, busy));
  r.fact =
      fmt::format("busy {} ({}): {}", window_text(load.seconds), stat_path, fmt::join(loads, ", "));
  const auto found = load.busy.find(cpu);
  if (found == load.busy.end()) {
    r.fact += fmt::format("; CPU {} is not listed", cpu);
    return r;
  }
  if (found->second >= kBusyFraction) {
    r.state = status::warn;
    r.recommendation = fmt::format(
        "CPU {} was busy: samples would share it with that work; stop it or measure on an idle CPU "
        "(--cpu)",
        cpu);
  } else {
    r.state = status::ok;
  }
  return r;
}

check_result check_steal(const load_sample& load, int cpu, const std::string& stat_path) {
  check_result r{"steal", "Steal time (CPU taken by the hypervisor)", status::unknown, {}, {}};
  if (!load.unknown_reason.empty()) {
    r.fact = load.unknown_reason;
    return r;
  }
  if (!load.steal_all) {
    r.fact = fmt::format("{} has no steal column", stat_path);
    return r;
  }
  const auto cpu_steal = load.steal.find(cpu);
  r.fact = fmt::format("steal {}: {} of all CPUs' time", window_text(load.seconds),
                       percent_text(*load.steal_all, 1));
  if (cpu_steal != load.steal.end())
    r.fact += fmt::format(" ({})", cpu_load_text(cpu, cpu_steal->second));
  if (load.steal_since_boot)
    r.fact += fmt::format("; since boot {}", percent_text(*load.steal_since_boot, 2));
  r.fact += fmt::format(" ({})", stat_path);
  const bool stolen = *load.steal_all >= kStealFraction ||
                      (cpu_steal != load.steal.end() && cpu_steal->second >= kStealFraction) ||
                      load.steal_since_boot.value_or(0.0) >= kStealFraction;
  if (stolen) {
    r.state = status::warn;
    r.recommendation =
        "the host runs other work on these physical CPUs: measure on a dedicated or bare-metal "
        "host, or repeat runs and compare their minimums";
  } else {
    r.state = status::ok;
  }
  return r;
}

}  // namespace detail
}  // namespace harness::doctor
