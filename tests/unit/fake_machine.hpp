// The machine the command line runs on (cli::machine), faked: a fake OS, a fake clock whose every
// reading is exact, a doctor, a context and a clock survey that read nothing, an environment of
// the test's own (`env`, empty: no HARNESS_HISTORY, no HOME), no terminal, an executable of the
// test's choosing (`executable`, empty: none, so no build is identified), a standard input of the
// test's (`input`, empty), and three workloads of known cost. With it a command goes from the
// command line to the report reading no real clock, environment variable, file or system path.
// Paths the command is given (--root, the history) are looked at as they are: a test names files in
// a folder of its own (scratch.hpp).
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli.hpp"
#include "fakes.hpp"
#include "platform/child_process.hpp"
#include "platform/files.hpp"

namespace harness::testing {

// A call of the workload costs exactly this many ticks of the fake clock (100 us at 1e9/s).
inline constexpr std::uint64_t kCost = 100'000;

struct fake_machine {
  // A read costs 1 us of fake time: the 50 ms gaps between blocks then take ~16,000 runs of the
  // reference loop, not 16 million.
  stepping_clock clock{1000};
  workload_registry registry;
  fake_os os;  // what the run was given, to look at afterwards
  cli::machine host;
  int throwing_calls = 0;
  int negative_calls = 0;
  std::vector<std::filesystem::path> tree_roots;  // what `doctor --root` handed the tree doctor
  std::map<std::string, std::string, std::less<>> env;  // the environment the command sees
  // What `clocks` measures: one row per source, the fake clock's with every estimate.
  std::vector<clock_survey_row> survey;
  // What the command takes for its own file: the history's build and a worker's are its
  // fingerprint.
  std::filesystem::path executable;
  // What the command reads on its standard input: `harness worker`'s parent's lines.
  std::istringstream input;

  fake_machine() {
    registry.add(
        workload("exact", detail::make_invoker([this] { clock.advance(kCost); }), false, false));
    // Throws in its 9th call: the first call, then 6 baseline samples, then the prepared phase's
    // second sample.
    registry.add(workload("throws", detail::make_invoker([this] {
                            clock.advance(kCost);
                            if (++throwing_calls == 9) throw std::runtime_error("disk on fire");
                          }),
                          false, false));
    // Returns a negative iteration count in its 3rd call: the baseline's second sample.
    registry.add(workload("negative", detail::make_invoker([this]() -> int {
                            clock.advance(kCost);
                            return ++negative_calls == 3 ? -1 : 1;
                          }),
                          false, true));
    host.os = [this] { return std::make_unique<forwarding_os>(os); };
    host.clock = [this](std::string_view) -> const clock_source& { return clock; };
    host.default_clock_reason = [] { return std::string("the test's clock"); };
    host.measure_clock = [this](const clock_source&) {
      clock_facts facts{&clock, 1, true};
      facts.granularity = 1;
      return facts;
    };
    host.calibration = [] { return std::optional<clock_calibration>(); };
    host.doctor = [](const doctor::doctor_options& options) {
      doctor::doctor_report report;
      report.system = "test";
      report.cpu = options.cpu.value_or(2);
      report.cpu_reason = "chosen by the test";
      return report;
    };
    host.tree_doctor = [this](const doctor::doctor_options& options) {
      tree_roots.push_back(options.root);
      doctor::doctor_report report;
      report.system = "test tree";
      report.cpu = options.cpu.value_or(3);
      report.cpu_reason = "chosen by the test's tree";
      return report;
    };
    host.context = [](std::optional<doctor::doctor_summary> summary) {
      run_context c;
      c.date = "2026-12-01T00:00:00+00:00";
      c.host_name = "fakehost";
      c.harness_version = "test";
      c.doctor = std::move(summary);
      return c;
    };
    host.workloads = [this]() -> const workload_registry& { return registry; };
    host.launcher = []() -> std::unique_ptr<platform::process_launcher> {
      throw std::logic_error("the test's machine starts no child process; give it a launcher");
    };
    host.survey_clocks = [this](const survey_settings&) { return survey; };
    host.environment = [this](std::string_view name) -> std::optional<std::string> {
      const auto it = env.find(name);
      return it != env.end() ? std::optional<std::string>(it->second) : std::nullopt;
    };
    host.is_terminal = [](int) { return false; };
    host.terminal_columns = [](int) { return std::optional<std::size_t>(); };
    host.executable_path = [this] { return executable; };
    host.inspect_path = [](const std::filesystem::path& path) {
      return platform::inspect_path(path);
    };
    host.standard_input = [this]() -> std::istream& { return input; };
  }
  fake_machine(const fake_machine&) = delete;
  fake_machine& operator=(const fake_machine&) = delete;
};

struct outcome {
  int code;
  std::string out;
  std::string err;
};

// `harness ARGS...` on `m`.
inline outcome run(fake_machine& m, std::vector<const char*> args) {
  args.insert(args.begin(), "harness");
  std::ostringstream out, err;
  const int code = cli::run_cli(static_cast<int>(args.size()), args.data(), out, err, m.host);
  return {code, out.str(), err.str()};
}

}  // namespace harness::testing
