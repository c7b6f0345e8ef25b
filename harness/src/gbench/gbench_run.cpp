// `harness gbench`: the invocations of the binary, phase by phase (gbench.hpp).
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <sstream>
#include <system_error>
#include <thread>

#include "base/check.hpp"
#include "base/numbers.hpp"
#include "gbench/gbench.hpp"
#include "harness/log.hpp"

namespace harness::gbench {
namespace {

using steady = std::chrono::steady_clock;

double seconds_between(steady::time_point a, steady::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

class reported_ns_clock final : public clock_source {
 public:
  std::string_view name() const noexcept override { return "gbench_real_time"; }
  std::string_view description() const noexcept override {
    return "Google Benchmark's real_time per iteration, in nanoseconds as the binary reported "
           "it (each sample the mean of one repetition's iterations); not read by the harness";
  }
  clock_kind kind() const noexcept override { return clock_kind::wall; }
  bool is_monotonic() const noexcept override { return true; }
  double ticks_per_second() const noexcept override { return 1e9; }
  std::optional<double> declared_resolution() const noexcept override { return std::nullopt; }
  std::uint64_t now() const noexcept override {
    // Nothing may sample with it: the figures come from the binary. A call is a bug.
    HARNESS_CHECK(false, "the gbench_real_time clock was read; its figures come from the binary");
    return 0;
  }
  bool available() const noexcept override { return false; }
  std::string unavailable_reason() const override {
    return "it is the unit of Google Benchmark's reported times, not a clock to read";
  }
};

// The preparation of one prepared invocation, read back from the held child.
preparation_report prepare(platform::child_process& child, const child_preparation& how) {
  preparation_report p;
  try {
    p.affinity_before = child.affinity();
  } catch (const std::system_error& e) {
    logger().warn("could not read the child's affinity: {}", e.what());
  }
  p.priority_before = child.describe_priority();
  if (how.cpu) p.steps.push_back(child.set_affinity({*how.cpu}));
  for (auto& step : child.raise_priority(how.priority))
    p.steps.push_back(std::move(step));
  try {
    p.affinity_applied = child.affinity();
  } catch (const std::system_error& e) {
    logger().warn("could not read the child's affinity back: {}", e.what());
  }
  p.priority_applied = child.describe_priority();
  return p;
}

}  // namespace

std::string seconds_flag(std::chrono::nanoseconds d) {
  return significant_text(std::chrono::duration<double>(d).count(), 9);
}

const clock_source& reported_nanoseconds() {
  static const reported_ns_clock clock;
  return clock;
}

std::vector<std::string> invocation_args(const settings& s, std::size_t repetitions, bool prepared,
                                         const std::filesystem::path& json_file) {
  std::vector<std::string> args = s.args;
  args.push_back(fmt::format("--benchmark_repetitions={}", repetitions));
  args.push_back("--benchmark_out=" + json_file.string());
  args.push_back("--benchmark_out_format=json");
  args.push_back("--benchmark_min_time=" + seconds_flag(s.min_time));
  if (prepared && s.warmup.count() > 0) {
    // --warmup is each benchmark's warmup in all: each prepared invocation, a new process, warms
    // up its share (gbench.hpp, docs/gbench.md).
    const auto blocks = static_cast<std::int64_t>(block_sizes(s.repetitions, s.blocks).size());
    args.push_back("--benchmark_min_warmup_time=" + seconds_flag(s.warmup / blocks));
  }
  return args;
}

std::optional<platform::child_exit> run_child(platform::process_launcher& launcher,
                                              const platform::child_spec& spec,
                                              const child_preparation* how,
                                              preparation_report* report,
                                              std::chrono::milliseconds poll,
                                              std::string_view label, int& stopped) {
  std::unique_ptr<platform::child_process> child;
  try {
    child = launcher.launch(spec);
  } catch (const std::system_error& e) {
    throw binary_failed(fmt::format("could not start '{}': {}", spec.program.string(), e.what()));
  }
  if (how) {
    preparation_report p = prepare(*child, *how);
    if (report) *report = std::move(p);
  }
  try {
    child->resume();
  } catch (const std::system_error& e) {
    throw binary_failed(
        fmt::format("could not execute '{}': {}", spec.program.string(), e.code().message()));
  }
  logger().info("{}: pid {}", label, child->id());
  std::optional<platform::child_exit> exit;
  while (!(exit = child->poll())) {
    if (const int sig = stop_signal(); sig != 0) {
      // Passed on; a binary that ignores it is ended after two seconds.
      stopped = sig;
      child->stop(sig);
      const steady::time_point asked = steady::now();
      while (!(exit = child->poll()) && steady::now() - asked < std::chrono::seconds(2))
        std::this_thread::sleep_for(poll);
      if (!exit) child->kill();
      return std::nullopt;
    }
    std::this_thread::sleep_for(poll);
  }
  if (const int sig = stop_signal(); sig != 0) {
    // An invocation that ended as the stop came may not have finished its file: dropped too.
    stopped = sig;
    return std::nullopt;
  }
  return exit;
}

output read_invocation(const platform::child_exit& exit, const std::filesystem::path& json_file,
                       const std::filesystem::path& err_file, const std::string& what) {
  if (!exit.ok()) throw_binary_failed(fmt::format("{} {}", what, exit.describe()), err_file);
  bool found = false;
  const std::string text = read_all(json_file, found);
  if (!found || text.empty()) {
    throw_binary_failed(
        fmt::format("{} exited with status 0 but wrote no JSON to --benchmark_out: is it a "
                    "Google Benchmark binary?",
                    what),
        err_file);
  }
  output out;
  try {
    out = parse_output(text);
  } catch (const gbench_output_error& e) {
    throw_binary_failed(
        fmt::format("{} wrote a --benchmark_out file that is not Google Benchmark's JSON: {}", what,
                    e.what()),
        err_file);
  }
  if (out.repetitions.empty()) {
    throw_binary_failed(
        fmt::format("{} ran no benchmark (does --benchmark_filter match any?)", what), err_file);
  }
  return out;
}

outcome run(const settings& s, platform::process_launcher& launcher) {
  outcome o;
  const std::vector<std::size_t> sizes = block_sizes(s.repetitions, s.blocks);
  const child_preparation how{s.cpu, s.priority};
  std::optional<preparation_report> preparation;
  std::vector<phase_kind> phases;
  if (s.baseline) phases.push_back(phase_kind::baseline);
  phases.push_back(phase_kind::prepared);
  // The phase under way, closed with what it gathered when the binary fails in it.
  phase_kind phase = phase_kind::baseline;
  steady::time_point phase_start = steady::now();
  bool phase_ran = false;
  try {
    for (const phase_kind next : phases) {
      phase = next;
      const bool prepared = phase == phase_kind::prepared;
      phase_start = steady::now();
      phase_ran = false;
      for (std::size_t b = 0; b < sizes.size() && o.stop_signal == 0; ++b) {
        if (const int sig = stop_signal(); sig != 0) {
          o.stop_signal = sig;
          break;
        }
        const std::string stem = fmt::format("{}-{}", id_of(phase), b + 1);
        const std::filesystem::path json_file = s.work_dir / (stem + ".json");
        platform::child_spec spec{s.binary, invocation_args(s, sizes[b], prepared, json_file),
                                  s.work_dir / (stem + ".out"), s.work_dir / (stem + ".err")};
        if (s.progress) {
          s.progress(fmt::format("{} invocation {} of {} ({} repetitions)", to_string(phase), b + 1,
                                 sizes.size(), sizes[b]));
        }
        const double start_seconds = seconds_between(phase_start, steady::now());
        preparation_report p;
        const std::optional<platform::child_exit> exit =
            run_child(launcher, spec, prepared ? &how : nullptr, &p, s.poll_interval,
                      fmt::format("{} invocation {} of {} ({} repetitions)", to_string(phase),
                                  b + 1, sizes.size(), sizes[b]),
                      o.stop_signal);
        if (prepared) {
          if (!preparation) {
            preparation = std::move(p);
          } else {
            // Later invocations: only what differs from the first is worth a line.
            for (auto& step : p.steps) {
              if (!step.applied) {
                step.action = fmt::format("{} (prepared invocation {})", step.action, b + 1);
                preparation->steps.push_back(std::move(step));
              }
            }
          }
        }
        // An invocation the stop cut short wrote nothing complete: what came before it is kept.
        if (!exit) break;
        const output out =
            read_invocation(*exit, json_file, spec.err_file,
                            fmt::format("'{}' ({} invocation {} of {})", s.binary.string(),
                                        to_string(phase), b + 1, sizes.size()));
        o.library_build_type = out.library_build_type;
        add_invocation(o.results, out, phase, start_seconds);
        phase_ran = true;
      }
      if (phase_ran) {
        phase_ran = false;
        finish_phase(o.results, phase, s.repetitions, seconds_between(phase_start, steady::now()),
                     o.stop_signal != 0, floor_settings{}, s.memory);
      } else if (o.stop_signal != 0) {
        for (workload_result& r : o.results)
          r.interrupted = true;
      }
      if (o.stop_signal != 0) break;
    }
  } catch (const binary_failed& e) {
    o.failure = e.what();
    if (phase_ran) {
      finish_phase(o.results, phase, s.repetitions, seconds_between(phase_start, steady::now()),
                   false, floor_settings{}, s.memory);
    }
  }
  for (workload_result& r : o.results) {
    if (preparation) r.preparation = *preparation;
    r.warmup.requested = s.warmup;
  }
  return o;
}

std::string read_all(const std::filesystem::path& file, bool& found) {
  std::ifstream in(file, std::ios::binary);
  found = static_cast<bool>(in);
  std::ostringstream text;
  if (found) text << in.rdbuf();
  return text.str();
}

void throw_binary_failed(const std::string& what, const std::filesystem::path& err_file) {
  const std::string tail = platform::tail_of(err_file, 8);
  throw binary_failed(tail.empty() ? what + "; its stderr was empty"
                                   : what + "; the last lines of its stderr:\n" + tail);
}

}  // namespace harness::gbench
