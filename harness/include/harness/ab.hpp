// `harness ab`: is B faster than A? A and B measured in paired, interleaved rounds on one prepared
// core, so that what the host does to the speed of the guest falls on both.
//
// A round takes the same number of samples of each side, the sides taking turns in stretches,
// the rounds alternating (AB.., BA..), drawn per round, or every one ABBA ABBA... (balanced, the
// default for two builds); it lasts a few milliseconds: long against a sample, short against the
// host's slow stretches (0.1 s and more, docs/floor.md). Per round, the ratio of B's round minimum
// to A's, per call; the estimate is the median of those ratios with a distribution-free 95%
// interval (order statistics), so a slow stretch spoils a round or two, never the answer. The
// floors of the whole run stand beside it.
//
// A side is what takes samples on command (ab_side): a workload of this process (local_side), or
// a worker process of another build speaking the protocol of docs/ab.md. The rounds, the estimate,
// the stop rule and the verdict know only that interface, so tests drive them with fake sides and
// a fake clock. With worker processes, several fresh pairs run one after the other, and the
// interval is taken over the pairs' estimates (each process has its own pages and layout: Kalibera
// & Jones, repeat at every level that varies), so a spread between processes widens it.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "harness/enum_names.hpp"
#include "harness/platform.hpp"
#include "harness/preparation.hpp"
#include "harness/workload_facts.hpp"

