// The CPU counters in every writer (internal): the console's lines (short and --detail), the JSON
// report's fields (the user counters of Google Benchmark's rows, the harness block's statuses and
// figures), CSV's columns and Markdown's table; all from the analysis' counter_figure.
#pragma once

#include <nlohmann/json.hpp>

#include <iosfwd>
#include <string>
#include <vector>

#include "harness/analysis.hpp"
#include "report/table.hpp"

namespace harness::report_detail {

// A count per call: a whole number without decimals ("3"), else 6 significant digits ("0.0125"),
// "n/a" when not counted, and "*" after it when the kernel multiplexed it (scaled).
std::string count_text(const std::optional<double>& value, bool scaled);

// The counters that did not open, grouped by reason: "cycles, instructions: No such file ...".
// Empty when every counter asked for opened.
std::vector<std::string> unavailable_texts(const workload_result& r);

// The pin's check in words: "the pin held: 0 cpu-migrations in the prepared phase", "the pin did
// not hold: 3 cpu-migrations ...", "not pinned: 2 cpu-migrations ..."; empty when the counter was
// not read in the prepared phase. With the baseline's migrations and page faults beside it.
std::string pin_check_text(const workload_analysis& w);

// The short console report's one line of at most `width` columns: the prepared phase's main
// counters per call at the floor sample, and how many counters were not available with the errno
// names why; what does not fit is left to --detail. Empty when no counter was asked for.
std::string short_counters_text(const workload_analysis& w, std::size_t width);
// The short report's pin check, after the pin on its preparation line: "held: 0 cpu-migrations;
// baseline 2"; empty when not pinned or the counter was not read.
std::string short_pin_text(const workload_analysis& w);

// --detail: the phase's counters per call at its floor and median samples and over the phase,
// indented under the phase.
void print_phase_counters(std::ostream& out, const phase_analysis& a);
// --detail: after the phases, the counters not available and the pin's check.
void print_counter_checks(std::ostream& out, const workload_analysis& w);

// JSON: the workload's "counters" block (what was asked for, what opened, why not, the check).
nlohmann::ordered_json counters_json(const workload_analysis& w);
// JSON: a phase's "counters" (per call at the floor and median samples, phase totals, scaled).
nlohmann::ordered_json phase_counters_json(const phase_analysis& a);
// Google Benchmark's user counters of a row: each counter per call in sample `i` (iteration rows),
// or at the floor ("min") or median sample ("median") of the phase (aggregate rows).
void add_sample_counters(nlohmann::ordered_json& row, const phase_result& p, std::size_t i);
void add_aggregate_counters(nlohmann::ordered_json& row, const phase_analysis& a,
                            std::string_view aggregate);

// --instructions: "3000016 instructions per call, counted under Valgrind (valgrind-3.19.0,
// callgrind), the same in 5 of 5 calls", with the simulated misses when counted.
std::string instructions_text(const instruction_count& count);
// The median of the calls' counts (the lower middle for an even number).
std::uint64_t median_of(std::vector<std::uint64_t> values);
// JSON: a workload's (or an ab side's) "instructions", null when not counted.
nlohmann::ordered_json instructions_json(const std::optional<instruction_count>& count);

// The counters read in any phase of the run, in cpu_counter order: CSV's extra columns.
std::vector<cpu_counter> counters_in(const report_model& model);

// Markdown (and the HTML page's table): a row per workload's baseline and prepared phase, each
// counter per call at the floor sample and at the median sample ("12 / 12"); no rows when no
// counter was read.
text_table counters_table(const report_model& model);
// Markdown: the counters table with its heading, the pin checks and what was not available;
// nothing when no counter was asked for.
void write_markdown_counters(std::ostream& out, const report_model& model);

}  // namespace harness::report_detail
