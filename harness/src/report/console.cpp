// The console report: the run's settings, each workload's phases with their statistics and
// verdicts, a picture of the samples, and a summary table fitted to the terminal.
//
// Caveats: colour and the terminal's width come from a console_style the caller detected; with
// the default style (no colour, no width limit, Unicode) the output is the same on every machine
// for the same results, which the golden tests rely on.
#include <fmt/format.h>
#include <fmt/ostream.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <ostream>
#include <string>
#include <vector>

#include "base/numbers.hpp"
#include "harness/duration.hpp"
#include "harness/report.hpp"
#include "report/counters.hpp"
#include "report/picture.hpp"
#include "report/summary.hpp"

namespace harness {
namespace {

using report_detail::opt_percent;
using report_detail::opt_ticks;
using report_detail::ticks_text;
using report_detail::time_text;

std::string colored(std::string_view text, const char* ansi, const console_style& style) {
  if (!style.color) return std::string(text);
  return fmt::format("\x1b[{}m{}\x1b[0m", ansi, text);
}

const char* verdict_color(stats::stability level) {
  switch (level) {
    case stats::stability::stable:
      return "32";  // green
    case stats::stability::noisy:
      return "33";  // yellow
    case stats::stability::unstable:
      return "31";  // red
    case stats::stability::too_few:
      return "36";  // cyan: not a judgement
  }
  return "0";
}

void print_steps(std::ostream& out, std::string_view prefix,
                 const std::vector<platform::step_result>& steps, const console_style& style) {
  for (const auto& s : steps) {
    if (s.applied) {
      fmt::print(out, "{}{}: applied\n", prefix, s.action);
    } else {
      fmt::print(out, "{}{}: {}: {}\n", prefix, s.action, colored("REFUSED", "33", style),
                 s.reason);
    }
  }
}

void print_preparation(std::ostream& out, const workload_result& r, const console_style& style,
                       const sample_source* source) {
  const preparation_report& p = r.preparation;
  fmt::print(out, "  preparation:\n");
  if (p.steps.empty()) fmt::print(out, "    nothing to apply (--no-pin and --priority normal)\n");
  print_steps(out, "    ", p.steps, style);
  fmt::print(out, "    read back: CPUs {} (were {}); {} (was {})\n",
             p.affinity_applied.empty() ? std::string("unreadable")
                                        : platform::format_cpu_list(p.affinity_applied),
             platform::format_cpu_list(p.affinity_before), p.priority_applied, p.priority_before);
  if (r.warmup.requested.count() == 0) {
    fmt::print(out, "    warmup: disabled\n");
  } else if (source != nullptr) {
    fmt::print(out, "    warmup: {}\n", source->warmup);
  } else {
    fmt::print(out, "    warmup: {} requested, {} run, {} calls\n",
               format_duration(r.warmup.requested, micro_spelling_for(style.unicode)),
               format_duration(r.warmup.elapsed, micro_spelling_for(style.unicode)),
               r.warmup.calls);
  }
}

// "in 5 blocks", and how many were asked for when more were taken.
std::string blocks_text(const phase_result& p) {
  std::string text;
  if (p.blocks.size() > 1) text = fmt::format(" in {} blocks", p.blocks.size());
  if (p.requested > 0 && p.values.size() > p.requested) {
    text +=
        fmt::format(" ({} requested; more blocks were taken to confirm the floor)", p.requested);
  }
  return text;
}

// The baseline had no warmup, but a batch calibration runs the workload before it.
// The workload's "YOUR BUILD" line, nothing when its build is not known to be wrong.
void print_build(std::ostream& out, const workload_result& r, const console_style& style) {
  const std::string problem = report_detail::build_problem(r.build);
  if (problem.empty()) return;
  fmt::print(out,
             "  {}: the file that registered it was compiled {}: its times are not those of a "
             "release build -> configure your project with -DCMAKE_BUILD_TYPE=Release\n",
             colored("YOUR BUILD", "33", style), problem);
}

void print_phase_header(std::ostream& out, const phase_result& p, const workload_result& r,
                        const sample_source* source) {
  if (source != nullptr) {
    fmt::print(
        out, "  {}: {} samples{}{}, one {} repetition each\n", to_string(p.kind), p.values.size(),
        p.blocks.size() > 1 ? fmt::format(" in {} invocations", p.blocks.size()) : "",
        p.kind == phase_kind::baseline ? " unprepared (no pinning, priority as started, no warmup)"
                                       : "",
        source->tool);
    if (p.stopped_by != stop_reason::count)
      fmt::print(out, "    sampling ended: {}\n", to_string(p.stopped_by));
    return;
  }
  fmt::print(out, "  {}: {} samples{}{}; timer overhead {} ticks subtracted; ", to_string(p.kind),
             p.values.size(), blocks_text(p),
             p.kind != phase_kind::baseline ? ""
             : r.batch_calibrated
                 ? " unprepared (no pinning, priority as started, no warmup; the batch "
                   "calibration ran the workload before it)"
                 : " unprepared (no pinning, priority as started, no warmup)",
             p.overhead);
  if (p.batch > 1) {
    fmt::print(out, "{} calls per sample, figures per call\n", p.batch);
  } else {
    fmt::print(out, "one call per sample\n");
  }
  if (p.stopped_by != stop_reason::count) {
    fmt::print(out, "    sampling ended: {}\n", to_string(p.stopped_by));
  }
  // "ran on CPU 1 (20 samples)", "ran on CPU 0 (12 samples), CPU 1 (8)": read after each sample.
  if (const auto by_cpu = p.samples_by_cpu(); !by_cpu.empty()) {
    std::vector<std::string> parts;
    for (const auto& [cpu, n] : by_cpu) {
      parts.push_back(parts.empty() ? fmt::format("CPU {} ({} sample{})", cpu, n, n == 1 ? "" : "s")
                                    : fmt::format("CPU {} ({})", cpu, n));
    }
    fmt::print(out, "    ran on {}\n", fmt::join(parts, ", "));
  }
  if (p.realtime_pauses > 0) {
    fmt::print(out,
               "    realtime: sampling paused {} times between samples so the rest of the system "
               "could run (--max-hold)\n",
               p.realtime_pauses);
  }
}

void print_estimates(std::ostream& out, std::string_view label, const stats::phase_statistics& s,
                     std::uint64_t batch, const clock_source& clock, bool unicode) {
  if (s.n == 0) return;
  fmt::print(out, "    {}: n {}, min {} ticks ({})", label, s.n, opt_ticks(s.min, batch),
             time_text(*s.min / clock.ticks_per_second(), unicode));
  if (s.min_ci) {
    fmt::print(out, " [95% CI {}..{}, {}]", ticks_text(s.min_ci->lower, batch),
               ticks_text(s.min_ci->upper, batch), s.min_ci->method);
  }
  fmt::print(out, ", median {}", opt_ticks(s.median, batch));
  if (s.median_ci) {
    fmt::print(out, " [95% CI {}..{}, {}]", ticks_text(s.median_ci->lower, batch),
               ticks_text(s.median_ci->upper, batch), s.median_ci->method);
  }
  fmt::print(out, "\n");
  fmt::print(out, "      mean {}, stddev {}, CV {}, MAD {}, p5 {}, p95 {}, spread {} ({} of min)\n",
             opt_ticks(s.mean, batch), opt_ticks(s.stddev, batch), opt_percent(s.cv_percent),
             opt_ticks(s.mad, batch), opt_ticks(s.p5, batch), opt_ticks(s.p95, batch),
             opt_ticks(s.spread, batch), opt_percent(s.spread_percent));
  fmt::print(
      out, "      outliers (Tukey): {} low severe, {} low mild, {} high mild, {} high severe",
      s.outliers.low_severe, s.outliers.low_mild, s.outliers.high_mild, s.outliers.high_severe);
  if (s.drift) {
    fmt::print(out, "; drift: Spearman rho {}", signed_fixed_text(s.drift->spearman_rho, 3));
    if (s.drift->p_value) {
      fmt::print(out, " (p {}{})", significant_text(*s.drift->p_value, 3),
                 s.drift->significant ? ", significant" : "");
    }
  }
  fmt::print(out, "\n");
}

// The floor and its confirmation: the lowest block minimum, whether other blocks confirm it, and
// every block's minimum and reference-loop best, so a slowed block shows.
void print_floor(std::ostream& out, const phase_result& p, const floor_check& f,
                 const console_style& style, bool reference_loop) {
  fmt::print(
      out, "    floor: {} ticks per call, {}: {}\n", ticks_text(f.floor, p.batch),
      f.confirmed ? colored("confirmed", "32", style) : colored("NOT CONFIRMED", "33", style),
      f.reason);
  std::vector<std::string> cells;
  for (std::size_t b = 0; b < f.block_minimums.size(); ++b) {
    const bool agrees = std::find(f.agreeing.begin(), f.agreeing.end(), b) != f.agreeing.end();
    cells.push_back(reference_loop
                        ? fmt::format("{}: {}{} ({})", b + 1,
                                      ticks_text(f.block_minimums[b], p.batch), agrees ? "*" : "",
                                      p.blocks[b].reference_best)
                        : fmt::format("{}: {}{}", b + 1, ticks_text(f.block_minimums[b], p.batch),
                                      agrees ? "*" : ""));
  }
  fmt::print(out, "      blocks (minimum, * within {} of the floor{}): {}\n",
             f.tolerance >= 1 ? ticks_text(f.tolerance, p.batch) : significant_text(f.tolerance, 3),
             reference_loop ? "; reference loop best" : "", fmt::join(cells, ", "));
  if (!reference_loop) {
    fmt::print(out, "      no reference loop ran (the samples are the binary's own)");
  } else if (f.context.fastest_reference) {
    fmt::print(out, "      fastest reference loop known: {} ticks ({})",
               *f.context.fastest_reference,
               f.context.fastest_reference_remembered ? "remembered from an earlier run here"
                                                      : "this run");
  } else {
    fmt::print(out, "      fastest reference loop known: none");
  }
  if (f.context.baseline_floor)
    fmt::print(out, "; baseline floor {}", ticks_text(*f.context.baseline_floor, p.batch));
  if (f.context.remembered_floor) {
    fmt::print(out, "; this build's floor remembered here {}",
               ticks_text(*f.context.remembered_floor, p.batch));
  }
  fmt::print(out, "\n");
  if (!f.confirmed) fmt::print(out, "      recommendation: {}\n", f.recommendation);
}

void print_analysis(std::ostream& out, const workload_result& r, const phase_result& p,
                    const phase_analysis& a, const clock_facts& clock, double slowdown_factor,
                    const console_style& style, const sample_source* source) {
  print_estimates(out, "all samples", a.all, p.batch, *clock.clock, style.unicode);
  for (const std::string& line : report_detail::rates_lines(a, r, style.unicode))
    fmt::print(out, "    {}\n", line);
  const std::size_t disturbed = p.disturbed_count();
  if (source != nullptr) {
    fmt::print(out,
               "    disturbed: not detected: {} repetitions carry no reference-loop or "
               "context-switch readings\n",
               source->tool);
  } else {
    fmt::print(out,
               "    disturbed: {} of {} ({} during host slow-downs: reference loop {} of {} runs "
               "over {} its best of {} ticks; ",
               disturbed, p.values.size(), p.host_slowdown_count(), p.reference_slow,
               p.reference_runs, factor_text(slowdown_factor), p.reference_best);
    if (p.context_switch.empty()) {
      fmt::print(out, "context switches not counted: samples too short to read them cheaply)\n");
    } else {
      fmt::print(out, "{} preempted by a context switch)\n", p.context_switch_count());
    }
  }
  if (a.clean)
    print_estimates(out, "clean samples", *a.clean, p.batch, *clock.clock, style.unicode);
  if (a.verdict) {
    fmt::print(out, "    verdict: {}: {}\n      recommendation: {}\n",
               colored(stats::to_string(a.verdict->level), verdict_color(a.verdict->level), style),
               a.verdict->reason, a.verdict->recommendation);
  }
  if (p.floor) print_floor(out, p, *p.floor, style, source == nullptr);
  report_detail::print_phase_counters(out, a);
}

void print_summary(std::ostream& out, const report_model& model, const console_style& style) {
  const report_detail::summary_table summary = report_detail::summary_of(model, style.unicode);
  const auto text = report_detail::render_text(
      summary.table, style.width, [&](std::size_t row, std::size_t column, std::string padded) {
        if (column != report_detail::col::verdict || row >= summary.rows.size()) return padded;
        const phase_analysis* a = summary.rows[row];
        if (a == nullptr) return colored(padded, "31", style);  // the workload's failure
        if (!a->verdict) return padded;
        return colored(padded, verdict_color(a->verdict->level), style);
      });
  fmt::print(out,
             "\nsummary (ticks of {} per call; spread = max - min, % of min; disturbed = {}{})\n",
             model.run->clock.clock->name(),
             model.run->source ? "not detected in another tool's samples"
                               : "samples during host slow-downs or context switches",
             report_detail::rate_columns_note(model));
  if (!text.dropped.empty()) {
    fmt::print(out, "  (terminal of {} columns: not shown: {})\n", style.width,
               fmt::join(text.dropped, ", "));
  }
  for (const std::string& line : text.lines)
    fmt::print(out, "{}\n", line);
  for (const workload_analysis& w : model.workloads) {
    const std::string sentence =
        report_detail::preparation_sentence(w, model.run->options.tuning.host_slowdown_factor);
    if (!sentence.empty()) fmt::print(out, "  {}\n", sentence);
  }
}

}  // namespace

void print_console_report(std::ostream& out, const report_model& model,
                          const console_style& style) {
  const run_report& report = *model.run;
  if (!report.detail) {
    report_detail::print_short_console_report(out, model, style);
    return;
  }
  const clock_source& clock = *report.clock.clock;
  fmt::print(out, "clock: {} ({}), {} ticks/s, 1 tick = {}, ", clock.name(), clock.description(),
             fixed_text(clock.ticks_per_second(), 0),
             report_detail::tick_text(clock.ticks_per_second(), style.unicode));
  if (report.clock.step_measured) {
    fmt::print(out, "smallest step seen {} ticks\n", report.clock.step);
  } else {
    fmt::print(out, "no step seen\n");
  }
  if (!report.clock_reason.empty()) fmt::print(out, "  why this clock: {}\n", report.clock_reason);
  if (const auto& cal = report.calibration;
      cal && cal->ticks_per_second == clock.ticks_per_second()) {
    fmt::print(out,
               "  TSC rate: {} MHz, calibrated against {} in {} ({} rounds), error within {} "
               "ppm{}\n",
               fixed_text(cal->ticks_per_second / 1e6, 6), cal->reference,
               format_seconds(cal->duration_seconds, kSpanFormat), cal->rounds,
               fixed_text(cal->error_ppm, 2),
               cal->converged ? "" : " - NOT converged within its time bound: rates are uncertain");
  }
  const sample_source* source = report.source ? &*report.source : nullptr;
  if (source != nullptr) {
    fmt::print(out,
               "command: {}\nfigures: {}; headline estimator: the minimum, with the median "
               "beside it\n{}\n",
               source->command, source->sample, source->plan);
  } else {
    fmt::print(out,
               "figures: ticks of this clock per call, timer overhead subtracted (raw ticks in "
               "brackets); headline estimator: the minimum, with the median beside it\n");
  }
  const run_options& o = report.options;
  if (source == nullptr) {
    fmt::print(out, "samples per phase: {}; warmup: {}; priority: {}; pin: {}{}\n",
               o.auto_samples
                   ? fmt::format("auto in {} blocks or more (target {} of min, at most {} each)",
                                 o.blocks, percent_significant_text(o.target, 3),
                                 format_duration(o.max_time, micro_spelling_for(style.unicode)))
               : o.blocks == 1
                   ? fmt::format("{} in one block", o.samples)
                   : fmt::format("{} in {} block{} (the prepared phase takes more, for up "
                                 "to {} in all, until its floor is confirmed)",
                                 o.samples, o.planned_blocks(), o.planned_blocks() == 1 ? "" : "s",
                                 format_duration(o.max_time, micro_spelling_for(style.unicode))),
               format_duration(o.warmup, micro_spelling_for(style.unicode)),
               platform::to_string(o.priority),
               o.cpu ? fmt::format("CPU {}", *o.cpu) : std::string("off"),
               o.lock_memory ? "; memory locked" : "");
  }
  const floor_settings& fs = o.tuning.floor;
  fmt::print(out,
             "floor: the lowest block minimum; confirmed when two blocks begun {} ms or more apart "
             "agree within {} clock steps or {} of it{}{}{}\n",
             fs.min_separation.count(), fs.granularity_steps,
             percent_significant_text(fs.relative_tolerance, 3),
             source == nullptr ? ", at the fastest reference-loop speed known" : "",
             o.baseline ? ", the prepared floor not above the baseline's" : "",
             !report.history.path.empty() && !report.history.build.empty()
                 ? ", and agreeing with the floor earlier runs of this build showed here on its "
                   "CPU (a build's first run on a CPU is not confirmed)"
                 : "");
  if (report.history.path.empty()) {
    fmt::print(out,
               "history: none (--no-history, or HARNESS_HISTORY=off): floors are checked within "
               "this run only\n");
  } else {
    // gbench runs no reference loop: its history holds floors only.
    fmt::print(out, "history: {} (this machine: {}{}; build {})\n", report.history.path,
               report.history.machine,
               source != nullptr ? std::string()
               : report.history.fastest_reference
                   ? fmt::format("; fastest reference loop remembered: {} ticks",
                                 *report.history.fastest_reference)
                   : std::string("; fastest reference loop remembered: none yet"),
               report.history.build.empty() ? std::string("unidentified: no floors remembered")
                                            : report.history.build);
  }
  if (report.context.doctor)
    fmt::print(out, "{}\n", doctor::format_summary(*report.context.doctor));
  std::vector<std::string> suspects;
  for (const workload_result& r : report.results) {
    if (r.build.suspect()) suspects.push_back(r.name);
  }
  if (!suspects.empty()) {
    fmt::print(out,
               "{}: {} of {} workloads compiled without optimisation or with assertions on: {}\n",
               colored("warn", "33", style), suspects.size(), report.results.size(),
               fmt::join(suspects, ", "));
  }

  for (const workload_analysis& w : model.workloads) {
    const workload_result& r = *w.result;
    fmt::print(out, "\n{}\n", r.name);
    print_build(out, r, style);
    if (r.setup == setup_kind::per_argument) {
      fmt::print(out, "  setup: once for this argument, before the first call: {}, in no sample\n",
                 report_detail::time_text(r.setup_seconds, style.unicode));
    } else if (r.setup == setup_kind::per_call) {
      fmt::print(out,
                 "  setup: a fresh input for every call, made before each sample; not timed\n");
    }
    if (r.batch > 1) {
      const std::string length =
          fmt::format("samples aim at {} ticks or more{}", r.min_sample_ticks,
                      r.min_sample_source == min_sample_origin::clock_steps
                          ? std::string()
                          : fmt::format(", from {}", to_string(r.min_sample_source)));
      if (r.batch_raised) {
        fmt::print(out,
                   "  batch: {} calls per sample (the workload's min_batch(); {}, which fewer "
                   "calls reach)\n",
                   r.batch, length);
      } else {
        fmt::print(out, "  batch: {} calls per sample ({}; {})\n", r.batch,
                   r.batch_calibrated ? "calibrated before the baseline" : "--batch", length);
      }
    }
    bool preparation_shown = false;
    for (const phase_analysis& a : w.phases) {
      const phase_result& p = *a.phase;
      if (p.kind == phase_kind::first) {
        fmt::print(out, "  first call (cold, alone): {} ticks  {}  (raw {}, overhead {})\n",
                   ticks_text(p.values[0], 1),
                   time_text(p.values[0] / clock.ticks_per_second(), style.unicode), p.raw(0),
                   p.overhead);
        continue;
      }
      if (p.kind == phase_kind::prepared) {
        print_preparation(out, r, style, source);
        preparation_shown = true;
      }
      print_phase_header(out, p, r, source);
      if (report.show_samples) print_samples(out, a, clock);
      print_analysis(out, r, p, a, report.clock, o.tuning.host_slowdown_factor, style, source);
    }
    if (!preparation_shown && !r.preparation.steps.empty())
      print_preparation(out, r, style, source);
    report_detail::print_counter_checks(out, w);
    report_detail::print_pictures(out, w, style);
    print_steps(out, "  restore: ", r.preparation.restore_steps, style);
    if (r.failed()) {
      fmt::print(out, "  {} in {}: {}\n", colored("FAILED", "31", style), r.failure->where(),
                 r.failure->what());
    }
    if (r.interrupted)
      fmt::print(out, "  {}: results so far\n", colored("INTERRUPTED", "33", style));
  }
  print_summary(out, model, style);
}

}  // namespace harness
