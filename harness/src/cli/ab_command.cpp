// `harness ab A B`: is B faster than A? Two workloads of this binary measured in paired,
// interleaved rounds on one prepared core (ab.hpp), and the answer: the median of the rounds'
// B/A ratios with its 95% interval, and a verdict against --threshold that CI can gate on
// (--fail-if-slower exits 4).
#include <fmt/format.h>
#include <fmt/ostream.h>
#include <CLI/CLI.hpp>

#include <csignal>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>

#include "ab/local_side.hpp"
#include "ab_command.hpp"
#include "base/numbers.hpp"
#include "cli.hpp"
#include "cli/history_file.hpp"
#include "cli/output_file.hpp"
#include "harness/ab.hpp"
#include "harness/ab_report.hpp"
#include "harness/doctor.hpp"
#include "harness/duration.hpp"
#include "harness/errors.hpp"
#include "harness/log.hpp"
#include "instructions.hpp"
#include "report/counters.hpp"
#include "report/progress.hpp"
#include "run_command.hpp"
#include "run_flags.hpp"

namespace harness::cli {

namespace {

// The one workload a side's spec names; usage_error when it names none or several.
workload_instance one_workload(const workload_registry& registry, const std::string& spec,
                               std::string_view side) {
  std::vector<workload_instance> found;
  try {
    found = registry.select({spec});
  } catch (const usage_error& e) {
    throw usage_error(fmt::format("{}: {}", side, e.what()));
  }
  if (found.size() != 1) {
    std::vector<std::string> names;
    for (const auto& w : found)
      names.push_back(w.display_name());
    throw usage_error(fmt::format("{}: '{}' names {} workloads ({}); give exactly one", side, spec,
                                  found.size(), fmt::join(names, ", ")));
  }
  return found.front();
}

// The builds an A/B run compared, for the store: this program's fingerprint for two workloads of
// it, the two sides' builds for two binaries ("A vs B").
std::string ab_build_of(const ab_report& report, const context& ctx) {
  if (report.mode == ab_mode::gbench)
    return fmt::format("{} vs {}", report.build_a, report.build_b);
  if (report.mode == ab_mode::builds && !report.pairs.empty()) {
    return fmt::format("{} vs {}", report.pairs.front().a.build, report.pairs.front().b.build);
  }
  return file_fingerprint(ctx.host.executable_path());
}

std::string progress_line(const ab_progress& p) {
  std::string text = fmt::format("ab: {} {}, {} of {}", p.stage, p.rounds,
                                 format_seconds(p.elapsed_seconds, kSpanFormat),
                                 format_seconds(p.budget_seconds, kSpanFormat));
  if (p.half_width) text += fmt::format(", half-width {}", percent_text(*p.half_width, 3));
  return text;
}

}  // namespace

ab_options ab_options_from(const ab_flags& flags) {
  ab_options o;
  o.warmup = parse_duration(flags.warmup, "--warmup");
  // gbench --vs checks its own flags here, without the options of `ab`'s command line.
  const auto given = [](const CLI::Option* option, const std::string& typed) {
    return option != nullptr ? option->count() > 0 : !typed.empty();
  };
  const bool builds = given(flags.a_option, flags.a) || given(flags.b_option, flags.b);
  const bool max_time_given = given(flags.max_time_option, flags.max_time);
  o.max_time = positive_duration(max_time_given ? flags.max_time
                                 : builds       ? kBuildsMaxTime
                                                : kWorkloadsMaxTime,
                                 "--max-time", "the rounds need some time; give e.g. 2s");
  if (given(flags.decide_after_option, flags.decide_after)) {
    if (builds) {
      throw usage_error(
          "--decide-after only applies to two workloads of this binary: with two builds each pair "
          "of processes runs to --max-time or the target, and the interval is over the pairs");
    }
    if (flags.decide_after != "off") {
      o.decide_after = positive_duration(
          flags.decide_after, "--decide-after",
          "a duration such as 2s, or off (the rounds stop at the target or --max-time only)");
    }
  } else if (!builds && !max_time_given) {
    // A --max-time given alone is the budget the user asked for: run to it (or the target).
    o.decide_after = parse_duration(kDefaultDecideAfter, "--decide-after");
  }
  o.target = parse_percentage(flags.target, "--target", false,
                              "a percentage above 0 with its percent sign, such as 0.05% (the "
                              "interval's half-width to reach, relative to the ratio)");
  o.threshold = parse_percentage(flags.threshold, "--threshold", true,
                                 "a percentage of 0 or more with its percent sign, such as 0.5% "
                                 "(B and A are the same when the interval lies within it)");
  if (!flags.fail_if_slower.empty()) {
    o.fail_if_slower = parse_percentage(
        flags.fail_if_slower, "--fail-if-slower", true,
        "a percentage of 0 or more with its percent sign, such as 1% (exit 4 when B is slower "
        "than A by more than it, with 95% confidence)");
  }
  if (!given(flags.order_option, flags.order)) {
    // Balanced for two builds, whose workers each keep their own data in the caches (docs/ab.md,
    // "A balanced order"); alternate for two workloads of this binary.
    o.order = builds ? ab_order::balanced : ab_order::alternate;
  } else if (const std::optional<ab_order> order = parse_id<ab_order>(flags.order)) {
    o.order = *order;
  } else {
    throw usage_error(fmt::format(
        "--order: invalid value '{}': expected balanced, alternate or random", flags.order));
  }
  // Read here, not by CLI11, which took -1 as the largest seed and clamped one too large to it.
  o.seed = parse_whole(flags.seed, "--seed", "a whole number from 0 to 18446744073709551615");
  o.priority = parse_priority(flags.priority);
  if (!flags.batch.empty()) {
    o.batch = parse_positive(flags.batch, "--batch", "a positive number of calls per sample");
  }
  if (!flags.min_sample_time.empty() && o.batch) {
    throw usage_error(fmt::format(
        "--min-sample-time {} and --batch {} both set the calls per sample: give one of them",
        flags.min_sample_time, flags.batch));
  }
  if (!flags.min_sample_time.empty()) {
    o.min_sample_time = positive_duration(
        flags.min_sample_time, "--min-sample-time",
        "a sample lasts at least one call; for one call per sample give --batch 1");
  }
  if (flags.no_pin && flags.cpu_option->count() > 0) {
    throw usage_error("--cpu and --no-pin contradict each other: give one of them");
  }
  if (flags.output_option->count() > 0 && flags.output.empty()) {
    throw usage_error("--output: the path is empty; give a file name such as 'ab.json'");
  }
  return o;
}

ab_output_plan plan_ab_output(const ab_flags& flags, const context& ctx) {
  ab_output_plan plan = plan_outputs(flags.format, flags.line_option->count() > 0, flags.line,
                                     flags.output, parse_ab_line_template, "{b} vs {a}: {change}");
  check_report_file(plan);  // before any side is started
  plan.save = plan_save(flags.store, ctx.host.environment);
  return plan;
}

int finish_ab(const ab_report& report, const ab_output_plan& plan, context& ctx, bool counted) {
  if (plan.line) {
    print_ab_line(ctx.out, report, *plan.line);
  } else {
    write_ab_report(ctx.out, report, *plan.stdout_format, out_style(ctx));
  }
  ctx.out.flush();
  bool written = true;
  if (plan.file) {
    try {
      std::ostringstream text;
      write_ab_report(text, report, plan.file_format);
      const std::string kept = write_output_file(*plan.file, text.str());
      if (!kept.empty()) fmt::print(ctx.err, "{}: warning: --output: {}\n", ctx.program, kept);
    } catch (const output_error& e) {
      fmt::print(ctx.err, "{}: --output: {}\n", ctx.program, e.what());
      written = false;
    }
  }
  bool saved = true;
  if (plan.save) {
    std::ostringstream json;
    write_ab_json(json, report);
    saved = save_run(*plan.save, this_machine(ctx.host, report.context), ab_build_of(report, ctx),
                     json.str(), stop_signal() != 0, ctx.err);
  }
  if (const int sig = stop_signal(); sig != 0) {
    clear_stop();
    return sig == SIGTERM ? exit_sigterm : exit_sigint;
  }
  if (!written || !saved || !counted) return exit_failure;
  if (ab_gate_failed(report)) return exit_slower;
  return exit_ok;
}

std::function<void(const ab_progress&)> ab_progress_to(
    const std::shared_ptr<progress_sink>& progress) {
  if (!progress->enabled()) return {};
  return [progress](const ab_progress& p) { progress->show(progress_line(p)); };
}

bool count_ab_instructions(ab_report& report, const counted_side& a, const counted_side& b,
                           bool cache_sim, context& ctx) {
  try {
    ab_instructions counted;
    counted.a = count_instructions(ctx.host, a.binary, a.workload, kInstructionCalls, cache_sim);
    counted.b = count_instructions(ctx.host, b.binary, b.workload, kInstructionCalls, cache_sim);
    const auto a_median = static_cast<double>(report_detail::median_of(counted.a.per_call));
    counted.ratio =
        a_median > 0 ? static_cast<double>(report_detail::median_of(counted.b.per_call)) / a_median
                     : 0;
    report.instructions = std::move(counted);
    return true;
  } catch (const usage_error&) {
    throw;
  } catch (const std::runtime_error& e) {
    fmt::print(ctx.err, "{}: {}\n", ctx.program, e.what());
    return false;
  }
}

namespace {

int run_ab_workloads(const ab_flags& flags, context& ctx) {
  ab_options options = ab_options_from(flags);
  for (const CLI::Option* builds_only :
       {flags.pairs_option, flags.layout_option, flags.worker_timeout_option}) {
    if (builds_only->count() > 0) {
      throw usage_error(fmt::format(
          "{} only applies to two builds: give --a BIN --b BIN and one workload (it has no "
          "worker processes with two workloads of this binary)",
          builds_only->get_name()));
    }
  }
  if (flags.specs.size() != 2) {
    throw usage_error(fmt::format(
        "give two workloads, A and B (e.g. {} ab xor_loop/1000000 xor_loop/1010000); got {} "
        "workload{}",
        ctx.program, flags.specs.size(), flags.specs.size() == 1 ? "" : "s"));
  }
  const workload_registry& registry = ctx.host.workloads();
  const workload_instance a = one_workload(registry, flags.specs[0], "A");
  const workload_instance b = one_workload(registry, flags.specs[1], "B");
  auto os = ctx.host.os();
  const platform::cpu_list allowed = os->affinity();
  check_cpu_allowed(flags.cpu_option, flags.cpu, allowed);
  const clock_source& clock = ctx.host.clock(flags.clock);
  const ab_output_plan plan = plan_ab_output(flags, ctx);
  if (flags.instructions) check_valgrind(ctx.host);
  const auto progress = configure_logging(flags.log_level, ctx);
  options.progress = ab_progress_to(progress);

  const doctor::doctor_report health = checkup_of(flags.cpu_option, flags.cpu, allowed, ctx);
  if (!flags.no_pin) options.cpu = health.cpu;

  ab_report report;
  report.mode = ab_mode::workloads;
  // SIGINT and SIGTERM from here on stop the rounds (a signal while pinned for the clock's facts
  // stops them before the first), and the handlers stay until the files are written: a signal
  // there ends the command after them, not the process in the middle of a write, leaving its
  // temporary file (both found by bench/soak.sh).
  const stop_signals_guard signals;
  // The clock's facts are read on the CPU the rounds will use (run_command.cpp says why).
  clock_facts facts;
  {
    const bool facts_pinned =
        options.cpu && os->set_affinity(platform::cpu_list{*options.cpu}).applied;
    facts = ctx.host.measure_clock(clock);
    if (facts_pinned) os->set_affinity(allowed);
  }
  report.options = options;
  report.clock = std::string(clock.name());
  report.ticks_per_second = clock.ticks_per_second();
  report.clock_step = facts.step;
  report.granularity = facts.granularity;
  report.clock_reason =
      flags.clock.empty() ? ctx.host.default_clock_reason() : "chosen with --clock";
  report.calibration = ctx.host.calibration();
  report.context = ctx.host.context(doctor::summarize(health));
  {
    preparation prep(*os);
    try {
      local_side side_a(a, facts, *os);
      local_side side_b(b, facts, *os);
      prep.apply(preparation_plan{options.cpu, options.priority, false});
      report.pairs.push_back(run_rounds(side_a, side_b, options));
    } catch (const ab_side_failure& e) {
      prep.restore();
      progress->clear();
      fmt::print(ctx.err, "{}: {}\n", ctx.program, e.what());
      return e.workload_threw() ? exit_workload_failed : exit_failure;
    } catch (const ab_batch_refused& e) {
      // Sides that cannot share a batch (run_rounds): the user's choice of pair and time, exit 2.
      prep.restore();
      progress->clear();
      throw usage_error(e.what());
    }
    prep.restore();
    report.preparations.push_back(prep.report());
  }
  progress->clear();
  const bool counted =
      !flags.instructions || stop_signal() != 0 ||
      count_ab_instructions(report, {ctx.host.executable_path(), a.display_name()},
                            {ctx.host.executable_path(), b.display_name()}, flags.cache_sim, ctx);
  report.interrupted = stop_signal() != 0;
  conclude(report);
  return finish_ab(report, plan, ctx, counted);
}

}  // namespace

void add_ab_command(CLI::App& root, context& ctx) {
  auto flags = std::make_shared<ab_flags>();
  CLI::App* cmd = root.add_subcommand(
      "ab",
      "Is B faster than A? Two workloads (or one workload of two builds) measured in paired, "
      "interleaved rounds on one prepared core");
  cmd->add_option("workloads", flags->specs,
                  "A and B: two workloads, NAME or NAME/ARG, each naming exactly one; with --a "
                  "and --b, one workload run in both builds");
  flags->a_option =
      cmd->add_option("--a", flags->a,
                      "Two builds: A is the workload run in worker processes of BIN (a harness "
                      "binary, or any program linked with harness::main; the PATH is not "
                      "searched)")
          ->type_name("BIN");
  flags->b_option =
      cmd->add_option("--b", flags->b, "Two builds: B's binary, as --a")->type_name("BIN");
  flags->pairs_option =
      cmd->add_option("--pairs", flags->pairs,
                      "Two builds: fresh pairs of worker processes, one after the other; the "
                      "interval is over them (each process has its own pages and layout)")
          ->capture_default_str();
  flags->layout_option =
      cmd->add_option("--layout", flags->layout,
                      "Two builds: turns (the two workers take turns on one CPU) or duet (they "
                      "sample each round at the same time on two CPUs)")
          ->capture_default_str();
  flags->worker_timeout_option =
      cmd->add_option("--worker-timeout", flags->worker_timeout,
                      "Two builds: a worker that answers no command within this beyond what the "
                      "command should take is taken for hung and killed (its setup: 20 s more)")
          ->capture_default_str();
  cmd->add_option("--warmup", flags->warmup,
                  "Rounds run and discarded before the measured ones: a duration (ns, us, ms, s)")
      ->capture_default_str();
  flags->max_time_option = cmd->add_option(
      "--max-time", flags->max_time,
      fmt::format("The longest the measured rounds may take (default: {} for two workloads, "
                  "{} a pair of processes for two builds)",
                  kWorkloadsMaxTime, kBuildsMaxTime));
  flags->decide_after_option = cmd->add_option(
      "--decide-after", flags->decide_after,
      fmt::format("Two workloads: stop when the verdict is settled (faster, slower or same, and "
                  "--fail-if-slower's gate either way), looked at this long into the rounds and "
                  "after each half of it more; off: only --target and --max-time stop them "
                  "(default: {}; off when --max-time is given alone)",
                  kDefaultDecideAfter));
  cmd->add_option("--target", flags->target,
                  "Stop when the interval's half-width is under this, relative to the ratio, at "
                  "two checks in a row")
      ->capture_default_str();
  cmd->add_option("--threshold", flags->threshold,
                  "B and A are the same when the whole interval lies within +-this; faster or "
                  "slower when it lies wholly beyond")
      ->capture_default_str();
  cmd->add_option("--fail-if-slower", flags->fail_if_slower,
                  "Exit 4 when B is slower than A by more than this percentage with 95% "
                  "confidence (the interval's lower bound above it)");
  flags->order_option = cmd->add_option(
      "--order", flags->order,
      "The order of the sides: balanced (every round ABBA ABBA..., so each side "
      "has as many samples right after its own as the other; the default for two "
      "builds), alternate (rounds AB.., BA.., ...; the default for two workloads) or "
      "random (the first side drawn per round from --seed)");
  cmd->add_option("--seed", flags->seed, "The seed of --order random")->capture_default_str();
  flags->cpu_option =
      cmd->add_option("--cpu", flags->cpu,
                      "CPU to pin to (default: the least-loaded CPU this process may use)")
          ->check(cpu_number());
  cmd->add_flag("--no-pin", flags->no_pin, "Do not pin");
  cmd->add_option("--priority", flags->priority, "normal, high (nice -20) or realtime")
      ->capture_default_str();
  cmd->add_option("--batch", flags->batch,
                  "Calls per sample, both sides (default: calibrated, the larger need of the two)");
  cmd->add_option("--min-sample-time", flags->min_sample_time,
                  "Shortest sample before batching (default: 1000 steps of the clock)");
  cmd->add_option("--clock", flags->clock,
                  fmt::format("Clock to sample with (see `{} clocks`)", ctx.program));
  cmd->add_option("--format", flags->format,
                  "Report format: console, json, csv (a row per round), markdown or html");
  flags->output_option = cmd->add_option(
      "-o,--output", flags->output,
      "Also write the report to FILE, whole or not at all (format from the extension)");
  flags->line_option = cmd->add_option(
      "--line", flags->line,
      "Print one line in this template instead of the console report. Tokens: {a} {b} {ratio} "
      "{lower} {upper} {change} {change_lower} {change_upper} {verdict} {rounds} {disturbed} "
      "{floor_ratio} {pairs} {clock} {slow_a} {slow_b} {slow_reference}");
  cmd->add_option("--log-level", flags->log_level, "Log level on stderr")->capture_default_str();
  add_store_options(*cmd, flags->store);
  cmd->add_flag("--instructions", flags->instructions,
                "After the rounds, count A's and B's instructions per call exactly under "
                "Valgrind's callgrind, each in its own binary, and give B/A (Debian package "
                "valgrind)");
  cmd->add_flag("--cache-sim", flags->cache_sim,
                "With --instructions: also the simulated L1 and last-level cache misses");
  cmd->footer(fmt::format(
      "Exit codes: 0 answered; 4 B slower beyond --fail-if-slower; 2 bad input; 1 a failure "
      "(a worker crashed, hung or spoke garbage, or valgrind could not count); 3 a workload "
      "threw; 130/143 interrupted.\n"
      "Examples:\n"
      "  {0} ab xor_loop/1000000 xor_loop/1010000     two workloads of this binary\n"
      "  {0} ab xor_loop xor_loop                      the A/A check: it should say same\n"
      "  {0} ab sort_v1 sort_v2 --fail-if-slower 1%    gate CI on B\n"
      "  {0} ab --a build-main/my_bench --b build-pr/my_bench sort_v1\n"
      "                                                   one workload of two builds, in {1} fresh "
      "pairs of worker processes\n",
      ctx.program, kDefaultPairs));
  cmd->callback([flags, &ctx] {
    ctx.action = [flags, &ctx] {
      const bool builds = flags->a_option->count() > 0 || flags->b_option->count() > 0;
      if (flags->cache_sim && !flags->instructions)
        throw usage_error(
            "--cache-sim only applies with --instructions; add it, or drop "
            "--cache-sim");
      return builds ? run_ab_builds(*flags, ctx) : run_ab_workloads(*flags, ctx);
    };
  });
}

}  // namespace harness::cli
