// The results store over either backend's connection: saving a run in one transaction, the read
// API over the saved runs, and the floor history's records (store.hpp).
#include <fmt/format.h>

#include <chrono>
#include <map>
#include <random>
#include <set>

#include "store/database.hpp"
#include "store/store.hpp"
#include "store/store_internal.hpp"

namespace harness::store {
namespace {

// A run's id: 128 random bits, so that runs saved by different runners into different stores
// never share one.
std::string new_run_id() {
  std::random_device device;
  std::mt19937_64 bits((static_cast<std::uint64_t>(device()) << 32) ^ device());
  return fmt::format("{:016x}{:016x}", bits(), bits());
}

// The columns of a saved run, in the order run_of reads them.
constexpr const char* kRunColumns =
    "r.id, r.kind, r.saved_unix, r.saved_at, r.machine, r.cpu_model, r.tsc_hz, r.kernel, r.host, "
    "r.build, r.commit_sha, r.branch, r.clock, r.ticks_per_second, r.harness_version";
constexpr std::size_t kRunColumnCount = 15;

saved_run run_of(const row& r) {
  saved_run run;
  run.id = text_of(r[0]);
  run.kind = text_of(r[1]);
  run.saved_unix = integer_of(r[2], "runs.saved_unix");
  run.saved_at = text_of(r[3]);
  run.machine = text_of(r[4]);
  run.identity = {text_of(r[5]), real_of(r[6], "runs.tsc_hz").value_or(0), text_of(r[7]),
                  text_of(r[8])};
  run.build = text_of(r[9]);
  run.commit = optional_text_of(r[10]);
  run.branch = optional_text_of(r[11]);
  run.clock = text_of(r[12]);
  run.ticks_per_second = real_of(r[13], "runs.ticks_per_second").value_or(0);
  run.harness_version = text_of(r[14]);
  return run;
}

// The WHERE clause of a filter over `runs r`, its parameters numbered from `first`.
std::string where_of(const run_filter& f, std::vector<value>& params) {
  std::string sql;
  const auto add = [&](const char* column, value v) {
    params.push_back(std::move(v));
    sql += fmt::format(" AND {} ${}", column, params.size());
  };
  if (f.machine) add("r.machine =", *f.machine);
  if (f.branch) add("r.branch =", *f.branch);
  if (f.since_unix) add("r.saved_unix >=", *f.since_unix);
  if (f.kind) add("r.kind =", *f.kind);
  return sql;
}

// The wall clock, read here in the store's I/O layer (analysis/ reads none): when a run is saved,
// its second (saved_unix, saved_at) and the nanoseconds within it (saved_ns), from one reading.
// saved_ns keeps runs saved in one second in their order: history_e2e's three saves came back in
// the order of their random ids when two of them fell in the same second (commits 1b1b, 0a0a).
struct wall_time {
  run_history::moment at;
  std::int64_t nanoseconds = 0;  // within the second
};
wall_time wall_clock_now() {
  const std::int64_t ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                              std::chrono::system_clock::now().time_since_epoch())
                              .count();
  return {run_history::moment_at(ns / 1'000'000'000), ns % 1'000'000'000};
}

class sql_store final : public results_store {
 public:
  explicit sql_store(std::unique_ptr<database> db) : db_(std::move(db)) {}

  std::string where() const override { return db_->where(); }

