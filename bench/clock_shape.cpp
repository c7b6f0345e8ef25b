// clock_shape: records what one clock's readings look like on this host, as a fixture of
// tests/unit/clock_shape_fixtures.hpp, so that a new host shape becomes a unit test in minutes.
//
// It pins itself to one CPU (as a run pins before it measures the clock's facts), reads the clock
// back to back --reads times and around spins of 0..511 cycles until --spin-changes differences
// were seen, with the estimators of harness/clock_survey.hpp, and prints both histograms with
// what the step, granularity and read cost rules make of them now. Check those answers against
// what the clock must be (a 10 ns quantum of a 2.6 GHz TSC is 26 ticks) before pasting the entry
// into clock_shape_fixtures(): the fixture's expectations are the truth, not the tool's output.
//
//   build/bench/clock_shape --clock rdtsc --name amd-2596-rdtsc > shape.txt
#include <fmt/chrono.h>
#include <fmt/format.h>
#include <fmt/ostream.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdint>
#include <ctime>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "harness/clock.hpp"
#include "harness/clock_survey.hpp"
#include "harness/errors.hpp"
#include "harness/platform.hpp"

namespace {

constexpr int kExitUsage = 2;
constexpr int kExitFailure = 1;

struct options {
  std::string clock;  // empty: the default sampling clock
  std::string name;   // empty: "<clock> on <cpu model>"
  std::optional<int> cpu;
  std::uint64_t reads = 1'000'000;
  std::uint64_t spin_changes = 20'000;
};

// The first "model name" of /proc/cpuinfo, or "unknown CPU".
std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) return line.substr(line.find_first_not_of(' ', colon + 1));
    }
  }
  return "unknown CPU";
}

std::string today() {
  return fmt::format("{:%Y-%m-%d}", fmt::gmtime(std::time(nullptr)));
}

// "{.zeros = Z, .counts = {{d, n}, ...}}", eight pairs a line.
std::string histogram_text(const harness::difference_histogram& h, std::string_view indent) {
  std::vector<std::string> lines;
  std::string line;
  for (const auto& [d, n] : h.counts()) {
    line += fmt::format("{}{{{}, {}}}", line.empty() ? "" : ", ", d, n);
    if (line.size() > 80) {
      lines.push_back(std::move(line));
      line.clear();
    }
  }
  if (!line.empty()) lines.push_back(std::move(line));
  return fmt::format("{{.zeros = {}, .counts = {{\n{}    {}}}}}", h.zeros(), indent,
                     fmt::join(lines, fmt::format(",\n{}    ", indent)));
}

std::string optional_text(const std::optional<double>& v) {
  return v ? fmt::format("{:.17g}", *v) : "std::nullopt";
}

int run(const options& opt) {
  const harness::clock_source& clock =
      opt.clock.empty() ? harness::default_clock() : harness::resolve_clock(opt.clock);
  auto os = harness::platform::make_native_os();
  const harness::platform::cpu_list allowed = os->affinity();
  if (allowed.empty()) throw std::runtime_error("no CPU is allowed to this process");
  const int cpu = opt.cpu.value_or(allowed.back());
  if (std::find(allowed.begin(), allowed.end(), cpu) == allowed.end()) {
    throw harness::usage_error(fmt::format("--cpu: {} is not among the CPUs allowed here ({})", cpu,
                                           harness::platform::format_cpu_list(allowed)));
  }
  const harness::platform::step_result pinned = os->set_affinity({cpu});
  if (!pinned.applied) throw std::runtime_error(pinned.action + ": " + pinned.reason);

  const harness::step_settings step{
      .enough_reads = opt.reads, .enough_changes = 5, .budget_seconds = 60.0};
  harness::granularity_settings spins;
  spins.enough_changes = opt.spin_changes;
  spins.budget_seconds = 10.0;
  const auto read = [&clock] { return clock.now(); };
  const harness::shape_estimate shape =
      harness::measure_shape(read, harness::steady_now_ns, step, spins);
  os->set_affinity(allowed);

  const std::string name =
      opt.name.empty() ? fmt::format("{} on {}", clock.name(), cpu_model()) : opt.name;
  const auto& s = shape.step;
  const auto& g = shape.granularity;
  fmt::print(
      "    // {} ({:.6f} MHz) on {}, pinned to CPU {},\n"
      "    // recorded {} by bench/clock_shape: {} back-to-back reads in {:.3f} s,\n"
      "    // {} reads around spins of 0..{} cycles ({} sweeps).\n"
      "    // The rules now say (check before keeping): step {} ({}), granularity {},\n"
      "    // read cost {}.\n",
      clock.name(), clock.ticks_per_second() / 1e6, cpu_model(), cpu, today(), s.reads,
      s.searched_seconds, g.reads, spins.max_spin, g.sweeps,
      s.ticks ? fmt::format("{}", *s.ticks) : "none", harness::to_string(s.rule),
      optional_text(g.ticks), optional_text(g.read_cost_ticks));
  const std::string indent = "     ";
  fmt::print("    {{.name = \"{}\",\n", name);
  fmt::print("{}.back_to_back = {},\n", indent,
             histogram_text(shape.back_to_back.differences, indent));
  fmt::print("{}.around_spins = {},\n", indent,
             histogram_text(shape.around_spins.differences, indent));
  fmt::print(
      "{}.step = {},\n{}.rule = step_rule::{},\n{}.granularity = {},\n{}.read_cost = {}}},\n",
      indent, s.ticks ? fmt::format("{}", *s.ticks) : "std::nullopt", indent,
      harness::to_string(s.rule), indent, optional_text(g.ticks), indent,
      optional_text(g.read_cost_ticks));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  options opt;
  CLI::App app{
      "Records one clock's back-to-back and around-spin differences on this host, printed as a "
      "fixture of tests/unit/clock_shape_fixtures.hpp",
      "clock_shape"};
  app.add_option("--clock", opt.clock,
                 "The clock source (harness clocks lists them); default: "
                 "the default sampling clock");
  app.add_option("--name", opt.name, "The fixture's name; default: the clock and the CPU model");
  app.add_option("--cpu", opt.cpu, "The CPU to pin to; default: the last one allowed");
  app.add_option("--reads", opt.reads, "Back-to-back reads to take")
      ->check(CLI::Range(std::uint64_t{1'024}, std::uint64_t{1'000'000'000}))
      ->capture_default_str();
  app.add_option("--spin-changes", opt.spin_changes,
                 "Differences around spins to collect (within 10 s)")
      ->check(CLI::Range(std::uint64_t{64}, std::uint64_t{100'000'000}))
      ->capture_default_str();
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    fmt::print(std::cerr, "clock_shape: {}\nRun 'clock_shape --help' for the options.\n", e.what());
    return kExitUsage;
  }
  try {
    return run(opt);
  } catch (const harness::usage_error& e) {
    fmt::print(std::cerr, "clock_shape: {}\n", e.what());
    return kExitUsage;
  } catch (const std::exception& e) {
    fmt::print(std::cerr, "clock_shape: error: {}\n", e.what());
    return kExitFailure;
  }
}
