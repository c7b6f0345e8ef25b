// Confirming a phase's floor from its blocks, and the cross-checks that catch a slowed phase.
#include "harness/floor.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>

#include "base/check.hpp"
#include "base/numbers.hpp"
#include "harness/duration.hpp"

namespace harness {
namespace {

// Whole ticks print whole; per-call figures of a batch keep two decimals, or three significant
// digits below one tick (a tolerance of 0.0015 ticks per call is not "0.00").
std::string figure(double v) {
  if (v == std::floor(v)) return fixed_text(v, 0);
  return std::fabs(v) >= 1 ? fixed_text(v, 2) : significant_text(v, 3);
}

std::string percent_above(double value, double reference) {
  return percent_text(value / reference - 1, 2);
}

// "blocks 1, 3 and 4" (1-based, as people count them).
std::string block_list(const std::vector<std::size_t>& blocks) {
  std::vector<std::size_t> numbers;
  for (const std::size_t b : blocks)
    numbers.push_back(b + 1);
  if (numbers.size() == 1) return fmt::format("block {}", numbers[0]);
  const std::size_t last = numbers.back();
  numbers.pop_back();
  return fmt::format("blocks {} and {}", fmt::join(numbers, ", "), last);
}

// Where the remembered floors were shown: floors are kept per CPU the prepared phase is pinned to
// (history.hpp's floor_key).
std::string remembered_where(const floor_context& c) {
  return c.remembered_cpu ? fmt::format("CPU {} of this machine", *c.remembered_cpu)
                          : std::string("this machine");
}

bool block_at_full_speed(const block_view& b, const floor_context& c, const floor_settings& s) {
  if (!c.fastest_reference) return true;
  return at_full_speed(b.reference_best, *c.fastest_reference, c.reference_step, s);
}

}  // namespace

std::optional<int> baseline_on_another_cpu(const floor_check& check) noexcept {
  const auto& baseline = check.context.baseline_floor_cpu;
  if (!baseline || !check.floor_cpu || *baseline == *check.floor_cpu) return std::nullopt;
  return baseline;
}

bool only_another_run_can_confirm(const floor_check& check) noexcept {
  return !check.findings.empty() &&
         std::all_of(check.findings.begin(), check.findings.end(), [](floor_finding f) {
           return f == floor_finding::first_of_build || f == floor_finding::below_remembered;
         });
}

bool at_full_speed(std::uint64_t reference, std::uint64_t fastest, double step,
                   const floor_settings& settings) noexcept {
  return reference > 0 && static_cast<double>(reference) <=
                              static_cast<double>(fastest) * (1 + settings.speed_tolerance) + step;
}

std::optional<double> agreed_floor(const floor_check& check) {
  std::vector<double> minimums = check.block_minimums;
  std::sort(minimums.begin(), minimums.end());
  for (std::size_t i = 0; i + 1 < minimums.size(); ++i) {
    if (minimums[i + 1] - minimums[i] <= check.tolerance) return minimums[i];
  }
  return std::nullopt;
}

double floor_tolerance(double floor, double granularity, const floor_settings& settings) {
  return std::max(settings.granularity_steps * granularity,
                  settings.relative_tolerance * std::fabs(floor));
}

floor_check check_floor(std::span<const block_view> blocks, const floor_context& context,
                        const floor_settings& settings) {
  // The sampler passes the blocks it took, and a phase has one at least: none is a bug upstream.
  HARNESS_CHECK(!blocks.empty(), "check_floor: no blocks, so there is no floor to check");
  floor_check c;
  c.context = context;
  for (const block_view& b : blocks)
    c.block_minimums.push_back(b.minimum);
  c.floor_block =
      static_cast<std::size_t>(std::min_element(c.block_minimums.begin(), c.block_minimums.end()) -
                               c.block_minimums.begin());
  c.floor = c.block_minimums[c.floor_block];
  c.floor_cpu = blocks[c.floor_block].cpu;
  c.tolerance = floor_tolerance(c.floor, context.granularity, settings);
  for (std::size_t b = 0; b < blocks.size(); ++b) {
    if (blocks[b].minimum <= c.floor + c.tolerance) c.agreeing.push_back(b);
  }

  // The pair that confirms: agreeing, far enough apart, both at full speed; the lowest block's
  // own pairs first, then the earliest.
  const double separation = std::chrono::duration<double>(settings.min_separation).count();
  bool far_pair = false;
  const auto consider = [&](std::size_t i, std::size_t j) {
    if (std::fabs(blocks[i].start_seconds - blocks[j].start_seconds) < separation) return;
    far_pair = true;
    if (!c.confirmed_by && block_at_full_speed(blocks[i], context, settings) &&
        block_at_full_speed(blocks[j], context, settings)) {
      c.confirmed_by = std::minmax(i, j);
    }
  };
  for (const std::size_t j : c.agreeing) {
    if (j != c.floor_block) consider(c.floor_block, j);
  }
  for (std::size_t x = 0; x < c.agreeing.size(); ++x) {
    for (std::size_t y = x + 1; y < c.agreeing.size(); ++y)
      consider(c.agreeing[x], c.agreeing[y]);
  }

  std::vector<std::string> why;
  if (blocks.size() < 2) {
    c.findings.push_back(floor_finding::too_few_blocks);
    why.push_back("only one block was taken, so nothing confirms its minimum");
  } else if (c.agreeing.size() < 2) {
    c.findings.push_back(floor_finding::no_agreement);
    why.push_back(fmt::format(
        "no other block came within {} ({}) of the lowest minimum {} (block {})",
        figure(c.tolerance), percent_significant_text(c.tolerance / std::fabs(c.floor), 3),
        figure(c.floor), c.floor_block + 1));
  } else if (!far_pair) {
    c.findings.push_back(floor_finding::too_close);
    why.push_back(fmt::format(
        "{} agree, but began less than {} ms apart: one slow stretch may have covered them",
        block_list(c.agreeing), settings.min_separation.count()));
  } else if (!c.confirmed_by) {
    c.findings.push_back(floor_finding::below_full_speed);
    std::uint64_t best = 0;
    for (const std::size_t b : c.agreeing) {
      if (blocks[b].reference_best > 0 && (best == 0 || blocks[b].reference_best < best))
        best = blocks[b].reference_best;
    }
    why.push_back(fmt::format(
        "{} agree, but ran the reference loop at best {} ticks, {} slower than the fastest "
        "known ({} ticks{}): the host ran the CPU at a lower speed",
        block_list(c.agreeing), best,
        best > 0 ? percent_above(static_cast<double>(best),
                                 static_cast<double>(*context.fastest_reference))
                 : std::string("unmeasurably"),
        *context.fastest_reference,
        context.fastest_reference_remembered ? ", remembered from an earlier run here" : ""));
  }
  if (context.baseline_floor && c.floor > *context.baseline_floor + c.tolerance) {
    c.findings.push_back(floor_finding::above_baseline);
    std::string above = fmt::format("the floor lies {} above the unprepared baseline's ({})",
                                    percent_above(c.floor, *context.baseline_floor),
                                    figure(*context.baseline_floor));
    if (const auto other = baseline_on_another_cpu(c)) {
      above += fmt::format(
          ", whose lowest sample ran on CPU {} and this one on CPU {}: the CPUs of one machine "
          "need not run at one speed (a virtual machine's share their host's cores with others); "
          "--cpu {} pins to the baseline's",
          *other, *c.floor_cpu, *other);
    } else {
      // Both lowest samples on one CPU (when both were read): not a difference between CPUs.
      if (c.floor_cpu && context.baseline_floor_cpu)
        above += fmt::format(", both on CPU {}", *c.floor_cpu);
      above += ": this phase was slowed, or preparation hurt";
    }
    why.push_back(std::move(above));
  }
  if (context.remembered_floor && c.floor > *context.remembered_floor + c.tolerance) {
    c.findings.push_back(floor_finding::above_remembered);
    why.push_back(fmt::format(
        "the floor lies {} above the {} this build showed on {} before: the host was slower for "
        "this run, or its samples missed the rare fastest ones an earlier run caught",
        percent_above(c.floor, *context.remembered_floor), figure(*context.remembered_floor),
        remembered_where(context)));
  }
  if (context.remembers_floors && context.remembered_floor &&
      c.floor < *context.remembered_floor - c.tolerance) {
    c.findings.push_back(floor_finding::below_remembered);
    why.push_back(fmt::format(
        "the floor lies {} below the {} earlier runs of this build showed on {}: no other "
        "process reached it yet (they were slower, or the host is faster now)",
        percent_text(1 - c.floor / *context.remembered_floor, 2), figure(*context.remembered_floor),
        remembered_where(context)));
  }
  if (context.remembers_floors && !context.remembered_floor) {
    c.findings.push_back(floor_finding::first_of_build);
    why.push_back(fmt::format(
        "no earlier run of this build showed a floor on {} (within the history's hour), so "
        "nothing shows the host was not slower for all of this one",
        remembered_where(context)));
  }

  c.confirmed = c.findings.empty();
  if (c.confirmed) {
    const auto [i, j] = *c.confirmed_by;
    std::string checks;
    if (context.fastest_reference) checks += ", at the fastest reference-loop speed known";
    if (context.baseline_floor) checks += ", not above the baseline's floor";
    if (context.remembered_floor) checks += ", agreeing with the floor this build showed before";
    c.reason = fmt::format(
        "blocks {} and {} ({} apart) agree within {} ({}){}", i + 1, j + 1,
        format_seconds(std::fabs(blocks[j].start_seconds - blocks[i].start_seconds), kSpanFormat),
        figure(c.tolerance), percent_significant_text(c.tolerance / std::fabs(c.floor), 3), checks);
    return c;
  }
  c.reason = fmt::format("{}", fmt::join(why, "; "));
  const bool only = c.findings.size() == 1;
  c.recommendation =
      only && c.findings[0] == floor_finding::too_few_blocks
          ? "take the samples in two blocks or more (--blocks), with two samples or more"
      : only_another_run_can_confirm(c)
          ? "run it again: a later run whose floor agrees with this one is confirmed; compare "
            "builds only by confirmed floors"
          : "rerun when the host is quieter, or give the phase more time to take blocks "
            "(--max-time); compare builds only by confirmed floors";
  return c;
}

}  // namespace harness
