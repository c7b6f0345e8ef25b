// The workload registry and the command-line selection of workloads (`GLOB[/ARG]`).
#include <fmt/format.h>

#include <charconv>
#include <stdexcept>

#include "harness/errors.hpp"
#include "harness/workload.hpp"

namespace harness {

workload::workload(std::string name, invoker fn, bool takes_arg, bool returns_count)
    : name_(std::move(name)),
      fn_(std::move(fn)),
      takes_arg_(takes_arg),
      returns_count_(returns_count) {}

workload& workload::description(std::string text) {
  description_ = std::move(text);
  return *this;
}

workload& workload::default_arg(std::int64_t arg) {
  if (!takes_arg_) {
    throw std::invalid_argument(
        fmt::format("harness: workload '{}' takes no argument but was given a default", name_));
  }
  default_arg_ = arg;
  check_default_in_range();
  return *this;
}

workload& workload::min_arg(std::int64_t lowest) {
  if (!takes_arg_) {
    throw std::invalid_argument(
        fmt::format("harness: workload '{}' takes no argument but was given a minimum", name_));
  }
  if (max_arg_ && lowest > *max_arg_) {
    throw std::invalid_argument(
        fmt::format("harness: workload '{}': minimum argument {} above its maximum {}", name_,
                    lowest, *max_arg_));
  }
  min_arg_ = lowest;
  check_default_in_range();
  return *this;
}

workload& workload::max_arg(std::int64_t highest) {
  if (!takes_arg_) {
    throw std::invalid_argument(
        fmt::format("harness: workload '{}' takes no argument but was given a maximum", name_));
  }
  if (min_arg_ && highest < *min_arg_) {
    throw std::invalid_argument(
        fmt::format("harness: workload '{}': maximum argument {} below its minimum {}", name_,
                    highest, *min_arg_));
  }
  max_arg_ = highest;
  check_default_in_range();
  return *this;
}

bool workload::accepts(std::int64_t arg) const noexcept {
  return (!min_arg_ || arg >= *min_arg_) && (!max_arg_ || arg <= *max_arg_);
}

std::string workload::accepted_args() const {
  if (min_arg_ && max_arg_) return fmt::format("an integer from {} to {}", *min_arg_, *max_arg_);
  if (min_arg_) return fmt::format("an integer of {} or more", *min_arg_);
  if (max_arg_) return fmt::format("an integer of {} or less", *max_arg_);
  return "an integer";
}

void workload::check_default_in_range() const {
  if (default_arg_ && !accepts(*default_arg_)) {
    throw std::invalid_argument(
        fmt::format("harness: workload '{}': its default argument {} is not {} as declared", name_,
                    *default_arg_, accepted_args()));
  }
}

workload& workload::by_default() {
  is_default_ = true;
  return *this;
}

workload& workload::compiled_with(workload_build build) {
  build_ = build;
  return *this;
}

std::string workload_instance::display_name() const {
  return arg ? fmt::format("{}/{}", def->name(), *arg) : def->name();
}

namespace {

bool name_character(char c) noexcept {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '-' || c == '.' || c == ':';
}

}  // namespace

workload& workload_registry::add(workload w) {
  const std::string& name = w.name();
  if (name.empty()) {
    throw std::invalid_argument(
        "harness: a workload was registered with an empty name; names are letters, digits and "
        "_ - . :");
  }
  for (const char c : name) {
    if (!name_character(c)) {
      throw std::invalid_argument(fmt::format(
          "harness: workload name '{}' holds '{}'; names are letters, digits and _ - . : only, so "
          "that -w NAME selects them from any shell",
          name, c));
    }
  }
  if (find(name) != nullptr)
    throw std::invalid_argument(fmt::format("harness: workload '{}' registered twice", name));
  return workloads_.emplace_back(std::move(w));
}

const workload* workload_registry::find(std::string_view name) const {
  for (const workload& w : workloads_) {
    if (w.name() == name) return &w;
  }
  return nullptr;
}

namespace {

std::string known_names(const workload_registry& registry) {
  std::string names;
  for (const workload& w : registry.all()) {
    if (!names.empty()) names += ", ";
    names += w.name();
  }
  return names.empty() ? "(none registered)" : names;
}

std::int64_t parse_arg(std::string_view pattern, std::string_view text) {
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc{} || end != text.data() + text.size()) {
    throw usage_error(fmt::format(
        "--workload: invalid argument '{}' in '{}': expected an integer, as in xor_loop/1000000",
        text, pattern));
  }
  return value;
}

}  // namespace

std::vector<workload_instance> workload_registry::select(
    const std::vector<std::string>& patterns) const {
  std::vector<workload_instance> selected;
  for (const std::string& pattern : patterns) {
    const auto slash = pattern.rfind('/');
    const std::string_view glob =
        std::string_view(pattern).substr(0, slash == std::string::npos ? pattern.size() : slash);
    std::optional<std::int64_t> arg;
    if (slash != std::string::npos)
      arg = parse_arg(pattern, std::string_view(pattern).substr(slash + 1));

    bool matched = false;
    for (const workload& w : workloads_) {
      if (!glob_match(glob, w.name())) continue;
      matched = true;
      if (arg && !w.takes_arg()) {
        throw usage_error(
            fmt::format("--workload: '{}' takes no argument, but '{}' gives it {}; use '{}' alone",
                        w.name(), pattern, *arg, w.name()));
      }
      if (arg && !w.accepts(*arg)) {
        throw usage_error(fmt::format("--workload: '{}': {} takes {}, not {}", pattern, w.name(),
                                      w.accepted_args(), *arg));
      }
      workload_instance instance{&w, arg ? arg : w.default_arg()};
      if (w.takes_arg() && !instance.arg) {
        throw usage_error(fmt::format(
            "--workload: '{}' needs an integer argument and has no default; give it as {}/ARG",
            w.name(), w.name()));
      }
      selected.push_back(instance);
    }
    if (!matched) {
      throw usage_error(fmt::format("--workload: '{}' matches no workload; known workloads: {}",
                                    pattern, known_names(*this)));
    }
  }
  return selected;
}

std::vector<workload_instance> workload_registry::default_selection() const {
  std::vector<std::string> names;
  for (const workload& w : workloads_) {
    if (w.is_default()) names.push_back(w.name());
  }
  // None marked: the first registered, so a user's program of many workloads starts with one.
  if (names.empty() && !workloads_.empty()) names.push_back(workloads_.front().name());
  return select(names);
}

workload_registry& global_registry() {
  // Function-local static: safe to use from other translation units' static initialisers.
  static workload_registry registry;
  return registry;
}

bool glob_match(std::string_view pattern, std::string_view text) noexcept {
  // Iterative matcher with one backtrack point for the last '*': linear for practical patterns.
  std::size_t p = 0, t = 0;
  std::size_t star = std::string_view::npos, star_text = 0;
  while (t < text.size()) {
    if (p < pattern.size() && (pattern[p] == '?' || pattern[p] == text[t])) {
      ++p;
      ++t;
    } else if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      star_text = t;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      t = ++star_text;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*')
    ++p;
  return p == pattern.size();
}

}  // namespace harness
