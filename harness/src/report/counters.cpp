// The CPU counters in every writer (counters.hpp).
#include "report/counters.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <functional>
#include <ostream>

#include "base/numbers.hpp"

namespace harness::report_detail {
namespace {

using json = nlohmann::ordered_json;

json number(const std::optional<double>& v) {
  return v ? json(*v) : json(nullptr);
}

std::string phase_total_text(const counter_figure& f) {
  return count_text(f.phase_total, f.phase_total_scaled);
}

}  // namespace

std::string count_text(const std::optional<double>& value, bool scaled) {
  if (!value) return "n/a";
  return amount_text(*value) + (scaled ? "*" : "");
}

std::vector<std::string> unavailable_texts(const workload_result& r) {
  // Grouped by reason, in the order first met.
  std::vector<std::pair<std::string, std::vector<std::string_view>>> groups;
  for (const counter_status& s : r.counters) {
    if (s.available) continue;
    auto it = std::find_if(groups.begin(), groups.end(),
                           [&](const auto& g) { return g.first == s.reason; });
    if (it == groups.end()) it = groups.insert(groups.end(), {s.reason, {}});
    it->second.push_back(id_of(s.counter));
  }
  std::vector<std::string> texts;
  for (const auto& [reason, names] : groups)
    texts.push_back(fmt::format("{}: {}", fmt::join(names, ", "), reason));
  return texts;
}

std::string pin_check_text(const workload_analysis& w) {
  if (!w.prepared_migrations) return {};
  const double m = *w.prepared_migrations;
  std::string text =
      !w.pinned ? fmt::format("not pinned: {} cpu-migrations in the prepared phase", amount_text(m))
      : m == 0  ? std::string("the pin held: 0 cpu-migrations in the prepared phase")
                : fmt::format("the pin did NOT hold: {} cpu-migrations in the prepared phase",
                              amount_text(m));
  std::vector<std::string> beside;
  if (const phase_analysis* b = w.find(phase_kind::baseline)) {
    for (const cpu_counter c : {cpu_counter::cpu_migrations, cpu_counter::page_faults}) {
      if (const counter_figure* f = b->counters.find(c); f && f->phase_total)
        beside.push_back(fmt::format("{} {}", phase_total_text(*f), id_of(c)));
    }
  }
  if (!beside.empty()) text += fmt::format(" (the baseline: {})", fmt::join(beside, ", "));
  return text;
}

std::string short_pin_text(const workload_analysis& w) {
  if (!w.prepared_migrations || !w.pinned) return {};
  const double m = *w.prepared_migrations;
  std::string text =
      fmt::format("{}: {} cpu-migrations", m == 0 ? "held" : "did NOT hold", amount_text(m));
  if (const phase_analysis* b = w.find(phase_kind::baseline)) {
    if (const counter_figure* f = b->counters.find(cpu_counter::cpu_migrations);
        f && f->phase_total)
      text += fmt::format("; baseline {}", phase_total_text(*f));
  }
  return text;
}

std::string short_counters_text(const workload_analysis& w, std::size_t width) {
  const workload_result& r = *w.result;
  if (r.counters.empty()) return {};
  // The pieces in the order they are kept when the line is short of room: what the hardware
  // counted, the time and the faults, what is not available, then the rest.
  struct piece {
    int order;  // where it is printed
    std::string text;
  };
  std::vector<piece> pieces;
  if (const phase_analysis* p = w.find(phase_kind::prepared)) {
    int order = 0;
    for (const cpu_counter c : {cpu_counter::instructions, cpu_counter::cycles,
                                cpu_counter::task_clock, cpu_counter::page_faults}) {
      if (const counter_figure* f = p->counters.find(c)) {
        pieces.push_back(
            {order++, fmt::format("{} {}", count_text(f->at_floor, f->scaled_at_floor),
                                  c == cpu_counter::task_clock ? "ns task-clock" : id_of(c))});
      }
      if (c == cpu_counter::cycles && p->counters.ipc_at_floor)
        pieces.push_back({order++, "IPC " + fixed_text(*p->counters.ipc_at_floor, 2)});
    }
  }
  std::size_t unavailable = 0;
  std::vector<std::string_view> codes;
  for (const counter_status& s : r.counters) {
    if (s.available) continue;
    ++unavailable;
    const char* code = s.error_code == ENOENT       ? "ENOENT"
                       : s.error_code == EOPNOTSUPP ? "EOPNOTSUPP"
                       : s.error_code == EACCES     ? "EACCES"
                                                    : nullptr;
    const std::string_view why = code != nullptr ? std::string_view(code) : "--detail says why";
    if (std::find(codes.begin(), codes.end(), why) == codes.end()) codes.push_back(why);
  }
  if (unavailable > 0)
    pieces.push_back(
        {100, fmt::format("{} not available ({})", unavailable, fmt::join(codes, ", "))});
  if (const phase_analysis* p = w.find(phase_kind::prepared)) {
    if (const counter_figure* f = p->counters.find(cpu_counter::context_switches))
      pieces.push_back({50, fmt::format("{} context-switches", count_text(f->at_floor, false))});
  }
  // Greedy: each piece in priority order while the line has room; then in printed order.
  const std::string head = "a call at the min: ";
  std::vector<piece> kept;
  std::size_t length = head.size();
  for (const piece& p : pieces) {
    const std::size_t more = (kept.empty() ? 0 : 2) + p.text.size();  // ", " before all but one
    if (length + more > width && !kept.empty()) continue;
    kept.push_back(p);
    length += more;
  }
  std::stable_sort(kept.begin(), kept.end(),
                   [](const piece& a, const piece& b) { return a.order < b.order; });
  std::string text;
  for (const piece& p : kept) {
    const bool figure = p.order < 100;
    if (text.empty()) {
      text = figure ? head + p.text : p.text;
    } else {
      text += (p.order == 100 ? "; " : ", ") + p.text;
    }
  }
  return text;
}

void print_phase_counters(std::ostream& out, const phase_analysis& a) {
  const phase_counters& c = a.counters;
  if (c.figures.empty()) return;
  fmt::print(out,
             "    counters per call, at the floor sample{} and the median sample{}; over the "
             "whole phase:\n",
             a.lowest_index ? fmt::format(" (#{})", *a.lowest_index + 1) : "",
             c.median_index ? fmt::format(" (#{})", *c.median_index + 1) : "");
  bool any_scaled = false;
  for (const counter_figure& f : c.figures) {
    fmt::print(out, "      {:<18} {:>14} {:>14} {:>16}\n", to_string(f.counter),
               count_text(f.at_floor, f.scaled_at_floor),
               count_text(f.at_median, f.scaled_at_median), phase_total_text(f));
    any_scaled = any_scaled || f.scaled_samples > 0 || f.phase_total_scaled;
  }
  if (c.ipc_at_floor || c.ipc_at_median) {
    fmt::print(out, "      {:<18} {:>14} {:>14}\n", "IPC",
               c.ipc_at_floor ? fixed_text(*c.ipc_at_floor, 3) : "n/a",
               c.ipc_at_median ? fixed_text(*c.ipc_at_median, 3) : "n/a");
  }
  if (any_scaled) {
    for (const counter_figure& f : c.figures) {
      if (f.scaled_samples == 0) continue;
      fmt::print(out,
                 "      *{}: multiplexed in {} of {} samples (the kernel counted it part of the "
                 "time; scaled by time enabled / time running: an estimate)\n",
                 id_of(f.counter), f.scaled_samples, a.phase->values.size());
    }
  }
}

void print_counter_checks(std::ostream& out, const workload_analysis& w) {
  const workload_result& r = *w.result;
  for (const std::string& text : unavailable_texts(r))
    fmt::print(out, "  counters not available: {}\n", text);
  if (const std::string pin = pin_check_text(w); !pin.empty())
    fmt::print(out, "  pin check: {}\n", pin);
  if (r.instructions) fmt::print(out, "  instructions: {}\n", instructions_text(*r.instructions));
}

json counters_json(const workload_analysis& w) {
  const workload_result& r = *w.result;
  json status = json::array();
  for (const counter_status& s : r.counters) {
    status.push_back({{"name", id_of(s.counter)},
                      {"hardware", is_hardware(s.counter)},
                      {"available", s.available},
                      {"reason", s.available ? json(nullptr) : json(s.reason)},
                      {"error_code", s.available ? json(nullptr) : json(s.error_code)}});
  }
  json check = nullptr;
  if (w.prepared_migrations) {
    check = {{"prepared_migrations", *w.prepared_migrations},
             {"pinned", w.pinned},
             {"held", w.pinned ? json(*w.prepared_migrations == 0) : json(nullptr)},
             {"text", pin_check_text(w)}};
  }
  return {{"requested", r.counters.size()}, {"status", status}, {"pin_check", check}};
}

json phase_counters_json(const phase_analysis& a) {
  const phase_counters& c = a.counters;
  if (c.figures.empty()) return nullptr;
  json figures = json::object();
  for (const counter_figure& f : c.figures) {
    figures[std::string(id_of(f.counter))] = {{"at_floor", number(f.at_floor)},
                                              {"at_median", number(f.at_median)},
                                              {"scaled_at_floor", f.scaled_at_floor},
                                              {"scaled_at_median", f.scaled_at_median},
                                              {"scaled_samples", f.scaled_samples},
                                              {"phase_total", number(f.phase_total)},
                                              {"phase_total_scaled", f.phase_total_scaled}};
  }
  const auto index = [](const std::optional<std::size_t>& i) {
    return i ? json(*i) : json(nullptr);
  };
  return {{"floor_sample", index(a.lowest_index)},
          {"median_sample", index(c.median_index)},
          {"per_call", figures},
          {"ipc", {{"at_floor", number(c.ipc_at_floor)}, {"at_median", number(c.ipc_at_median)}}}};
}

void add_sample_counters(json& row, const phase_result& p, std::size_t i) {
  for (const counter_series& s : p.counters) {
    if (i < s.counts.size() && !std::isnan(s.counts[i]))
      row[std::string(id_of(s.counter))] = s.counts[i] / static_cast<double>(p.batch);
  }
}

void add_aggregate_counters(json& row, const phase_analysis& a, std::string_view aggregate) {
  const bool at_floor = aggregate == "min";
  if (!at_floor && aggregate != "median") return;
  for (const counter_figure& f : a.counters.figures) {
    if (const std::optional<double>& v = at_floor ? f.at_floor : f.at_median)
      row[std::string(id_of(f.counter))] = *v;
  }
  if (const auto& ipc = at_floor ? a.counters.ipc_at_floor : a.counters.ipc_at_median)
    row["IPC"] = *ipc;
}

std::uint64_t median_of(std::vector<std::uint64_t> values) {
  if (values.empty()) return 0;
  const auto middle = values.begin() + static_cast<std::ptrdiff_t>((values.size() - 1) / 2);
  std::nth_element(values.begin(), middle, values.end());
  return *middle;
}

std::string instructions_text(const instruction_count& count) {
  const auto [low, high] = std::minmax_element(count.per_call.begin(), count.per_call.end());
  const std::size_t n = count.per_call.size();
  std::string text;
  if (n > 0 && *low == *high) {
    text = fmt::format(
        "{} instructions per call, counted under Valgrind ({}): the same in {} of "
        "{} calls",
        *low, count.tool, n, n);
  } else if (n > 0) {
    text = fmt::format(
        "{} instructions per call (median; {} to {} over {} calls), counted under "
        "Valgrind ({})",
        median_of(count.per_call), *low, *high, n, count.tool);
  } else {
    text = "no call counted";
  }
  if (!count.l1_misses.empty()) {
    text += fmt::format("; simulated cache misses per call: L1 {}, last level {}",
                        median_of(count.l1_misses), median_of(count.ll_misses));
  }
  return text;
}

json instructions_json(const std::optional<instruction_count>& count) {
  if (!count) return nullptr;
  const auto list = [](const std::vector<std::uint64_t>& v) {
    return v.empty() ? json(nullptr) : json(v);
  };
  const bool same = !count->per_call.empty() &&
                    std::adjacent_find(count->per_call.begin(), count->per_call.end(),
                                       std::not_equal_to<>()) == count->per_call.end();
  return {{"counted_under", "valgrind"},
          {"tool", count->tool},
          {"per_call", median_of(count->per_call)},
          {"calls", count->per_call},
          {"same_in_every_call", same},
          {"l1_misses_per_call",
           count->l1_misses.empty() ? json(nullptr) : json(median_of(count->l1_misses))},
          {"ll_misses_per_call",
           count->ll_misses.empty() ? json(nullptr) : json(median_of(count->ll_misses))},
          {"l1_misses", list(count->l1_misses)},
          {"ll_misses", list(count->ll_misses)}};
}

text_table counters_table(const report_model& model) {
  text_table table;
  const std::vector<cpu_counter> counters = counters_in(model);
  if (counters.empty()) return table;
  table.columns = {{"workload"}, {"phase"}};
  for (const cpu_counter c : counters)
    table.columns.push_back({std::string(id_of(c)), align::right});
  bool ipc = false;
  for (const workload_analysis& w : model.workloads) {
    for (const phase_analysis& a : w.phases)
      ipc = ipc || a.counters.ipc_at_floor || a.counters.ipc_at_median;
  }
  if (ipc) table.columns.push_back({"IPC", align::right});
  for (const workload_analysis& w : model.workloads) {
    for (const phase_kind kind : {phase_kind::prepared, phase_kind::baseline}) {
      const phase_analysis* a = w.find(kind);
      if (a == nullptr || a->counters.figures.empty()) continue;
      std::vector<std::string> row{w.result->name, std::string(id_of(kind))};
      for (const cpu_counter c : counters) {
        const counter_figure* f = a->counters.find(c);
        row.push_back(f == nullptr
                          ? "-"
                          : fmt::format("{} / {}", count_text(f->at_floor, f->scaled_at_floor),
                                        count_text(f->at_median, f->scaled_at_median)));
      }
      if (ipc) {
        const auto text = [](const std::optional<double>& v) {
          return v ? fixed_text(*v, 3) : std::string("n/a");
        };
        row.push_back(fmt::format("{} / {}", text(a->counters.ipc_at_floor),
                                  text(a->counters.ipc_at_median)));
      }
      table.rows.push_back(std::move(row));
    }
  }
  return table;
}

void write_markdown_counters(std::ostream& out, const report_model& model) {
  bool asked = false;
  for (const workload_analysis& w : model.workloads)
    asked = asked || !w.result->counters.empty() || w.result->instructions;
  if (!asked) return;
  fmt::print(out, "\n#### CPU counters\n\n");
  const text_table table = counters_table(model);
  if (!table.rows.empty()) {
    fmt::print(out,
               "Per call, at the floor sample / at the median sample (task-clock in ns; * "
               "multiplexed by the kernel, scaled: an estimate).\n\n{}",
               render_markdown(table));
  }
  bool first = true;
  for (const workload_analysis& w : model.workloads) {
    std::vector<std::string> notes;
    if (w.result->instructions) notes.push_back(instructions_text(*w.result->instructions));
    if (const std::string pin = pin_check_text(w); !pin.empty()) notes.push_back(pin);
    for (const std::string& text : unavailable_texts(*w.result))
      notes.push_back("not available: " + text);
    for (const std::string& note : notes) {
      fmt::print(out, "{}- {}: {}\n", first ? "\n" : "", markdown_escape(w.result->name),
                 markdown_escape(note));
      first = false;
    }
  }
}

std::vector<cpu_counter> counters_in(const report_model& model) {
  std::array<bool, kCpuCounterCount> seen{};
  for (const workload_analysis& w : model.workloads) {
    for (const phase_analysis& a : w.phases) {
      for (const counter_figure& f : a.counters.figures)
        seen[index_of(f.counter)] = true;
    }
  }
  std::vector<cpu_counter> list;
  for (std::size_t i = 0; i < kCpuCounterCount; ++i) {
    if (seen[i]) list.push_back(static_cast<cpu_counter>(i));
  }
  return list;
}

}  // namespace harness::report_detail
