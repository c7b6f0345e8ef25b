// `harness run --line TEMPLATE`: one line per workload and phase, in the format template language
// of profile() (format_template.hpp), with the tokens of profile() and those of a phase.
//
// Tokens, for one phase of one workload:
//   {workload}    the workload's name, "xor_loop/32000000"
//   {phase}       first, baseline or prepared
//   {samples}     samples taken in the phase
//   {runs}        calls timed: samples x calls per sample, grouped "1 234"
//   {ticks}       ticks of all samples together, timer overhead subtracted, grouped
//   {time}        those ticks in seconds, two decimals
//   {frequency}   runs / time, calls per second, grouped; n/a when time <= 0
//   {ns_per_run}  time / runs in nanoseconds (the mean per call), two decimals; n/a when time <= 0
//   {per_run}     the same in a readable unit, "12.3 µs"
//   {min} {median} {max} {spread}
//                 per-call minimum, median, maximum and max - min in a readable unit; with a spec,
//                 the plain number of seconds ({min:.3e})
//   {verdict}     stable, noisy or unstable; n/a for the first call, which has none
//   {disturbed}   samples taken during host slow-downs or context switches
//   {clock}       the clock source's name
//   {0} {1} {2}   runs, seconds, calls per second as plain numbers, as in profile()
// Caveat: every figure is derived from ticks with the clock's ticks_per_second() (a calibrated
// estimate for the TSC).
#pragma once

#include <array>
#include <iosfwd>

#include "harness/format_template.hpp"
#include "harness/report.hpp"

namespace harness {

namespace line_slot {
inline constexpr std::size_t runs = 0;
inline constexpr std::size_t seconds = 1;
inline constexpr std::size_t frequency = 2;
inline constexpr std::size_t ticks = 3;
inline constexpr std::size_t ns_per_run = 4;
inline constexpr std::size_t seconds_per_run = 5;
inline constexpr std::size_t clock = 6;
inline constexpr std::size_t workload = 7;
inline constexpr std::size_t phase = 8;
inline constexpr std::size_t min = 9;
inline constexpr std::size_t max = 10;
inline constexpr std::size_t spread = 11;
inline constexpr std::size_t median = 12;
inline constexpr std::size_t samples = 13;
inline constexpr std::size_t verdict = 14;
inline constexpr std::size_t disturbed = 15;
inline constexpr std::size_t count = 16;
}  // namespace line_slot

namespace detail {
inline constexpr std::array<value_kind, line_slot::count> kLineSlots{
    value_kind::integer, value_kind::real,    value_kind::real, value_kind::integer,
    value_kind::real,    value_kind::real,    value_kind::text, value_kind::text,
    value_kind::text,    value_kind::real,    value_kind::real, value_kind::real,
    value_kind::real,    value_kind::integer, value_kind::text, value_kind::integer};
inline constexpr std::array<named_token, 16> kLineNamed{{
    {"runs", line_slot::runs, human_style::grouped},
    {"time", line_slot::seconds, human_style::fixed2},
    {"frequency", line_slot::frequency, human_style::grouped},
    {"ticks", line_slot::ticks, human_style::grouped},
    {"ns_per_run", line_slot::ns_per_run, human_style::fixed2},
    {"per_run", line_slot::seconds_per_run, human_style::duration},
    {"clock", line_slot::clock, human_style::plain},
    {"workload", line_slot::workload, human_style::plain},
    {"phase", line_slot::phase, human_style::plain},
    {"min", line_slot::min, human_style::duration},
    {"max", line_slot::max, human_style::duration},
    {"spread", line_slot::spread, human_style::duration},
    {"median", line_slot::median, human_style::duration},
    {"samples", line_slot::samples, human_style::grouped},
    {"verdict", line_slot::verdict, human_style::plain},
    {"disturbed", line_slot::disturbed, human_style::grouped},
}};
inline constexpr std::array<std::size_t, 3> kLinePositional{line_slot::runs, line_slot::seconds,
                                                            line_slot::frequency};
}  // namespace detail

inline constexpr token_set line_tokens{detail::kLineSlots, detail::kLineNamed,
                                       detail::kLinePositional};

// Parses a --line template; throws format_error (a usage_error) naming the problem.
format_template parse_line_template(std::string_view text);

// Prints one line per phase of every workload, in report order (first, baseline, prepared).
void print_lines(std::ostream& out, const run_report& report, const format_template& line);

}  // namespace harness
