// The workload registry and the command-line selection of workloads (`GLOB[/ARG]`).
#include <fmt/format.h>

#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "base/check.hpp"
#include "harness/errors.hpp"
#include "harness/workload.hpp"

namespace harness {

namespace detail {

void fresh_inputs_missing(bool fresh, std::uint64_t reps, std::size_t made) noexcept {
  HARNESS_CHECK(fresh && reps <= made, "a with_fresh_input session was asked for {} call{} {}",
                reps, reps == 1 ? "" : "s",
                fresh ? fmt::format("with {} input{} made for it", made, made == 1 ? "" : "s")
                      : std::string("with no fresh input made since its last sample"));
  std::abort();  // the caller found a shortfall: the check above fails
}

}  // namespace detail

namespace {

template <class F>
F nonempty(F f, const std::string& name, const char* what) {
  if (!f)
    throw std::invalid_argument(fmt::format("harness: workload '{}': an empty {}", name, what));
  return f;
}

}  // namespace

workload::workload(std::string name, invoker fn, bool takes_arg, bool returns_count)
    : name_(std::move(name)),
      start_([fn = nonempty(std::move(fn), name_, "invoker")](
                 std::int64_t arg) -> std::unique_ptr<workload_session> {
        return std::make_unique<detail::invoker_session>(fn, arg);
      }),
      takes_arg_(takes_arg),
      returns_count_(returns_count) {}

workload::workload(std::string name, starter start, bool takes_arg, bool returns_count,
                   setup_kind setup)
    : name_(std::move(name)),
      start_(nonempty(std::move(start), name_, "starter")),
      setup_(setup),
      takes_arg_(takes_arg),
      returns_count_(returns_count) {}

std::optional<double> workload::items_for(std::int64_t arg) const {
  if (!items_) return std::nullopt;
  return items_(arg);
}

std::optional<double> workload::bytes_for(std::int64_t arg) const {
  if (!bytes_) return std::nullopt;
  return bytes_(arg);
}

std::uint64_t workload::run(std::int64_t arg, std::uint64_t reps) const {
  const std::unique_ptr<workload_session> session = start(arg);
  session->before_sample(reps);
  const std::uint64_t count = session->run(reps);
  session->finish();
  return count;
}

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

workload& workload::args(std::vector<std::int64_t> list) {
  if (!takes_arg_) {
    throw std::invalid_argument(
        fmt::format("harness: workload '{}' takes no argument but was given args()", name_));
  }
  if (list.empty() || list.size() > kMaxArguments) {
    throw std::invalid_argument(
        fmt::format("harness: workload '{}': args() takes 1 to {} arguments, not {}", name_,
                    kMaxArguments, list.size()));
  }
  default_args_ = std::move(list);
  check_default_in_range();
  return *this;
}

workload& workload::range(std::int64_t lo, std::int64_t hi, std::int64_t factor) {
  // Only the range's own refusal is said as range()'s; args() names the workload itself.
  std::vector<std::int64_t> values;
  try {
    values = expand_range(lo, hi, factor, true);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(
        fmt::format("harness: workload '{}': range(): {}", name_, e.what()));
  }
  return args(std::move(values));
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

workload& workload::min_sample_time(std::chrono::nanoseconds shortest) {
  if (shortest <= std::chrono::nanoseconds::zero() || shortest > kMaxMinSampleTime) {
    throw std::invalid_argument(
        fmt::format("harness: workload '{}': min_sample_time() takes a duration above 0 and at "
                    "most 10 s, not {} ns",
                    name_, shortest.count()));
  }
  min_sample_time_ = shortest;
  return *this;
}

workload& workload::min_batch(std::uint64_t calls) {
  if (calls == 0 || calls > kMaxMinBatch) {
    throw std::invalid_argument(
        fmt::format("harness: workload '{}': min_batch() takes a count of calls from 1 to {}, "
                    "not {}",
                    name_, kMaxMinBatch, calls));
  }
  min_batch_ = [n = static_cast<std::int64_t>(calls)](std::int64_t) { return n; };
  return *this;
}

std::optional<std::uint64_t> workload::min_batch_for(std::int64_t arg) const {
  if (!min_batch_) return std::nullopt;
  const std::int64_t calls = min_batch_(arg);
  if (calls < 0 || static_cast<std::uint64_t>(calls) > kMaxMinBatch) {
    throw std::invalid_argument(
        fmt::format("harness: workload '{}': min_batch() gave {} calls for the argument {}; it "
                    "takes a count from 0 (no minimum) to {}",
                    name_, calls, arg, kMaxMinBatch));
  }
  if (calls == 0) return std::nullopt;
  return static_cast<std::uint64_t>(calls);
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
  for (const std::int64_t arg : default_args_) {
    if (!accepts(arg)) {
      throw std::invalid_argument(
          fmt::format("harness: workload '{}': its default sweep holds {}, which is not {} as "
                      "declared",
                      name_, arg, accepted_args()));
    }
  }
}

std::vector<std::int64_t> expand_range(std::int64_t lo, std::int64_t hi, std::int64_t factor,
                                       bool geometric) {
  if (hi < lo) {
    throw std::invalid_argument(fmt::format("{}..{} is empty: {} is below {}", lo, hi, hi, lo));
  }
  if (geometric && factor < 2) {
    throw std::invalid_argument(fmt::format("the factor must be 2 or more, not {}", factor));
  }
  if (geometric && lo <= 0) {
    throw std::invalid_argument(
        fmt::format("a geometric range starts above 0, not at {} (use :+STEP from there)", lo));
  }
  if (!geometric && factor < 1) {
    throw std::invalid_argument(fmt::format("the step must be 1 or more, not {}", factor));
  }
  std::vector<std::int64_t> values;
  std::int64_t v = lo;
  while (v < hi && values.size() <= kMaxArguments) {
    values.push_back(v);
    // Stop before overflowing: the next value would pass hi anyway.
    if (geometric ? v > hi / factor : v > hi - factor) break;
    v = geometric ? v * factor : v + factor;
  }
  values.push_back(hi);
  if (values.size() > kMaxArguments) {
    throw std::invalid_argument(
        fmt::format("{}..{} expands to more than {} arguments; take a "
                    "larger {}",
                    lo, hi, kMaxArguments, geometric ? "factor" : "step"));
  }
  return values;
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
        "--workload: invalid argument '{}' in '{}': expected an integer, as in xor_loop/1000000, "
        "a list as in xor_loop/1000,10000, or a range as in xor_loop/1000..1000000:x10",
        text, pattern));
  }
  return value;
}

