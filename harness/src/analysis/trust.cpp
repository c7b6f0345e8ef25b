// Whether a workload's figures can be trusted, said in one line with the one command to run next
// (analysis.hpp: trust_note), and the pattern of a workload that learns its input, which the
// line names in plain words.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <string_view>
#include <vector>

#include "base/numbers.hpp"
#include "harness/analysis.hpp"
#include "harness/statistics.hpp"

namespace harness {

std::optional<learning_finding> detect_learning(const phase_result& p) {
  learning_finding f;
  std::vector<double> drops;
  // The lowest sample of a block (undisturbed only, unless told), or +inf.
  const auto block_min = [&](const sample_block& block, bool with_disturbed = false) {
    double m = std::numeric_limits<double>::infinity();
    for (std::size_t i = block.first; i < block.first + block.count; ++i)
      if (with_disturbed || !p.disturbed(i)) m = std::min(m, p.values[i]);
    return m;
  };
  double later_min = std::numeric_limits<double>::infinity();
  // The first block follows the warmup, not a gap: it starts trained.
  for (std::size_t b = 1; b < p.blocks.size(); ++b) {
    const sample_block& block = p.blocks[b];
    if (block.count < kLearningMinBlockSamples) continue;
    // A first sample the host slowed says nothing of the workload.
    if (p.disturbed(block.first)) continue;
    later_min = std::min(later_min, block_min(block));
    const double first = p.values[block.first];
    std::vector<double> tail(
        p.values.begin() + static_cast<std::ptrdiff_t>(block.first + block.count - block.count / 2),
        p.values.begin() + static_cast<std::ptrdiff_t>(block.first + block.count));
    std::sort(tail.begin(), tail.end());
    const double median = *stats::median_sorted(tail);
    if (!(median > 0)) continue;
    ++f.blocks_examined;
    const double drop = first / median - 1;
    if (drop > kLearningMinDrop && first > tail.back()) {
      ++f.blocks_falling;
      drops.push_back(drop);
    }
  }
  if (f.blocks_examined < kLearningMinBlocks) return std::nullopt;
  if (!p.blocks.empty() && std::isfinite(later_min) && later_min > 0) {
    // The first block's minimum over every sample of it, disturbed or not: a disturbance only
    // adds time, so a first block below the rest with such samples lies below at least as far
    // without them. A host can mark the whole first block (its reference runs slow right after
    // the warmup) while the workload ran it at its trained speed.
    const double first_min = block_min(p.blocks[0], /*with_disturbed=*/true);
    if (first_min < later_min) f.first_block_lead = 1 - first_min / later_min;
  }
  f.falling = static_cast<double>(f.blocks_falling) >=
              kLearningShare * static_cast<double>(f.blocks_examined);
  if (!f.falling && f.first_block_lead < kLearningMinFirstLead) return std::nullopt;
  if (!f.falling && p.learning_check) {
    const learning_check_result& c = *p.learning_check;
    const double lead = c.plain_min > 0 ? 1 - c.rewarmed_min / c.plain_min : 0;
    if (!(lead >= kLearningCheckShare * f.first_block_lead)) return std::nullopt;
    f.rewarm_lead = lead;
  }
  std::sort(drops.begin(), drops.end());
  if (!drops.empty()) f.median_drop = *stats::median_sorted(drops);
  return f;
}

namespace {

// "harness -w NAME ARGS", or for another tool's samples its own command again.
std::string command(const run_report& run, const workload_result& r, std::string_view args) {
  if (run.source) return run.source->command;
  return fmt::format("{} -w {}{}{}", run.program, shell_word(r.name), args.empty() ? "" : " ",
                     args);
}

// What to run when the floor is not confirmed, by the finding that kept it so.
std::string next_for(const floor_check& f, const run_report& run, const workload_result& r) {
  if (only_another_run_can_confirm(f)) return command(run, r, "");
  const auto has = [&](floor_finding x) {
    return std::find(f.findings.begin(), f.findings.end(), x) != f.findings.end();
  };
  if (has(floor_finding::too_few_blocks)) return command(run, r, "--blocks 5");
  if (has(floor_finding::above_baseline)) {
    if (const auto cpu = baseline_on_another_cpu(f))
      return command(run, r, fmt::format("--cpu {}", *cpu));
  }
  if (has(floor_finding::above_remembered) || has(floor_finding::above_baseline)) {
    return fmt::format("{} doctor, then {}", run.program, command(run, r, ""));
  }
  return command(run, r, "--max-time 5s");
}

}  // namespace

std::string shell_word(std::string_view text) {
  const bool plain = !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 ||
           std::string_view("_-./=:,+@%").find(c) != std::string_view::npos;
  });
  if (plain) return std::string(text);
  std::string quoted = "'";
  for (const char c : text)
    quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