namespace harness {

// Tuning of the rounds, gathered here; each value says why.
struct ab_settings {
  // A round lasts about this long: 4 ms holds several samples of each side of a sub-millisecond
  // workload, and lies well inside the host's slow stretches (0.1 s and more), so both sides of a
  // round see the same host.
  std::chrono::microseconds round_time{4'000};
  // At most this many samples of each side a round: a round minimum over 64 samples has settled,
  // and more would only lengthen the round.
  std::size_t max_samples_per_side = 64;
  // And at least this many, however long a sample: with stretches of one sample (AB, BA, AB),
  // three a side give each side one sample right after one of its own (the BB and AA in
  // ABBAAB), whatever ran before the round. A side that ran just before keeps its data in the
  // caches: with one sample a side, the side going first in a round had run last in the one
  // before, and `ab` of two 32 MB memcpy workloads with their own buffers read +22% in the rounds
  // A ran first and -22% in the others; with three, +4% and -4% (the side going first has two
  // samples right after its own, the other one: docs/ab.md, "Which side ran first"). The
  // balanced order takes four (an even count of stretches, ABBAABBA), two of them right after
  // one's own a side.
  std::size_t min_samples_per_side = 3;
  // Within a round the sides alternate in stretches of about this long (AB, BA, AB... by stretch,
  // one sample a stretch for samples this long or longer), so each side's samples spread over
  // the whole round and a change of the host's speed within it falls on both: on this VM the
  // host's speed moved within 4 ms rounds, and A's then B's round halves gave round ratios
  // spread +-3% (stdev 2.6%). Long enough that a worker's reply (~30 us) costs little.
  std::chrono::microseconds stretch_time{100};
  // The interval is checked first after this many rounds (an order-statistic 95% interval of the
  // median needs 6; 20 keep one early lucky stretch from stopping the run), then every
  // check_every rounds.
  std::size_t min_rounds = 20;
  std::size_t check_every = 10;
  // The target must be met at this many consecutive checks.
  std::size_t checks_in_a_row = 2;
  // A round whose reference-loop run (before and after each side's samples) is this much slower
  // than the fastest of the run is disturbed, as the sampler's host_slowdown_factor.
  double slowdown_factor = 1.3;
  // The reference loop's iterations (speed_probe.hpp's multiply chain, ~1.5 us).
  std::uint32_t reference_iterations = 1'000;
  // Empty samples for the timer overhead, as sampler_settings::overhead_samples.
  std::size_t overhead_samples = 2'000;
  // A sample lasts at least this many clock steps, as sampler_settings::min_sample_steps.
  double min_sample_steps = 1'000;
  // Rounds stop here whatever the interval, so memory stays bounded.
  std::size_t max_rounds = 1'000'000;
};

// In which order a round takes its sides.
enum class ab_order {
  alternate,  // AB, BA, AB, ...: each side goes first in half the rounds
  random,     // drawn per round from the seed
  // Every round ABBA ABBA...: an even count of stretches, A first and last, so each side takes
  // as many samples right after one of its own as the other, the round before included
  // (docs/ab.md, "A balanced order"). `harness ab`'s default for two builds.
  balanced,
};
// As --order takes it.
inline constexpr enum_table<ab_order, ab_order::balanced> kAbOrderNames{{
    {ab_order::alternate, "alternate"},
    {ab_order::random, "random"},
    {ab_order::balanced, "balanced"},
}};
constexpr const auto& enum_names(ab_order) noexcept {
  return kAbOrderNames;
}

// The schedule: whether round `index` (0-based) takes A first. Random orders come from a
// splitmix64 stream of `seed`, so a seed repeats its schedule on every platform.
bool a_goes_first(ab_order order, std::uint64_t seed, std::size_t index) noexcept;

// The samples each side takes in each stretch of a round, for `samples_per_side` samples a side
// in stretches of at most `stretch`: stretches of `stretch` and a last one of the rest; in the
// balanced order an even count of stretches of sizes within one of each other, and at least one
// sample in each (so the total may exceed samples_per_side).
std::vector<std::size_t> ab_stretch_sizes(std::size_t samples_per_side, std::size_t stretch,
                                          ab_order order);

// How far the rounds have got, for a progress line.
struct ab_progress {
  std::string_view stage;  // "warmup" or "rounds"
  std::size_t rounds = 0;
  double elapsed_seconds = 0;
  double budget_seconds = 0;
  std::optional<double> half_width;  // the interval's relative half-width at the last check
};

struct ab_options {
  std::chrono::nanoseconds warmup = std::chrono::milliseconds(500);  // rounds run and discarded
  std::chrono::nanoseconds max_time = std::chrono::seconds(2);       // of the measured rounds
  // From this long into the measured rounds, they also stop on a settled verdict
  // (verdict_settled), looked at the first check after it and after each half of it more: a pair
  // decided at 2 s is not held to a longer max_time, one still unsure goes on. nullopt: only the
  // target and max_time stop them.
  std::optional<std::chrono::nanoseconds> decide_after;
  // Sampling stops when the interval's half-width, relative to the ratio, is under this at
  // checks_in_a_row consecutive checks (0.0004: 0.04%). Under the 0.05% a +1% pair must read
  // within: an interval that just meets the tolerance can have its middle just beyond it (one of
  // 40 processes did, at -0.051%, with 0.05%); replayed on 40 whole series with 0.04%, 40 of 40
  // (docs/ab.md).
  double target = 0.0004;
  // B and A are the same when the whole interval lies within +-threshold of a ratio of 1.
  double threshold = 0.005;
  std::optional<double> fail_if_slower;  // the gate: B slower by more than this, with confidence
  // harness ab's command line: balanced for two builds, alternate for two workloads.
  ab_order order = ab_order::alternate;
  std::uint64_t seed = 1;
  std::optional<int> cpu;  // pin here; nullopt: do not pin
  platform::priority_level priority = platform::priority_level::high;
  std::optional<std::uint64_t> batch;  // calls per sample; nullopt: calibrated, one for both sides
  // The shortest sample batching aims for (run_rounds turns it into A's ticks); nullopt:
  // min_sample_steps x the sides' larger clock step.
  std::optional<std::chrono::nanoseconds> min_sample_time;
  // The wall clock the budgets are kept on (nanoseconds); tests give a fake one. The parent only
  // keeps time with it: every sample is timed by its side.
  std::function<std::uint64_t()> now_ns;
  std::function<void(const ab_progress&)> progress;  // empty: none reported
  ab_settings tuning;
};

// What a side says of itself before the rounds.
struct ab_side_facts {
  std::string workload;  // display name, "xor_loop/1000000"
  std::string build;     // "this process", or the worker's binary and fingerprint
  std::string clock;     // the sampling clock's name
  double ticks_per_second = 0;
  std::uint64_t clock_step = 1;           // the clock's step, ticks
  double granularity = 0;                 // the clock's granularity, ticks (0: not measured)
  std::uint64_t iterations_per_call = 0;  // what the workload reported; 0: none
  // One call timed alone at calibration, ticks after the timer overhead; 0: not measured (a
  // worker does not say). run_rounds refuses a batch that would make a sample outlast --max-time.
  std::uint64_t call_ticks = 0;
  // The workload's declared minimum sample time (workload::min_sample_time), ns; 0: none.
  std::uint64_t min_sample_ns = 0;
  // The calls a sample its workload declared it needs (workload::min_batch); 0: none.
  std::uint64_t min_batch = 0;
};

// One side's samples of one round.
struct ab_side_samples {
  std::vector<std::uint64_t> raw;  // raw ticks of each sample (batch calls between two reads)
  std::uint64_t reference = 0;     // the slower of the reference runs before and after, ticks
  std::uint64_t switches = 0;      // involuntary context switches across them; 0: not counted
};

// A side of the comparison: something that takes samples on command. Each call may throw
// ab_side_failure (the workload threw, a worker crashed or spoke garbage).
class ab_side {
 public:
  virtual ~ab_side() = default;
  virtual const ab_side_facts& facts() const = 0;
  // The timer overhead through the sampling path, ticks (the cheapest of many empty samples).
  virtual std::uint64_t measure_overhead(std::size_t samples) = 0;
  // Calls per sample that make a sample last at least `min_ticks` (1 when one call does).
  virtual std::uint64_t calibrate(std::uint64_t overhead, std::uint64_t min_ticks) = 0;
  // `count` samples of `batch` calls each, with a reference run before and after them.
  virtual ab_side_samples sample(std::size_t count, std::uint64_t batch,
                                 std::uint32_t reference_iterations) = 0;
};

// A side that failed: which side and why, for the user (exit 1, or 3 when its workload threw).
class ab_side_failure : public std::runtime_error {
 public:
  ab_side_failure(std::string message, bool workload_threw)
      : std::runtime_error(std::move(message)), workload_threw_(workload_threw) {}
  bool workload_threw() const noexcept { return workload_threw_; }

