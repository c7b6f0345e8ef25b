// How the default sampling clock is chosen: short probes of each candidate, then a pure rule.
//
// The rule (choose_default) sees only facts, so tests can hand it made-up candidates: among the
// available, monotonic, wall-clock sources that read in order, those whose call cost and step are
// both negligible against a sample; of these the cheapest, where a source less than kCostTieRatio
// times dearer than the cheapest but earlier in the registry wins, so the choice does not flip
// between runs on noise.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "harness/clock.hpp"

namespace harness::clocks {

// Tuning of the choice and of its probes, gathered here.
// Samples the runner takes are assumed to last at least 10 us (shorter work is batched), and a
// clock whose cost or step stays under 1% of that is negligible against a sample: 100 ns.
inline constexpr double kShortestSampleNs = 10'000;
inline constexpr double kNegligibleFraction = 0.01;
// Costs measured by a quick probe move by tens of percent on a busy VM; a factor of two is a
// difference that survives that noise.
inline constexpr double kCostTieRatio = 2.0;
// Probe sizes: the minimum of 8 batches of 64 pairs is robust to one interruption and costs tens
// of microseconds per source; the step probe takes 2000 reads (more if the clock has not moved
// yet) and at most 0.5 ms, enough for the step of a fine clock while a coarse one (4 ms) shows
// none and so fails the rule.
inline constexpr int kProbeBatches = 8;
inline constexpr std::uint64_t kProbePairs = 64;
inline constexpr std::uint64_t kProbeStepReads = 2'000;
inline constexpr double kProbeStepBudgetSeconds = 0.0005;

struct default_candidate {
  const clock_source* source = nullptr;  // null in tests of the rule
  std::string name;
  clock_kind kind = clock_kind::wall;
  bool monotonic = false;
  bool available = false;
  bool in_order = false;
  std::optional<double> cost_ns;  // measured call cost; empty when not probed
  std::optional<double> step_ns;  // smallest step seen; empty when none seen (or not probed)
};

struct default_choice {
  std::optional<std::size_t> index;  // into the candidates; empty when none qualifies
  std::string reason;                // why, naming the figures the rule used
};

default_choice choose_default(std::span<const default_candidate> candidates);

// Probes every available wall-clock source among `sources` (a few milliseconds in all).
std::vector<default_candidate> probe_default_candidates(
    std::span<const clock_source* const> sources);

class clock_registry;

// The default clock and why: default_clock() and default_clock_reason().
struct default_pick {
  const clock_source* source = nullptr;
  std::string reason;
};

// The default among `registry`'s sources given their candidates (probed over registry.all(), or
// made up by a test): the rule's choice, else steady_clock; a TSC source's reason adds how it
// reads and how it was calibrated.
default_pick pick_default(const clock_registry& registry,
                          std::span<const default_candidate> candidates);

}  // namespace harness::clocks
