// One analysis of a run: the report model every writer formats.
//
// analyze_run() computes, once per run whatever the number of outputs, each phase's statistics
// over all and over its clean samples, its verdict, and per workload how the prepared phase
// compares with the baseline (spread, host speed). The floor and its confirmation come with the
// phases: the sampler decided them while it ran (floor.hpp). Writers (report.hpp) read the model
// and the run it points to, and compute nothing of their own.
//
// Caveat: the model points into the run_report it was made from, which must outlive it.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "harness/run_report.hpp"
#include "harness/statistics.hpp"

namespace harness {

// A figure derived from the time per call at the phase's minimum (the fastest sample: the
// highest rate) and at its median.
struct at_min_median {
  double at_min = 0;
  double at_median = 0;
};
// Time per iteration and throughput of a phase, from its minimum and median per call: seconds per
// iteration when the workload reported iterations, items/s and bytes/s when it declared what a
// call processes (workload_result::items_per_call / bytes_per_call). nullopt: not reported or
// declared, or a minimum at or below 0 (no rate means anything then).
struct phase_rates {
  std::optional<at_min_median> seconds_per_iteration;
  std::optional<at_min_median> items_per_second;
  std::optional<at_min_median> bytes_per_second;
};
phase_rates rates_of(const stats::phase_statistics& s, const workload_result& result,
                     double ticks_per_second);

// A phase's calls taken together: every sample's raw ticks less the overhead it carried, summed
// exactly in integers, and the mean figures made from that sum (--line's {runs}, {seconds},
// {rate}, {ticks}, {ns}, {per_run}, {iterations}, {per_iteration}, {ns_per_iteration},
// {items_per_second}, {bytes_per_second}). The rates are nullopt when no call or no time was
// summed, the per-iteration figures also when the workload reported no iterations.
struct phase_totals {
  std::uint64_t runs = 0;  // calls: samples times the batch
  std::int64_t ticks = 0;
  double seconds = 0;
  std::optional<double> runs_per_second;
  std::optional<double> seconds_per_run;
  std::optional<std::uint64_t> iterations;  // runs times iterations_per_call, when reported
  std::optional<double> seconds_per_iteration;
  std::optional<double> items_per_second;  // items_per_call times the calls, per second
  std::optional<double> bytes_per_second;
};
phase_totals totals_of(const phase_result& phase, const workload_result& result,
                       double ticks_per_second);

// A workload that learns its input (a branch predictor or a cache trained by the same input
// forgets it over the gap's other work, and relearns it with repetition), seen one of two ways:
// within the blocks that follow a gap the samples start high and fall to a trained level, block
// after block; or the first block, which follows the warmup with no gap, runs well below every
// block after a gap (they do not relearn within their few samples).
struct learning_finding {
  std::size_t blocks_examined = 0;  // blocks after the first with kLearningMinBlockSamples or more
  std::size_t blocks_falling = 0;   // of those, the ones whose first sample lies above the rest
  double median_drop = 0;           // the median over those of first / median of the last half - 1
  // 1 - the first block's minimum (over every sample of it: a disturbance only adds time) / the
  // lowest minimum of the examined blocks; 0 when it is not below them.
  double first_block_lead = 0;
  // Which way it was seen: blocks falling in kLearningShare of the examined, or else a first
  // block kLearningMinFirstLead below all of them.
  bool falling = false;
  // Seen by the first block: 1 - the re-warmed block's minimum / the plain block's in the
  // phase's learning check (run_results.hpp: learning_check_result), at least
  // kLearningCheckShare of first_block_lead; nullopt when the phase ran no check.
  std::optional<double> rewarm_lead;
};
// A block's first sample counts as high when it lies this much above the median of the block's
// last half and above every sample of it: host noise hits a block's first sample as often as any
// other, so it is not above the rest block after block. Measured on a 2596 MHz host: a branchy sum
// over the same 64 KiB started each block ~30% slow; xor_loop's first samples ~0.1%.
inline constexpr double kLearningMinDrop = 0.05;
inline constexpr std::size_t kLearningMinBlockSamples = 4;
inline constexpr std::size_t kLearningMinBlocks = 3;
// ... in at least this share of the examined blocks.
inline constexpr double kLearningShare = 0.75;
// The first block's minimum this much below the lowest minimum of kLearningMinBlocks or more
// blocks after a gap. Measured at defaults, 10 processes each (docs/floor.md, "A workload that
// learns"): on a 2596 MHz AMD host (2026-12-02) the branchy sum's first block 35-55% below every
// later one; on a 2096 MHz AMD host (2026-12-04) 17-22%, and the fresh-input sum and xor_loop
// there at most 1% below (36 processes). A host that slows the workload for seconds after the
// first block, unseen by the gap's reference loop, gives deterministic work such a lead too: the
// learning check tells the two apart (kLearningCheckShare).
inline constexpr double kLearningMinFirstLead = 0.1;
// A first block that far below the rest is the learning only when the phase's learning check
// agrees: its re-warmed block at least this share of first_block_lead below the plain block
// before it. A host that slowed the workload for seconds after the first block gave leads of
// 11-35% to deterministic work (xor_loop, 4 of 10 processes on a 2096 MHz AMD host on
// 2026-12-06, docs/floor.md); a host that stays slow runs the check's two blocks alike.
inline constexpr double kLearningCheckShare = 0.5;
// The check's blocks are as long as the phase's first, within these: a minimum of 4 samples
// moved by 8% between two blocks of deterministic work on a busy host, and a workload that
// learns needs hundreds of ms of repetition, so a plain block of 8-32 samples stays untrained.
inline constexpr std::size_t kLearningCheckMinSamples = 8;
inline constexpr std::size_t kLearningCheckMaxSamples = 32;
// The pattern in a phase's blocks; nullopt when it is not there (or too few blocks show it).
std::optional<learning_finding> detect_learning(const phase_result& phase);

// One CPU counter of a phase per call (the sample's count / its calls), at the phase's floor sample
// (its lowest: phase_analysis::lowest_index) and at its median sample (the sample at the median's
// rank, the lower of the middle two for an even count), and over the whole phase.
struct counter_figure {
  cpu_counter counter = cpu_counter::task_clock;
  std::optional<double> at_floor;  // nullopt: not counted in that sample
  std::optional<double> at_median;
  bool scaled_at_floor = false;  // the kernel multiplexed it in that sample: an estimate
  bool scaled_at_median = false;
  std::size_t scaled_samples = 0;     // the phase's samples whose count was scaled
  std::optional<double> phase_total;  // the whole phase, its gaps included; not per call
  bool phase_total_scaled = false;
};
struct phase_counters {
  std::vector<counter_figure> figures;  // the counters read, in cpu_counter order
  std::optional<std::size_t> median_index;
  // Instructions per cycle at the floor and at the median sample: where both were counted there.
  std::optional<double> ipc_at_floor;
  std::optional<double> ipc_at_median;