  std::string save(const save_request& request) override {
    const report_rows rows = rows_of_report(request.report_json);
    const auto [at, at_ns] = wall_clock_now();
    const std::string id = new_run_id();
    transaction t(*db_);
    db_->query(
        "INSERT INTO runs (id, kind, saved_unix, saved_at, machine, cpu_model, tsc_hz, kernel, "
        "host, build, commit_sha, branch, clock, ticks_per_second, harness_version, phase_count, "
        "ab_count, tag_count, report_json, saved_ns) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, "
        "$10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20)",
        {id,
         rows.kind,
         at.unix_seconds,
         at.text,
         request.machine.key(),
         request.machine.cpu_model,
         request.machine.tsc_hz,
         request.machine.kernel,
         request.machine.host,
         request.build,
         maybe(request.commit),
         maybe(request.branch),
         rows.clock,
         rows.ticks_per_second,
         rows.harness_version,
         static_cast<std::int64_t>(rows.phases.size()),
         static_cast<std::int64_t>(rows.ab.size()),
         static_cast<std::int64_t>(request.tags.size()),
         request.report_json,
         at_ns});
    for (const auto& [name, text] : request.tags) {
      db_->query("INSERT INTO run_tags (run_id, name, value) VALUES ($1, $2, $3)",
                 {id, name, text});
    }
    for (const phase_row& p : rows.phases) {
      db_->query(
          "INSERT INTO phases (run_id, workload, phase, samples, min_ticks, median_ticks, "
          "spread_percent, floor_ticks, floor_confirmed, floor_findings, verdict, "
          "floor_lower_ticks, floor_upper_ticks, floor_cpu) VALUES ($1, $2, $3, $4, $5, $6, $7, "
          "$8, $9, $10, $11, $12, $13, $14)",
          {id, p.workload, p.phase, p.samples, maybe(p.min_ticks), maybe(p.median_ticks),
           maybe(p.spread_percent), maybe(p.floor_ticks),
           static_cast<std::int64_t>(p.floor_confirmed), p.floor_findings, p.verdict,
           maybe(p.floor_lower), maybe(p.floor_upper), maybe(p.floor_cpu)});
    }
    for (std::size_t i = 0; i < rows.ab.size(); ++i) {
      const ab_row& a = rows.ab[i];
      db_->query(
          "INSERT INTO ab_results (run_id, position, a, b, ratio, lower_bound, upper_bound, "
          "level, ratio_count, verdict) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
          {id, static_cast<std::int64_t>(i), a.a, a.b, maybe(a.ratio), maybe(a.lower),
           maybe(a.upper), maybe(a.level), a.count, a.verdict});
    }
    t.commit();
    return id;
  }

  std::vector<saved_run> runs(const run_filter& filter) override {
    std::vector<value> params;
    const std::string where = where_of(filter, params);
    std::vector<saved_run> out;
    for (const row& r : db_->query(fmt::format("SELECT {} FROM runs r WHERE 1 = 1{} ORDER BY "
                                               "r.saved_unix, r.saved_ns, r.id",
                                               kRunColumns, where),
                                   params)) {
      out.push_back(run_of(r));
    }
    add_tags(where, params, out, [](saved_run& r) -> saved_run& { return r; });
    return out;
  }

  std::vector<std::string> workload_names(std::string_view phase,
                                          const run_filter& filter) override {
    std::vector<value> params{std::string(phase)};
    const std::string where = where_of(filter, params);
    std::vector<std::string> out;
    for (const row& r :
         db_->query(fmt::format("SELECT DISTINCT p.workload FROM phases p JOIN runs r ON r.id = "
                                "p.run_id WHERE p.phase = $1{} ORDER BY p.workload",
                                where),
                    params)) {
      out.push_back(text_of(r[0]));
    }
    return out;
  }

