// `--save` and the results store's options, shared by `run`, `gbench` and `ab` (docs/store.md):
// where the store is, checking the flags, opening the store before the run, and saving the run
// after it. Internal header of cli/.
#pragma once

#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "harness/platform.hpp"
#include "harness/run_report.hpp"
#include "store/store.hpp"

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace harness::cli {

struct machine;

struct store_flags {
  bool save = false;
  std::string db;
  CLI::Option* db_option = nullptr;
  std::string commit;
  CLI::Option* commit_option = nullptr;
  std::string branch;
  CLI::Option* branch_option = nullptr;
  std::vector<std::string> tags;
};

// --save, --db, --commit, --branch, --tag on `app`.
void add_store_options(CLI::App& app, store_flags& flags);

// Where the store is: --db, else $HARNESS_DB, else the default file (store.hpp).
struct store_choice {
  std::string where;   // a path or a postgresql:// URL; empty: the default has no place here
  bool named = false;  // --db or $HARNESS_DB: an unusable store is refused, not passed over
  std::string label;   // "--db", "HARNESS_DB" or "the default store", for messages
};
store_choice choose_store(const store_flags& flags, const platform::environment& env);

// Opens the chosen store; the default's folder is made first. Throws store::store_unusable.
std::shared_ptr<store::results_store> open_chosen_store(const store_choice& choice);

// What --save will save into, decided before the run.
struct save_plan {
  std::shared_ptr<store::results_store> store;
  store::save_request request;  // commit, branch and tags here; the rest after the run
};

// Checks --commit, --branch and --tag (and that they come with --save), and opens the store
// when --save asks for one: a store that cannot be used is a usage_error naming it and why, with
// the default store too (the user asked to save). nullptr without --save.
// `history_in_store`: the run keeps its floor history in the store, which --db then names even
// without --save.
std::shared_ptr<save_plan> plan_save(const store_flags& flags, const platform::environment& env,
                                     bool history_in_store = false);

// The machine key of this machine (store.hpp): the CPU model and TSC rate, the kernel, the
// host name the run's context read.
store::machine_identity this_machine(const machine& host, const run_context& context);

// Saves the run whose JSON report is `report_json`, made by `build`, in one transaction, and says
// so on `err` ("harness: saved run ID to WHERE"). An interrupted run is not saved (said on `err`).
// False when the store failed (the message on `err`; exit 1): nothing of the run was kept.
bool save_run(save_plan& plan, const store::machine_identity& machine, std::string build,
              std::string report_json, bool interrupted, std::ostream& err);

}  // namespace harness::cli
