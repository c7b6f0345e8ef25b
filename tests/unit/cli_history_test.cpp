// The history's place on the command line (run_history.cpp): defaults degrade, explicit choices
// refuse. A history named by --history or $HARNESS_HISTORY that cannot be used is exit 2 with the
// system's reason; the default place that cannot be used is one warning line and a run without
// one; the report file is never the history. Runs on the fake machine, with the history's folder
// and the environment the test's own (a scratch folder; HARNESS_HISTORY, XDG_STATE_HOME and HOME
// set in the fake machine's environment, which the process's own never reaches). Linux: symbolic
// links.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "fake_machine.hpp"
#include "history_file.hpp"
#include "run_history.hpp"
#include "scratch.hpp"
#include "store/store.hpp"

namespace harness::cli {
namespace {

namespace fs = std::filesystem;
using testing::fake_machine;
using ::testing::HasSubstr;
using ::testing::Not;
using testing::outcome;
using testing::read_text;
using testing::scratch_folder;

// Sets (or, with nullopt, unsets) a variable of the fake machine's environment for a scope.
class env_guard {
 public:
  env_guard(fake_machine& m, const char* name, std::optional<std::string> value)
      : env_(m.env), name_(name) {
    if (const auto it = env_.find(name_); it != env_.end()) old_ = it->second;
    set(value);
  }
  ~env_guard() { set(old_); }
  env_guard(const env_guard&) = delete;
  env_guard& operator=(const env_guard&) = delete;