  std::vector<phase_point> workload_history(std::string_view workload, std::string_view phase,
                                            const run_filter& filter) override {
    std::vector<value> params{std::string(workload), std::string(phase)};
    const std::string where = where_of(filter, params);
    std::vector<phase_point> out;
    for (const row& r : db_->query(
             fmt::format(
                 "SELECT {}, p.workload, p.phase, p.samples, p.min_ticks, p.median_ticks, "
                 "p.spread_percent, p.floor_ticks, p.floor_confirmed, p.floor_findings, "
                 "p.verdict, p.floor_lower_ticks, p.floor_upper_ticks, p.floor_cpu FROM phases p "
                 "JOIN runs r ON r.id = p.run_id WHERE "
                 "p.workload = $1 AND p.phase = $2{} ORDER BY r.saved_unix, r.saved_ns, r.id",
                 kRunColumns, where),
             params)) {
      phase_point point{run_of(r), {}};
      const std::size_t c = kRunColumnCount;
      phase_row& p = point.phase;
      p.workload = text_of(r[c]);
      p.phase = text_of(r[c + 1]);
      p.samples = integer_of(r[c + 2], "phases.samples");
      p.min_ticks = real_of(r[c + 3], "phases.min_ticks");
      p.median_ticks = real_of(r[c + 4], "phases.median_ticks");
      p.spread_percent = real_of(r[c + 5], "phases.spread_percent");
      p.floor_ticks = real_of(r[c + 6], "phases.floor_ticks");
      p.floor_lower = real_of(r[c + 10], "phases.floor_lower_ticks");
      p.floor_upper = real_of(r[c + 11], "phases.floor_upper_ticks");
      p.floor_cpu = optional_integer_of(r[c + 12], "phases.floor_cpu");
      p.floor_confirmed = integer_of(r[c + 7], "phases.floor_confirmed") != 0;
      p.floor_findings = text_of(r[c + 8]);
      p.verdict = text_of(r[c + 9]);
      out.push_back(std::move(point));
    }
    // Tags: the same runs' (the phase's two parameters stay first, so the numbering holds).
    add_tags(
        " AND EXISTS (SELECT 1 FROM phases p WHERE p.run_id = r.id AND p.workload = $1 "
        "AND p.phase = $2)" +
            where,
        params, out, [](phase_point& p) -> saved_run& { return p.run; });
    return out;
  }

  std::optional<std::string> report_json(std::string_view run_id) override {
    const auto rows =
        db_->query("SELECT report_json FROM runs WHERE id = $1", {std::string(run_id)});
    if (rows.empty()) return std::nullopt;
    return text_of(rows[0][0]);
  }

  std::vector<std::string> partial_runs() override {
    std::vector<std::string> out;
    for (const row& r : db_->query(
             "SELECT r.id FROM runs r WHERE r.phase_count <> (SELECT COUNT(*) FROM phases p "
             "WHERE p.run_id = r.id) OR r.ab_count <> (SELECT COUNT(*) FROM ab_results a WHERE "
             "a.run_id = r.id) OR r.tag_count <> (SELECT COUNT(*) FROM run_tags t WHERE "
             "t.run_id = r.id) OR r.report_json = '' ORDER BY r.id",
             {})) {
      out.push_back(text_of(r[0]));
    }
    return out;
  }

  run_history load_history(const std::vector<std::string>& machines) override {
    run_history h;
    if (machines.empty()) return h;
    std::vector<value> params(machines.begin(), machines.end());
    std::string in;
    for (std::size_t i = 1; i <= params.size(); ++i)
      in += fmt::format("{}${}", i > 1 ? ", " : "", i);
    // Each record taken as it is (a note on an empty history adds it unchanged).
    for (const row& r : db_->query(
             fmt::format("SELECT machine, reference_ticks, seen_unix, seen FROM history_speeds "
                         "WHERE machine IN ({}) ORDER BY machine",
                         in),
             params)) {
      h.note_reference(text_of(r[0]), count_of(r[1], "history_speeds.reference_ticks"),
                       {integer_of(r[2], "history_speeds.seen_unix"), text_of(r[3])});
    }
    for (const row& r : db_->query(
             fmt::format("SELECT machine, build, workload, batch, floor_ticks, seen_unix, seen "
                         "FROM history_floors WHERE machine IN ({}) ORDER BY machine, build, "
                         "workload, batch",
                         in),
             params)) {
      h.note_floor(text_of(r[0]), text_of(r[1]), text_of(r[2]),
                   count_of(r[3], "history_floors.batch"),
                   real_of(r[4], "history_floors.floor_ticks").value_or(0),
                   {integer_of(r[5], "history_floors.seen_unix"), text_of(r[6])});
    }
    return h;
  }

