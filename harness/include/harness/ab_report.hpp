// The report of `harness ab`: what the rounds measured (ab.hpp), the answer over them, and its
// writers: the console block, JSON (docs/output.md, "harness ab"), CSV (a row per round),
// Markdown (a row per comparison), --line, and the HTML page. Writers only format.
#pragma once

#include <array>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "harness/ab.hpp"
#include "harness/enum_names.hpp"
#include "harness/format_template.hpp"
#include "harness/preparation.hpp"
#include "harness/report.hpp"
#include "harness/run_report.hpp"

namespace harness {

// What was compared.
enum class ab_mode {
  workloads,  // two workloads of this process
  builds,     // one workload of two binaries, each in worker processes
  gbench,     // each benchmark two Google Benchmark binaries list, in pairs of invocations
};
// As the JSON report names it ("mode").
inline constexpr enum_table<ab_mode, ab_mode::gbench> kAbModeNames{{
    {ab_mode::workloads, "workloads"},
    {ab_mode::builds, "builds"},
    {ab_mode::gbench, "gbench"},
}};
constexpr const auto& enum_names(ab_mode) noexcept {
  return kAbModeNames;
}

// gbench: one benchmark both binaries list, compared on its own.
struct ab_benchmark {
  std::string name;  // its Google Benchmark name, "BM_copy/4096"
  // a: the --vs (OLD) binary's side, b: NEW's. Each round is one invocation of each, in ABBA
  // order; a_min and b_min are the lowest real_time per iteration of its repetitions, in ns.
  ab_pair pair;
  std::optional<ab_decision> decision;  // set by conclude(), from pair.estimate.rounds
  std::optional<std::string> error;     // what a binary reported for it (SkipWithError)
};

// `harness ab --instructions`: both sides' instructions per call counted under Valgrind's
// callgrind, and B's over A's (each side's median over its counted calls): exact, no interval.
struct ab_instructions {
  instruction_count a;
  instruction_count b;
  double ratio = 0;  // B / A
};

struct ab_report {
  ab_mode mode = ab_mode::workloads;
  ab_options options;
  std::string clock;  // the sampling clock (both sides', checked equal)
  double ticks_per_second = 0;
  std::uint64_t clock_step = 1;
  double granularity = 0;
  std::string clock_reason;
  std::optional<clock_calibration> calibration;
  // Builds: how the workers took their turns ("turns": one after the other on one CPU; "duet":
  // at the same time on two), and how many fresh pairs of processes were asked for.
  std::string layout = "turns";
  std::size_t pairs_requested = 1;
  std::vector<ab_pair> pairs;  // one with two workloads; one per pair of processes with builds
  // The parent's preparation (two workloads; the workers' own with builds).
  std::vector<preparation_report> preparations;
  run_context context;
  bool interrupted = false;
  std::optional<ab_instructions> instructions;  // --instructions; nullopt: not counted

  // The answer: one pair's rounds, or with several the pairs combined (combine_pairs); and what
  // it says against the threshold. Set by conclude().
  std::optional<ab_interval> answer;
  std::vector<double> pair_ratios;  // each pair's median round ratio, when there are several
  // With several pairs, the two intervals the answer joins: the pairs' ratios alone (Student's t
  // over processes: the spread between processes) and the pooled rounds' (order statistics: the
  // spread within them), so a report can say where its width comes from.
  std::optional<ab_interval> between_pairs;
  std::optional<ab_interval> pooled_rounds;
  std::optional<ab_decision> decision;