  const counter_figure* find(cpu_counter c) const noexcept;
};
// The figures of `phase`'s counters, at its floor sample `lowest` (nullopt: no samples).
phase_counters counters_of(const phase_result& phase, std::optional<std::size_t> lowest);

// Statistics of one phase over all samples and over its undisturbed ones, and the verdict.
struct phase_analysis {
  const phase_result* phase = nullptr;  // the raw phase it was made from
  stats::phase_statistics all;
  std::optional<stats::phase_statistics> clean;  // only when some samples were disturbed
  std::optional<stats::verdict> verdict;         // none for the first call
  phase_rates rates;                             // over all samples
  phase_totals totals;                           // over all samples
  // Where the lowest and the highest sample lie in sampling order (the first of equal ones);
  // nullopt without samples.
  std::optional<std::size_t> lowest_index;
  std::optional<std::size_t> highest_index;
  std::optional<learning_finding> learning;  // the blocks show a workload that learns
  phase_counters counters;                   // empty when no counter was read
};
// The first call gets its statistics only; the other phases their verdict too, judged with the
// clock's granularity per call.
phase_analysis analyze(const phase_result& phase, const clock_facts& clock);

// What preparation changed, by figures that do not grow with the sample count, so phases of
// different lengths compare on equal footing: the floor (the minimum), the median, and the tail
// as the 90th percentile's distance above the floor, (p90 - min) / min. (max - min grows with
// every sample taken and one outlier decides it.)
inline constexpr std::size_t kMinSamplesForTail = 10;
struct preparation_change {
  double baseline_floor = 0;  // minimums, in the values' unit (ticks per call)
  double prepared_floor = 0;
  double baseline_median = 0;
  double prepared_median = 0;
  // (p90 - min) / min; only with kMinSamplesForTail samples or more in both phases, since with
  // fewer the 90th percentile is mostly the largest sample.
  std::optional<double> baseline_tail;
  std::optional<double> prepared_tail;
  // A relative change within this is no change: the floor's agreement tolerance (two granularity
  // steps per call, or 0.05%), relative to the baseline's floor.
  double tolerance = 0;
  bool prepared_floor_confirmed = false;

