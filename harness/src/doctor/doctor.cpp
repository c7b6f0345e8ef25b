// Running the Linux doctor checks over a tree, summarising the verdict, and the report for people.
//
// The CPU the checks look at is the user's, or select_default_cpu's choice from the same load
// window the load and steal checks use, so the report's CPU and its load figures agree.
#include <fmt/format.h>

#include <fmt/ostream.h>
#include <fmt/ranges.h>
#include <stdexcept>

#include <ostream>

#include "doctor/checks.hpp"
#include "harness/platform.hpp"

namespace harness::doctor {

namespace {

std::optional<std::vector<int>> read_allowed(const detail::system_probe& probe) {
  const auto status_text = probe.read("proc/self/status");
  if (!status_text) return std::nullopt;
  const auto field = detail::status_field(*status_text, "Cpus_allowed_list");
  if (!field) return std::nullopt;
  auto cpus = detail::parse_cpu_list(*field);
  if (!cpus || cpus->empty()) return std::nullopt;
  return cpus;
}

}  // namespace

namespace detail {

void validate_cpu(std::optional<int> cpu, const std::vector<int>& online) {
  if (!cpu) return;
  if (*cpu < 0) {
    throw cpu_error(fmt::format("CPU {}: a CPU number is 0 or more", *cpu));
  }
  if (!online.empty() && !contains(online, *cpu)) {
    throw cpu_error(fmt::format("CPU {}: not an online CPU; online CPUs are {}", *cpu,
                                platform::format_cpu_list(online)));
  }
}

std::optional<cpu_choice> choose_cpu(std::optional<int> user, const std::vector<int>& allowed,
                                     const cpu_load_map& load) {
  if (user) return cpu_choice{*user, "chosen by the user"};
  if (allowed.empty()) return std::nullopt;
  return select_default_cpu(allowed, load);
}

}  // namespace detail

doctor_report run_tree_doctor(const doctor_options& options) {
  const detail::system_probe probe(options.root);
  doctor_report report;
  report.system = "linux";
  report.root = options.root;

  const auto online_text = probe.read_trimmed("sys/devices/system/cpu/online");
  const auto online = online_text ? detail::parse_cpu_list(*online_text) : std::nullopt;
  detail::validate_cpu(options.cpu, online.value_or(std::vector<int>{}));

  if (options.allowed && !options.allowed->empty()) {
    report.allowed = *options.allowed;
  } else if (auto allowed = read_allowed(probe)) {
    report.allowed = std::move(*allowed);
  }

  const stat_sampler sampler =
      options.sampler ? options.sampler : sleeping_stat_sampler(detail::kLoadWindow);
  const std::string stat_path = probe.path("proc/stat");
  stat_window window = sampler(options.root);
  const detail::load_sample load = detail::compute_load(
      std::move(window.before), std::move(window.after), window.seconds, stat_path);
  report.window_seconds = load.seconds;
  report.load = cpu_load_map(load.busy.begin(), load.busy.end());

  auto choice = detail::choose_cpu(options.cpu, report.allowed, report.load);
  if (!choice && online && !online->empty()) {
    choice = select_default_cpu(*online, report.load);
    choice->reason += " (affinity mask unknown: chose among online CPUs)";
  }
  if (!choice) {
    choice = cpu_choice{0, fmt::format("CPU 0 assumed: neither {} nor {} could be read",
                                       probe.path("proc/self/status"),
                                       probe.path("sys/devices/system/cpu/online"))};
  }
  report.cpu = choice->cpu;
  report.cpu_reason = choice->reason;

  const int cpu = report.cpu;
  report.checks = {
      detail::check_load(load, cpu, stat_path),
      detail::check_steal(load, cpu, stat_path),
      detail::check_governor(probe, cpu),
      detail::check_turbo(probe),
      detail::check_smt(probe, cpu, load),
      detail::check_isolation(probe, cpu),
      detail::check_irqs(probe, cpu),
      detail::check_hypervisor(probe),
      detail::check_tsc(probe),
      detail::check_aslr(probe),
      detail::check_perf_paranoid(probe),
      detail::check_priority(probe),
      detail::check_harness_build(options.harness_build),
      detail::check_benchmark_build(options.benchmark_build_type ? options.benchmark_build_type()
                                                                 : benchmark_library_build_type()),
  };
  return report;
}

doctor_summary summarize(const doctor_report& report) {
  doctor_summary summary;
  summary.cpu = report.cpu;
  summary.cpu_reason = report.cpu_reason;
  for (const auto& check : report.checks) {
    switch (check.state) {
      case status::ok:
        ++summary.ok;
        break;
      case status::warn:
        ++summary.warn;
        summary.warned.push_back(check.title);
        break;
      case status::unknown:
        ++summary.unknown;
        summary.unknown_ids.push_back(check.id);
        break;
    }
  }
  return summary;
}

std::string format_summary(const doctor_summary& summary) {
  std::string text = fmt::format("CPU {}: {}\n", summary.cpu, summary.cpu_reason);
  text += fmt::format("doctor: {} ok, {} warn, {} unknown (`harness doctor` shows facts and fixes)",
                      summary.ok, summary.warn, summary.unknown);
  if (!summary.warned.empty()) text += fmt::format("\nwarn: {}", fmt::join(summary.warned, "; "));
  return text;
}

void write_text(std::ostream& out, const doctor_report& report) {
  fmt::print(out, "harness doctor: checking CPU {} ({})\n", report.cpu, report.cpu_reason);
  for (const auto& check : report.checks) {
    fmt::print(out, "{:<7} {}: {}", to_string(check.state), check.title, check.fact);
    if (!check.recommendation.empty()) fmt::print(out, " -> {}", check.recommendation);
    fmt::print(out, "\n");
  }
  const auto summary = summarize(report);
  fmt::print(out, "summary: {} ok, {} warn, {} unknown\n", summary.ok, summary.warn,
             summary.unknown);
}

}  // namespace harness::doctor