 private:
  bool workload_threw_;
};

// run_rounds' refusal, before any sample, of a batch that would make one sample of a side outlast
// max_time (the message names the sides, the batch and the times): `harness ab` says it as a
// usage error, exit 2.
class ab_batch_refused : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// One round, per call after the timer overhead.
struct ab_round {
  bool a_first = true;
  double a_min = 0;  // A's round minimum per call, ticks
  double b_min = 0;
  std::uint64_t reference = 0;  // the slowest reference run of the round, ticks
  std::uint64_t switches = 0;   // involuntary context switches in the round
  bool disturbed = false;       // reference over slowdown_factor x the run's fastest, or switches
  double ratio() const noexcept { return b_min / a_min; }
};

// The rounds split by which side ran first: the median ratio of each half. With the order
// alternating, half the rounds run A first; a side that runs slower when it runs second moves the
// ratio one way in the rounds A ran first and the other way in the rest, and the median over all
// sits between the two.
struct ab_order_split {
  double a_first = 1;  // the median ratio of the rounds A ran first
  double b_first = 1;  // of those B ran first
  std::size_t a_first_rounds = 0;
  std::size_t b_first_rounds = 0;
};

// The median of ratios with its interval.
struct ab_interval {
  double ratio = 1;  // B/A
  double lower = 1;
  double upper = 1;
  double level = 0;       // coverage (at least this, for order statistics)
  std::size_t count = 0;  // ratios it rests on (rounds, or pairs of processes)
  std::string_view method;
  // What the clock's resolution adds, relative (widened_by_resolution): lower and upper include
  // it. 0: the interval is the ratios' alone.
  double resolution = 0;
  // Set when the halves' medians (ab_order_split) lay outside the ratios' interval and widened it
  // to reach them (widened_by_order); lower and upper include it.
  std::optional<ab_order_split> order = std::nullopt;