 private:
  void set(const std::optional<std::string>& value) {
    if (value) {
      env_[name_] = *value;
    } else {
      env_.erase(name_);
    }
  }
  std::map<std::string, std::string, std::less<>>& env_;
  std::string name_;
  std::optional<std::string> old_;
};

// The default history in `state` (XDG_STATE_HOME), HARNESS_HISTORY unset.
struct default_place {
  env_guard history;
  env_guard state;
  default_place(fake_machine& m, const fs::path& folder)
      : history(m, "HARNESS_HISTORY", std::nullopt), state(m, "XDG_STATE_HOME", folder.string()) {}
};

outcome tiny_run(fake_machine& m, std::vector<const char*> extra) {
  std::vector<const char*> args{"-w", "exact", "-n", "3", "--warmup", "0", "--blocks", "1"};
  args.insert(args.end(), extra.begin(), extra.end());
  return testing::run(m, args);
}

std::size_t lines_of(const std::string& text, const std::string& part) {
  std::size_t n = 0;
  for (std::size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1))
    ++n;
  return n;
}

TEST(CliHistory, SameFileSeesThroughLinksDotsAndHardLinks) {
  const scratch_folder dir("history");
  const fs::path a = dir.path() / "a.json";
  std::ofstream(a) << "{}";
  fs::create_symlink("a.json", dir.path() / "link.json");
  fs::create_hard_link(a, dir.path() / "hard.json");
  fs::create_directory(dir.path() / "sub");
  fs::create_symlink("new.json", dir.path() / "dangling.json");
  EXPECT_TRUE(same_file(a, a));
  EXPECT_TRUE(same_file(a, dir.path() / "." / "sub" / ".." / "a.json"));
  EXPECT_TRUE(same_file(a, dir.path() / "link.json"));
  EXPECT_TRUE(same_file(dir.path() / "hard.json", a));
  // A dangling link's target, which the writer would create: neither exists yet.
  EXPECT_TRUE(same_file(dir.path() / "dangling.json", dir.path() / "new.json"));
  EXPECT_FALSE(same_file(a, dir.path() / "new.json"));
  EXPECT_FALSE(same_file(a, dir.path() / "sub" / "a.json"));
}

TEST(CliHistory, TheReportFileIsNeverTheHistory) {
  const scratch_folder dir("history");
  const fs::path report = dir.path() / "r.json";
  fake_machine m;
  auto r = tiny_run(m, {"-o", report.c_str(), "--history", report.c_str()});
  EXPECT_EQ(r.code, exit_usage);
  EXPECT_THAT(r.err, HasSubstr(fmt::format("--history '{}' and -o '{}' are one file: the report "
                                           "would replace the history",
                                           report.string(), report.string())));
  EXPECT_THAT(r.out, Not(HasSubstr("first call")));
  EXPECT_EQ(dir.entries(), 0u);
  // The same file by another name: through a link, with `./`.
  fs::create_symlink("r.json", dir.path() / "link.json");
  const fs::path dotted = dir.path() / "." / "r.json";
  r = tiny_run(m, {"-o", (dir.path() / "link.json").c_str(), "--history", dotted.c_str()});
  EXPECT_EQ(r.code, exit_usage);
  EXPECT_THAT(r.err, HasSubstr("are one file"));
  EXPECT_FALSE(fs::exists(report));
  // $HARNESS_HISTORY is the user's choice too.
  {
    const env_guard history(m, "HARNESS_HISTORY", report.string());
    r = tiny_run(m, {"-o", report.c_str()});
    EXPECT_EQ(r.code, exit_usage);
    EXPECT_THAT(r.err, HasSubstr("HARNESS_HISTORY '" + report.string() + "' and -o"));
  }
  // The default place (the store), when -o names it: no history this run, and the report is
  // written.
  const default_place place(m, dir.path() / "state");
  const fs::path fallback = dir.path() / "state" / "harness" / "results.db";
  fs::create_directories(fallback.parent_path());
  r = tiny_run(m, {"--format", "json", "-o", fallback.c_str()});
  ASSERT_EQ(r.code, exit_ok) << r.err;
  EXPECT_EQ(r.err, fmt::format("harness: warning: the default store cannot keep the history: {} "
                               "is the file -o writes the report to; running without one; give "
                               "--db FILE or URL, --history FILE or --no-history\n",
                               fallback.string()));
  EXPECT_THAT(read_text(fallback), HasSubstr("\"benchmarks\""));
}

TEST(CliHistory, AnExplicitHistoryThatCannotBeUsedIsRefusedWithTheSystemsReason) {
  const scratch_folder dir("history");
  fake_machine m;
  // A loop of links: stat fails with ELOOP, said as the system says it.
  fs::create_symlink("loop.json", dir.path() / "loop.json");
  const fs::path loop = dir.path() / "loop.json";
  auto r = tiny_run(m, {"--history", loop.c_str()});
  EXPECT_EQ(r.code, exit_usage);
  EXPECT_EQ(r.err, fmt::format("harness: --history: {}: it cannot be looked at: Too many levels of "
                               "symbolic links (ELOOP); name a file this user may read and write, "
                               "or give --no-history\n",
                               loop.string()));
  r = tiny_run(m, {"--history", dir.path().c_str()});
  EXPECT_EQ(r.code, exit_usage);
  EXPECT_THAT(r.err, HasSubstr(fmt::format("--history: {}: it is a directory, not a regular file",
                                           dir.path().string())));
  const fs::path in_missing = dir.path() / "none" / "h.json";
  r = tiny_run(m, {"--history", in_missing.c_str()});
  EXPECT_EQ(r.code, exit_usage);
  EXPECT_THAT(r.err, HasSubstr(fmt::format("--history: cannot write '{}': its folder '{}' does "
                                           "not exist",
                                           in_missing.string(), (dir.path() / "none").string())));
  {
    const env_guard history(m, "HARNESS_HISTORY", loop.string());
    r = tiny_run(m, {});
    EXPECT_EQ(r.code, exit_usage);
    EXPECT_THAT(r.err, HasSubstr(fmt::format("harness: HARNESS_HISTORY: {}: it cannot be looked "
                                             "at: Too many levels of symbolic links (ELOOP); name "
                                             "a file this user may read and write, unset "
                                             "HARNESS_HISTORY, or give --no-history",
                                             loop.string())));
  }
  EXPECT_EQ(dir.entries(), 1u);  // the loop, and nothing else
}

TEST(CliHistory, ADefaultThatCannotBeUsedIsOneWarningAndARunWithoutIt) {
  const scratch_folder dir("history");
  fake_machine m;
  // The state folder is a loop of links: the default history cannot even be looked at.
  fs::create_symlink("state", dir.path() / "state");
  {
    const default_place place(m, dir.path() / "state");
    const auto r = tiny_run(m, {"--detail"});
    ASSERT_EQ(r.code, exit_ok) << r.err;
    EXPECT_EQ(r.err, fmt::format("harness: warning: the default store cannot keep the history: {}: "
                                 "it cannot be looked at: Too many levels of symbolic links "
                                 "(ELOOP); running without one; give --db FILE or URL, --history "
                                 "FILE or --no-history\n",
                                 (dir.path() / "state" / "harness" / "results.db").string()));
    EXPECT_THAT(r.out, HasSubstr("history: none"));
  }
  // A file where its folder would be made.
  std::ofstream(dir.path() / "file") << "x";
  {
    const default_place place(m, dir.path() / "file");
    const auto r = tiny_run(m, {});
    ASSERT_EQ(r.code, exit_ok) << r.err;
    EXPECT_EQ(lines_of(r.err, "\n"), 1u) << r.err;
    EXPECT_THAT(r.err, HasSubstr(fmt::format("its folder cannot be made: '{}' is not a folder; "
                                             "running without one",
                                             (dir.path() / "file").string())));
  }
  // Something else's file where earlier harnesses kept the history: not imported, left as it
  // was; the history goes into the store.
  const fs::path fallback = dir.path() / "mine" / "harness" / "history.json";
  fs::create_directories(fallback.parent_path());
  std::ofstream(fallback) << "my notes\n";
  {
    const default_place place(m, dir.path() / "mine");
    const auto r = tiny_run(m, {});
    ASSERT_EQ(r.code, exit_ok) << r.err;
    EXPECT_THAT(r.err, HasSubstr(fmt::format("harness: warning: {}: not a harness history (not "
                                             "JSON: ",
                                             fallback.string())));
    EXPECT_THAT(r.err, HasSubstr("; not imported into the store, left as it is"));
    EXPECT_TRUE(fs::exists(dir.path() / "mine" / "harness" / "results.db"));
    EXPECT_THAT(r.err, Not(HasSubstr("[json.exception")));
    EXPECT_EQ(read_text(fallback), "my notes\n");
    // Named, the same file is refused.
    const auto named = tiny_run(m, {"--history", fallback.c_str()});
    EXPECT_EQ(named.code, exit_usage);
    EXPECT_THAT(named.err, HasSubstr(fmt::format("harness: --history: {}: not a harness history",
                                                 fallback.string())));
  }
  // No place at all (no XDG_STATE_HOME, no HOME).
  {
    const env_guard history(m, "HARNESS_HISTORY", std::nullopt);
    const env_guard state(m, "XDG_STATE_HOME", std::nullopt);
    const env_guard home(m, "HOME", std::nullopt);
    const auto r = tiny_run(m, {});
    ASSERT_EQ(r.code, exit_ok) << r.err;
    EXPECT_THAT(r.err, HasSubstr("harness: warning: the default store cannot keep the history: it "
                                 "has no place here"));
    EXPECT_EQ(lines_of(r.err, "\n"), 1u) << r.err;
  }
}

// The build the history keys floors by is the fingerprint of the machine's executable
// (machine::executable_path), here a file of the test's own; without one the build is unidentified.
TEST(CliHistory, TheBuildIsTheFingerprintOfTheMachinesExecutable) {
  const scratch_folder dir("history-build");
  fake_machine m;
  const fs::path history = dir.path() / "history.json";
  m.executable = dir.path() / "harness-of-the-test";
  { std::ofstream(m.executable) << "one build"; }
  const std::string one = file_fingerprint(m.executable);
  ASSERT_THAT(one, ::testing::StartsWith("xxh3:"));
  auto r = tiny_run(m, {"--history", history.c_str(), "--detail"});
  ASSERT_EQ(r.code, exit_ok) << r.err;
  EXPECT_THAT(r.out, HasSubstr("; build " + one + ")"));

  { std::ofstream(m.executable) << "another build"; }
  const std::string another = file_fingerprint(m.executable);
  EXPECT_NE(another, one);
  r = tiny_run(m, {"--history", history.c_str(), "--detail"});
  ASSERT_EQ(r.code, exit_ok) << r.err;
  EXPECT_THAT(r.out, HasSubstr("; build " + another + ")"));

  m.executable = dir.path() / "no-such-file";
  r = tiny_run(m, {"--history", history.c_str(), "--detail"});
  ASSERT_EQ(r.code, exit_ok) << r.err;
  EXPECT_THAT(r.out, HasSubstr("; build unidentified: no floors remembered)"));
}

// Floors are remembered per CPU the prepared phase is pinned to (history.hpp's floor_key): the
// vCPUs of one machine need not run at one speed, and the default CPU moves with the load, so a
// floor kept on one CPU is no memory for a run on another. In a history file and in a store.
TEST(CliHistory, FloorsAreRememberedPerCpu) {
  const scratch_folder dir("history-cpu");
  fake_machine m;
  m.executable = dir.path() / "harness-of-the-test";
  { std::ofstream(m.executable) << "one build"; }
  const fs::path file = dir.path() / "history.json";
  const fs::path db = dir.path() / "results.db";
  for (const std::vector<const char*>& kept : {std::vector<const char*>{"--history", file.c_str()},
                                               std::vector<const char*>{"--db", db.c_str()}}) {
    SCOPED_TRACE(kept[0]);
    const auto run_with = [&](std::vector<const char*> pin) {
      std::vector<const char*> args{"-w", "exact",    "-n", "4",       "--warmup",
                                    "0",  "--blocks", "2",  "--detail"};
      args.insert(args.end(), kept.begin(), kept.end());
      args.insert(args.end(), pin.begin(), pin.end());
      const auto r = testing::run(m, args);
      EXPECT_EQ(r.code, exit_ok) << r.err;
      return r.out;
    };
    EXPECT_THAT(run_with({"--cpu", "1"}),
                HasSubstr("no earlier run of this build showed a floor on CPU 1 of this machine"));
    EXPECT_THAT(run_with({"--cpu", "0"}),
                HasSubstr("no earlier run of this build showed a floor on CPU 0 of this machine"));
    const std::string again = run_with({"--cpu", "1"});
    EXPECT_THAT(again, HasSubstr("agreeing with the floor this build showed before"));
    EXPECT_THAT(again, Not(HasSubstr("no earlier run of this build")));
    // Unpinned, the floor may come from any CPU: kept for the machine alone.
    EXPECT_THAT(run_with({"--no-pin"}),
                HasSubstr("no earlier run of this build showed a floor on this machine ("));
  }
  std::vector<std::string> keys;
  const run_history kept = read_history(file);
  for (const auto& f : kept.floors())
    keys.push_back(f.machine.substr(f.machine.rfind(" | ") + 3));
  std::sort(keys.begin(), keys.end());
  EXPECT_THAT(keys, ::testing::ElementsAre("prepared on CPU 0", "prepared on CPU 1",
                                           "reference loop of 1000 iterations"));
}

// The default history is kept in the default results store (docs/store.md), made when first
// saved; the history.json of earlier harnesses is imported once and left where it is.
TEST(CliHistory, ADefaultThatCanBeUsedIsMadeAndKept) {
  const scratch_folder dir("history");
  fake_machine m;
  const default_place place(m, dir.path() / "state");
  const fs::path legacy = dir.path() / "state" / "harness" / "history.json";
  fs::create_directories(legacy.parent_path());
  run_history old;
  old.note_reference("an older machine", 4242, run_history::moment_at(std::time(nullptr)));
  { std::ofstream(legacy) << old.to_json(); }
  const std::string legacy_text = read_text(legacy);
  const auto r = tiny_run(m, {"--detail"});
  ASSERT_EQ(r.code, exit_ok) << r.err;
  EXPECT_EQ(r.err, "");
  const fs::path fallback = dir.path() / "state" / "harness" / "results.db";
  EXPECT_THAT(r.out, HasSubstr("history: " + fallback.string()));
  ASSERT_TRUE(fs::exists(fallback));
  EXPECT_EQ(read_text(legacy), legacy_text);  // left where it is, as it was
  {
    auto kept = store::open_store(fallback.string(), false);
    EXPECT_EQ(kept->load_history({"an older machine"}).speeds().at(0).reference_ticks, 4242u);
  }
  // A second run reads them back (the import is not repeated: the store keeps the source).
  const auto again = tiny_run(m, {"--detail"});
  ASSERT_EQ(again.code, exit_ok) << again.err;
  EXPECT_EQ(again.err, "");
  // Named with --db, the store is the user's choice: made now, and refused when unusable.
  const fs::path named = dir.path() / "named.db";
  const auto with_db = tiny_run(m, {"--db", named.c_str()});
  ASSERT_EQ(with_db.code, exit_ok) << with_db.err;
  EXPECT_TRUE(fs::exists(named));
  const auto folder = tiny_run(m, {"--db", dir.path().c_str()});
  EXPECT_EQ(folder.code, exit_usage);
  EXPECT_THAT(folder.err, HasSubstr("--db: the store of the history cannot be used: "));
  EXPECT_THAT(folder.err, HasSubstr("it is a directory, not a store file"));
  // And with --no-history, nothing is said of it.
  const auto off = tiny_run(m, {"--no-history"});
  EXPECT_EQ(off.code, exit_ok);
  EXPECT_EQ(off.err, "");
}

}  // namespace
}  // namespace harness::cli
