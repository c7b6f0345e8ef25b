// Reading a harness JSON report for `harness compare`: the prepared phase of each workload, its
// samples, the floor's confirmation and the clock facts, and the workloads named without a
// prepared phase. The file is read by the one report reader (report/report_reader.hpp), which
// `harness report` reads through too: what it refuses (not JSON, not a harness report, a value
// of another type or out of range) is a usage error naming the file and the value's place in it.
#include <sstream>

#include "harness/compare.hpp"
#include "report/report_reader.hpp"

namespace harness::compare {
namespace {

run_file from_report(report_reader::report&& read) {
  run_file run;
  run.source = std::move(read.source);
  run.date = std::move(read.date);
  run.clock = std::move(read.clock);
  run.sample_source = std::move(read.sample_source);
  run.ticks_per_second = read.ticks_per_second;
  run.step_ticks = read.step_ticks;
  run.granularity_ticks = read.granularity_ticks;
  for (report_reader::workload& w : read.workloads) {
    const report_reader::phase* prepared = w.find("prepared");
    if (prepared == nullptr) {
      // Interrupted, or failed, before its prepared phase: named, so compare can say so.
      run.unsampled.push_back({w.name, w.interrupted, w.error});
      continue;
    }
    workload_run r;
    r.name = w.name;
    r.values = prepared->ticks;
    r.batch = prepared->batch;
    r.reference_best = prepared->reference_best;
    r.verdict = prepared->verdict;
    r.verdict_reason = prepared->verdict_reason;
    r.items_per_call = w.items_per_call;
    r.bytes_per_call = w.bytes_per_call;
    r.floor_recorded = prepared->floor_recorded;
    r.floor_confirmed = prepared->floor_confirmed;
    r.floor_reason = prepared->floor_reason;
    run.slowdown_factor = prepared->slowdown_factor;
    run.workloads.push_back(std::move(r));
  }
  return run;
}

}  // namespace

run_file parse_run(std::string_view json_text, const std::string& source) {
  std::istringstream in{std::string(json_text)};
  return from_report(report_reader::read_report(in, source));
}

run_file read_run(std::istream& in, const std::string& source) {
  return from_report(report_reader::read_report(in, source));
}

}  // namespace harness::compare
