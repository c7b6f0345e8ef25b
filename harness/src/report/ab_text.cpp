// `harness ab`'s report as text: the console block per pair (or per benchmark), and the CSV and
// Markdown rows.
#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <ostream>
#include <span>
#include <sstream>
#include <string>

#include "base/numbers.hpp"
#include "harness/ab_report.hpp"
#include "harness/duration.hpp"
#include "report/ab_writers.hpp"
#include "report/counters.hpp"
#include "report/table.hpp"

namespace harness {

using namespace ab_detail;

// How slow the host ran the rounds against their best, and when it slowed the workload for most
// of them, what that does to the answer.
void print_host_speed(std::ostream& out, const std::string& prefix, const ab_estimate& e) {
  if (!e.slow_a || !e.slow_b) return;
  fmt::print(out, "{}host: the rounds' minimums at a median {}x A's floor and {}x B's", prefix,
             fixed_text(*e.slow_a, 2), fixed_text(*e.slow_b, 2));
  if (e.slow_reference) {
    fmt::print(out, ", the reference loop at {}x its fastest", fixed_text(*e.slow_reference, 2));
  }
  if (e.slowed_host()) {
    fmt::print(out,
               "; most rounds ran {}x their floor or more{} (the host slowing this workload, or a "
               "workload whose time varies from sample to sample): pairing cancels what slows A "
               "and B alike, and the rest widens the interval",
               fixed_text(kAbSlowHost, 2),
               e.slow_reference && *e.slow_reference < kAbSlowHost
                   ? ", which the reference loop did not"
                   : "");
  }
  fmt::print(out, "\n");
}

// gbench: a block per benchmark, the unpaired ones, then what every invocation was.
void print_gbench_console(std::ostream& out, const ab_report& r) {
  fmt::print(out, "A: {} (--vs)\nB: {}\n", r.build_a, r.build_b);
  for (const ab_benchmark& b : r.benchmarks) {
    const ab_pair& p = b.pair;
    const ab_estimate& e = p.estimate;
    fmt::print(out, "{}\n", b.name);
    if (e.rounds) {
      fmt::print(out, "  {} {} (95%, median of {} rounds, each a new process of each)\n",
                 ab_headline(*e.rounds), bounds(*e.rounds), e.rounds->count);
    } else {
      fmt::print(out, "  not answered: {} rounds gave a ratio, and an interval needs 6\n",
                 p.rounds.size());
    }
    if (b.decision) {
      fmt::print(out, "  verdict: {}: {}\n", id_of(b.decision->verdict), b.decision->reason);
    }
    if (b.error) fmt::print(out, "  FAILED: {}\n", *b.error);
    if (e.floor_a && e.floor_b) {
      fmt::print(out, "  floors over the run: A {}, B {} per iteration",
                 duration_of(*e.floor_a, 1e9), duration_of(*e.floor_b, 1e9));
      if (const auto fr = e.floor_ratio()) fmt::print(out, ", B/A {}", fixed_text(*fr, 5));
      fmt::print(out, "\n");
    }
    print_host_speed(out, "  ", e);
    fmt::print(out, "  rounds: {} (ABBA order), {} repetition{} an invocation; stopped: {}",
               p.rounds.size(), p.samples_per_side, p.samples_per_side == 1 ? "" : "s",
               to_string(p.stopped_by));
    if (p.last_half_width) {
      fmt::print(out, " (half-width {} at the last of {} checks, target {})",
                 percent_text(*p.last_half_width, 3), p.checks, percent_text(r.options.target, 3));
    }
    fmt::print(out, ", {}\n", format_seconds(p.seconds, kSpanFormat));
  }
  for (const std::string& name : r.only_in_a)
    fmt::print(out, "{}\n  only in A: not compared\n", name);
  for (const std::string& name : r.only_in_b)
    fmt::print(out, "{}\n  only in B: not compared\n", name);
  std::string prepared;
  for (const preparation_report& p : r.preparations) {
    for (const auto& s : p.steps) {
      prepared += fmt::format("{}{}: {}", prepared.empty() ? "" : "; ", s.action,
                              s.applied ? "applied" : s.reason);
    }
  }
  fmt::print(out, "figures: {} (Google Benchmark's real_time per iteration, ns); {}{}{}\n", r.clock,
             r.plan, prepared.empty() ? "" : "; ", prepared);
  if (r.interrupted) fmt::print(out, "interrupted: the figures are what came before\n");
}

namespace {

// The console block, its lines as long as they come.
void print_ab_block(std::ostream& out, const ab_report& r) {
  if (r.mode == ab_mode::gbench) {
    print_gbench_console(out, r);
    return;
  }
  if (r.pairs.empty()) {
    fmt::print(out, "harness ab: no rounds were measured{}\n",
               r.interrupted ? " (interrupted)" : "");
    return;
  }
  const ab_pair& first = r.pairs.front();
  const double tps = r.ticks_per_second;
  fmt::print(out, "A: {}\nB: {}\n", side_name(first.a, r.mode), side_name(first.b, r.mode));
  const double resolution = widest_resolution(r);
  if (r.answer) {
    fmt::print(out, "  {} {} (95%, {} {} {}", ab_headline(*r.answer), bounds(*r.answer),
               r.pairs.size() > 1 ? "over" : "median of", r.answer->count,
               r.pairs.size() > 1 ? "pairs of processes" : "round ratios");
    if (const auto& order = r.answer->order) {
      fmt::print(out, ", widened to reach the rounds A ran first, {}, and those B ran first, {}",
                 percent(order->a_first), percent(order->b_first));
    }
    if (r.answer->resolution > 0) {
      fmt::print(out, ", widened +-{} for the clock's step", percent_text(r.answer->resolution, 3));
    }
    fmt::print(out, ")\n");
  } else if (resolution >= 1) {
    fmt::print(out,
               "  not answered: a step of the clock is {} of a sample at the floors, so the "
               "samples cannot tell B from A; give a larger --batch, or leave --batch out\n",
               percent_text(resolution, 1));
  } else {
    fmt::print(out, "  not answered: {} rounds gave a ratio, and an interval needs 6\n",
               first.estimate.rounds ? first.estimate.rounds->count : 0);
  }
  if (r.decision) {
    fmt::print(out, "  verdict: {}: {}\n", id_of(r.decision->verdict), r.decision->reason);
  }
  if (const auto& n = r.instructions) {
    fmt::print(out,
               "  instructions: B/A {} exactly, counted under Valgrind ({}): A {} per call, B {} "
               "per call\n    A: {}\n    B: {}\n",
               fixed_text(n->ratio, 4), n->a.tool, report_detail::median_of(n->a.per_call),
               report_detail::median_of(n->b.per_call), report_detail::instructions_text(n->a),
               report_detail::instructions_text(n->b));
  }
  for (std::size_t i = 0; i < r.pairs.size(); ++i) {
    const ab_pair& p = r.pairs[i];
    const ab_estimate& e = p.estimate;
    const std::string prefix = r.pairs.size() > 1 ? fmt::format("  pair {}: ", i + 1) : "  ";
    if (r.pairs.size() > 1 && e.rounds) {
      fmt::print(out, "{}{} {}\n", prefix, percent(e.rounds->ratio), bounds(*e.rounds));
    }
    if (e.floor_a && e.floor_b) {
      fmt::print(out, "{}floors over the run: A {} ticks ({}), B {} ticks ({}) per call", prefix,
                 fixed_text(*e.floor_a, 0), duration_of(*e.floor_a, tps), fixed_text(*e.floor_b, 0),
                 duration_of(*e.floor_b, tps));
      if (const auto fr = e.floor_ratio()) fmt::print(out, ", B/A {}", fixed_text(*fr, 5));
      fmt::print(out, "\n");
    }
    fmt::print(out, "{}rounds: {} of {} sample{} a side in stretches of {} ({} order", prefix,
               p.rounds.size(), p.samples_per_side, p.samples_per_side == 1 ? "" : "s",
               p.samples_per_stretch, to_string(r.options.order));
    if (e.order_split) {
      fmt::print(out, ": A first {}, B first {}", percent(e.order_split->a_first),
                 percent(e.order_split->b_first));
    }
    fmt::print(out, "), batch {}; {} disturbed", p.batch, e.disturbed);
    if (e.disturbed > 0) {
      if (e.undisturbed) {
        fmt::print(out, " (without them {} {})", percent(e.undisturbed->ratio),
                   bounds(*e.undisturbed));
      } else {
        fmt::print(out, " (too few left without them for an interval)");
      }
    }
    fmt::print(out, "\n");
    print_host_speed(out, prefix, e);
    fmt::print(out, "{}stopped: {}", prefix, to_string(p.stopped_by));
    if (p.last_half_width) {
      fmt::print(out, " (the round ratios' half-width {} at the last of {} checks, target {})",
                 percent_text(*p.last_half_width, 3), p.checks, percent_text(r.options.target, 3));
    }
    fmt::print(out, ", {} of rounds after a warmup of {} round{} ({})\n",
               format_seconds(p.seconds, kSpanFormat), p.warmup_rounds,
               p.warmup_rounds == 1 ? "" : "s", format_seconds(p.warmup_seconds, kSpanFormat));
  }
  if (r.pairs.size() > 1) {
    fmt::print(out,
               "  the interval is over the {} pairs of processes (Student's t on their ratios), "
               "joined with the pooled rounds': each process has its own pages and code layout\n",
               r.pair_ratios.size());
    if (r.between_pairs && r.pooled_rounds) {
      const double between = r.between_pairs->upper - r.between_pairs->lower;
      const double within = r.pooled_rounds->upper - r.pooled_rounds->lower;
      fmt::print(out,
                 "  its width comes from {}: between the pairs {} (Student's t), within them {} "
                 "(the {} pooled rounds)\n",
                 between >= within ? "the spread between processes"
                                   : "the spread of the rounds within each process",
                 bounds(*r.between_pairs), bounds(*r.pooled_rounds), r.pooled_rounds->count);
    }
  }
  if (r.mode == ab_mode::builds) {
    fmt::print(out, "  workers: {} of {} pairs, layout {} ({})\n", r.pairs.size(),
               r.pairs_requested, r.layout,
               r.layout == "duet" ? "the two sample each round at the same time on two CPUs"
                                  : "the two take turns on one CPU");
  }
  std::string prepared;
  for (const preparation_report& p : r.preparations) {
    for (const auto& s : p.steps) {
      prepared += fmt::format("{}{}: {}", prepared.empty() ? "" : "; ", s.action,
                              s.applied ? "applied" : s.reason);
    }
  }
  fmt::print(out, "  clock: {} ({} ticks/s); timer overhead A {} / B {} ticks subtracted{}{}\n",
             r.clock, fixed_text(tps, 0), first.overhead_a, first.overhead_b,
             prepared.empty() ? "" : "; ", prepared);
  if (r.interrupted) fmt::print(out, "  interrupted: the figures are what came before\n");
}

}  // namespace

void print_ab_console(std::ostream& out, const ab_report& r, std::size_t width) {
  std::ostringstream block;
  print_ab_block(block, r);
  out << report_detail::wrap_lines(block.str(), width);
}

void write_ab_csv(std::ostream& out, const ab_report& r) {
  out << "pair,round,a,b,a_first,a_min_ticks,b_min_ticks,ratio,disturbed,reference_ticks,"
         "context_switches\n";
  const auto quoted = [](const std::string& s) {
    std::string q = "\"";
    for (const char c : s) {
      if (c == '"') q += '"';
      q += c;
    }
    return q + "\"";
  };
  // gbench --vs times nothing itself: no reference loop, no context switches, so no disturbed
  // round; those cells stay empty rather than say 0.
  const bool watched = r.mode != ab_mode::gbench;
  const auto rows = [&](std::size_t i, const ab_pair& p) {
    for (std::size_t k = 0; k < p.rounds.size(); ++k) {
      const ab_round& round = p.rounds[k];
      fmt::print(out, "{},{},{},{},{},{},{},{},{},{},{}\n", i + 1, k + 1, quoted(p.a.workload),
                 quoted(p.b.workload), round.a_first ? 1 : 0, round.a_min, round.b_min,
                 round.a_min > 0 ? fmt::format("{}", round.ratio()) : "",
                 watched ? fmt::format("{}", round.disturbed ? 1 : 0) : "",
                 watched ? fmt::format("{}", round.reference) : "",
                 watched ? fmt::format("{}", round.switches) : "");
    }
  };
  for (std::size_t i = 0; i < r.pairs.size(); ++i)
    rows(i, r.pairs[i]);
  // gbench: each benchmark's one pair of binaries, its name in a and b.
  for (const ab_benchmark& b : r.benchmarks)
    rows(0, b.pair);
}

namespace {

// The host cell of a Markdown row: each side's median round minimum over its floor, as the
// console's host line gives them ("1.02x / 1.04x"); over several pairs of processes, each side's
// highest.
std::string host_cell(std::span<const ab_pair> pairs) {
  std::optional<double> a;
  std::optional<double> b;
  for (const ab_pair& p : pairs) {
    if (!p.estimate.slow_a || !p.estimate.slow_b) return "n/a";
    a = std::max(a.value_or(0), *p.estimate.slow_a);
    b = std::max(b.value_or(0), *p.estimate.slow_b);
  }
  if (!a || !b) return "n/a";
  return fmt::format("{}x / {}x", fixed_text(*a, 2), fixed_text(*b, 2));
}

}  // namespace

void write_ab_markdown(std::ostream& out, const ab_report& r) {
  out << "| A | B | B/A | change | 95% interval | verdict | rounds | disturbed | host A / B |\n"
         "|---|---|---:|---:|---|---|---:|---:|---:|\n";
  const auto cell = [](const std::string& s) {
    std::string escaped;
    for (const char c : s) {
      if (c == '|') escaped += '\\';
      escaped += c;
    }
    return escaped;
  };
  for (const ab_benchmark& b : r.benchmarks) {
    const std::optional<ab_interval>& answer = b.pair.estimate.rounds;
    fmt::print(out, "| {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
               cell(side_name(b.pair.a, r.mode)), cell(side_name(b.pair.b, r.mode)),
               answer ? fixed_text(answer->ratio, 5) : "n/a",
               answer ? percent(answer->ratio) : "n/a", answer ? bounds(*answer) : "n/a",
               b.error      ? "failed"
               : b.decision ? id_of(b.decision->verdict)
                            : "n/a",
               b.pair.rounds.size(), "n/a",  // gbench --vs watches no disturbance
               host_cell({&b.pair, 1}));
  }
  // gbench: the benchmarks only one binary lists, compared with nothing, as the console says.
  const auto unpaired = [&](const std::string& name, const std::string& build, bool in_a) {
    ab_side_facts side;
    side.workload = name;
    side.build = build;
    const std::string listed = cell(side_name(side, r.mode));
    fmt::print(out, "| {} | {} | n/a | n/a | n/a | only in {} | 0 | n/a | n/a |\n",
               in_a ? listed : "-", in_a ? "-" : listed, in_a ? "A" : "B");
  };
  for (const std::string& name : r.only_in_a)
    unpaired(name, r.build_a, true);
  for (const std::string& name : r.only_in_b)
    unpaired(name, r.build_b, false);
  if (r.pairs.empty()) return;
  const ab_pair& first = r.pairs.front();
  fmt::print(out, "| {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
             cell(side_name(first.a, r.mode)), cell(side_name(first.b, r.mode)),
             r.answer ? fixed_text(r.answer->ratio, 5) : "n/a",
             r.answer ? percent(r.answer->ratio) : "n/a", r.answer ? bounds(*r.answer) : "n/a",
             r.decision ? id_of(r.decision->verdict) : "n/a", total_rounds(r), total_disturbed(r),
             host_cell(r.pairs));
}

}  // namespace harness