  double floor_change() const noexcept { return prepared_floor / baseline_floor - 1; }
  double median_change() const noexcept { return prepared_median / baseline_median - 1; }
  bool floor_changed() const noexcept;
  bool median_changed() const noexcept;
  // The tails differ by more than the tolerance and by more than a quarter of the larger: a
  // quantile has no interval here, so only a clear difference counts.
  bool tail_changed() const noexcept;
};
// nullopt when a minimum is at or below 0 (no relative figure means anything) or either phase has
// no samples.
std::optional<preparation_change> compare_preparation(const phase_analysis& baseline,
                                                      const phase_analysis& prepared,
                                                      const clock_facts& clock,
                                                      const floor_settings& settings);

// How fast the CPU ran the reference loop in the baseline and in the prepared phase. A host that
// ran the guest slower (or a lower clock) for a whole phase leaves no faster sample within that
// phase to flag, but shows against the other phase.
struct host_speed_change {
  std::uint64_t baseline_best = 0;  // fastest reference run, ticks
  std::uint64_t prepared_best = 0;
  double ratio = 1;              // the slower phase's best / the faster phase's best, >= 1
  bool baseline_slower = false;  // which phase was the slower one
};
// nullopt when either phase ran no reference loop.
std::optional<host_speed_change> compare_host_speed(const phase_result& baseline,
                                                    const phase_result& prepared);

// The phases of a workload in report order: first, baseline, prepared (those that ran).
std::vector<const phase_result*> phases_of(const workload_result& result);

// Whether a workload's figures can be trusted, in one line for people, and the one command to run
// next when they cannot (judge_trust: the first of failed, interrupted, learning, floor not
// confirmed, host speed differing between the phases, an unstable or noisy phase).
struct trust_note {
  bool ok = false;
  std::string text;  // "ok: the floor is confirmed by blocks 1 and 5 ...", or what was wrong
  std::string next;  // the command to run next ("harness -w x --max-time 5s"); empty when ok
};

struct workload_analysis {
  const workload_result* result = nullptr;
  std::vector<phase_analysis> phases;           // the phases that ran, in report order
  std::optional<preparation_change> change;     // both baseline and prepared ran, minimums above 0
  std::optional<host_speed_change> host_speed;  // both ran the reference loop
  // The sampled phases (baseline, prepared: those that ran, in report order) counted on one
  // scale (stats::histogram_of): the HTML page's histogram. nullopt: no sample in either.
  std::optional<stats::phases_histogram> histogram;
  // The pin's check: CPU migrations over the whole prepared phase (0: the pin held), when the
  // counter was read; `pinned`: the preparation pinned the process to one CPU.
  std::optional<double> prepared_migrations;
  bool pinned = false;
  trust_note trust;

  // The phase of that kind, or nullptr when it did not run.
  const phase_analysis* find(phase_kind kind) const noexcept;
};

struct report_model {
  const run_report* run = nullptr;
  std::vector<workload_analysis> workloads;  // in run order
};

report_model analyze_run(const run_report& run);

// The trust note of a workload analysed so (`run` gives the program's name for the command).
trust_note judge_trust(const workload_analysis& w, const run_report& run);
// `text` as one word of a POSIX shell command: as it is when it holds only characters no shell
// treats specially, else in single quotes (a quote inside as '\''). The trust line's commands
// and gbench's plan quote their words with it.
std::string shell_word(std::string_view text);

}  // namespace harness
