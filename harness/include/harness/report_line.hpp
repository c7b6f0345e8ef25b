// `harness run --line TEMPLATE`: one line per workload and phase, in the format template language
// of profile() (format_template.hpp), with the tokens of profile() and those of a phase.
//
// Tokens, for one phase of one workload:
//   {workload}    the workload's name, "xor_loop/32000000"
//   {phase}       first, baseline or prepared
//   {samples}     samples taken in the phase
//   {runs}        calls timed: samples x calls per sample, grouped "1 234"
//   {ticks}       ticks of all samples together, timer overhead subtracted, grouped
//   {time}        those ticks in seconds, two decimals (three significant digits below 0.1)
//   {frequency}   runs / time, calls per second, grouped; n/a when time <= 0
//   {ns_per_run}  time / runs in nanoseconds (the mean per call), likewise; n/a when time <= 0
//   {per_run}     the same in a readable unit, "12.3 µs"
//   {min} {median} {max} {spread}
//                 per-call minimum, median, maximum and max - min in a readable unit; with a spec,
//                 the plain number of seconds ({min:.3e})
//   {verdict}     stable, noisy, unstable, or too_few_samples (under 11 samples); n/a for the
//                 first call, which has none; failed on
//                 the one more line a failed workload gets, whose {phase} is the stage it failed
//                 in (first, calibration, baseline, warmup, prepared) and whose figures are n/a
//   {disturbed}   samples taken during host slow-downs or context switches
//   {confirmed}   yes when the phase's floor is confirmed by its blocks (floor.hpp), no when not;
//                 n/a for the first call
//   {floor}       the floor (the lowest block minimum) in a readable unit; with a spec, seconds
//   {iterations}  iterations timed: runs x the iterations each call returned, grouped; n/a when the
//                 workload returns none
//   {per_iteration}  time / iterations (the mean per iteration) in a readable unit; with a spec,
//                 seconds; {ns_per_iteration} the same in nanoseconds, two decimals
//   {items_per_second} {bytes_per_second}
//                 the items and bytes the workload declares per call, times runs, over time (the
//                 mean rate): "12.35 M items/s", "87.08 GiB/s"; with a spec, the plain number per
//                 second; n/a when not declared
//   {task_clock} {page_faults} {minor_faults} {major_faults} {context_switches} {cpu_migrations}
//   {cycles} {instructions} {branches} {branch_misses} {cache_references} {cache_misses}
//                 the CPU counter per call at the phase's floor sample (its lowest; task_clock in
//                 ns); n/a when it was not read (not asked for, or not available here)
//   {ipc}         instructions per cycle at the floor sample; n/a without both counters
//   {phase_migrations}  CPU migrations over the whole phase (0: a pin held); n/a when not read
//   {counted_instructions}  the workload's instructions per call counted under Valgrind
//                 (--instructions; the median of the counted calls), the same on each of its
//                 phases' lines; n/a when not counted
//   {clock}       the clock source's name
//   {0} {1} {2}   runs, seconds, calls per second as plain numbers, as in profile()
// Caveat: every figure is derived from ticks with the clock's ticks_per_second() (a calibrated
// estimate for the TSC).
#pragma once

#include <array>
#include <iosfwd>

#include "harness/cpu_counters.hpp"
#include "harness/format_template.hpp"
#include "harness/profile_tokens.hpp"
#include "harness/report.hpp"

