// Comparing runs: did build B make a workload faster or slower than build A?
//
// Reads JSON reports of `harness --format json` (or `-o FILE.json`): one or several per side, each
// from its own process. For every workload both sides sampled in their prepared phases, it takes
// the headline estimator of each report whose floor was confirmed (floor.hpp; a report that did
// not confirm it is left out and named, since its minimum may come from a slowed host): the
// minimum, with its 95% Robson-Whitlock interval for the floor widened by one granularity step of
// the clock each way (a sample is a difference of two clock reads, each quantised to that step). A
// side's floor spans its reports' intervals (lowest lower bound to highest upper bound), so with
// several reports per side the run-to-run variation (code and data placement, a host that differed)
// is part of it. B is called faster or slower only when the two sides' floors are apart; otherwise
// the difference is "not shown". The statistics are recomputed from the samples in the files with
// the same code that made the reports.
//
// The sides are also checked against each other: when their fastest reference-loop runs differ by
// more than the slow-down factor the runs used, the host (or the clock speed) differed between
// them and the comparison says so instead of trusting it.
//
// A workload a report names but never sampled in its prepared phase (the run was interrupted, or
// the workload threw, before it) is "not compared" with that reason, never dropped. An interval's
// lower bound is clamped at zero: a call cannot take less than no time.
//
// When a side confirmed no floor for a workload, its minimum may come from a slowed host, so the
// floors cannot decide; the medians do instead: the Hodges-Lehmann shift between the two sides'
// samples (all of their reports') with Mann-Whitney's distribution-free interval
// (stats::log_shift), and the comparison says which estimator decided each workload.
//
// As a gate (apply_gate): B is "slower beyond the threshold" in a workload when the outcome is
// `slower` and B's figure (min, or median shift) lies more than the threshold above A's. A workload
// both sides name that could not be compared at all (too few samples, no prepared phase) is listed
// apart: the command exits 6 for it unless --allow-not-compared is given, never 0 unseen.
//
// Caveats: ticks compare directly only when every report used the same clock; otherwise all are
// converted to nanoseconds with each report's own ticks_per_second (a calibrated TSC rate can
// differ between runs by a few ppm). With one report per side the run-to-run variation is not in
// the intervals, and two runs of one build can differ by more than either run's interval.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <iosfwd>
#include <istream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "harness/enum_names.hpp"
#include "harness/statistics.hpp"