  void note_history(const history_notes& notes, const run_history::moment& at) override {
    run_history incoming;
    for (const auto& [machine, ticks] : notes.references)
      incoming.note_reference(machine, ticks, at);
    for (const auto& f : notes.floors)
      incoming.note_floor(f.machine, f.build, f.workload, f.batch, f.floor, at);
    transaction t(*db_);
    db_->lock("harness floor history");
    merge(incoming);
    t.commit();
  }

  bool import_history(const std::string& source, const run_history& records) override {
    transaction t(*db_);
    db_->lock("harness floor history");
    if (!db_->query("SELECT 1 FROM history_imports WHERE source = $1", {source}).empty())
      return false;
    merge(records);
    db_->query("INSERT INTO history_imports (source, imported_unix) VALUES ($1, $2)",
               {source, wall_clock_now().at.unix_seconds});
    t.commit();
    return true;
  }

 private:
  // Adds the tags of the runs `where` selects to `runs` (by id).
  template <class T, class Run>
  void add_tags(const std::string& where, const std::vector<value>& params, std::vector<T>& runs,
                Run run_of_item) {
    std::map<std::string, std::vector<std::pair<std::string, std::string>>> tags;
    for (const row& r : db_->query(fmt::format("SELECT t.run_id, t.name, t.value FROM run_tags t "
                                               "JOIN runs r ON r.id = t.run_id WHERE 1 = 1{} "
                                               "ORDER BY t.run_id, t.name",
                                               where),
                                   params)) {
      tags[text_of(r[0])].emplace_back(text_of(r[1]), text_of(r[2]));
    }
    for (T& item : runs) {
      saved_run& run = run_of_item(item);
      if (const auto found = tags.find(run.id); found != tags.end()) run.tags = found->second;
    }
  }

  // `incoming`'s records applied to the stored records of their machines by history.hpp's
  // rules (a lower value replaces a live record, one just above renews it), each at the moment
  // it was seen; the records of those machines written back.
  void merge(const run_history& incoming) {
    std::set<std::string> machines;
    for (const auto& s : incoming.speeds())
      machines.insert(s.machine);
    for (const auto& f : incoming.floors())
      machines.insert(f.machine);
    run_history h = load_history({machines.begin(), machines.end()});
    for (const auto& s : incoming.speeds())
      h.note_reference(s.machine, s.reference_ticks, s.seen);
    for (const auto& f : incoming.floors())
      h.note_floor(f.machine, f.build, f.workload, f.batch, f.floor, f.seen);
    write_back(h);
  }

  void write_back(const run_history& h) {
    for (const auto& s : h.speeds()) {
      db_->query(
          "INSERT INTO history_speeds (machine, reference_ticks, seen_unix, seen) VALUES ($1, "
          "$2, $3, $4) ON CONFLICT (machine) DO UPDATE SET reference_ticks = "
          "excluded.reference_ticks, seen_unix = excluded.seen_unix, seen = excluded.seen",
          {s.machine, static_cast<std::int64_t>(s.reference_ticks), s.seen.unix_seconds,
           s.seen.text});
    }
    for (const auto& f : h.floors()) {
      db_->query(
          "INSERT INTO history_floors (machine, build, workload, batch, floor_ticks, seen_unix, "
          "seen) VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (machine, build, workload, "
          "batch) DO UPDATE SET floor_ticks = excluded.floor_ticks, seen_unix = "
          "excluded.seen_unix, seen = excluded.seen",
          {f.machine, f.build, f.workload, static_cast<std::int64_t>(f.batch), f.floor,
           f.seen.unix_seconds, f.seen.text});
    }
  }

  std::unique_ptr<database> db_;
};

}  // namespace

std::unique_ptr<results_store> make_sql_store(std::unique_ptr<database> db) {
  return std::make_unique<sql_store>(std::move(db));
}

}  // namespace harness::store
