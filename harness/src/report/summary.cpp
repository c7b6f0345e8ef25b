// The summary table's rows and the spread comparison, for the console and Markdown reports.
#include "report/summary.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <string>
#include <vector>

#include "base/numbers.hpp"
#include "harness/duration.hpp"
#include "harness/format_template.hpp"

namespace harness::report_detail {
namespace {

// Minimum, phase and name say what the run found; the verdict, the floor and the spread say
// whether to trust it; the rest is detail a narrow terminal can do without.
const std::vector<table_column>& summary_columns() {
  static const std::vector<table_column> columns{
      {"workload", align::left, 0},   {"phase", align::left, 0},     {"samples", align::right, 4},
      {"min", align::right, 0},       {"median", align::right, 2},   {"max", align::right, 6},
      {"spread", align::right, 7},    {"spread %", align::right, 2}, {"min time", align::right, 3},
      {"disturbed", align::right, 5}, {"verdict", align::left, 1},   {"floor", align::left, 1},
  };
  return columns;
}

}  // namespace

std::string ticks_text(double ticks, std::uint64_t batch) {
  return fixed_text(ticks, batch > 1 ? 2 : 0);
}

std::string opt_ticks(const std::optional<double>& v, std::uint64_t batch) {
  return v ? ticks_text(*v, batch) : std::string("-");
}

std::string opt_percent(const std::optional<double>& p) {
  return p ? fixed_text(*p, 3) + "%" : std::string("n/a");
}

std::string time_text(double seconds, bool unicode) {
  // Three decimals; below a nanosecond (a time per iteration), four.
  return format_seconds(
      seconds, {duration_format::digits_kind::decimals, 3, false, micro_spelling_for(unicode)});
}

std::string tick_text(double ticks_per_second, bool unicode) {
  return format_seconds(1 / ticks_per_second, {duration_format::digits_kind::significant, 4, true,
                                               micro_spelling_for(unicode)});
}

std::optional<phase_cpus> phases_on_other_cpus(const workload_analysis& w) {
  const phase_analysis* prepared = w.find(phase_kind::prepared);
  if (prepared == nullptr || !prepared->phase->floor) return std::nullopt;
  const floor_check& f = *prepared->phase->floor;
  const auto baseline = baseline_on_another_cpu(f);
  if (!baseline) return std::nullopt;
  return phase_cpus{*baseline, *f.floor_cpu};
}

std::string preparation_sentence(const workload_analysis& w, double slowdown_factor) {
  if (w.find(phase_kind::baseline) == nullptr || w.find(phase_kind::prepared) == nullptr) return {};
  const std::string& name = w.result->name;
  std::string text;
  if (!w.change) {
    text = fmt::format("{}: what preparation changed is undefined (a minimum at or below 0 ticks)",
                       name);
  } else {
    const preparation_change& c = *w.change;
    const auto moved = [](double change) {
      return fmt::format("{} {}", percent_text(std::fabs(change), 1),
                         change < 0 ? "lower" : "higher");
    };
    const std::string within = "within " + percent_text(c.tolerance, 2);
    std::string tails;
    if (c.prepared_tail && c.baseline_tail) {
      tails = fmt::format(", p90 {} above the floor {}", percent_text(*c.prepared_tail, 1),
                          c.tail_changed() ? "instead of " + percent_text(*c.baseline_tail, 1)
                                           : fmt::format("as in the baseline ({})",
                                                         percent_text(*c.baseline_tail, 1)));
    }
    if (!c.floor_changed() && !c.median_changed() && !c.tail_changed()) {
      text = fmt::format(
          "{}: preparation changed nothing measurable: floor and median {} of the baseline's{}",
          name, within, tails);
    } else {
      text = fmt::format("{}: prepared: floor {} ({}), median {}{}", name,
                         c.floor_changed() ? moved(c.floor_change()) : "unchanged, " + within,
                         c.prepared_floor_confirmed ? "confirmed" : "not confirmed",
                         c.median_changed() ? moved(c.median_change()) : "unchanged, " + within,
                         tails);
    }
  }
  if (const auto& speed = w.host_speed; speed && speed->ratio > slowdown_factor) {
    text += fmt::format(
        "; but the CPU ran the reference loop {} slower in the {} phase (best {} ticks) than "
        "in the {} phase ({} ticks): a slowed host or a lower clock for that whole phase, so the "
        "two phases' figures do not compare directly",
        factor_text(speed->ratio), speed->baseline_slower ? "baseline" : "prepared",
        speed->baseline_slower ? speed->baseline_best : speed->prepared_best,
        speed->baseline_slower ? "prepared" : "baseline",
        speed->baseline_slower ? speed->prepared_best : speed->baseline_best);
  }
  if (const auto cpus = phases_on_other_cpus(w)) {
    text += fmt::format(
        "; the baseline's lowest sample ran on CPU {}, the prepared phase's on CPU {}: one "
        "machine's CPUs need not run at one speed, so the change includes the CPU's",
        cpus->baseline, cpus->prepared);
  }
  return text;
}

rate_columns rate_columns_of(const report_model& model) {
  rate_columns c;
  for (const workload_analysis& w : model.workloads) {
    for (const phase_analysis& a : w.phases) {
      c.per_iteration = c.per_iteration || a.rates.seconds_per_iteration.has_value();
      c.items = c.items || a.rates.items_per_second.has_value();
      c.bytes = c.bytes || a.rates.bytes_per_second.has_value();
    }
  }
  return c;
}

// What the summary's rate columns hold, after its other columns' explanations.
std::string rate_columns_note(const report_model& model) {
  const rate_columns c = rate_columns_of(model);
  std::vector<std::string> names;
  if (c.per_iteration) names.push_back("time per iteration");
  if (c.items) names.push_back("items/s");
  if (c.bytes) names.push_back("bytes/s (1 GiB = 2^30 bytes)");
  if (names.empty()) return {};
  return fmt::format("; {} at the minimum", fmt::join(names, ", "));
}

std::vector<std::string> rates_lines(const phase_analysis& a, const workload_result& r,
                                     bool unicode) {
  std::vector<std::string> lines;
  const phase_rates& rates = a.rates;
  if (rates.seconds_per_iteration) {
    lines.push_back(
        fmt::format("per iteration ({} per call, as the workload returned): {} at the "
                    "minimum, {} at the median",
                    r.iterations_per_call, time_text(rates.seconds_per_iteration->at_min, unicode),
                    time_text(rates.seconds_per_iteration->at_median, unicode)));
  }
  const auto throughput = [&](const std::optional<at_min_median>& figure,
                              const std::optional<double>& per_call, std::string_view what,
                              human_style style) {
    if (!figure) return;
    // A whole count as it is (65536, not 65536.0 or 6.5536e+04); a fraction with six digits.
    const std::string amount = amount_text(*per_call);
    lines.push_back(fmt::format(
        "throughput ({} {} per call, as declared): {} at the minimum, {} "
        "at the median",
        amount, what, human_text(figure->at_min, style), human_text(figure->at_median, style)));
  };
  throughput(rates.items_per_second, r.items_per_call, "items", human_style::item_rate);
  throughput(rates.bytes_per_second, r.bytes_per_call, "bytes", human_style::byte_rate);
  return lines;
}

summary_table summary_of(const report_model& model, bool unicode) {
  summary_table out;
  out.table.columns = summary_columns();
  const rate_columns extra = rate_columns_of(model);
  if (extra.per_iteration) out.table.columns.push_back({"time/iter", align::right, 3});
  if (extra.items) out.table.columns.push_back({"items/s", align::right, 3});
  if (extra.bytes) out.table.columns.push_back({"bytes/s", align::right, 3});
  const double ticks_per_second = model.run->clock.clock->ticks_per_second();
  for (const workload_analysis& w : model.workloads) {
    for (const phase_analysis& a : w.phases) {
      const phase_result& p = *a.phase;
      const auto& s = a.all;
      const phase_rates& rates = a.rates;
      out.table.rows.push_back({
          w.result->name,
          std::string(to_string(p.kind)),
          fmt::format("{}", s.n),
          opt_ticks(s.min, p.batch),
          opt_ticks(s.median, p.batch),
          opt_ticks(s.max, p.batch),
          opt_ticks(s.spread, p.batch),
          opt_percent(s.spread_percent),
          s.min ? time_text(*s.min / ticks_per_second, unicode) : std::string("-"),
          // Another tool's samples (harness gbench) were never checked for disturbances.
          model.run->source ? std::string("-") : fmt::format("{}", p.disturbed_count()),
          a.verdict ? std::string(stats::to_string(a.verdict->level)) : std::string("-"),
          !p.floor             ? std::string("-")
          : p.floor->confirmed ? std::string("confirmed")
                               : std::string("unconfirmed"),
      });
      std::vector<std::string>& row = out.table.rows.back();
      const auto at_min = [](const std::optional<at_min_median>& v, auto&& text) {
        return v ? text(v->at_min) : std::string("-");
      };
      if (extra.per_iteration) {
        row.push_back(at_min(rates.seconds_per_iteration,
                             [unicode](double v) { return time_text(v, unicode); }));
      }
      if (extra.items) {
        row.push_back(at_min(rates.items_per_second,
                             [](double v) { return human_text(v, human_style::item_rate); }));
      }
      if (extra.bytes) {
        row.push_back(at_min(rates.bytes_per_second,
                             [](double v) { return human_text(v, human_style::byte_rate); }));
      }
      out.rows.push_back(&a);
    }
    if (w.result->failed()) {
      // The stage it failed in, in place of the phase it did not finish.
      const workload_failure& f = *w.result->failure;
      std::vector<std::string> row(out.table.columns.size(), "-");
      row[col::workload] = w.result->name;
      row[col::phase] = to_string(f.stage);
      row[col::verdict] =
          f.sample == 0 ? std::string("FAILED") : fmt::format("FAILED at sample {}", f.sample);
      out.table.rows.push_back(std::move(row));
      out.rows.push_back(nullptr);
    }
  }
  return out;
}

std::string build_problem(const workload_build& b) {
  std::vector<std::string> problems;
  if (b.optimized && !*b.optimized) problems.push_back("without optimisation (no __OPTIMIZE__)");
  if (b.assertions && *b.assertions) problems.push_back("with assertions on (no NDEBUG)");
  return fmt::format("{}", fmt::join(problems, " and "));
}

double to_ms(double ticks, const clock_source& clock) {
  return ticks / clock.ticks_per_second() * 1e3;
}

}  // namespace harness::report_detail