namespace harness {

// The first profile_slot::count slots are profile()'s, with the same meaning (profile_slot::runs
// ... profile_slot::clock); the run report's follow.
namespace line_slot {
inline constexpr std::size_t workload = profile_slot::count;
inline constexpr std::size_t phase = workload + 1;
inline constexpr std::size_t min = workload + 2;
inline constexpr std::size_t max = workload + 3;
inline constexpr std::size_t spread = workload + 4;
inline constexpr std::size_t median = workload + 5;
inline constexpr std::size_t samples = workload + 6;
inline constexpr std::size_t verdict = workload + 7;
inline constexpr std::size_t disturbed = workload + 8;
inline constexpr std::size_t confirmed = workload + 9;
inline constexpr std::size_t floor = workload + 10;
inline constexpr std::size_t iterations = workload + 11;
inline constexpr std::size_t per_iteration = workload + 12;
inline constexpr std::size_t ns_per_iteration = workload + 13;
inline constexpr std::size_t items_per_second = workload + 14;
inline constexpr std::size_t bytes_per_second = workload + 15;
inline constexpr std::size_t counters = workload + 16;  // one slot per cpu_counter, in order
inline constexpr std::size_t ipc = counters + kCpuCounterCount;
inline constexpr std::size_t phase_migrations = ipc + 1;
inline constexpr std::size_t counted_instructions = phase_migrations + 1;
inline constexpr std::size_t count = counted_instructions + 1;
}  // namespace line_slot

namespace detail {
inline constexpr std::array<value_kind, line_slot::count> kLineSlots = join_tables(
    kProfileSlots, std::array<value_kind, line_slot::count - profile_slot::count>{
                       value_kind::text, value_kind::text, value_kind::real, value_kind::real,
                       value_kind::real, value_kind::real, value_kind::integer, value_kind::text,
                       value_kind::integer, value_kind::text, value_kind::real, value_kind::integer,
                       value_kind::real, value_kind::real, value_kind::real, value_kind::real,
                       // the counters, {ipc}, {phase_migrations}, {counted_instructions}
                       value_kind::real, value_kind::real, value_kind::real, value_kind::real,
                       value_kind::real, value_kind::real, value_kind::real, value_kind::real,
                       value_kind::real, value_kind::real, value_kind::real, value_kind::real,
                       value_kind::real, value_kind::real, value_kind::integer});
inline constexpr std::array<named_token, line_slot::count> kLineNamed =
    join_tables(kProfileNamed,
                std::array<named_token, line_slot::count - profile_slot::count>{{
                    {"workload", line_slot::workload, human_style::plain},
                    {"phase", line_slot::phase, human_style::plain},
                    {"min", line_slot::min, human_style::duration},
                    {"max", line_slot::max, human_style::duration},
                    {"spread", line_slot::spread, human_style::duration},
                    {"median", line_slot::median, human_style::duration},
                    {"samples", line_slot::samples, human_style::grouped},
                    {"verdict", line_slot::verdict, human_style::plain},
                    {"disturbed", line_slot::disturbed, human_style::grouped},
                    {"confirmed", line_slot::confirmed, human_style::plain},
                    {"floor", line_slot::floor, human_style::duration},
                    {"iterations", line_slot::iterations, human_style::grouped},
                    {"per_iteration", line_slot::per_iteration, human_style::duration},
                    {"ns_per_iteration", line_slot::ns_per_iteration, human_style::two_decimals},
                    {"items_per_second", line_slot::items_per_second, human_style::item_rate},
                    {"bytes_per_second", line_slot::bytes_per_second, human_style::byte_rate},
                    {"task_clock", line_slot::counters + 0, human_style::plain},
                    {"page_faults", line_slot::counters + 1, human_style::plain},
                    {"minor_faults", line_slot::counters + 2, human_style::plain},
                    {"major_faults", line_slot::counters + 3, human_style::plain},
                    {"context_switches", line_slot::counters + 4, human_style::plain},
                    {"cpu_migrations", line_slot::counters + 5, human_style::plain},
                    {"cycles", line_slot::counters + 6, human_style::plain},
                    {"instructions", line_slot::counters + 7, human_style::plain},
                    {"branches", line_slot::counters + 8, human_style::plain},
                    {"branch_misses", line_slot::counters + 9, human_style::plain},
                    {"cache_references", line_slot::counters + 10, human_style::plain},
                    {"cache_misses", line_slot::counters + 11, human_style::plain},
                    {"ipc", line_slot::ipc, human_style::two_decimals},
                    {"phase_migrations", line_slot::phase_migrations, human_style::plain},
                    {"counted_instructions", line_slot::counted_instructions, human_style::plain},
                }});
}  // namespace detail

// The positional tokens {0} {1} {2} are profile()'s: runs, seconds, calls per second.
inline constexpr token_set line_tokens{detail::kLineSlots, detail::kLineNamed,
                                       detail::kProfilePositional};

// Parses a --line template; throws template_error (a usage_error) naming the problem.
format_template parse_line_template(std::string_view text);

// Prints one line per phase of every workload, in report order (first, baseline, prepared).
void print_lines(std::ostream& out, const report_model& model, const format_template& line);

}  // namespace harness
