// `harness run`'s history: read before the run, added to after it (history.hpp).
#include "run_history.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <ctime>
#include <ostream>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "cli/history_file.hpp"
#include "cli/output_file.hpp"
#include "clocks/tsc.hpp"
#include "harness/errors.hpp"
#include "harness/platform.hpp"
#include "platform/files.hpp"
#include "store/store.hpp"

namespace harness::cli {

namespace {

// The wall clock, read here in cli/ (analysis/ reads none): the moment a history record is seen.
run_history::moment moment_now() {
  return run_history::moment_at(static_cast<std::int64_t>(std::time(nullptr)));
}

// Where the history comes from, which decides what a history that cannot be used means.
enum class history_source {
  option,       // --history FILE: refused, exit 2
  environment,  // $HARNESS_HISTORY: the user's choice as well, refused likewise
  fallback,     // the state folder's default: a warning, and no history
};

std::string label_of(history_source source) {
  return source == history_source::option ? "--history" : "HARNESS_HISTORY";
}

// The nearest folder of `path` that exists, where the default history's folders would be made.
std::filesystem::path nearest_existing_folder(const std::filesystem::path& path) {
  std::filesystem::path at = path.parent_path();
  std::error_code ec;
  while (at.has_relative_path() && !std::filesystem::exists(at, ec))
    at = at.parent_path();
  return at.empty() ? std::filesystem::path(".") : at;
}

// Why the history at `path` cannot be used, "PATH: REASON"; empty when it can. Reads it into
// `records`. Looks at the file, reads it and asks whether it can be replaced, in that order, so
// that the first refusal is the one the user sees; the last check makes and removes a file in its
// folder (output_file.hpp's check_writable), only once everything else has passed.
std::string unusable(const std::filesystem::path& path, history_source source,
                     run_history& records) {
  try {
    records = read_history(path);
  } catch (const usage_error& e) {
    return e.what();
  }
  // The default's folders are made when it is first written: then the nearest one that exists
  // must take new entries.
  std::error_code ec;
  const std::filesystem::path folder = path.parent_path();
  if (source == history_source::fallback && !folder.empty() &&
      !std::filesystem::is_directory(folder, ec)) {
    const std::filesystem::path base = nearest_existing_folder(path);
    if (!std::filesystem::is_directory(base, ec)) {
      return fmt::format("{}: its folder cannot be made: '{}' is not a folder", path.string(),
                         base.string());
    }
    if (const int error = platform::write_permission(base); error != 0) {
      return fmt::format("{}: its folder cannot be made in '{}': {}", path.string(), base.string(),
                         platform::errno_text(error));
    }
    return {};
  }
  try {
    check_writable(path);
  } catch (const output_error& e) {
    return e.what();  // "cannot write 'PATH': ..."
  }
  return {};
}

// A history file's records added to `records`, each as last seen.
void merge_records(run_history& records, const run_history& more) {
  for (const auto& s : more.speeds())
    records.note_reference(s.machine, s.reference_ticks, s.seen);
  for (const auto& f : more.floors())
    records.note_floor(f.machine, f.build, f.workload, f.batch, f.floor, f.seen);
}

// The history kept in the results store: read from it when it exists (a store named with --db or
// $HARNESS_DB is opened, and made, now), with the records of the history.json earlier harnesses
// kept in the default place. Defaults degrade, explicit choices refuse: a named store that
// cannot be used is a usage_error; the default store, one warning and no history.
std::shared_ptr<history_plan> plan_in_store(const history_request& request,
                                            const platform::environment& env, std::string machine,
                                            const std::filesystem::path& build_file,
                                            const platform::cpu_list& cpus, std::ostream& err) {
  auto plan = std::make_shared<history_plan>();
  plan->in_store = true;
  plan->store_place = choose_store(*request.store, env);
  const store_choice& place = plan->store_place;
  const auto degrade = [&](const std::string& why) {
    fmt::print(err,
               "harness: warning: the default store cannot keep the history: {}; running without "
               "one; give --db FILE or URL, --history FILE or --no-history\n",
               why);
    return nullptr;
  };
  if (place.where.empty()) {
    return degrade(
        "it has no place here (its folder comes from XDG_STATE_HOME or HOME, and neither is set)");
  }
  const bool file = !store::is_database_url(place.where);
  if (file && request.report && same_file(place.where, *request.report)) {
    if (!place.named) return degrade(place.where + " is the file -o writes the report to");
    throw usage_error(fmt::format(
        "{} '{}' and -o '{}' are one file: the report would replace the store; give each its "
        "own file",
        place.label, place.where, request.report->string()));
  }
  plan->path = place.where;
  plan->named = place.named;
  try {
    const bool exists =
        !file || platform::inspect_path(place.where).kind != platform::path_kind::missing;
    if (place.named || exists) {
      plan->store = open_chosen_store(place);
      std::vector<std::string> keys{machine};
      for (const int cpu : cpus)
        keys.push_back(floor_key(machine, cpu));
      plan->records = plan->store->load_history(keys);
    } else {
      // Made when the history is saved: its nearest folder must take new entries.
      const std::filesystem::path base = nearest_existing_folder(place.where);
      std::error_code ec;
      if (!std::filesystem::is_directory(base, ec)) {
        return degrade(fmt::format("{}: its folder cannot be made: '{}' is not a folder",
                                   place.where, base.string()));
      }
      if (const int error = platform::write_permission(base); error != 0) {
        return degrade(fmt::format("{}: its folder cannot be made in '{}': {}", place.where,
                                   base.string(), platform::errno_text(error)));
      }
    }
  } catch (const store::store_unusable& e) {
    if (!place.named) return degrade(e.what());
    throw usage_error(fmt::format(
        "{}: the store of the history cannot be used: {}; name a store this user may read and "
        "write, or give --history FILE or --no-history",
        place.label, e.what()));
  } catch (const store::store_failed& e) {
    if (!place.named) return degrade(e.what());
    throw usage_error(fmt::format("{}: {}", place.label, e.what()));
  }
  // The history.json of earlier harnesses, in the default place: its records count now, and the
  // save imports it once; a file that is no harness history is left alone, with a warning.
  const std::filesystem::path legacy =
      history_path_from(std::nullopt, platform::state_directory(env));
  if (!legacy.empty() && platform::inspect_path(legacy).kind != platform::path_kind::missing) {
    try {
      merge_records(plan->records, read_history(legacy));
      plan->legacy = legacy;
    } catch (const usage_error& e) {
      fmt::print(err, "harness: warning: {}; not imported into the store, left as it is\n",
                 e.what());
    }
  }
  plan->machine = std::move(machine);
  plan->build = file_fingerprint(build_file);
  plan->at = moment_now();
  return plan;
}

// The file read, with the machine's key and the build's fingerprint; nullptr when none is kept.
std::shared_ptr<history_plan> plan_at(const history_request& request,
                                      const platform::environment& env, std::string machine,
                                      const std::filesystem::path& build_file,
                                      const platform::cpu_list& cpus, std::ostream& err) {
  if (request.off && request.named) {
    throw usage_error("--history and --no-history contradict each other: give one of them");
  }
  if (request.off) return nullptr;
  if (request.named && request.named->empty()) {
    throw usage_error("--history: the path is empty; give a file, or --no-history");
  }
  auto plan = std::make_shared<history_plan>();
  history_source source = history_source::fallback;
  const std::optional<std::string> named_by_env = env("HARNESS_HISTORY");
  if (request.named) {
    source = history_source::option;
    plan->path = *request.named;
  } else if (named_by_env && !named_by_env->empty()) {
    if (*named_by_env == "off") return nullptr;
    source = history_source::environment;
    plan->path = *named_by_env;
  } else if (request.store && store::store_available()) {
    // A build without a store (Windows) keeps the default history in its JSON file, as before.
    return plan_in_store(request, env, std::move(machine), build_file, cpus, err);
  } else {
    plan->path = history_path_from(std::nullopt, platform::state_directory(env));
    if (plan->path.empty()) {
      fmt::print(err,
                 "harness: warning: the default history has no place here (its folder comes from "
                 "XDG_STATE_HOME or HOME, LOCALAPPDATA on Windows, and none is set): running "
                 "without one; give --history FILE or --no-history\n");
      return nullptr;
    }
  }
  plan->named = source != history_source::fallback;
  // The report written over the history would leave a file the next run refuses as one.
  if (request.report && same_file(plan->path, *request.report)) {
    if (source == history_source::fallback) {
      fmt::print(err,
                 "harness: warning: the default history cannot be used: {} is the file -o "
                 "writes the report to; running without one; give --history FILE or "
                 "--no-history\n",
                 plan->path.string());
      return nullptr;
    }
    throw usage_error(fmt::format(
        "{} '{}' and -o '{}' are one file: the report would replace the history, and the next "
        "run would refuse it as one; give each its own file",
        label_of(source), plan->path.string(), request.report->string()));
  }
  if (const std::string why = unusable(plan->path, source, plan->records); !why.empty()) {
    if (source == history_source::fallback) {
      fmt::print(err,
                 "harness: warning: the default history cannot be used: {}; running without "
                 "one; give --history FILE or --no-history\n",
                 why);
      return nullptr;
    }
    throw usage_error(fmt::format(
        "{}: {}; name a file this user may read and write, {}", label_of(source), why,
        source == history_source::option ? "or give --no-history"
                                         : "unset HARNESS_HISTORY, or give --no-history"));
  }
  plan->machine = std::move(machine);
  plan->build = file_fingerprint(build_file);
  plan->at = moment_now();
  return plan;
}

}  // namespace

bool same_file(const std::filesystem::path& a, const std::filesystem::path& b) {
  std::error_code ec;
  if (std::filesystem::equivalent(a, b, ec) && !ec) return true;
  return file_written_at(a) == file_written_at(b);
}

history_request history_request_of(const run_flags& flags, const report_plan& plan) {
  history_request request;
  request.off = flags.no_history;
  if (flags.history_option->count() > 0) request.named = flags.history;
  request.report = plan.file;
  request.store = &flags.store;
  return request;
}

std::shared_ptr<history_plan> plan_history(const history_request& request,
                                           const platform::environment& env,
                                           const std::filesystem::path& executable,
                                           const clock_source& clock,
                                           const sampler_settings& tuning,
                                           const platform::cpu_list& cpus, std::ostream& err) {
  return plan_at(request, env,
                 machine_key(clocks::detect_tsc_features().brand, clock.name(),
                             clock.ticks_per_second(), tuning.reference_iterations),
                 executable, cpus, err);
}

std::shared_ptr<history_plan> plan_gbench_history(const history_request& request,
                                                  const platform::environment& env,
                                                  const std::filesystem::path& binary,
                                                  std::string_view setup,
                                                  const platform::cpu_list& cpus,
                                                  std::ostream& err) {
  auto plan =
      plan_at(request, env,
              machine_key(clocks::detect_tsc_features().brand, "Google Benchmark real_time in ns"),
              binary, cpus, err);
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
    memory.floor_of = [plan, key = floor_key(plan->machine, plan->cpu)](
                          std::string_view name, std::uint64_t batch) -> std::optional<double> {
      const auto record = plan->records.floor(key, plan->build, name, batch, plan->at);
      return record ? std::optional<double>(record->floor) : std::nullopt;
    };
    memory.floors_cpu = plan->cpu;
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
  const run_history::moment at = moment_now();
  store::history_notes notes;
  for (const workload_result& r : report.results) {
    if (const std::uint64_t best = fastest_reference_of(r); best > 0)
      notes.references.emplace_back(plan.machine, best);
    // Every prepared phase's agreed floor, confirmed or not: noise only adds time, so the lowest
    // level a phase reached twice is the best evidence of what this build can do here again.
    if (!plan.build.empty() && r.prepared && r.prepared->floor) {
      if (const auto agreed = agreed_floor(*r.prepared->floor))
        notes.floors.push_back({floor_key(plan.machine, plan.cpu), plan.build, r.name,
                                r.prepared->batch, *agreed, at});
    }
  }
  if (plan.in_store) {
    // One transaction under the store's lock: runners sharing the store keep each other's records.
    try {
      if (!plan.store) plan.store = open_chosen_store(plan.store_place);
      if (plan.legacy)
        plan.store->import_history(plan.legacy->string(), read_history(*plan.legacy));
      plan.store->note_history(notes, at);
    } catch (const std::runtime_error& e) {  // store_unusable, store_failed, usage_error
      fmt::print(err, "harness: warning: the history was not saved: {}\n", e.what());
    }
    return;
  }
  for (const auto& [machine, ticks] : notes.references)
    plan.records.note_reference(machine, ticks, at);
  for (const auto& f : notes.floors)
    plan.records.note_floor(f.machine, f.build, f.workload, f.batch, f.floor, at);
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
  use.path = plan->in_store ? plan->store_place.where : plan->path.string();
  use.machine = plan->machine;
  use.build = plan->build;
  if (memory.fastest_reference_remembered) use.fastest_reference = memory.fastest_reference;
  return use;
}

}  // namespace harness::cli
