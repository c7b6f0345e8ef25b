// `harness run`'s history: read before the run, added to after it (history.hpp).
#include "run_history.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <ostream>
#include <system_error>
#include <utility>

#include "clocks/tsc.hpp"
#include "harness/errors.hpp"
#include "harness/platform.hpp"
#include "output_file.hpp"

namespace harness::cli {

namespace {

// The file read, with the machine's key and the build's fingerprint; nullptr when none is kept.
std::shared_ptr<history_plan> plan_at(bool no_history, const std::optional<std::string>& named,
                                      std::string machine,
                                      const std::filesystem::path& build_file) {
  if (no_history && named) {
    throw usage_error("--history and --no-history contradict each other: give one of them");
  }
  if (no_history) return nullptr;
  auto plan = std::make_shared<history_plan>();
  plan->named = named.has_value();
  if (named && named->empty()) {
    throw usage_error("--history: the path is empty; give a file, or --no-history");
  }
  plan->path = named ? std::filesystem::path(*named) : default_history_path();
  if (plan->path.empty()) return nullptr;
  if (plan->named) {
    // Like -o: a file that cannot be written is found before the run.
    const auto parent = plan->path.parent_path();
    std::error_code ec;
    if (!parent.empty() && !std::filesystem::is_directory(parent, ec)) {
      throw usage_error(
          fmt::format("--history: the folder of '{}' does not exist", plan->path.string()));
    }
  }
  plan->records = run_history::load(plan->path);
  plan->machine = std::move(machine);
  plan->build = file_fingerprint(build_file);
  plan->at = run_history::now();
  return plan;
}

}  // namespace

std::shared_ptr<history_plan> plan_history(bool no_history, const std::optional<std::string>& named,
                                           const clock_source& clock,
                                           const sampler_settings& tuning) {
  return plan_at(no_history, named,
                 machine_key(clocks::detect_tsc_features().brand, clock.name(),
                             clock.ticks_per_second(), tuning.reference_iterations),
                 platform::executable_path());
}

std::shared_ptr<history_plan> plan_gbench_history(bool no_history,
                                                  const std::optional<std::string>& named,
                                                  const std::filesystem::path& binary,
                                                  std::string_view setup) {
  auto plan = plan_at(
      no_history, named,
      machine_key(clocks::detect_tsc_features().brand, "Google Benchmark real_time in ns"), binary);
  if (plan && !plan->build.empty()) plan->build = fmt::format("{} ({})", plan->build, setup);
  return plan;
}

// What the history knows, for the runner; the floors only when the build could be identified.
floor_memory memory_of(const std::shared_ptr<history_plan>& plan) {
  floor_memory memory;
  if (!plan) return memory;
  if (const auto fastest = plan->records.fastest_reference(plan->machine, plan->at)) {
    memory.fastest_reference = fastest->reference_ticks;
    memory.fastest_reference_remembered = true;
  }
  if (!plan->build.empty()) {
    memory.floor_of = [plan](std::string_view name, std::uint64_t batch) -> std::optional<double> {
      const auto record = plan->records.floor(plan->machine, plan->build, name, batch, plan->at);
      return record ? std::optional<double>(record->floor) : std::nullopt;
    };
  }
  return memory;
}

// The fastest reference-loop run of a workload's phases and warmup, ticks; 0 when none ran.
std::uint64_t fastest_reference_of(const workload_result& r) {
  std::uint64_t best = r.warmup.reference_best;
  for (const auto* phase : {&r.baseline, &r.prepared}) {
    if (*phase && (*phase)->reference_best > 0)
      best = best == 0 ? (*phase)->reference_best : std::min(best, (*phase)->reference_best);
  }
  return best;
}

// Adds what the run saw to the history and writes it whole. A history that cannot be written is
// a shortfall of the machine, not of the run: a warning, and the run's exit code stands.
void save_history(history_plan& plan, const run_report& report, std::ostream& err) {
  // Seen now, at the end: a record's hour runs from when the run last saw it, and a long run
  // (a gbench suite can take hours) would otherwise leave records that are already old.
  const run_history::moment at = run_history::now();
  for (const workload_result& r : report.results) {
    if (const std::uint64_t best = fastest_reference_of(r); best > 0)
      plan.records.note_reference(plan.machine, best, at);
    // Every prepared phase's agreed floor, confirmed or not: noise only adds time, so the lowest
    // level a phase reached twice is the best evidence of what this build can do here again.
    if (!plan.build.empty() && r.prepared && r.prepared->floor) {
      if (const auto agreed = agreed_floor(*r.prepared->floor))
        plan.records.note_floor(plan.machine, plan.build, r.name, r.prepared->batch, *agreed, at);
    }
  }
  try {
    std::error_code ec;
    if (!plan.named) std::filesystem::create_directories(plan.path.parent_path(), ec);
    if (const std::string kept = write_output_file(plan.path, plan.records.to_json());
        !kept.empty()) {
      fmt::print(err, "harness: warning: the history: {}\n", kept);
    }
  } catch (const output_error& e) {
    fmt::print(err, "harness: warning: the history was not saved: {}\n", e.what());
  }
}

history_use use_of(const std::shared_ptr<history_plan>& plan, const floor_memory& memory) {
  history_use use;
  if (!plan) return use;
  use.path = plan->path.string();
  use.machine = plan->machine;
  use.build = plan->build;
  if (memory.fastest_reference_remembered) use.fastest_reference = memory.fastest_reference;
  return use;
}

}  // namespace harness::cli
