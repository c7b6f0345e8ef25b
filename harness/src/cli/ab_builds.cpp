// `harness ab --a BIN --b BIN WORKLOAD`: one workload of two builds. For each of --pairs fresh
// pairs of worker processes (`BIN worker`, ab/worker_side.hpp), started held, pinned and raised
// through their pids, then released: hello and ready (the two must sample the same clock at the
// same rate, in the same protocol version), the rounds between them (ab.hpp's run_rounds, the
// estimator unchanged), quit. The pairs are combined at the level of processes (conclude()).
//
// The parent times nothing and prepares nothing of its own: it waits on the workers' pipes, so
// its affinity and priority stay as they were, and what was raised ends with the workers.
#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <cmath>
#include <system_error>

#include "ab/worker_side.hpp"
#include "ab_command.hpp"
#include "base/numbers.hpp"
#include "cli.hpp"
#include "harness/doctor.hpp"
#include "harness/errors.hpp"
#include "harness/log.hpp"
#include "instructions.hpp"
#include "platform/child_process.hpp"
#include "report/progress.hpp"
#include "run_command.hpp"
#include "run_flags.hpp"
#include "scratch_folder.hpp"

namespace harness::cli {

namespace {

// Two workers read the same counter when their rates agree within this. Both ticks are of the
// one counter the two processes read, so the ratio of B's ticks to A's does not depend on the
// rate at all: it only sizes the rounds and turns ticks into durations. Two calibrations of the
// TSC agree within 1 ppm on the hosts measured (the calibration's own error bound is ~6 ppm); a
// difference over 0.1% means the two do not count the same thing.
constexpr double kRateTolerance = 0.001;

// The most pairs of processes: each is a fresh pair of processes run one after the other.
constexpr std::uint64_t kMaxPairs = 100;

std::string cannot_run(std::string_view option, const std::string& binary, const std::string& why) {
  return fmt::format(
      "{}: cannot run '{}': {}; give the path of a harness binary (one linked with "
      "harness::main){}",
      option, binary, why,
      std::filesystem::path(binary).has_parent_path()
          ? ""
          : " (the PATH is not searched: give ./NAME or its full path)");
}

// What the two builds' options say, checked; throws usage_error. Nothing runs before it returns.
struct builds_plan {
  std::size_t pairs = kDefaultPairs;
  bool duet = false;
  worker_settings workers;
};

builds_plan plan_builds(const ab_flags& flags, const std::string& program) {
  const bool has_a = flags.a_option->count() > 0;
  const bool has_b = flags.b_option->count() > 0;
  if (has_a != has_b) {
    throw usage_error(fmt::format(
        "{} given without {}: two builds take both, e.g. {} ab --a build-main/bin/harness --b "
        "build-pr/bin/harness xor_loop/1000000",
        has_a ? "--a" : "--b", has_a ? "--b" : "--a", program));
  }
  if (flags.specs.size() != 1) {
    throw usage_error(fmt::format(
        "with --a and --b give one workload, run in both builds (e.g. {} ab --a A_BIN --b B_BIN "
        "xor_loop/1000000); got {} workload{}{}",
        program, flags.specs.size(), flags.specs.size() == 1 ? "" : "s",
        flags.specs.empty() ? "" : fmt::format(" ({})", fmt::join(flags.specs, ", "))));
  }
  const std::string& spec = flags.specs.front();
  if (spec.empty() || spec.find_first_of(" \t\r\n") != std::string::npos) {
    throw usage_error(fmt::format(
        "the workload '{}': a workload to run in two builds is NAME or NAME/ARG, without spaces",
        spec));
  }
  if (flags.clock.find_first_of(" \t\r\n") != std::string::npos) {
    throw usage_error(
        fmt::format("--clock: invalid value '{}': a clock's name has no spaces "
                    "(harness clocks lists them)",
                    flags.clock));
  }
  for (const auto& [option, binary] : {std::pair{"--a", &flags.a}, std::pair{"--b", &flags.b}}) {
    if (binary->empty()) {
      throw usage_error(fmt::format("{}: the path is empty; give a harness binary", option));
    }
    if (const std::string why = platform::cannot_execute(*binary); !why.empty())
      throw usage_error(cannot_run(option, *binary, why));
  }
  builds_plan plan;
  plan.pairs = parse_positive(flags.pairs, "--pairs",
                              "a positive number of pairs of worker processes, such as 5");
  if (plan.pairs > kMaxPairs) {
    throw usage_error(
        fmt::format("--pairs: invalid value '{}': at most {} pairs", flags.pairs, kMaxPairs));
  }
  if (flags.layout == "duet") {
    plan.duet = true;
  } else if (flags.layout != "turns") {
    throw usage_error(fmt::format(
        "--layout: invalid value '{}': expected turns (the two workers take turns on one CPU) or "
        "duet (they sample at the same time on two CPUs)",
        flags.layout));
  }
  plan.workers.timeout = std::chrono::duration_cast<std::chrono::milliseconds>(
      positive_duration(flags.worker_timeout, "--worker-timeout",
                        "a worker needs some time to answer; give e.g. 10s"));
  return plan;
}

// The refusals of two workers that cannot be compared: different clocks or rates.
void check_comparable(const worker_side& a, const worker_side& b) {
  const worker_protocol::ready& ra = a.ready();
  const worker_protocol::ready& rb = b.ready();
  if (ra.clock != rb.clock) {
    throw usage_error(fmt::format(
        "the two workers sample different clocks: {} {}, {} {}; their ticks do not compare: give "
        "--clock NAME with a clock both builds have (harness clocks lists them)",
        a.name(), ra.clock, b.name(), rb.clock));
  }
  const double difference = std::abs(ra.ticks_per_second - rb.ticks_per_second) /
                            std::max(ra.ticks_per_second, rb.ticks_per_second);
  if (!(difference <= kRateTolerance)) {
    throw usage_error(fmt::format(
        "the two workers' {} runs at different rates: {} {} ticks/s, {} {} ticks/s, {} apart, "
        "more than the {} two readings of one counter may differ by; give --clock with another "
        "clock (harness clocks lists them)",
        ra.clock, a.name(), fixed_text(ra.ticks_per_second, 0), b.name(),
        fixed_text(rb.ticks_per_second, 0), percent_text(difference, 3),
        percent_text(kRateTolerance, 1)));
  }
}

// A worker of `binary`, started held, prepared through its pid, read back and released; its
// preparation (the steps named after `side`) goes to `prepared`.
std::unique_ptr<worker_side> start_worker(platform::process_launcher& launcher,
                                          const std::string& side, const std::string& binary,
                                          const std::filesystem::path& err_file,
                                          std::optional<int> cpu, platform::priority_level priority,
                                          const std::string& log_level,
                                          const worker_settings& settings,
                                          preparation_report& prepared) {
  const std::string name = fmt::format("{} ('{}')", side, binary);
  platform::child_spec spec{binary, {"worker", "--log-level", log_level}, {}, err_file, true};
  std::unique_ptr<platform::child_process> child;
  try {
    child = launcher.launch(spec);
  } catch (const std::system_error& e) {
    throw ab_side_failure(fmt::format("{} could not be started: {}", name, e.what()), false);
  }
  try {
    prepared.affinity_before = child->affinity();
  } catch (const std::system_error& e) {
    logger().warn("{}: could not read the worker's affinity: {}", name, e.what());
  }
  prepared.priority_before = child->describe_priority();
  const auto add = [&](platform::step_result step) {
    step.action = fmt::format("{} worker: {}", side, step.action);
    prepared.steps.push_back(std::move(step));
  };
  if (cpu) add(child->set_affinity({*cpu}));
  for (auto& step : child->raise_priority(priority))
    add(std::move(step));
  try {
    prepared.affinity_applied = child->affinity();
  } catch (const std::system_error& e) {
    logger().warn("{}: could not read the worker's affinity back: {}", name, e.what());
  }
  prepared.priority_applied = child->describe_priority();
  try {
    child->resume();
  } catch (const std::system_error& e) {
    throw ab_side_failure(fmt::format("{} could not be executed: {}", name, e.code().message()),
                          false);
  }
  logger().info("{}: worker started, pid {}", name, child->id());
  return std::make_unique<worker_side>(side, binary, std::move(child), err_file, settings);
}

// Later pairs: only what differs from the first pair's preparation is worth a line.
void keep_refusals(preparation_report& first, const preparation_report& later, std::size_t pair) {
  for (platform::step_result step : later.steps) {
    if (step.applied) continue;
    step.action = fmt::format("{} (pair {})", step.action, pair);
    first.steps.push_back(std::move(step));
  }
}

}  // namespace

int run_ab_builds(const ab_flags& flags, context& ctx) {
  ab_options options = ab_options_from(flags);
  const builds_plan plan = plan_builds(flags, ctx.program);
  auto os = ctx.host.os();
  const platform::cpu_list allowed = os->affinity();
  check_cpu_allowed(flags.cpu_option, flags.cpu, allowed);
  if (plan.duet && !flags.no_pin && allowed.size() < 2) {
    throw usage_error(fmt::format(
        "--layout duet: the two workers need two CPUs, and this process may run on {} only; give "
        "--layout turns",
        platform::format_cpu_list(allowed)));
  }
  const ab_output_plan output = plan_ab_output(flags, ctx);
  if (flags.instructions) check_valgrind(ctx.host);
  const auto progress = configure_logging(flags.log_level, ctx);

  const doctor::doctor_report health = checkup_of(flags.cpu_option, flags.cpu, allowed, ctx);
  std::optional<int> cpu_a;
  std::optional<int> cpu_b;
  if (!flags.no_pin) {
    cpu_a = health.cpu;
    cpu_b = health.cpu;
    if (plan.duet) {
      // B on the least loaded of the others, by the doctor's rule.
      platform::cpu_list others;
      std::copy_if(allowed.begin(), allowed.end(), std::back_inserter(others),
                   [&](int c) { return c != health.cpu; });
      cpu_b = doctor::select_default_cpu(others, health.load).cpu;
    }
  }
  options.cpu = cpu_a;

  ab_report report;
  report.mode = ab_mode::builds;
  report.layout = plan.duet ? "duet" : "turns";
  report.pairs_requested = plan.pairs;
  report.clock_reason =
      flags.clock.empty()
          ? "the default clock of the worker started first (A, or B in every other pair); the "
            "other was asked for the same"
          : "chosen with --clock";
  report.context = ctx.host.context(doctor::summarize(health));
  const std::unique_ptr<platform::process_launcher> launcher = ctx.host.launcher();
  const auto show = ab_progress_to(progress);
  // SIGINT and SIGTERM stop the pairs after the current round, and the handlers stay until the
  // files are written: a signal there ends the command after them, not the process in the middle
  // of a write, leaving its temporary file (found by bench/soak.sh).
  const stop_signals_guard signals;
  try {
    const scratch_folder folder("ab");
    for (std::size_t p = 1; p <= plan.pairs && stop_signal() == 0; ++p) {
      if (progress->enabled()) {
        progress->show(fmt::format("ab: pair {} of {}: starting the workers", p, plan.pairs));
      }
      preparation_report prepared_a;
      preparation_report prepared_b;
      // One after the other: each calibrates its clock and measures its facts on the CPU the
      // rounds use, which the other would disturb. The second is asked for the first's clock, so
      // a default that differs between the builds does not end the comparison. Every other pair
      // starts B first and, in a duet, swaps the CPUs: what being started first (its memory
      // taken first) or a CPU of its own gives a side then shows as a spread between pairs,
      // which widens the interval, instead of a bias, which would move it.
      const bool swapped = p % 2 == 0;
      const std::optional<int> cpu_of_a = swapped ? cpu_b : cpu_a;
      const std::optional<int> cpu_of_b = swapped ? cpu_a : cpu_b;
      const auto start = [&](const std::string& side) {
        const bool is_a = side == "A";
        return start_worker(*launcher, side, is_a ? flags.a : flags.b,
                            folder.path() / fmt::format("pair-{}-{}.err", p, is_a ? "a" : "b"),
                            is_a ? cpu_of_a : cpu_of_b, options.priority, flags.log_level,
                            plan.workers, is_a ? prepared_a : prepared_b);
      };
      std::unique_ptr<worker_side> a;
      std::unique_ptr<worker_side> b;
      std::unique_ptr<worker_side>& first = swapped ? b : a;
      std::unique_ptr<worker_side>& second = swapped ? a : b;
      first = start(swapped ? "B" : "A");
      first->hello(flags.specs.front(), flags.clock);
      second = start(swapped ? "A" : "B");
      second->hello(flags.specs.front(), first->ready().clock);
      check_comparable(*a, *b);
      if (p == 1) {
        const ab_side_facts& f = a->facts();
        report.clock = f.clock;
        report.ticks_per_second = f.ticks_per_second;
        report.clock_step = std::max(f.clock_step, b->facts().clock_step);
        report.granularity = std::max(f.granularity, b->facts().granularity);
      }
      if (show) {
        options.progress = [show, p, &plan](const ab_progress& at) {
          ab_progress labelled = at;
          const std::string stage = fmt::format("pair {} of {}: {}", p, plan.pairs, at.stage);
          labelled.stage = stage;
          show(labelled);
        };
      }
      ab_pair pair;
      if (plan.duet) {
        duet_sides duet(*a, *b);
        pair = run_rounds(duet.a(), duet.b(), options);
      } else {
        pair = run_rounds(*a, *b, options);
      }
      // The second started quits first, so the first started frees its memory last: the kernel
      // hands the pages freed last to the next allocations, which the next pair's first worker
      // (the other side) makes. Each side then runs on the other's pages of the pair before,
      // instead of keeping its own through the run (memory-bound A/A runs drifted to -1.8%).
      second->quit();
      first->quit();
      // A stop before the first measured round leaves nothing of this pair to report.
      if (pair.rounds.empty() && !report.pairs.empty()) break;
      report.pairs.push_back(std::move(pair));
      if (p == 1) {
        report.preparations.push_back(std::move(prepared_a));
        report.preparations.push_back(std::move(prepared_b));
      } else {
        keep_refusals(report.preparations[0], prepared_a, p);
        keep_refusals(report.preparations[1], prepared_b, p);
      }
    }
  } catch (const ab_side_failure& e) {
    progress->clear();
    fmt::print(ctx.err, "{}: {}\n", ctx.program, e.what());
    if (!report.pairs.empty()) {
      fmt::print(ctx.err, "{}: no report: {} of {} pairs had finished\n", ctx.program,
                 report.pairs.size(), plan.pairs);
    }
    clear_stop();
    return e.workload_threw() ? exit_workload_failed : exit_failure;
  } catch (...) {
    progress->clear();
    throw;
  }
  progress->clear();
  const bool counted = !flags.instructions || stop_signal() != 0 ||
                       count_ab_instructions(report, {flags.a, flags.specs.front()},
                                             {flags.b, flags.specs.front()}, flags.cache_sim, ctx);
  report.options = options;
  report.options.progress = {};
  report.interrupted = stop_signal() != 0;
  conclude(report);
  return finish_ab(report, output, ctx, counted);
}

}  // namespace harness::cli
