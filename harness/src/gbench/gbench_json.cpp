// `harness gbench`: reading a Google Benchmark JSON file, and turning its repetitions into the
// harness's raw results (gbench.hpp).
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <string_view>

#include "gbench/gbench.hpp"
#include "harness/errors.hpp"
#include "harness/floor.hpp"

namespace harness::gbench {
namespace {

using json = nlohmann::json;

// Nanoseconds per `time_unit` as Google Benchmark writes it.
double ns_per_unit(const std::string& unit) {
  if (unit == "ns") return 1;
  if (unit == "us") return 1e3;
  if (unit == "ms") return 1e6;
  if (unit == "s") return 1e9;
  throw gbench_output_error(fmt::format("unknown time_unit '{}' (expected ns, us, ms or s)", unit));
}

// The keys of a row that are not user counters (Google Benchmark 1.5 to 1.9).
bool is_row_key(std::string_view key) {
  static constexpr std::array<std::string_view, 22> kKeys{"name",
                                                          "family_index",
                                                          "per_family_instance_index",
                                                          "run_name",
                                                          "run_type",
                                                          "repetitions",
                                                          "repetition_index",
                                                          "threads",
                                                          "iterations",
                                                          "real_time",
                                                          "cpu_time",
                                                          "time_unit",
                                                          "error_occurred",
                                                          "error_message",
                                                          "aggregate_name",
                                                          "aggregate_unit",
                                                          "label",
                                                          "big_o",
                                                          "rms",
                                                          "complexity",
                                                          "skipped",
                                                          "items_per_second"};
  return key == "bytes_per_second" || std::find(kKeys.begin(), kKeys.end(), key) != kKeys.end();
}

double number(const json& row, const char* key, const std::string& name) {
  const auto it = row.find(key);
  if (it == row.end() || !it->is_number()) {
    throw gbench_output_error(fmt::format("benchmark '{}': no number '{}'", name, key));
  }
  return it->get<double>();
}

}  // namespace

output parse_output(std::string_view text) {
  json doc;
  try {
    doc = json::parse(text.begin(), text.end());
  } catch (const json::exception& e) {
    // parse_error, and out_of_range for a number too large for a double (1e400).
    throw gbench_output_error(fmt::format("not JSON: {}", e.what()));
  }
  if (!doc.is_object() || !doc.contains("benchmarks") || !doc["benchmarks"].is_array()) {
    throw gbench_output_error("no \"benchmarks\" array: not Google Benchmark's JSON format");
  }
  output out;
  if (const auto c = doc.find("context"); c != doc.end() && c->is_object()) {
    if (const auto b = c->find("library_build_type"); b != c->end() && b->is_string())
      out.library_build_type = b->get<std::string>();
  }
  for (const json& row : doc["benchmarks"]) {
    if (!row.is_object()) throw gbench_output_error("a benchmark row that is not an object");
    const auto name_it = row.find("name");
    if (name_it == row.end() || !name_it->is_string())
      throw gbench_output_error("a row without a name");
    std::string name = name_it->get<std::string>();
    // Aggregates (mean, median, stddev, cv, complexity) are Google Benchmark's own statistics
    // over the repetitions: the harness computes its own from the repetitions themselves.
    if (const auto t = row.find("run_type"); t != row.end() && *t != "iteration") continue;
    if (row.contains("aggregate_name")) continue;
    if (const auto r = row.find("run_name"); r != row.end() && r->is_string())
      name = r->get<std::string>();
    repetition rep;
    rep.name = name;
    const auto err = row.find("error_occurred");
    if (err != row.end() && err->is_boolean() && err->get<bool>()) {
      const auto m = row.find("error_message");
      rep.error = m != row.end() && m->is_string() ? m->get<std::string>() : "(no message)";
      out.repetitions.push_back(std::move(rep));
      continue;
    }
    const auto unit_it = row.find("time_unit");
    const double scale =
        ns_per_unit(unit_it != row.end() && unit_it->is_string() ? unit_it->get<std::string>()
                                                                 : std::string("ns"));
    const double iterations = number(row, "iterations", name);
    // Google Benchmark counts iterations in an int64; 2^63 and beyond (or what is not a number)
    // would not convert to a count.
    if (!(iterations >= 1) || !(iterations < 0x1p63)) {
      throw gbench_output_error(fmt::format(
          "benchmark '{}': iterations {} (expected 1 to 9223372036854775807)", name, iterations));
    }
    rep.iterations = static_cast<std::uint64_t>(iterations);
    rep.real_ns = number(row, "real_time", name) * scale;
    rep.cpu_ns = number(row, "cpu_time", name) * scale;
    if (!std::isfinite(rep.real_ns) || rep.real_ns < 0) {
      throw gbench_output_error(
          fmt::format("benchmark '{}': real_time {} is not a time", name, rep.real_ns / scale));
    }
    for (const auto& [key, value] : row.items()) {
      if (!value.is_number()) continue;
      if (key == "items_per_second") {
        rep.items_per_second = value.get<double>();
      } else if (key == "bytes_per_second") {
        rep.bytes_per_second = value.get<double>();
      } else if (!is_row_key(key)) {
        rep.counters.emplace_back(key, value.get<double>());
      }
    }
    out.repetitions.push_back(std::move(rep));
  }
  return out;
}

void check_binary_args(const std::vector<std::string>& args) {
  struct refused {
    std::string_view flag;
    std::string_view why;
  };
  static constexpr std::array<refused, 9> kRefused{{
      {"--benchmark_repetitions",
       "harness gbench sets it itself: -n N gives the repetitions of each phase, --blocks B the "
       "invocations they are spread over"},
      {"--benchmark_out", "harness gbench sets it itself: -o FILE writes the harness's report"},
      {"--benchmark_out_format",
       "harness gbench sets it itself: -o FILE writes the harness's report, in the format of its "
       "extension or --format"},
      {"--benchmark_format",
       "harness gbench reads the binary's JSON file, not its stdout: --format sets the format of "
       "the harness's report"},
      {"--benchmark_min_time", "harness gbench sets it itself: give --min-time D"},
      {"--benchmark_min_warmup_time",
       "harness gbench sets it itself for the prepared invocations: give --warmup D"},
      {"--benchmark_report_aggregates_only",
       "it leaves the repetitions out of the JSON file, and harness gbench needs each one (it "
       "computes its own statistics)"},
      {"--benchmark_list_tests",
       "it lists the benchmarks instead of running them: run the binary alone for the list"},
      {"--benchmark_dry_run", "it runs each benchmark without measuring it: nothing to report"},
  }};
  for (const std::string& arg : args) {
    const std::string_view flag = std::string_view(arg).substr(0, arg.find('='));
    for (const refused& r : kRefused) {
      if (flag == r.flag)
        throw usage_error(fmt::format("gbench: '{}' is refused: {}; drop it", arg, r.why));
    }
  }
}

void add_invocation(std::vector<workload_result>& results, const output& out, phase_kind phase,
                    double start_seconds) {
  // The rows of one benchmark in this invocation form one block of its phase.
  std::vector<std::size_t> touched;
  for (const repetition& rep : out.repetitions) {
    auto it = std::find_if(results.begin(), results.end(),
                           [&](const workload_result& r) { return r.name == rep.name; });
    if (it == results.end()) {
      workload_result fresh;
      fresh.name = rep.name;
      fresh.batch = 1;
      results.push_back(std::move(fresh));
      it = results.end() - 1;
    }
    workload_result& r = *it;
    if (r.failed()) continue;
    std::optional<phase_result>& slot = phase == phase_kind::baseline ? r.baseline : r.prepared;
    const auto index = static_cast<std::size_t>(it - results.begin());
    const bool new_block = std::find(touched.begin(), touched.end(), index) == touched.end();
    if (new_block) touched.push_back(index);
    if (rep.error) {
      // Where: the sample it would have been, in the block this invocation is (a phase that took
      // no sample is not made).
      const std::size_t taken = slot ? slot->values.size() : 0;
      const std::size_t blocks = slot ? slot->blocks.size() : 0;
      r.failure = workload_failure{
          .message =
              fmt::format("Google Benchmark reported an error (SkipWithError): {}", *rep.error),
          .threw = false,
          .stage = phase == phase_kind::baseline ? run_stage::baseline : run_stage::prepared,
          .sample = taken + 1,
          .block = blocks + (new_block || blocks == 0 ? 1 : 0),
          .calls_per_sample = std::max<std::uint64_t>(rep.iterations, 1)};
      continue;
    }
    if (!slot) {
      slot.emplace();
      slot->kind = phase;
      slot->batch = 1;
    }
    phase_result& p = *slot;
    if (new_block || p.blocks.empty()) p.blocks.push_back({p.values.size(), 0, start_seconds, 0});
    p.values.push_back(rep.real_ns);
    p.host_slowdown.push_back(false);
    p.blocks.back().count += 1;
    p.sample_iterations.push_back(rep.iterations);
    p.sample_counters.push_back(rep.counters);
    // Items and bytes one iteration processes. Google Benchmark divides its rate counters by the
    // CPU time, or by the real (manual) time for benchmarks named .../real_time (.../manual_time).
    const bool real_based = rep.name.find("/real_time") != std::string::npos ||
                            rep.name.find("/manual_time") != std::string::npos;
    const double seconds = (real_based ? rep.real_ns : rep.cpu_ns) / 1e9;
    if (rep.items_per_second && !r.items_per_call)
      r.items_per_call = *rep.items_per_second * seconds;
    if (rep.bytes_per_second && !r.bytes_per_call)
      r.bytes_per_call = *rep.bytes_per_second * seconds;
    if (r.iterations_per_call == 0) r.iterations_per_call = 1;
  }
}

void finish_phase(std::vector<workload_result>& results, phase_kind phase, std::size_t requested,
                  double elapsed_seconds, bool interrupted, const floor_settings& settings,
                  const floor_memory& memory) {
  for (workload_result& r : results) {
    std::optional<phase_result>& slot = phase == phase_kind::baseline ? r.baseline : r.prepared;
    if (interrupted) r.interrupted = true;
    if (!slot) continue;
    phase_result& p = *slot;
    p.requested = requested;
    p.elapsed_seconds = elapsed_seconds;
    p.stopped_by = interrupted ? stop_reason::interrupted : stop_reason::count;
    if (p.blocks.empty()) continue;
    std::vector<block_view> views;
    for (const sample_block& b : p.blocks) {
      const auto first = p.values.begin() + static_cast<std::ptrdiff_t>(b.first);
      views.push_back({*std::min_element(first, first + static_cast<std::ptrdiff_t>(b.count)),
                       b.start_seconds, 0, std::nullopt});
    }
    floor_context context;  // no reference loop runs: the speed check does not apply
    if (phase == phase_kind::prepared && r.baseline && r.baseline->floor)
      context.baseline_floor = r.baseline->floor->floor;
    // As `harness run`: the prepared floor must agree with the one earlier runs of this binary
    // showed here, and the binary's first run here is not confirmed.
    if (phase == phase_kind::prepared && memory.floor_of) {
      context.remembers_floors = true;
      context.remembered_floor = memory.floor_of(r.name, p.batch);
      context.remembered_cpu = memory.floors_cpu;
    }
    p.floor = check_floor(views, context, settings);
    // gbench has no --max-time: more blocks come from more invocations.
    if (!p.floor->confirmed && p.floor->recommendation.find("--max-time") != std::string::npos) {
      p.floor->recommendation =
          "rerun when the host is quieter, or spread more repetitions over more invocations (-n, "
          "--blocks); compare builds only by confirmed floors";
    }
  }
}

std::vector<std::size_t> block_sizes(std::size_t repetitions, std::size_t blocks) {
  const std::size_t n = std::max<std::size_t>(1, std::min(repetitions, blocks));
  std::vector<std::size_t> sizes(n, repetitions / n);
  for (std::size_t i = 0; i < repetitions % n; ++i)
    ++sizes[i];
  return sizes;
}

}  // namespace harness::gbench
