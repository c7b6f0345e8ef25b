// Reading files below a root path and parsing the kernel's text formats for the doctor.
//
// Parsers are lenient about white space and trailing fields (the kernel appends columns over the
// years) but strict about numbers: a malformed number makes the whole value unknown.
#include "doctor/probe.hpp"

#include <algorithm>
#include <charconv>
#include <fstream>
#include <sstream>
#include <system_error>

namespace harness::doctor::detail {

namespace {

template <typename T>
std::optional<T> parse_number(std::string_view text) {
  T value{};
  const char* first = text.data();
  const char* last = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(first, last, value);
  if (ec != std::errc{} || ptr != last || text.empty()) return std::nullopt;
  return value;
}

std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    const auto end = text.find('\n');
    lines.push_back(text.substr(0, end));
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  return lines;
}

}  // namespace

std::string system_probe::path(std::string_view relative) const {
  return (root_ / std::filesystem::path(relative)).lexically_normal().generic_string();
}

std::optional<std::string> system_probe::read(std::string_view relative) const {
  std::ifstream in(root_ / std::filesystem::path(relative), std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return std::nullopt;
  return std::move(text).str();
}

std::optional<std::string> system_probe::read_trimmed(std::string_view relative) const {
  auto text = read(relative);
  if (!text) return std::nullopt;
  return std::string(trim(*text));
}

bool system_probe::exists(std::string_view relative) const {
  std::error_code ec;
  return std::filesystem::exists(root_ / std::filesystem::path(relative), ec);
}

std::string_view trim(std::string_view text) noexcept {
  constexpr std::string_view kSpace = " \t\r\n";
  const auto first = text.find_first_not_of(kSpace);
  if (first == std::string_view::npos) return {};
  const auto last = text.find_last_not_of(kSpace);
  return text.substr(first, last - first + 1);
}

std::vector<std::string_view> split_words(std::string_view text) {
  std::vector<std::string_view> words;
  constexpr std::string_view kSpace = " \t\r\n";
  while (true) {
    const auto first = text.find_first_not_of(kSpace);
    if (first == std::string_view::npos) break;
    text.remove_prefix(first);
    const auto end = text.find_first_of(kSpace);
    words.push_back(text.substr(0, end));
    if (end == std::string_view::npos) break;
    text.remove_prefix(end);
  }
  return words;
}

std::optional<std::vector<int>> parse_cpu_list(std::string_view text) {
  text = trim(text);
  std::vector<int> cpus;
  while (!text.empty()) {
    const auto comma = text.find(',');
    const std::string_view item = trim(text.substr(0, comma));
    text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 1);
    const auto dash = item.find('-');
    const auto first = parse_number<int>(item.substr(0, dash));
    const auto last =
        dash == std::string_view::npos ? first : parse_number<int>(item.substr(dash + 1));
    if (!first || !last || *first < 0 || *last < *first) return std::nullopt;
    for (int cpu = *first; cpu <= *last; ++cpu)
      cpus.push_back(cpu);
  }
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  return cpus;
}

bool contains(const std::vector<int>& cpus, int cpu) {
  return std::find(cpus.begin(), cpus.end(), cpu) != cpus.end();
}

std::optional<proc_stat> parse_proc_stat(std::string_view text) {
  proc_stat stat;
  bool any = false;
  for (const auto line : split_lines(text)) {
    const auto words = split_words(line);
    if (words.empty() || !words[0].starts_with("cpu")) continue;
    // user nice system idle iowait irq softirq steal: the first 4 exist on every 2.6+ kernel.
    if (words.size() < 5) return std::nullopt;
    std::uint64_t values[8] = {};
    const std::size_t count = std::min<std::size_t>(words.size() - 1, 8);
    for (std::size_t i = 0; i < count; ++i) {
      const auto value = parse_number<std::uint64_t>(words[i + 1]);
      if (!value) return std::nullopt;
      values[i] = *value;
    }
    const cpu_times times{values[0], values[1], values[2], values[3], values[4],
                          values[5], values[6], values[7], count >= 8};
    const std::string_view name = words[0].substr(3);
    if (name.empty()) {
      stat.all = times;
    } else {
      const auto cpu = parse_number<int>(name);
      if (!cpu) return std::nullopt;
      stat.per_cpu[*cpu] = times;
    }
    any = true;
  }
  if (!any) return std::nullopt;
  return stat;
}

