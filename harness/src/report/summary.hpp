// The summary table shared by the console and Markdown reports: one row of text cells per workload
// and phase, and the sentence comparing the baseline's spread with the prepared one's.
//
// Internal header. The cells are made from the report model; the console pads, colours and drops
// columns, Markdown escapes (both through table.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "harness/report.hpp"
#include "report/table.hpp"

namespace harness::report_detail {

// Index of each column in the summary table and in a row's cells.
namespace col {
inline constexpr std::size_t workload = 0;
inline constexpr std::size_t phase = 1;
inline constexpr std::size_t samples = 2;
inline constexpr std::size_t min = 3;
inline constexpr std::size_t median = 4;
inline constexpr std::size_t max = 5;
inline constexpr std::size_t spread = 6;
inline constexpr std::size_t spread_percent = 7;
inline constexpr std::size_t min_time = 8;
inline constexpr std::size_t disturbed = 9;
inline constexpr std::size_t verdict = 10;
inline constexpr std::size_t floor = 11;
inline constexpr std::size_t count = 12;
}  // namespace col

// The table, one row per workload and phase in report order, and each row's phase analysis
// (for the console's colours). A workload that failed gets one more row: the stage it failed in,
// "FAILED at sample N" as its verdict, no figures.
struct summary_table {
  text_table table;
  std::vector<const phase_analysis*> rows;  // parallel to table.rows; nullptr: a failure's row
};
// The summary's columns after `floor`, at the minimum, each present when some phase of the run has
// the figure: "time/iter" (time per iteration), "items/s", "bytes/s".
struct rate_columns {
  bool per_iteration = false;
  bool items = false;
  bool bytes = false;
};
rate_columns rate_columns_of(const report_model& model);
// What those columns hold, for the line above the table: "; time per iteration, bytes/s (1 GiB =
// 2^30 bytes) at the minimum"; empty when there are none.
std::string rate_columns_note(const report_model& model);
summary_table summary_of(const report_model& model, bool unicode);

// A phase's time per iteration and throughput, one line each, at its minimum and median: "per
// iteration (65536 per call, as the workload returned): 0.0107 ns at the minimum, ...", "throughput
// (65536 bytes per call, as declared): 87.08 GiB/s at the minimum, ..."; empty when it has none.
std::vector<std::string> rates_lines(const phase_analysis& a, const workload_result& r,
                                     bool unicode);

// The CPUs the baseline's and the prepared phase's lowest samples ran on, when both were read and
// differ: what preparation changed then includes the CPU (one machine's CPUs need not run at one
// speed). nullopt otherwise.
struct phase_cpus {
  int baseline = 0;
  int prepared = 0;
};
std::optional<phase_cpus> phases_on_other_cpus(const workload_analysis& w);

// What preparation changed, by the floor, the median and the p90's distance above the floor
// (analysis.hpp: preparation_change): "sort_ints/10000: prepared: floor 7.8% lower (confirmed),
// median 8.2% lower, p90 0.4% above the floor instead of 12.0%", or "... changed nothing
// measurable ...", with a warning when one whole phase ran the reference loop slower; empty
// unless both phases ran.
std::string preparation_sentence(const workload_analysis& w, double slowdown_factor);

// The console report without --detail (console_short.cpp): about ten lines a workload.
void print_short_console_report(std::ostream& out, const report_model& model,
                                const console_style& style);

// What is wrong with the build of a workload's file ("without optimisation (no __OPTIMIZE__)
// and ..."), "" when nothing known is: both console reports' "YOUR BUILD" line.
std::string build_problem(const workload_build& b);
// Ticks of `clock` in milliseconds.
double to_ms(double ticks, const clock_source& clock);

// Ticks per call: whole ticks for single calls, two decimals when batched (a fraction of a tick
// per call is measured: the sample's ticks divided by the batch).
std::string ticks_text(double ticks, std::uint64_t batch);
// "-" for a figure the samples do not define.
std::string opt_ticks(const std::optional<double>& v, std::uint64_t batch);
// A percentage with three decimals, "12.345%", or "n/a" for one the samples do not define.
std::string opt_percent(const std::optional<double>& p);
// A time in the unit that puts it in [1, 1000): "402.000 ms", "12.346 µs" ("us" without Unicode);
// below 1 ns, four decimals: "0.0107 ns".
std::string time_text(double seconds, bool unicode);
// One tick of a clock of `ticks_per_second` as a time, four significant digits without trailing
// zeros: "0.5 ns", "0.333 ns", "1 ms" (the pages' timeText).
std::string tick_text(double ticks_per_second, bool unicode);

}  // namespace harness::report_detail