trust_note judge_trust(const workload_analysis& w, const run_report& run) {
  const workload_result& r = *w.result;
  trust_note t;
  if (r.failed()) {
    t.text = fmt::format("FAILED in {}: {}", r.failure->where(), r.failure->what());
    return t;
  }
  const phase_analysis* prepared = w.find(phase_kind::prepared);
  if (r.interrupted) {
    t.text = "interrupted: the figures are what was measured before";
    t.next = command(run, r, "");
    return t;
  }
  if (prepared == nullptr) {
    t.text = "no prepared phase was sampled";
    t.next = command(run, r, "");
    return t;
  }
  const phase_result& p = *prepared->phase;
  if (w.pinned && w.prepared_migrations && *w.prepared_migrations > 0) {
    t.text = fmt::format(
        "the pin did not hold: the kernel moved the thread between CPUs {:.0f} times in the "
        "prepared phase (cpu-migrations), so its samples did not all run on the CPU it was "
        "pinned to",
        *w.prepared_migrations);
    t.next = fmt::format("{} doctor, then {}", run.program, command(run, r, ""));
    return t;
  }
  if (prepared->learning) {
    const learning_finding& l = *prepared->learning;
    const std::string seen =
        l.falling ? fmt::format("{} of {} blocks after a gap started {} slower and fell back",
                                l.blocks_falling, l.blocks_examined, percent_text(l.median_drop, 0))
                  : fmt::format(
                        "the first block, right after the warmup, ran {} below every one "
                        "of the {} blocks after a gap{}",
                        percent_text(l.first_block_lead, 0), l.blocks_examined,
                        l.rewarm_lead && p.learning_check
                            ? fmt::format(", and a block after {:.0f} ms of re-warming ran {} "
                                          "below the block before it",
                                          p.learning_check->rewarm_seconds * 1e3,
                                          percent_text(*l.rewarm_lead, 0))
                            : "");
    t.text = fmt::format(
        "the workload speeds up with repetition: {} (a branch predictor or cache trained by the "
        "same input, or a CPU that runs code faster once it has run it a while). The trained "
        "speed is the floor here; a caller with fresh data, or between other work, sees the "
        "untrained one: give it fresh input per call (with_fresh_input), or measure the trained "
        "speed with blocks re-warmed",
        seen);
    // 10 ms of re-warming left the branchy sum's later blocks 1.5-2x its first; 100 ms brought
    // them within 20% of it in 8 of 10 processes (docs/floor.md, "A workload that learns").
    t.next = command(run, r, "--block-rewarm 100ms");
    return t;
  }
  if (p.floor && !p.floor->confirmed) {
    t.text = fmt::format("floor not confirmed: {}", p.floor->reason);
    t.next = next_for(*p.floor, run, r);
    return t;
  }
  const double factor = run.options.tuning.host_slowdown_factor;
  if (w.host_speed && w.host_speed->ratio > factor) {
    t.text = fmt::format(
        "the CPU ran the reference loop {} slower in the {} phase: a slowed host or a lower "
        "clock, so the phases do not compare directly",
        factor_text(w.host_speed->ratio), w.host_speed->baseline_slower ? "baseline" : "prepared");
    t.next = fmt::format("{} doctor", run.program);
    return t;
  }
  if (prepared->verdict && prepared->verdict->level == stats::stability::too_few) {
    t.text = fmt::format("too few samples to judge: {}", prepared->verdict->reason);
    t.next = command(run, r, "-n 20");
    return t;
  }
  if (prepared->verdict && prepared->verdict->level == stats::stability::unstable) {
    t.text = fmt::format("unstable: {}", prepared->verdict->reason);
    t.next = command(run, r, "--max-time 5s");
    return t;
  }
  t.ok = true;
  const std::string floor =
      p.floor ? fmt::format("floor confirmed: {}", p.floor->reason) : "no blocks to confirm";
  if (prepared->verdict && prepared->verdict->level == stats::stability::noisy) {
    t.text = fmt::format("ok: {}; noisy: {}", floor, prepared->verdict->reason);
  } else {
    t.text = fmt::format("ok: {}", floor);
  }
  return t;
}

}  // namespace harness