load_sample compute_load(std::optional<std::string> before, std::optional<std::string> after,
                         double seconds, const std::string& stat_path) {
  load_sample sample;
  sample.seconds = seconds;
  if (!before || !after) {
    sample.unknown_reason = stat_path + " could not be read";
    return sample;
  }
  const auto first = parse_proc_stat(*before);
  const auto second = parse_proc_stat(*after);
  if (!first || !second) {
    sample.unknown_reason = stat_path + " has no readable cpu lines";
    return sample;
  }
  const auto fraction = [](std::uint64_t part, std::uint64_t whole) {
    return static_cast<double>(part) / static_cast<double>(whole);
  };
  for (const auto& [cpu, then] : first->per_cpu) {
    const auto now = second->per_cpu.find(cpu);
    if (now == second->per_cpu.end()) continue;  // went offline during the window
    const auto& later = now->second;
    if (later.total() <= then.total() || later.busy() < then.busy()) continue;
    const auto total = later.total() - then.total();
    sample.busy[cpu] = fraction(later.busy() - then.busy(), total);
    if (then.has_steal && later.has_steal && later.steal >= then.steal) {
      sample.steal[cpu] = fraction(later.steal - then.steal, total);
    }
  }
  if (first->all && second->all && first->all->has_steal && second->all->has_steal) {
    const auto& then = *first->all;
    const auto& later = *second->all;
    if (then.total() > 0) sample.steal_since_boot = fraction(then.steal, then.total());
    if (later.total() > then.total() && later.steal >= then.steal) {
      sample.steal_all = fraction(later.steal - then.steal, later.total() - then.total());
    }
  }
  if (sample.busy.empty()) {
    sample.unknown_reason = "no ticks elapsed between the two readings of " + stat_path;
  }
  return sample;
}

std::map<std::string, std::string> parse_kernel_cmdline(std::string_view text) {
  std::map<std::string, std::string> params;
  for (const auto word : split_words(text)) {
    if (word == "--") break;
    const auto eq = word.find('=');
    std::string name(word.substr(0, eq));
    std::string value = eq == std::string_view::npos ? "" : std::string(word.substr(eq + 1));
    // A repeated parameter: the kernel's __setup handlers see the last one.
    params[std::move(name)] = std::move(value);
  }
  return params;
}

std::string_view isolcpus_cpus(std::string_view value) {
  // Flags (nohz, domain, managed_irq) come first, separated by commas, before the CPU list.
  while (!value.empty() && !(value.front() >= '0' && value.front() <= '9')) {
    const auto comma = value.find(',');
    if (comma == std::string_view::npos) return {};
    value.remove_prefix(comma + 1);
  }
  return value;
}

std::optional<std::set<std::string, std::less<>>> parse_cpuinfo_flags(std::string_view text) {
  for (const auto line : split_lines(text)) {
    const auto colon = line.find(':');
    if (colon == std::string_view::npos || trim(line.substr(0, colon)) != "flags") continue;
    std::set<std::string, std::less<>> flags;
    for (const auto word : split_words(line.substr(colon + 1)))
      flags.emplace(word);
    return flags;
  }
  return std::nullopt;
}

std::optional<limit_row> parse_limit(std::string_view limits_text, std::string_view name) {
  for (const auto line : split_lines(limits_text)) {
    if (!line.starts_with(name)) continue;
    const auto words = split_words(line.substr(name.size()));
    if (words.size() < 2) return std::nullopt;
    const auto bound = [](std::string_view word, std::optional<std::uint64_t>& out) {
      if (word == "unlimited") return true;
      out = parse_number<std::uint64_t>(word);
      return out.has_value();
    };
    limit_row row;
    if (!bound(words[0], row.soft) || !bound(words[1], row.hard)) return std::nullopt;
    return row;
  }
  return std::nullopt;
}

std::optional<std::string> status_field(std::string_view status_text, std::string_view name) {
  for (const auto line : split_lines(status_text)) {
    const auto colon = line.find(':');
    if (colon == std::string_view::npos || line.substr(0, colon) != name) continue;
    return std::string(trim(line.substr(colon + 1)));
  }
  return std::nullopt;
}

std::optional<interrupt_table> parse_interrupts(std::string_view text) {
  const auto lines = split_lines(text);
  if (lines.empty()) return std::nullopt;
  interrupt_table table;
  for (const auto word : split_words(lines[0])) {
    if (!word.starts_with("CPU")) return std::nullopt;
    const auto cpu = parse_number<int>(word.substr(3));
    if (!cpu) return std::nullopt;
    table.column_cpus.push_back(*cpu);
  }
  if (table.column_cpus.empty()) return std::nullopt;
  for (std::size_t i = 1; i < lines.size(); ++i) {
    const auto line = lines[i];
    const auto colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    interrupt_row row;
    row.irq = std::string(trim(line.substr(0, colon)));
    row.device = parse_number<unsigned>(row.irq).has_value();
    auto rest = line.substr(colon + 1);
    // Counts come first, one per column; some rows (ERR, MIS) have a single total.
    while (row.counts.size() < table.column_cpus.size()) {
      const auto words = split_words(rest);
      if (words.empty()) break;
      const auto count = parse_number<std::uint64_t>(words[0]);
      if (!count) break;
      row.counts.push_back(*count);
      rest.remove_prefix(static_cast<std::size_t>(words[0].data() + words[0].size() - rest.data()));
    }
    row.description = std::string(trim(rest));
    table.rows.push_back(std::move(row));
  }
  return table;
}

}  // namespace harness::doctor::detail
