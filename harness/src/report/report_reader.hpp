// The one reader of a saved JSON report (docs/output.schema.json): `harness compare` (through
// compare::read_run), `harness report` and the page it draws (write_html_from_json) all read a
// report through read_report() or read_saved_report(), so they accept and refuse the same files
// (compare the reports of runs only; report those of `harness ab` and `gbench --vs` too, every
// value their page reads checked as below). It reads what it is given; the files are opened in
// cli/ (cli/report_files.hpp).
//
// Every value read is checked for its type and its range, and a refusal is a usage_error naming
// the file and the value's place in it (json_field.hpp), a sample row by its index in
// "benchmarks": `r.json: benchmarks[3].ticks: expected a number, got a string`. Refused: what is
// not JSON (a number no double holds, 1e400, included), not a harness report, a schema this build
// does not read; a clock rate outside 1 to 1e15 ticks a second, a clock figure or a sample above
// 1e15 ticks, a sample below minus its phase's timer overhead per call; a row that is not an
// object, whose family_index names no workload, whose run_name is not its workload's row name
// for its phase ("w", "w/baseline"), or whose phase is not one its workload lists.
//
// The sample rows are kept as numbers while the document is parsed, never as JSON objects: a
// report of a million samples is held as a million doubles. Internal header of report/.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace harness::report_reader {

// The largest clock rate, and the largest sample or clock figure, a report may hold: every figure
// derived from them (a conversion to ns, a ratio, an interval) stays finite.
inline constexpr double kMaxTicksPerSecond = 1e15;
inline constexpr double kMaxTicks = 1e15;

// One phase of a workload as the report lists it (harness.workloads[].phases[]), with its
// samples from the rows.
struct phase {
  std::string id;             // "first", "baseline", "prepared"
  std::uint64_t batch = 1;    // calls per sample
  double overhead_ticks = 0;  // the timer overhead a sample's raw time lost (0: not recorded)
  std::uint64_t reference_runs = 0;
  std::optional<std::uint64_t> reference_best;  // fastest reference-loop run; with runs only
  double slowdown_factor = 1.3;
  std::string verdict;  // "" when the phase has none (the first call)
  std::string verdict_reason;
  bool floor_recorded = false;  // "floor" is an object
  bool floor_confirmed = false;
  std::string floor_reason;
  // The rows of this phase, in the order taken: ticks per call, timer overhead subtracted, and
  // whether each was disturbed (parallel).
  std::vector<double> ticks;
  std::vector<char> disturbed;
};

struct workload {
  std::string name;
  bool interrupted = false;
  std::string error;                     // what it threw; "" when it did not
  std::optional<double> items_per_call;  // declared and above 0
  std::optional<double> bytes_per_call;
  std::vector<phase> phases;  // in report order

  // The first phase of that id, or nullptr.
  const phase* find(std::string_view id) const noexcept;
};

struct report {
  std::string source;  // the file's name, as messages give it
  std::string date;    // context.date; may be empty
  std::string host_name;
  std::string clock;  // harness.clock.name
  // harness.source.sample: what one sample is when another tool took them; "" otherwise.
  std::string sample_source;
  double ticks_per_second = 0;
  double step_ticks = 0;            // 0: not measured
  double granularity_ticks = 0;     // 0: not recorded
  std::vector<workload> workloads;  // harness.workloads, in report order
  // The whole document without its "benchmarks" rows, as it was written (key order kept).
  nlohmann::ordered_json document;
};

// A report as read: a run's, or (ab) one of `harness ab` or `gbench --vs` (harness.kind "ab"),
// of which only the clock, the date and host and the document are kept: no workloads. Every
// value its page reads is checked as a run report's are.
struct saved_report {
  report run;
  bool ab = false;
};
// Parses a report of either kind from `in`; `source` names it in messages. Throws usage_error.
saved_report read_saved_report(std::istream& in, const std::string& source);
// Parses a run's report from `in`, refusing an ab report (`harness compare` compares runs).
report read_report(std::istream& in, const std::string& source);

}  // namespace harness::report_reader
