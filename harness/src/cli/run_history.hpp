// The history a run reads before it samples and adds to afterwards (history.hpp), as `harness
// run` uses it. Internal header of cli/.
#pragma once

#include <cstdint>
#include <filesystem>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "harness/clock.hpp"
#include "harness/history.hpp"
#include "harness/platform.hpp"
#include "harness/run_report.hpp"
#include "harness/runner.hpp"
#include "run_command.hpp"
#include "run_flags.hpp"
#include "store_options.hpp"

namespace harness::cli {

// The history this run reads and then adds to (history.hpp), when it keeps one.
struct history_plan {
  std::filesystem::path path;
  bool named = false;  // --history or $HARNESS_HISTORY named it (else the default place)
  run_history records;
  std::string machine;
  std::string build;  // the executable's fingerprint; empty when it could not be read
  // The CPU the run pins its prepared phases to, once chosen (nullopt: not pinned): floors are
  // read and kept under floor_key(machine, cpu) (history.hpp).
  std::optional<int> cpu;
  run_history::moment at;
  // Kept in the results store (the default, docs/store.md) rather than in the file `path`: the
  // store's place (--db, $HARNESS_DB, the default store), the store when it existed before the
  // run (nullptr: made when the history is saved), and the history.json of earlier harnesses,
  // whose records this run reads and which the save imports once (the file is left in place).
  bool in_store = false;
  store_choice store_place;
  std::shared_ptr<store::results_store> store;
  std::optional<std::filesystem::path> legacy;
};

// What the command line says of the history: --no-history, --history FILE, and the file -o
// writes the report to, which the history may never be.
struct history_request {
  bool off = false;
  std::optional<std::string> named;
  std::optional<std::filesystem::path> report;
  const store_flags* store = nullptr;  // --db: the store the history is kept in by default
};
history_request history_request_of(const run_flags& flags, const report_plan& plan);

// The history the request asks for, read, with this machine's key and this build's fingerprint;
// nullptr when none is kept. From a store, the floors of the CPUs in `cpus` are read (the run's
// CPU is chosen later; the caller sets `cpu`); a history file is read whole. $HARNESS_HISTORY and
// the state folder's variables are looked up in `env` (the machine's environment). Defaults
// degrade, explicit choices refuse: a history named by
// --history or $HARNESS_HISTORY that cannot be used (it cannot be looked at, read or written, is
// not a harness history, is the report file) is a usage_error with the system's reason; the
// default place (history.hpp) that cannot be used, or that does not exist (no HOME), is one
// warning line on `err`, and the run goes on without a history.
// The build is the fingerprint of `executable`, this program's file (machine::executable_path).
std::shared_ptr<history_plan> plan_history(const history_request& request,
                                           const platform::environment& env,
                                           const std::filesystem::path& executable,
                                           const clock_source& clock,
                                           const sampler_settings& tuning,
                                           const platform::cpu_list& cpus, std::ostream& err);
// The same for `harness gbench`: the machine is keyed by its CPU and Google Benchmark's real_time,
// the build by the fingerprint of `binary` (the Google Benchmark binary, not the harness) and
// `setup`, what else shapes its figures (the repetition length, the binary's own arguments).
std::shared_ptr<history_plan> plan_gbench_history(const history_request& request,
                                                  const platform::environment& env,
                                                  const std::filesystem::path& binary,
                                                  std::string_view setup,
                                                  const platform::cpu_list& cpus,
                                                  std::ostream& err);

// Whether `a` and `b` name one file: the same file_written_at (output_file.hpp: symbolic links, a
// dangling one's chain too, `.` and `..` resolved), or two names (hard links) of one existing
// file.
bool same_file(const std::filesystem::path& a, const std::filesystem::path& b);

// What the history knows, for the runner: the machine's fastest reference loop, and this build's
// floors on the plan's CPU, only when the build could be identified.
floor_memory memory_of(const std::shared_ptr<history_plan>& plan);

// The fastest reference-loop run of a workload's phases and warmup, ticks; 0 when none ran.
std::uint64_t fastest_reference_of(const workload_result& r);

// Adds what the run saw to the history and writes it whole; a history that cannot be written is
// a warning on `err`.
void save_history(history_plan& plan, const run_report& report, std::ostream& err);

// What the report says of the history.
history_use use_of(const std::shared_ptr<history_plan>& plan, const floor_memory& memory);

}  // namespace harness::cli
