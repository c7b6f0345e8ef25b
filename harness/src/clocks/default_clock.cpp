// The default sampling clock: the rule of default_choice.hpp, the probes that feed it, and the
// chosen source with its reason, computed once on first use.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>

#include "base/numbers.hpp"
#include "clocks/clock_lookup.hpp"
#include "clocks/default_choice.hpp"
#include "clocks/tsc.hpp"
#include "harness/clock_survey.hpp"
#include "harness/duration.hpp"

namespace harness::clocks {

namespace {

double negligible_ns() {
  return kShortestSampleNs * kNegligibleFraction;
}

// A cost or step in nanoseconds, one decimal: "25.3 ns".
std::string ns_text(double ns) {
  return fixed_text(ns, 1) + " ns";
}

// Why a candidate fails the rule, or empty when it qualifies.
std::string exclusion(const default_candidate& c) {
  if (!c.available) return "unavailable";
  if (c.kind != clock_kind::wall) return "measures CPU time";
  if (!c.monotonic) return "not monotonic";
  if (!c.in_order) return "its reads may be reordered by the CPU";
  if (!c.cost_ns) return "not measured";
  if (*c.cost_ns > negligible_ns()) return "costs " + ns_text(*c.cost_ns) + " a call";
  if (!c.step_ns) return "showed no step within the probe";
  if (*c.step_ns > negligible_ns()) return "steps by " + ns_text(*c.step_ns);
  return {};
}

}  // namespace

default_choice choose_default(std::span<const default_candidate> candidates) {
  std::optional<double> cheapest;
  for (const auto& c : candidates) {
    if (exclusion(c).empty() && (!cheapest || *c.cost_ns < *cheapest)) cheapest = *c.cost_ns;
  }
  default_choice choice;
  if (!cheapest) {
    choice.reason = fmt::format(
        "no monotonic wall-clock source that reads in order had both call cost and step under {} "
        "ns",
        fixed_text(negligible_ns(), 0));
    return choice;
  }
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    if (exclusion(candidates[i]).empty() && *candidates[i].cost_ns <= *cheapest * kCostTieRatio) {
      choice.index = i;
      break;
    }
  }
  const default_candidate& chosen = candidates[*choice.index];
  choice.reason = fmt::format(
      "{}: the cheapest monotonic wall-clock source that reads in order, at {} a call with a {} "
      "step, both under {} ns ({} of a {} us sample)",
      chosen.name, ns_text(*chosen.cost_ns), ns_text(*chosen.step_ns),
      fixed_text(negligible_ns(), 0), percent_text(kNegligibleFraction, 0),
      fixed_text(kShortestSampleNs / 1000, 0));
  std::vector<std::string> passed_over;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const auto& c = candidates[i];
    if (i == *choice.index || !c.cost_ns || *c.cost_ns >= *chosen.cost_ns) continue;
    std::string why = exclusion(c);
    if (why.empty()) {
      why =
          fmt::format("within {}x, and {} comes first", fixed_text(kCostTieRatio, 0), chosen.name);
    }
    passed_over.push_back(fmt::format("{} ({}) {}", c.name, ns_text(*c.cost_ns), why));
  }
  if (!passed_over.empty()) {
    choice.reason += fmt::format("; cheaper but passed over: {}", fmt::join(passed_over, "; "));
  }
  return choice;
}

std::vector<default_candidate> probe_default_candidates(
    std::span<const clock_source* const> sources) {
  std::vector<default_candidate> candidates;
  for (const clock_source* source : sources) {
    default_candidate c;
    c.source = source;
    c.name = std::string(source->name());
    c.kind = source->kind();
    c.monotonic = source->is_monotonic();
    c.available = source->available();
    c.in_order = source->reads_in_order();
    if (c.available && c.kind == clock_kind::wall) {
      const auto read = [source] { return source->now(); };
      for (int batch = 0; batch < kProbeBatches; ++batch) {
        const double ns = measure_call_cost(read, steady_now_ns, kProbePairs).ns_per_call;
        c.cost_ns = c.cost_ns ? std::min(*c.cost_ns, ns) : ns;
      }
      const step_estimate step =
          measure_step(read, steady_now_ns,
                       step_settings{.enough_reads = kProbeStepReads,
                                     .enough_changes = 1,
                                     .budget_seconds = kProbeStepBudgetSeconds});
      if (step.ticks)
        c.step_ns = static_cast<double>(*step.ticks) / source->ticks_per_second() * 1e9;
    }
    candidates.push_back(std::move(c));
  }
  return candidates;
}

default_pick pick_default(const clock_registry& registry,
                          std::span<const default_candidate> candidates) {
  default_pick pick;
  const default_choice choice = choose_default(candidates);
  if (choice.index) {
    pick.source = candidates[*choice.index].source;
    pick.reason = choice.reason;
  } else {
    // steady_clock exists everywhere; it is the portable answer when nothing qualifies.
    pick.source = registry.find("steady_clock");
    pick.reason = choice.reason + "; falling back to steady_clock";
  }
  const std::string note = tsc_ordering_note(pick.source->name(), registry.features());
  if (!note.empty()) pick.reason += "; " + note;
  if (const auto calibration = registry.tsc_calibration();
      calibration && dynamic_cast<const tsc_clock_base*>(pick.source) != nullptr) {
    pick.reason += fmt::format(
        "; TSC rate {} MHz calibrated against {} in {} ({} rounds, error within {} ppm{})",
        fixed_text(calibration->ticks_per_second / 1e6, 6), calibration->reference,
        format_seconds(calibration->duration_seconds, kSpanFormat), calibration->rounds,
        fixed_text(calibration->error_ppm, 2),
        calibration->converged ? "" : ", not converged within the time limit");
  }
  return pick;
}

}  // namespace harness::clocks

namespace harness {

namespace {

const clocks::default_pick& the_default() {
  static const clocks::default_pick pick = [] {
    const clocks::clock_registry& registry = clocks::process_registry();
    return clocks::pick_default(registry, clocks::probe_default_candidates(registry.all()));
  }();
  return pick;
}

}  // namespace

const clock_source& default_clock() {
  return *the_default().source;
}
std::string default_clock_reason() {
  return the_default().reason;
}

}  // namespace harness