namespace harness::compare {

// The prepared phase of one workload as a report recorded it.
struct workload_run {
  std::string name;
  std::vector<double> values;  // ticks per call, timer overhead subtracted, in sampling order
  std::uint64_t batch = 1;     // calls per sample
  std::optional<std::uint64_t> reference_best;  // fastest reference-loop run, ticks
  std::string verdict;  // the run's own verdict of the phase ("stable", ...); "" if none
  std::string verdict_reason;
  // What the workload declared a call processes (the report's items_per_call / bytes_per_call);
  // nullopt: not declared.
  std::optional<double> items_per_call;
  std::optional<double> bytes_per_call;
  bool floor_recorded = false;   // the report says whether the floor was confirmed
  bool floor_confirmed = false;  // ... and it was (floor.hpp)
  std::string floor_reason;      // why it was or was not
};

// A workload a report names without a prepared phase: the run stopped, or the workload threw,
// before that phase began.
struct unsampled_workload {
  std::string name;
  bool interrupted = false;  // the report says the run was interrupted during this workload
  std::string error;         // what the workload threw, if it threw; "" otherwise
};

// What compare needs from one report.
struct run_file {
  std::string source;  // where it was read from, for messages
  std::string date;    // the run's date as recorded; may be empty
  std::string clock;   // the sampling clock's name
  // What one sample is when another tool took the samples (harness.source.sample of a
  // `harness gbench` report); empty for the harness's own samples.
  std::string sample_source;
  double ticks_per_second = 0;
  double step_ticks = 0;                // the clock step seen by the run (0: not measured)
  double granularity_ticks = 0;         // the clock's granularity (0: not recorded: use the step)
  double slowdown_factor = 1.3;         // the run's host slow-down factor
  std::vector<workload_run> workloads;  // those with a prepared phase, in report order
  std::vector<unsampled_workload> unsampled;  // those without one, in report order
};

// Parses a harness JSON report with the one report reader `harness report` uses too
// (report/report_reader.hpp). Throws harness::usage_error naming `source`, and the value's place
// in it, and what is wrong (not JSON, not a harness report, a schema version this build does not
// read, a value of another type or out of range).
run_file parse_run(std::string_view json_text, const std::string& source);
// Reads and parses a report from `in` (a file the caller opened), named `source` in messages.
run_file read_run(std::istream& in, const std::string& source);

enum class outcome {
  faster,     // B's floor lies wholly below A's
  slower,     // B's floor lies wholly above A's
  not_shown,  // the floors overlap: no difference shown at this resolution
  undefined,  // a report with fewer samples than the verdicts need
};
// Identifiers for scripts (JSON's "outcome"); the wording for people (its "verdict", the table's).
inline constexpr enum_table<outcome, outcome::undefined> kOutcomeNames{{
    {outcome::faster, "faster", "B faster"},
    {outcome::slower, "slower", "B slower"},
    {outcome::not_shown, "not_shown", "no difference shown"},
    {outcome::undefined, "not_compared", "not compared"},
}};
constexpr const auto& enum_names(outcome) noexcept {
  return kOutcomeNames;
}
using harness::id_of;
using harness::to_string;

// The floor of one side: from the lowest lower bound to the highest upper bound of its reports'
// widened floor intervals, each clamped at zero.
struct floor_interval {
  double lower = 0;
  double upper = 0;
};

// One side's view of one workload, over the reports of that side that sampled it.
struct side_result {
  std::size_t reports = 0;         // reports of the side whose floor for it was confirmed
  std::size_t unconfirmed = 0;     // reports that sampled it but did not confirm its floor
  std::size_t fewest_samples = 0;  // the smallest sample count among them
  std::optional<double> min;       // the median of the reports' minimums (their minimum if one)
  std::optional<double> lowest_min;
  std::optional<double> highest_min;
  std::optional<floor_interval> floor;  // nullopt when a report had fewer than two samples
  double step = 0;  // one granularity step per call (the largest among the reports), in the unit
  // Over every sample of the side's reports, confirmed or not: how many, their median and its 95%
  // order-statistic interval (what the median shift compares when no floor is confirmed).
  std::size_t samples = 0;
  std::optional<double> median;
  std::optional<floor_interval> median_interval;
  // Reports left out (floor not confirmed, no prepared phase), and those that judged their phase
  // other than stable.
  std::vector<std::string> notes;
};

// Throughput at a side's min: the items or bytes its reports declare per call, per second of
// that min. Only when every report of both sides declares the same amount per call.
struct throughput {
  std::optional<double> a_items_per_second;
  std::optional<double> b_items_per_second;
  std::optional<double> a_bytes_per_second;
  std::optional<double> b_bytes_per_second;
};

// Which estimator decided a workload's outcome.
enum class estimator {
  floor,         // the confirmed floors (the minimums) of both sides
  median_shift,  // no confirmed floor on a side: the Hodges-Lehmann shift of all their samples
};
// As JSON's "decided_by" says it.
inline constexpr enum_table<estimator, estimator::median_shift> kEstimatorNames{{
    {estimator::floor, "floor"},
    {estimator::median_shift, "median_shift"},
}};
constexpr const auto& enum_names(estimator) noexcept {
  return kEstimatorNames;
}

struct workload_comparison {
  std::string name;
  side_result a;
  side_result b;
  throughput rates;
  estimator decided_by = estimator::floor;
  // With decided_by median_shift: B over A from every sample of both sides' reports, confirmed
  // or not (stats::log_shift), and its 95% interval.
  std::optional<stats::shift_estimate> shift;
  // B over A by the estimator that decided: B's min / A's min (nullopt when A's min is not > 0),
  // or the shift's ratio.
  std::optional<double> ratio;
  outcome result = outcome::undefined;
  std::string reason;        // why, in one sentence
  bool whole_ticks = false;  // one clock and one call per sample everywhere: whole ticks
};

// A workload both sides name that cannot be compared: a side has no prepared phase of it.
struct not_compared_workload {
  std::string name;
  std::string reason;  // "no prepared phase in b.json (interrupted before it)"
};

struct comparison {
  bool same_clock = true;  // every report sampled with one clock: figures are its ticks
  std::string unit;        // "ticks of lfence_rdtsc" or "ns"
  std::vector<workload_comparison> workloads;       // in the order of A's reports
  std::vector<not_compared_workload> not_compared;  // likewise
  std::vector<std::string> only_in_a;               // named by A's reports only (sampled or not)
  std::vector<std::string> only_in_b;
  // Fastest reference-loop run of each side (over its reports and workloads), in the unit.
  std::optional<double> a_reference;
  std::optional<double> b_reference;
  double slowdown_factor = 1.3;     // the largest of the reports' factors
  bool host_speed_differs = false;  // the sides' reference bests differ by more than the factor
};

// Throws std::invalid_argument when a side has no report.
comparison compare_runs(const std::vector<run_file>& a, const std::vector<run_file>& b);

// Whether B got slower: the workloads whose outcome is `slower` with B's min more than
// `threshold` (a fraction: 0.02 for 2%) above A's; at 0, every `slower` one. When A's min is not
// above 0 the ratio is undefined and a `slower` workload counts at any threshold.
struct gate_result {
  double threshold = 0;
  std::vector<std::string> slower;        // in the order of comparison::workloads
  std::vector<std::string> not_compared;  // undefined outcomes, then comparison::not_compared
};
// Throws std::invalid_argument when `threshold` is negative or not finite.
gate_result apply_gate(const comparison& c, double threshold);

// The comparison for people: what is compared and how, one row per workload (those not compared
// and those on one side only included), the reasons, the host check, and the gate's finding with
// `exit_code`, the code the command exits with. Lines of at most `width` columns but the table's
// rows, a longer one going on under its label.
void write_text(std::ostream& out, const comparison& c, const std::vector<run_file>& a,
                const std::vector<run_file>& b, const gate_result& gate, int exit_code,
                std::size_t width = 100);

// The same as one JSON document (docs/output.md, "harness compare").
void write_json(std::ostream& out, const comparison& c, const std::vector<run_file>& a,
                const std::vector<run_file>& b, const gate_result& gate, int exit_code);

// The same document in a self-contained HTML page that draws each workload's two floors with
// their intervals and the verdict (docs/output.md, "HTML").
void write_html(std::ostream& out, const comparison& c, const std::vector<run_file>& a,
                const std::vector<run_file>& b, const gate_result& gate, int exit_code);

}  // namespace harness::compare