  // gbench: the binaries as given (A: --vs OLD, B: NEW), what each invocation was asked, every
  // benchmark both list, each its own comparison (pairs, answer and decision above stay empty: a
  // suite has no one answer), and those only one lists, compared with nothing.
  std::string build_a;
  std::string build_b;
  std::string plan;
  std::vector<ab_benchmark> benchmarks;
  std::vector<std::string> only_in_a;
  std::vector<std::string> only_in_b;
};

// Fills answer, pair_ratios, between_pairs, pooled_rounds and decision from the pairs; with gbench,
// each benchmark's decision.
void conclude(ab_report& report);

// Whether --fail-if-slower failed: for the one answer, or for any benchmark.
bool ab_gate_failed(const ab_report& report);

// "B is 1.00% slower than A", "B is 0.25% faster than A", "B and A take the same time".
std::string ab_headline(const ab_interval& interval);
// A ratio B/A as B's change against A, with two decimals (three below 0.1%): "+1.00%", "-0.004%".
std::string ab_change_text(double ratio);

// Lines of at most `width` columns, a longer one going on under its label.
void print_ab_console(std::ostream& out, const ab_report& report, std::size_t width = 100);
void write_ab_json(std::ostream& out, const ab_report& report);
void write_ab_csv(std::ostream& out, const ab_report& report);
void write_ab_markdown(std::ostream& out, const ab_report& report);
// One self-contained page: the ratio round by round, its histogram, the interval (html.cpp).
void write_ab_html(std::ostream& out, const ab_report& report);
// The console's lines fit `style`'s width (at most 100 columns); the other formats ignore it.
void write_ab_report(std::ostream& out, const ab_report& report, report_format format,
                     const console_style& style = {});

// `harness ab --line TEMPLATE`: one line per comparison. Tokens:
//   {a} {b}            the sides' workloads
//   {ratio}            B/A, the median of the round ratios (or the pairs' combination)
//   {lower} {upper}    its 95% interval
//   {change} {change_lower} {change_upper}
//                      the same as B's change against A, a percentage: "1.00%"
//   {verdict}          faster, slower, same, unsure
//   {rounds}           measured rounds (all pairs)
//   {disturbed}        rounds with a disturbed sample
//   {floor_ratio}      B's floor over A's over the whole run (the first pair's)
//   {pairs}            pairs of processes (1 with two workloads)
//   {clock}            the sampling clock
namespace ab_line_slot {
inline constexpr std::size_t a = 0;
inline constexpr std::size_t b = 1;
inline constexpr std::size_t ratio = 2;
inline constexpr std::size_t lower = 3;
inline constexpr std::size_t upper = 4;
inline constexpr std::size_t change = 5;
inline constexpr std::size_t change_lower = 6;
inline constexpr std::size_t change_upper = 7;
inline constexpr std::size_t verdict = 8;
inline constexpr std::size_t rounds = 9;
inline constexpr std::size_t disturbed = 10;
inline constexpr std::size_t floor_ratio = 11;
inline constexpr std::size_t pairs = 12;
inline constexpr std::size_t clock = 13;
inline constexpr std::size_t slow_a = 14;
inline constexpr std::size_t slow_b = 15;
inline constexpr std::size_t slow_reference = 16;
inline constexpr std::size_t count = 17;
}  // namespace ab_line_slot

namespace detail {
inline constexpr std::array<value_kind, ab_line_slot::count> kAbLineSlots{
    value_kind::text,    value_kind::text,    value_kind::real,    value_kind::real,
    value_kind::real,    value_kind::real,    value_kind::real,    value_kind::real,
    value_kind::text,    value_kind::integer, value_kind::integer, value_kind::real,
    value_kind::integer, value_kind::text,    value_kind::real,    value_kind::real,
    value_kind::real};
inline constexpr std::array<named_token, ab_line_slot::count> kAbLineNamed{{
    {"a", ab_line_slot::a, human_style::plain},
    {"b", ab_line_slot::b, human_style::plain},
    {"ratio", ab_line_slot::ratio, human_style::plain},
    {"lower", ab_line_slot::lower, human_style::plain},
    {"upper", ab_line_slot::upper, human_style::plain},
    {"change", ab_line_slot::change, human_style::percent},
    {"change_lower", ab_line_slot::change_lower, human_style::percent},
    {"change_upper", ab_line_slot::change_upper, human_style::percent},
    {"verdict", ab_line_slot::verdict, human_style::plain},
    {"rounds", ab_line_slot::rounds, human_style::grouped},
    {"disturbed", ab_line_slot::disturbed, human_style::grouped},
    {"floor_ratio", ab_line_slot::floor_ratio, human_style::plain},
    {"pairs", ab_line_slot::pairs, human_style::plain},
    {"clock", ab_line_slot::clock, human_style::plain},
    {"slow_a", ab_line_slot::slow_a, human_style::plain},
    {"slow_b", ab_line_slot::slow_b, human_style::plain},
    {"slow_reference", ab_line_slot::slow_reference, human_style::plain},
}};
inline constexpr std::array<std::size_t, 0> kAbLinePositional{};
}  // namespace detail

inline constexpr token_set ab_line_tokens{detail::kAbLineSlots, detail::kAbLineNamed,
                                          detail::kAbLinePositional};

// Throws template_error (a usage_error) naming the problem.
format_template parse_ab_line_template(std::string_view text);
void print_ab_line(std::ostream& out, const ab_report& report, const format_template& line);

}  // namespace harness
