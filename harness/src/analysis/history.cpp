// The history file's text: taken only when it is ours, and its records' rules. Reading and
// writing the file is the command line's (cli/history_file.cpp, cli/run_history.cpp).
#include "harness/history.hpp"

#include <fmt/chrono.h>
#include <fmt/format.h>

#include <algorithm>
#include <ctime>
#include <nlohmann/json.hpp>

#include "base/json_field.hpp"
#include "harness/errors.hpp"

namespace harness {
namespace {

using json = nlohmann::ordered_json;

// The key that marks a file as a harness history, and what it holds, for whoever opens it.
constexpr const char* kMarker = "harness_history";
constexpr const char* kNote =
    "What earlier harness runs showed on this machine: the fastest reference-loop run per "
    "machine and clock, and the lowest prepared floor per build, CPU and workload. The harness "
    "reads them to tell a run slowed as a whole from a fast one (docs/floor.md). Safe to delete.";

bool alive(const run_history::moment& seen, const run_history::moment& at,
           const history_settings& settings) {
  return at.unix_seconds - seen.unix_seconds <= settings.lifetime.count();
}

json moment_json(const run_history::moment& m) {
  return {{"seen", m.text}, {"seen_unix", m.unix_seconds}};
}

using field = json_field<json>;

run_history::moment moment_of(const field& record) {
  return {record.at("seen_unix").integer(), record.at("seen").text()};
}

// Applies the record rules to one value: returns true when `value` should be stored (and the
// time renewed), false when the record stays as it is.
template <class T>
bool replaces(T recorded, const run_history::moment& seen, T value, const run_history::moment& at,
              double refresh, const history_settings& settings, bool& renew) {
  renew = false;
  if (!alive(seen, at, settings)) return true;
  if (value < recorded) return true;
  renew = static_cast<double>(value) <= static_cast<double>(recorded) * (1 + refresh);
  return false;
}

}  // namespace

run_history::moment run_history::moment_at(std::int64_t unix_seconds) {
  const auto t = static_cast<std::time_t>(unix_seconds);
  return {unix_seconds, fmt::format("{:%Y-%m-%dT%H:%M:%SZ}", fmt::gmtime(t))};
}

run_history run_history::parse(std::string_view json_text, const std::string& source) {
  json doc;
  try {
    doc = json::parse(json_text);
  } catch (const json::exception& e) {
    // A syntax error, or a number no double holds (out_of_range: 1e400).
    throw usage_error(
        fmt::format("{}: not a harness history (not JSON: {})", source, json_error_text(e)));
  }
  if (!doc.is_object() || !doc.contains(kMarker)) {
    throw usage_error(fmt::format("{}: not a harness history (no \"{}\" key)", source, kMarker));
  }
  if (!doc[kMarker].is_number_integer() || doc[kMarker].get<int>() != kHistoryVersion) {
    throw usage_error(fmt::format("{}: a harness history of version {}, this build reads {}",
                                  source, doc[kMarker].dump(), kHistoryVersion));
  }
  // A record of the wrong shape is named with its place: "floors[2].batch: expected ...".
  run_history h;
  const field root(doc, source);
  if (const auto speeds = root.find("speeds")) {
    speeds->each([&](const field& r) {
      h.speeds_.push_back({r.at("machine").text(), r.at("reference_ticks").count(), moment_of(r)});
    });
  }
  if (const auto floors = root.find("floors")) {
    floors->each([&](const field& r) {
      const field ticks = r.at("floor_ticks");
      if (!(ticks.number() >= 0 && ticks.number() <= 1e15))
        ticks.refuse(
            fmt::format("{} is out of range: a floor is 0 to 1e15 ticks", ticks.json().dump()));
      h.floors_.push_back({r.at("machine").text(), r.at("build").text(), r.at("workload").text(),
                           r.at("batch").count(), ticks.number(), moment_of(r)});
    });
  }
  return h;
}

std::string run_history::to_json() const {
  json speeds = json::array();
  for (const speed_record& r : speeds_) {
    json j = {{"machine", r.machine}, {"reference_ticks", r.reference_ticks}};
    j.update(moment_json(r.seen));
    speeds.push_back(std::move(j));
  }
  json floors = json::array();
  for (const floor_record& r : floors_) {
    json j = {{"machine", r.machine},
              {"build", r.build},
              {"workload", r.workload},
              {"batch", r.batch},
              {"floor_ticks", r.floor}};
    j.update(moment_json(r.seen));
    floors.push_back(std::move(j));
  }
  const json doc = {
      {kMarker, kHistoryVersion}, {"note", kNote}, {"speeds", speeds}, {"floors", floors}};
  return doc.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

std::optional<run_history::speed_record> run_history::fastest_reference(
    std::string_view machine, const moment& at, const history_settings& settings) const {
  for (const speed_record& r : speeds_) {
    if (r.machine == machine && alive(r.seen, at, settings)) return r;
  }
  return std::nullopt;
}

std::optional<run_history::floor_record> run_history::floor(
    std::string_view machine, std::string_view build, std::string_view workload,
    std::uint64_t batch, const moment& at, const history_settings& settings) const {
  for (const floor_record& r : floors_) {
    if (r.machine == machine && r.build == build && r.workload == workload && r.batch == batch &&
        alive(r.seen, at, settings)) {
      return r;
    }
  }
  return std::nullopt;
}

void run_history::note_reference(std::string_view machine, std::uint64_t ticks, const moment& at,
                                 const history_settings& settings) {
  for (speed_record& r : speeds_) {
    if (r.machine != machine) continue;
    bool renew = false;
    if (replaces(r.reference_ticks, r.seen, ticks, at, settings.reference_refresh, settings,
                 renew)) {
      r.reference_ticks = ticks;
      r.seen = at;
    } else if (renew) {
      r.seen = at;
    }
    return;
  }
  speeds_.push_back({std::string(machine), ticks, at});
}

void run_history::note_floor(std::string_view machine, std::string_view build,
                             std::string_view workload, std::uint64_t batch, double floor,
                             const moment& at, const history_settings& settings) {
  for (floor_record& r : floors_) {
    if (r.machine != machine || r.build != build || r.workload != workload || r.batch != batch)
      continue;
    bool renew = false;
    if (replaces(r.floor, r.seen, floor, at, settings.floor_refresh, settings, renew)) {
      r.floor = floor;
      r.seen = at;
    } else if (renew) {
      r.seen = at;
    }
    return;
  }
  floors_.push_back(
      {std::string(machine), std::string(build), std::string(workload), batch, floor, at});
}

std::filesystem::path history_path_from(std::optional<std::string_view> env,
                                        const std::filesystem::path& state_directory) {
  if (env && !env->empty()) return *env == "off" ? std::filesystem::path() : *env;
  return state_directory.empty() ? state_directory : state_directory / "harness" / "history.json";
}

std::string machine_key(std::string_view cpu_model, std::string_view figures) {
  return fmt::format("{} | {}", cpu_model.empty() ? std::string_view("unknown CPU") : cpu_model,
                     figures);
}

std::string machine_key(std::string_view cpu_model, std::string_view clock_name,
                        double ticks_per_second, std::uint32_t reference_iterations) {
  return machine_key(cpu_model,
                     fmt::format("{} at {:.0f} MHz | reference loop of {} iterations", clock_name,
                                 ticks_per_second / 1e6, reference_iterations));
}

std::string floor_key(std::string_view machine, std::optional<int> cpu) {
  return cpu ? fmt::format("{} | prepared on CPU {}", machine, *cpu) : std::string(machine);
}

}  // namespace harness
