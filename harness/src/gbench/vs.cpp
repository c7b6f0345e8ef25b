// `harness gbench --vs`: the listings, then each benchmark's rounds of paired invocations
// (vs.hpp).
#include "gbench/vs.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <system_error>

#include "base/numbers.hpp"
#include "harness/clock_survey.hpp"
#include "harness/duration.hpp"
#include "harness/log.hpp"
#include "harness/runner.hpp"

namespace harness::gbench {
namespace {

// The side of a round: which binary, how the messages and files name it.
struct side {
  const std::filesystem::path& binary;
  std::string_view letter;  // "A", "B"
  std::string_view stem;    // "old", "new": the files' names
};

class vs_run {
 public:
  vs_run(const vs_settings& s, platform::process_launcher& launcher)
      : s_(s),
        launcher_(launcher),
        how_{s.options.cpu, s.options.priority},
        now_(s.options.now_ns ? s.options.now_ns : std::function<std::uint64_t()>(steady_now_ns)),
        old_{s.old_binary, "A", "old"},
        new_{s.new_binary, "B", "new"} {}

  vs_outcome run() {
    try {
      const std::optional<std::vector<std::string>> old_list = list(old_);
      if (!old_list) return std::move(o_);
      const std::optional<std::vector<std::string>> new_list = list(new_);
      if (!new_list) return std::move(o_);
      std::vector<std::string> common;
      for (const std::string& name : *old_list) {
        const bool both = std::find(new_list->begin(), new_list->end(), name) != new_list->end();
        (both ? common : o_.only_in_old).push_back(name);
      }
      for (const std::string& name : *new_list) {
        if (std::find(old_list->begin(), old_list->end(), name) == old_list->end())
          o_.only_in_new.push_back(name);
      }
      if (common.empty()) {
        o_.failure = fmt::format(
            "'{}' and '{}' list no benchmark in common ({} and {} benchmarks{}): nothing to "
            "compare",
            s_.old_binary.string(), s_.new_binary.string(), old_list->size(), new_list->size(),
            s_.args.empty() ? "" : " with the arguments given");
        return std::move(o_);
      }
      for (std::size_t i = 0; i < common.size() && o_.stop_signal == 0; ++i) {
        o_.benchmarks.emplace_back();
        o_.benchmarks.back().name = common[i];
        run_benchmark(o_.benchmarks.back(), i, common.size());
      }
    } catch (const binary_failed& e) {
      o_.failure = e.what();
    }
    // Also the benchmark a failure cut short: its estimate from the rounds it had.
    for (ab_benchmark& b : o_.benchmarks)
      b.pair.estimate = estimate_rounds(b.pair.rounds, s_.options.tuning.slowdown_factor);
    return std::move(o_);
  }

 private:
  // The benchmarks `side` lists; nullopt when a stop came first.
  std::optional<std::vector<std::string>> list(const side& x) {
    std::vector<std::string> args = s_.args;
    args.emplace_back("--benchmark_list_tests=true");
    const platform::child_spec spec{x.binary, args,
                                    s_.work_dir / fmt::format("list-{}.out", x.stem),
                                    s_.work_dir / fmt::format("list-{}.err", x.stem)};
    if (s_.progress) s_.progress(fmt::format("listing the benchmarks of {}", x.binary.string()));
    ++o_.invocations;
    // Not prepared: it measures nothing.
    const std::optional<platform::child_exit> exit =
        run_child(launcher_, spec, nullptr, nullptr, s_.poll_interval,
                  fmt::format("the listing of {}", x.letter), o_.stop_signal);
    if (!exit) return std::nullopt;
    const std::string what =
        fmt::format("'{}' (--vs {}, listing its benchmarks with --benchmark_list_tests)",
                    x.binary.string(), x.letter);
    if (!exit->ok())
      throw_binary_failed(fmt::format("{} {}", what, exit->describe()), spec.err_file);
    bool found = false;
    return parse_list(read_all(spec.out_file, found));
  }

  // The lowest real_time per iteration of one invocation's repetitions of `b`, ns; nullopt when
  // a stop came first, or when the binary reported an error for it (b.error then says which).
  std::optional<double> invoke(const side& x, ab_benchmark& b, std::size_t round) {
    const std::filesystem::path json_file = s_.work_dir / fmt::format("{}.json", x.stem);
    // A binary that writes nothing must not be read as the last invocation's figures.
    std::error_code ec;
    std::filesystem::remove(json_file, ec);
    const platform::child_spec spec{x.binary, vs_invocation_args(s_, b.name, json_file),
                                    s_.work_dir / fmt::format("{}.out", x.stem),
                                    s_.work_dir / fmt::format("{}.err", x.stem)};
    const std::string label =
        fmt::format("{}: {} invocation {} ({})", b.name, x.letter, round + 1, x.binary.string());
    preparation_report p;
    ++o_.invocations;
    const std::optional<platform::child_exit> exit =
        run_child(launcher_, spec, &how_, &p, s_.poll_interval, label, o_.stop_signal);
    keep_preparation(std::move(p), label);
    if (!exit) return std::nullopt;
    const output out = read_invocation(*exit, json_file, spec.err_file,
                                       fmt::format("'{}' (--vs {}, {} invocation {})",
                                                   x.binary.string(), x.letter, b.name, round + 1));
    if (out.library_build_type == "debug") o_.debug_library = true;
    std::optional<double> lowest;
    for (const repetition& rep : out.repetitions) {
      if (rep.error) {
        b.error = fmt::format("{} ('{}') reported an error in invocation {} (SkipWithError): {}",
                              x.letter, x.binary.string(), round + 1, *rep.error);
        return std::nullopt;
      }
      lowest = lowest ? std::min(*lowest, rep.real_ns) : rep.real_ns;
    }
    return lowest;
  }