  // The half-width relative to the ratio: (upper - lower) / 2 / ratio.
  double relative_half_width() const noexcept { return (upper - lower) / 2 / ratio; }
};

// What the rounds of one pair of sides give.
struct ab_estimate {
  std::optional<ab_interval> rounds;       // every round: the answer (nullopt: fewer than 6 rounds)
  std::optional<ab_interval> undisturbed;  // the rounds with no disturbed sample
  std::size_t disturbed = 0;
  // The clock's resolution at the floors (clock_resolution), with steps; 1 or more leaves both
  // intervals empty: the clock's step is not under the samples' time, and bounds would be 0 and
  // unbounded.
  double resolution = 0;
  // Every round's ratio split by which side ran first; nullopt unless both halves have a ratio.
  std::optional<ab_order_split> order_split;
  std::optional<double> floor_a;  // the lowest round minimum of each side over the run, per call
  std::optional<double> floor_b;
  std::optional<double> floor_ratio() const;  // floor_b / floor_a
  // How slow the host ran the rounds: each side's median round minimum over its floor, and the
  // median reference run over the fastest. A host slows instruction mixes unevenly, so it can run
  // the workload far below its best while the reference loop stays near its own: only the first
  // two show that.
  std::optional<double> slow_a;
  std::optional<double> slow_b;
  std::optional<double> slow_reference;
  // Whether slow_a or slow_b reaches kAbSlowHost.
  bool slowed_host() const noexcept;
};

// A side's median round minimum this many times its floor or more: most rounds ran the workload
// slow (a host slowing it, or a time that varies from sample to sample). Measured on a 2694 MHz AMD
// EPYC guest (docs/ab.md, "A host that slows the workload"): in bench/ab_time.sh, processes at 1.10
// or under read +1% within 0.053% in every sixth of their rounds; at 1.24 and over, sixths moved by
// up to 0.44%.
inline constexpr double kAbSlowHost = 1.2;

// A side's clock step per call: its clock's step over the calls a sample holds, ticks.
struct ab_steps {
  double a = 0;
  double b = 0;
};

// Marks the rounds whose reference run is over `slowdown_factor` x the fastest of them, or that
// saw a context switch; then the estimate over all of them and over the undisturbed ones, each
// widened to reach its halves' medians (widened_by_order). Rounds
// whose A minimum is not above 0 (a workload no longer than the timer overhead) give no ratio and
// are left out of both. With `steps`, both intervals are widened by the clock's resolution at the
// run's floors (clock_resolution), or left empty when it is 1 or more; without, they are the round
// ratios' alone (the stop rule's: more rounds cannot narrow the resolution).
ab_estimate estimate_rounds(std::vector<ab_round>& rounds, double slowdown_factor,
                            std::optional<ab_steps> steps = std::nullopt);

// The clock's resolution as a share of the ratio: a measured interval is known to within one step
// of its clock (the smallest advance two back-to-back reads show: the reads' own cost, of which
// an estimate is subtracted, and the clock's quantum), and a round minimum is one measured
// interval. So each side's floor per call is known to step/floor of itself, and B/A to the sum of
// the two: steps.a / floor_a + steps.b / floor_b. On a TSC that advances in 10 ns quanta, a
// 300 us sample's minimum reads up to a quantum low, the same in every round, so the round
// ratios' own interval sat a few thousandths of a percent off the true +1.00% in half the runs
// (docs/ab.md). 0 when a floor is not above 0.
double clock_resolution(const ab_steps& steps, double floor_a, double floor_b) noexcept;

// `interval` widened by a relative `resolution` in [0, 1) (clock_resolution), B/A's bounds
// lower x (1 - resolution) and upper / (1 - resolution): at least as wide as
// lower x (1 - e_b) / (1 + e_a) and upper x (1 + e_b) / (1 - e_a) for the sides' shares e_a and
// e_b. The ratio is unchanged; the resolution is kept in the interval.
ab_interval widened_by_resolution(ab_interval interval, double resolution);

// The rounds' split by which side ran first (ab_order_split), over the rounds that give a ratio;
// nullopt unless both halves have one.
std::optional<ab_order_split> split_by_order(std::span<const ab_round> rounds);

// `interval` widened to reach the medians of the rounds A ran first and of those B ran first,
// with `order` set when it had to be. Where running second slows each side (or speeds each up),
// the rounds A ran first read B/A times B's factor and the rest B/A over A's, so the true B/A
// lies between the two halves' medians; alternating cancels the factors only when they are equal.
// On a host whose memory-bound neighbour slowed the second side by 1.9% for B and 4.3% for A, the
// halves read 1.0189 and 0.9583, and the median over all, -1.44% [-2.12%, -0.75%], said `faster`
// of a pair of one workload (docs/ab.md, "Which side ran first").
ab_interval widened_by_order(ab_interval interval, const ab_order_split& split);

// Pairs of processes: each pair's median ratio, combined at the level of processes. The point is
// the geometric mean of the pairs' ratios, the interval Student's t over their logarithms (n - 1
// degrees of freedom) joined with the pooled rounds' interval (`pooled`), so neither the spread
// between processes nor the spread within them is hidden. Needs 2 pairs or more.
std::optional<ab_interval> combine_pairs(std::span<const double> pair_ratios,
                                         const std::optional<ab_interval>& pooled);

// Whether the rounds may stop: the interval's relative half-width under `target`.
bool target_met(const ab_interval& interval, double target) noexcept;

enum class ab_verdict {
  faster,  // the whole interval below 1 - threshold
  slower,  // the whole interval above 1 + threshold
  same,    // the whole interval within 1 +- threshold
  unsure,  // the interval reaches across +-threshold
};
// Identifiers ("faster": JSON, CSV, --line), and the wording for people.
inline constexpr enum_table<ab_verdict, ab_verdict::unsure> kAbVerdictNames{{
    {ab_verdict::faster, "faster", "B is faster"},
    {ab_verdict::slower, "slower", "B is slower"},
    {ab_verdict::same, "same", "no difference beyond the threshold"},
    {ab_verdict::unsure, "unsure", "not decided"},
}};
constexpr const auto& enum_names(ab_verdict) noexcept {
  return kAbVerdictNames;
}

struct ab_decision {
  ab_verdict verdict = ab_verdict::unsure;
  std::string reason;  // the figures that decided, in words
  // --fail-if-slower: the interval's lower bound lies above 1 + fail_if_slower.
  bool gate_failed = false;
};
ab_decision decide(const ab_interval& interval, double threshold,
                   std::optional<double> fail_if_slower);

// Whether more rounds are unlikely to change what decide() says of `interval`: its verdict is
// faster, slower or same, and with fail_if_slower the interval lies wholly above 1 +
// fail_if_slower (the gate fails) or at or below it (the gate passes).
bool verdict_settled(const ab_interval& interval, double threshold,
                     std::optional<double> fail_if_slower);

// Why the rounds ended; `failed`: a side reported an error for its workload (gbench --vs: a
// benchmark's SkipWithError), and the rounds before it are what there is.
enum class ab_stop { target, decided, max_time, max_rounds, interrupted, failed };
// Identifiers (JSON's "stopped_by"), and the wording for people.
inline constexpr enum_table<ab_stop, ab_stop::failed> kAbStopNames{{
    {ab_stop::target, "target", "the interval met the target"},
    {ab_stop::decided, "decided", "the verdict was settled after --decide-after"},
    {ab_stop::max_time, "max_time", "--max-time passed"},
    {ab_stop::max_rounds, "max_rounds", "the round limit was reached"},
    {ab_stop::interrupted, "interrupted", "interrupted"},
    {ab_stop::failed, "failed", "a side reported an error"},
}};
constexpr const auto& enum_names(ab_stop) noexcept {
  return kAbStopNames;
}

// One pair of sides, measured: its rounds and what they give.
struct ab_pair {
  ab_side_facts a;
  ab_side_facts b;
  std::uint64_t batch = 1;  // calls per sample, both sides
  bool batch_calibrated = false;
  std::uint64_t min_sample_ticks = 0;
  min_sample_origin min_sample_source = min_sample_origin::clock_steps;  // where it came from
  // Whether a side's min_batch() raised the shared batch above what the sample length asked.
  bool batch_raised = false;
  std::uint64_t overhead_a = 0;  // ticks subtracted from each raw sample
  std::uint64_t overhead_b = 0;
  std::size_t samples_per_side = 1;     // per round
  std::size_t samples_per_stretch = 1;  // taken in one go before the other side's turn
  std::size_t warmup_rounds = 0;
  double warmup_seconds = 0;
  std::vector<ab_round> rounds;
  ab_estimate estimate;
  ab_stop stopped_by = ab_stop::max_time;
  double seconds = 0;  // wall time of the measured rounds
  std::size_t checks = 0;
  std::optional<double> last_half_width;  // at the last check
};

// The stop rule after each measured round, for run_rounds and gbench --vs alike: at round
// min_rounds and every check_every rounds after, the interval over the rounds so far is
// estimated (counted in pair.checks, its half-width kept in pair.last_half_width); the rounds may
// stop once it met `target` at checks_in_a_row checks in a row.
class ab_stop_rule {
 public:
  ab_stop_rule(const ab_settings& tuning, double target) : tuning_(tuning), target_(target) {}
  // After pair.rounds grew by one: whether the target is now reached.
  bool target_reached(ab_pair& pair);

 private:
  const ab_settings& tuning_;
  double target_;
  std::size_t in_a_row_ = 0;
};

// The rounds between two sides already prepared (pinned and raised by the caller, or by the
// workers themselves): the timer overhead of each, one batch for both (the larger of the two
// calibrations, so their per-call figures compare), the warmup rounds, then rounds until the
// target is met checks_in_a_row times, the verdict is settled at a look from decide_after on,
// max_time passes, or a stop is requested (stop_signal()).
// A sample lasts min_sample_steps of the sides' larger clock step unless options.min_sample_time
// says otherwise. Throws ab_side_failure; throws ab_batch_refused when the batch would make one
// sample of a side (by its call_ticks) last longer than max_time: sides whose costs differ by
// orders of magnitude cannot share the batch the cheaper one needs, and a sample is not
// interrupted by a stop request.
ab_pair run_rounds(ab_side& a, ab_side& b, const ab_options& options);

}  // namespace harness
