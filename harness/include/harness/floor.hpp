// The floor of a phase, and whether it is confirmed.
//
// A phase is sampled in blocks spread out in time (runner.hpp). Each block has its own minimum;
// the phase's floor is the lowest of them. One low block proves little on a host that slows the
// guest for stretches of a millisecond to seconds: the floor is *confirmed* only when
//   - a second block, begun at least `min_separation` apart from the first, agrees with the
//     lowest one within the tolerance, so one slow stretch is unlikely to have covered both;
//   - both blocks ran the reference loop at the fastest speed known (this run's fastest, or the
//     fastest this machine has shown before): the host's boost levels move every loop together,
//     in steps of about 3% here, so two blocks can agree at a lowered speed;
//   - (prepared phase) it does not lie above the unprepared baseline's floor: preparation cannot
//     make code slower, a slowed host can;
//   - (prepared phase) it does not lie above the floor earlier runs of this very build showed on
//     this machine (the history, history.hpp): the only signal that sees a slow-down of any kind
//     lasting the whole process;
//   - (prepared phase, with a history) it agrees with the floor earlier runs of this build
//     showed here: the first run of a build has nothing to be checked against, and the host can
//     hold a lower speed level for the whole of it (bench/reproducibility.sh saw first processes
//     confirmed 2% and 13% above floors later processes reached); a floor below every earlier
//     one is new, not yet reproduced by a second process.
// docs/floor.md says what each of these catches and misses, with the measurements behind them.
//
// Values are in the sampler's unit (ticks per call); nothing here reads a clock or prints a unit.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>
#include "harness/enum_names.hpp"