  // The first preparation whole; of the later ones, each refusal not met before.
  void keep_preparation(preparation_report p, const std::string& label) {
    if (!o_.preparation) {
      o_.preparation = std::move(p);
      return;
    }
    for (platform::step_result& step : p.steps) {
      if (step.applied) continue;
      const bool known = std::any_of(o_.preparation->steps.begin(), o_.preparation->steps.end(),
                                     [&](const platform::step_result& k) {
                                       return !k.applied && k.reason == step.reason &&
                                              k.action.starts_with(step.action);
                                     });
      if (known) continue;
      step.action = fmt::format("{} ({})", step.action, label);
      o_.preparation->steps.push_back(std::move(step));
    }
  }

  void run_benchmark(ab_benchmark& b, std::size_t index, std::size_t count) {
    ab_pair& pair = b.pair;
    const auto facts = [&](const side& x) {
      return ab_side_facts{.workload = b.name,
                           .build = x.binary.string(),
                           .clock = std::string(reported_nanoseconds().name()),
                           .ticks_per_second = 1e9,
                           .clock_step = 1,
                           .granularity = 0,
                           .iterations_per_call = 0};
    };
    pair.a = facts(old_);
    pair.b = facts(new_);
    pair.batch = 1;
    pair.samples_per_side = s_.repetitions;
    pair.samples_per_stretch = s_.repetitions;  // an invocation is one side's stretch
    const ab_settings& tuning = s_.options.tuning;
    const std::uint64_t begin = now_();
    const auto max_ns = static_cast<std::uint64_t>(s_.options.max_time.count());
    const auto seconds = [&] { return static_cast<double>(now_() - begin) / 1e9; };
    ab_stop_rule rule(tuning, s_.options.target);
    for (;;) {
      if (stop_signal() != 0) {
        o_.stop_signal = stop_signal();
        pair.stopped_by = ab_stop::interrupted;
        break;
      }
      if (pair.rounds.size() >= tuning.max_rounds) {
        pair.stopped_by = ab_stop::max_rounds;
        break;
      }
      if (now_() - begin >= max_ns) {
        pair.stopped_by = ab_stop::max_time;
        break;
      }
      const std::size_t round = pair.rounds.size();
      if (s_.progress) {
        std::string text =
            fmt::format("{} ({} of {}): round {}, {} of {}", b.name, index + 1, count, round + 1,
                        format_seconds(seconds(), kSpanFormat),
                        format_seconds(static_cast<double>(max_ns) / 1e9, kSpanFormat));
        if (pair.last_half_width)
          text += fmt::format(", half-width {}", percent_text(*pair.last_half_width, 3));
        s_.progress(text);
      }
      // ABBA: the order of each round alternates, so the order within the whole run does too.
      ab_round r;
      r.a_first = a_goes_first(ab_order::alternate, 0, round);
      const side& first = r.a_first ? old_ : new_;
      const side& second = r.a_first ? new_ : old_;
      const std::optional<double> m1 = invoke(first, b, round);
      const std::optional<double> m2 = m1 ? invoke(second, b, round) : std::nullopt;
      if (!m2) {
        // A stop, or an error reported for the benchmark: half a round is no round.
        pair.stopped_by = b.error ? ab_stop::failed : ab_stop::interrupted;
        break;
      }
      r.a_min = r.a_first ? *m1 : *m2;
      r.b_min = r.a_first ? *m2 : *m1;
      pair.rounds.push_back(r);
      if (rule.target_reached(pair)) {
        pair.stopped_by = ab_stop::target;
        break;
      }
    }
    pair.seconds = seconds();
  }

  const vs_settings& s_;
  platform::process_launcher& launcher_;
  const child_preparation how_;
  const std::function<std::uint64_t()> now_;
  const side old_;
  const side new_;
  vs_outcome o_;
};

}  // namespace

ab_options default_vs_options() {
  ab_options o;
  o.warmup = std::chrono::nanoseconds(0);
  // Invocations alternate, OLD NEW, NEW OLD, ... (run() schedules them so): each is a fresh
  // process, with nothing of the one before in its pages to balance.
  o.order = ab_order::alternate;
  o.max_time = vs_defaults::max_time;
  o.target = vs_defaults::target;
  o.tuning.min_rounds = vs_defaults::min_rounds;
  o.tuning.check_every = vs_defaults::check_every;
  return o;
}

std::vector<std::string> parse_list(std::string_view text) {
  std::vector<std::string> names;
  std::istringstream in{std::string(text)};
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();  // a Windows binary's CRLF
    if (!line.empty()) names.push_back(std::move(line));
  }
  return names;
}

std::string exact_filter(std::string_view name) {
  std::string filter = "^";
  for (const char c : name) {
    if (std::string_view(".[]()*+?{}|^$\\").find(c) != std::string_view::npos) filter += '\\';
    filter += c;
  }
  return filter + "$";
}

std::vector<std::string> vs_invocation_args(const vs_settings& s, std::string_view benchmark,
                                            const std::filesystem::path& json_file) {
  std::vector<std::string> args = s.args;
  args.push_back(fmt::format("--benchmark_repetitions={}", s.repetitions));
  args.push_back("--benchmark_out=" + json_file.string());
  args.push_back("--benchmark_out_format=json");
  args.push_back("--benchmark_min_time=" + seconds_flag(s.min_time));
  if (s.warmup.count() > 0) args.push_back("--benchmark_min_warmup_time=" + seconds_flag(s.warmup));
  args.push_back("--benchmark_filter=" + exact_filter(benchmark));
  return args;
}

vs_outcome run_vs(const vs_settings& s, platform::process_launcher& launcher) {
  return vs_run(s, launcher).run();
}

}  // namespace harness::gbench
