// --save and the results store's options (store_options.hpp).
#include "store_options.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <filesystem>
#include <ostream>
#include <set>
#include <system_error>

#include "cli.hpp"
#include "clocks/tsc.hpp"
#include "harness/errors.hpp"
#include "platform/files.hpp"

namespace harness::cli {
namespace {

bool has_control_character(const std::string& s) {
  return std::any_of(s.begin(), s.end(),
                     [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; });
}

void check_commit(const std::string& commit) {
  const bool hex = std::all_of(commit.begin(), commit.end(),
                               [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); });
  if (!hex || commit.size() < 4 || commit.size() > 64) {
    throw usage_error(fmt::format(
        "--commit: '{}' is not a commit id: expected 4 to 64 hexadecimal digits, such as the "
        "output of `git rev-parse HEAD`",
        commit));
  }
}

void check_branch(const std::string& branch) {
  if (branch.empty() || branch.size() > 255 || has_control_character(branch)) {
    throw usage_error(
        fmt::format("--branch: '{}' is not a branch name: expected 1 to 255 characters, no control "
                    "characters",
                    branch));
  }
}

std::vector<std::pair<std::string, std::string>> parse_tags(const std::vector<std::string>& tags) {
  std::vector<std::pair<std::string, std::string>> out;
  std::set<std::string> seen;
  for (const std::string& tag : tags) {
    const std::size_t eq = tag.find('=');
    const std::string key = eq == std::string::npos ? tag : tag.substr(0, eq);
    const bool key_ok =
        !key.empty() && key.size() <= 64 && std::all_of(key.begin(), key.end(), [](char c) {
          return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
        });
    if (eq == std::string::npos || !key_ok) {
      throw usage_error(fmt::format(
          "--tag: '{}' is not KEY=VALUE: expected a key of 1 to 64 letters, digits, '_', '-' or "
          "'.', then '=' and the value (runner=ci-7)",
          tag));
    }
    const std::string text = tag.substr(eq + 1);
    if (text.size() > 1024 || has_control_character(text)) {
      throw usage_error(fmt::format(
          "--tag: the value of '{}' is not accepted: up to 1024 characters, no control characters",
          key));
    }
    if (!seen.insert(key).second) {
      throw usage_error(fmt::format("--tag: the key '{}' is given twice; give each key once", key));
    }
    out.emplace_back(key, text);
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

void add_store_options(CLI::App& app, store_flags& flags) {
  app.add_flag("--save", flags.save,
               "Save the run into the results store (--db): its figures, machine, build, commit, "
               "branch and tags, and the JSON report; whole or not at all (docs/store.md)");
  flags.db_option = app.add_option(
      "--db", flags.db,
      "The results store --save saves into and the floor history is kept in: a file (SQLite) or "
      "a postgresql:// URL (default: $HARNESS_DB, else ~/.local/state/harness/results.db)");
  flags.commit_option = app.add_option("--commit", flags.commit,
                                       "With --save: the commit measured (git rev-parse HEAD)");
  flags.branch_option =
      app.add_option("--branch", flags.branch, "With --save: the branch measured");
  app.add_option("--tag", flags.tags,
                 "With --save: KEY=VALUE kept with the run (runner=ci-7); may be repeated")
      ->allow_extra_args(false);  // one KEY=VALUE each: `ab --tag k=v A B` keeps A and B
}

store_choice choose_store(const store_flags& flags, const platform::environment& env) {
  if (flags.db_option->count() > 0) return {flags.db, true, "--db"};
  if (const auto named = env("HARNESS_DB"); named && !named->empty())
    return {*named, true, "HARNESS_DB"};
  return {store::default_store_path(platform::state_directory(env)).string(), false,
          "the default store"};
}

std::shared_ptr<store::results_store> open_chosen_store(const store_choice& choice) {
  if (choice.where.empty()) {
    throw store::store_unusable(
        "it has no place here (its folder comes from XDG_STATE_HOME or HOME, and neither is set)");
  }
  if (!choice.named) {
    // The default's folders are made when it is first used; what cannot be made is said by
    // the store's own look at its folder.
    std::error_code ec;
    std::filesystem::create_directories(std::filesystem::path(choice.where).parent_path(), ec);
  }
  return store::open_store(choice.where, true);
}

std::shared_ptr<save_plan> plan_save(const store_flags& flags, const platform::environment& env,
                                     bool history_in_store) {
  if (flags.db_option->count() > 0 && flags.db.empty())
    throw usage_error("--db: the store is empty; give a file or a postgresql:// URL");
  for (const auto& [option, name] :
       {std::pair{flags.commit_option, "--commit"}, std::pair{flags.branch_option, "--branch"}}) {
    if (option->count() > 0 && !flags.save)
      throw usage_error(fmt::format("{} only means something with --save: add --save", name));
  }
  if (!flags.tags.empty() && !flags.save)
    throw usage_error("--tag only means something with --save: add --save");
  if (flags.db_option->count() > 0 && !flags.save && !history_in_store) {
    throw usage_error(
        "--db only means something with --save, or for the floor history kept in the store "
        "(not with --history or --no-history): add --save");
  }
  if (!flags.save) return nullptr;
  auto plan = std::make_shared<save_plan>();
  if (flags.commit_option->count() > 0) {
    check_commit(flags.commit);
    plan->request.commit = flags.commit;
  }
  if (flags.branch_option->count() > 0) {
    check_branch(flags.branch);
    plan->request.branch = flags.branch;
  }
  plan->request.tags = parse_tags(flags.tags);
  const store_choice choice = choose_store(flags, env);
  try {
    plan->store = open_chosen_store(choice);
  } catch (const store::store_unusable& e) {
    throw usage_error(fmt::format(
        "--save: {} cannot be used: {}; {}", choice.label, e.what(),
        choice.named ? "name a store this user may read and write" : "give --db FILE or URL"));
  }
  return plan;
}

store::machine_identity this_machine(const machine& host, const run_context& context) {
  store::machine_identity m;
  m.cpu_model = clocks::detect_tsc_features().brand;
  if (const auto calibration = host.calibration()) m.tsc_hz = calibration->ticks_per_second;
  m.kernel = platform::kernel_release();
  m.host = context.host_name;
  return m;
}

bool save_run(save_plan& plan, const store::machine_identity& machine, std::string build,
              std::string report_json, bool interrupted, std::ostream& err) {
  if (interrupted) {
    fmt::print(err, "harness: --save: the run was interrupted; nothing was saved into {}\n",
               plan.store->where());
    return true;
  }
  plan.request.machine = machine;
  plan.request.build = std::move(build);
  plan.request.report_json = std::move(report_json);
  try {
    const std::string id = plan.store->save(plan.request);
    fmt::print(err, "harness: saved run {} into {}\n", id, plan.store->where());
    return true;
  } catch (const store::store_failed& e) {
    fmt::print(err, "harness: --save: the store failed; the run was not saved: {}\n", e.what());
    return false;
  }
}

}  // namespace harness::cli