namespace harness {

// Tuning of the confirmation, gathered here; each value says why.
struct floor_settings {
  // Two blocks agree when their minimums differ by at most the larger of these: two steps of the
  // clock's granularity per call (each of a sample's two reads is quantised to one step) ...
  double granularity_steps = 2;
  // ... and this fraction of the floor: at one host speed the minimums of blocks of a 0.3 ms loop
  // agreed within 0.002% here, while the next speed level lies 3% away.
  double relative_tolerance = 0.0005;
  // Agreeing blocks must begin at least this far apart. The host's slow stretches measured here
  // last 0.05-0.8 s; farther apart costs wall time on every run, and what one long stretch could
  // still cover is left to the cross-checks (baseline, speed, history).
  std::chrono::milliseconds min_separation{100};
  // A block ran at full speed when its fastest reference run lies within this fraction of the
  // fastest known, plus one step of the clock's granularity (at_full_speed). The host's speed
  // levels lie ~3.4% apart. A reference run of ~1 us reads to the clock's step: 21 ticks of a
  // 2289-tick run here (0.9%); at one host speed, a block's few runs read 2289 while the gaps'
  // tens of thousands read 2268 at best, and the fastest ever seen 2247: without the step nearly
  // every block was "below full speed" with its workload within 0.2% of the lowest floor.
  double speed_tolerance = 0.01;
};

// One block of samples as the floor check sees it.
struct block_view {
  double minimum = 0;                // lowest value in the block
  double start_seconds = 0;          // when the block began, since the phase began
  std::uint64_t reference_best = 0;  // fastest reference-loop run in or around it; 0: none ran
  std::optional<int> cpu;            // the CPU its lowest sample ran on; nullopt: not read
};

// Everything the check weighs besides the blocks themselves.
struct floor_context {
  double granularity = 0;     // the clock's granularity in the values' unit (per call); 0: unknown
  double reference_step = 0;  // the clock's granularity in ticks, to which a reference run reads
  std::optional<double> baseline_floor;    // the baseline's floor; only for a prepared phase
  std::optional<int> baseline_floor_cpu;   // the CPU the baseline's lowest sample ran on
  std::optional<double> remembered_floor;  // earlier runs of this build on this machine
  std::optional<int> remembered_cpu;       // ... on this CPU of it; nullopt: not pinned
  // Earlier runs' floors of this build are kept (a history is in use and the build is known): a
  // prepared phase with no remembered floor is the build's first here, and is not confirmed.
  bool remembers_floors = false;
  // The fastest reference-loop run known: this run's, or this machine's remembered one.
  std::optional<std::uint64_t> fastest_reference;
  bool fastest_reference_remembered = false;  // it came from an earlier run (the history)
};

// Why a floor is not confirmed. Several may apply.
enum class floor_finding {
  too_few_blocks,    // fewer than two blocks held samples
  no_agreement,      // no second block came within the tolerance of the lowest
  too_close,         // blocks agreed, but none so far apart in time
  below_full_speed,  // blocks agreed far apart, but not both at the fastest speed known
  above_baseline,    // prepared floor above the unprepared baseline's floor
  above_remembered,  // above the floor earlier runs of this build showed here
  first_of_build,    // a history is kept, but no earlier run of this build showed a floor here
  below_remembered,  // below the floor earlier runs of this build showed here: not reproduced
};
// Identifiers for machine-readable reports (id_of): "too_few_blocks", ...
inline constexpr enum_table<floor_finding, floor_finding::below_remembered> kFloorFindingNames{{
    {floor_finding::too_few_blocks, "too_few_blocks"},
    {floor_finding::no_agreement, "no_agreement"},
    {floor_finding::too_close, "too_close"},
    {floor_finding::below_full_speed, "below_full_speed"},
    {floor_finding::above_baseline, "above_baseline"},
    {floor_finding::above_remembered, "above_remembered"},
    {floor_finding::first_of_build, "first_of_build"},
    {floor_finding::below_remembered, "below_remembered"},
}};
constexpr const auto& enum_names(floor_finding) noexcept {
  return kFloorFindingNames;
}

struct floor_check {
  bool confirmed = false;
  double floor = 0;              // the lowest block minimum
  std::size_t floor_block = 0;   // its block, 0-based
  std::optional<int> floor_cpu;  // the CPU its sample ran on; nullopt: not read
  double tolerance = 0;          // agreement tolerance, in the values' unit
  std::vector<double> block_minimums;
  std::vector<std::size_t> agreeing;  // blocks within the tolerance of the floor, 0-based
  // The two blocks that confirm it (far enough apart, at full speed), 0-based; nullopt unless
  // the blocks alone would confirm it (the cross-checks may still refuse).
  std::optional<std::pair<std::size_t, std::size_t>> confirmed_by;
  std::vector<floor_finding> findings;  // empty exactly when confirmed
  floor_context context;                // what it was checked against
  std::string reason;                   // one sentence: why confirmed, or why not
  std::string recommendation;           // what to do; empty when confirmed
};

// The CPU the baseline's lowest sample ran on, when both it and this phase's lowest sample's CPU
// were read and they differ; nullopt otherwise.
std::optional<int> baseline_on_another_cpu(const floor_check& check) noexcept;

// Checks the floor of one phase's blocks. Blocks without samples are not passed. No blocks at all
// is a bug upstream (there is no floor to check): a failed check, which aborts (docs/errors.md).
floor_check check_floor(std::span<const block_view> blocks, const floor_context& context,
                        const floor_settings& settings = {});

// Whether what keeps the floor unconfirmed is only about other runs (first_of_build or
// below_remembered, which exclude each other): no further block of this run can change it, only
// another run that agrees. False for a confirmed floor.
bool only_another_run_can_confirm(const floor_check& check) noexcept;

// Whether a reference run of `reference` ticks ran at the speed of the fastest known, within
// speed_tolerance and one clock step (`step`, ticks; 0: unknown). A run of 0 ticks never ran.
bool at_full_speed(std::uint64_t reference, std::uint64_t fastest, double step,
                   const floor_settings& settings) noexcept;

// The lowest block minimum another block of the check agrees with, within its tolerance (the
// floor's; the levels lie within a percent of it): the lowest level the phase reached twice. The
// floor itself when a second block agrees with it; nullopt when no two blocks agree. This is what
// the history keeps: one lucky block 0.2% below its phase's others (measured here) would leave
// every later process "above" it for an hour.
std::optional<double> agreed_floor(const floor_check& check);

// The tolerance two block minimums must agree within, for a floor near `floor`.
double floor_tolerance(double floor, double granularity, const floor_settings& settings);

}  // namespace harness