// ARGS of GLOB/ARGS: one integer, a list, or a range (workload.hpp).
std::vector<std::int64_t> parse_args(std::string_view pattern, std::string_view text) {
  if (const auto dots = text.find(".."); dots != std::string_view::npos) {
    const auto colon = text.find(':', dots);
    if (colon == std::string_view::npos || colon + 1 >= text.size() ||
        (text[colon + 1] != 'x' && text[colon + 1] != '+')) {
      throw usage_error(fmt::format(
          "--workload: invalid range '{}' in '{}': expected LO..HI:xFACTOR (geometric, as in "
          "1000..1000000:x10) or LO..HI:+STEP (as in 0..64:+16)",
          text, pattern));
    }
    const std::int64_t lo = parse_arg(pattern, text.substr(0, dots));
    const std::int64_t hi = parse_arg(pattern, text.substr(dots + 2, colon - dots - 2));
    const std::int64_t step = parse_arg(pattern, text.substr(colon + 2));
    try {
      return expand_range(lo, hi, step, text[colon + 1] == 'x');
    } catch (const std::invalid_argument& e) {
      throw usage_error(
          fmt::format("--workload: invalid range '{}' in '{}': {}", text, pattern, e.what()));
    }
  }
  std::vector<std::int64_t> values;
  std::size_t begin = 0;
  while (true) {
    const auto comma = text.find(',', begin);
    values.push_back(parse_arg(
        pattern, text.substr(begin, comma == std::string_view::npos ? std::string_view::npos
                                                                    : comma - begin)));
    if (comma == std::string_view::npos) break;
    begin = comma + 1;
    if (values.size() >= kMaxArguments) {
      throw usage_error(
          fmt::format("--workload: '{}' lists more than {} arguments", pattern, kMaxArguments));
    }
  }
  return values;
}

}  // namespace

std::vector<workload_instance> workload_registry::select(const std::vector<std::string>& patterns,
                                                         std::vector<std::string>* repeated) const {
  std::vector<workload_instance> selected;
  for (const std::string& pattern : patterns) {
    const auto slash = pattern.rfind('/');
    const std::string_view glob =
        std::string_view(pattern).substr(0, slash == std::string::npos ? pattern.size() : slash);
    std::vector<std::int64_t> args;
    if (slash != std::string::npos)
      args = parse_args(pattern, std::string_view(pattern).substr(slash + 1));

    bool matched = false;
    for (const workload& w : workloads_) {
      if (!glob_match(glob, w.name())) continue;
      matched = true;
      if (!args.empty() && !w.takes_arg()) {
        throw usage_error(
            fmt::format("--workload: '{}' takes no argument, but '{}' gives it {}; use '{}' alone",
                        w.name(), pattern, pattern.substr(slash + 1), w.name()));
      }
      for (const std::int64_t arg : args) {
        if (!w.accepts(arg)) {
          throw usage_error(fmt::format("--workload: '{}': {} takes {}, not {}", pattern, w.name(),
                                        w.accepted_args(), arg));
        }
      }
      if (args.empty() && !w.default_args().empty()) {
        for (const std::int64_t arg : w.default_args())
          selected.push_back({&w, arg});
        continue;
      }
      if (w.takes_arg() && args.empty() && !w.default_arg()) {
        throw usage_error(fmt::format(
            "--workload: '{}' needs an integer argument and has no default; give it as {}/ARG",
            w.name(), w.name()));
      }
      if (args.empty()) {
        selected.push_back({&w, w.default_arg()});
      } else {
        for (const std::int64_t arg : args)
          selected.push_back({&w, arg});
      }
    }
    if (!matched) {
      throw usage_error(fmt::format("--workload: '{}' matches no workload; known workloads: {}",
                                    pattern, known_names(*this)));
    }
  }
  // Each instance once, where it was first selected.
  std::vector<workload_instance> once;
  std::set<std::pair<const workload*, std::optional<std::int64_t>>> seen;
  std::set<std::string> said;
  for (const workload_instance& w : selected) {
    if (seen.emplace(w.def, w.arg).second) {
      // A min_batch() function that gives a count out of range for this argument: refused before
      // any run, naming it.
      try {
        w.def->min_batch_for(w.arg.value_or(0));
      } catch (const std::invalid_argument& e) {
        throw usage_error(fmt::format("--workload: '{}': {}", w.display_name(), e.what()));
      }
      once.push_back(w);
    } else if (repeated != nullptr && said.insert(w.display_name()).second) {
      repeated->push_back(w.display_name());
    }
  }
  return once;
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
