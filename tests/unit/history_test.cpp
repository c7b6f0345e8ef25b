// The history file: only our own file is read, records follow their rules, and round trips.
#include "harness/history.hpp"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "harness/errors.hpp"
#include "history_file.hpp"
#include "scratch.hpp"

namespace harness {
namespace {

using ::testing::HasSubstr;
namespace fs = std::filesystem;

run_history::moment at(std::int64_t seconds) {
  // fmt rather than "t" + std::to_string: GCC 12 at -O3 (the Windows build) warns falsely
  // (-Wrestrict) on the latter.
  return {seconds, fmt::format("t{}", seconds)};
}

// A fresh folder under the system's temporary folder, removed at the end of the test. Named
// after the process, the time and a counter (scratch.hpp), not the object's address: under Wine
// two test processes run side by side by ctest -j get the same addresses, and so shared one
// folder (one removed it under the other).
class temp_dir {
 public:
  const fs::path& path() const { return folder_.path(); }

 private:
  harness::testing::scratch_folder folder_{"history"};
};

void write(const fs::path& p, const std::string& text) {
  std::ofstream(p, std::ios::binary) << text;
}

// The moment a record is seen is given (cli/ reads the wall clock); its text is UTC.
TEST(History, AMomentIsTheGivenSecondsWithTheirUtcText) {
  EXPECT_EQ(run_history::moment_at(0).text, "1970-01-01T00:00:00Z");
  const run_history::moment m = run_history::moment_at(1'796'169'600);
  EXPECT_EQ(m.unix_seconds, 1'796'169'600);
  EXPECT_EQ(m.text, "2026-12-02T00:00:00Z");
}

TEST(History, ALowerValueReplacesANearOneRenewsAHigherOneIsIgnored) {
  run_history h;
  h.note_reference("m", 3000, at(100));
  h.note_reference("m", 2990, at(200));  // lower: replaces
  EXPECT_EQ(h.fastest_reference("m", at(200))->reference_ticks, 2990u);
  EXPECT_EQ(h.fastest_reference("m", at(200))->seen.unix_seconds, 200);
  h.note_reference("m", 3000, at(300));  // within 0.5% above: renews the time only
  EXPECT_EQ(h.fastest_reference("m", at(300))->reference_ticks, 2990u);
  EXPECT_EQ(h.fastest_reference("m", at(300))->seen.unix_seconds, 300);
  h.note_reference("m", 3100, at(400));  // 3.7% above: a slower host, nothing changes
  EXPECT_EQ(h.fastest_reference("m", at(400))->seen.unix_seconds, 300);
  EXPECT_FALSE(h.fastest_reference("other machine", at(400)));
}

TEST(History, RecordsExpireAfterTheirLifetimeAndAreThenReplaced) {
  history_settings s;
  s.lifetime = std::chrono::seconds(60);
  run_history h;
  h.note_floor("m", "b", "w/1", 1, 1000.0, at(0), s);
  EXPECT_TRUE(h.floor("m", "b", "w/1", 1, at(60), s));
  EXPECT_FALSE(h.floor("m", "b", "w/1", 1, at(61), s));
  // An expired record is replaced even by a higher value.
  h.note_floor("m", "b", "w/1", 1, 1200.0, at(61), s);
  EXPECT_DOUBLE_EQ(h.floor("m", "b", "w/1", 1, at(61), s)->floor, 1200.0);
}

TEST(History, FloorsAreKeptPerMachineBuildWorkloadAndBatch) {
  run_history h;
  h.note_floor("m", "b1", "w/1", 1, 1000.0, at(0));
  EXPECT_TRUE(h.floor("m", "b1", "w/1", 1, at(0)));
  EXPECT_FALSE(h.floor("m", "b2", "w/1", 1, at(0)));
  EXPECT_FALSE(h.floor("m", "b1", "w/2", 1, at(0)));
  EXPECT_FALSE(h.floor("m", "b1", "w/1", 2, at(0)));
  EXPECT_FALSE(h.floor("n", "b1", "w/1", 1, at(0)));
}

TEST(History, RoundTripsThroughItsFile) {
  run_history h;
  h.note_reference("m", 2666, at(5));
  h.note_floor("m", "xxh3:00", "xor_loop/1000000", 1, 659456.5, at(6));
  const run_history back = run_history::parse(h.to_json(), "test");
  ASSERT_EQ(back.speeds().size(), 1u);
  EXPECT_EQ(back.speeds()[0].reference_ticks, 2666u);
  EXPECT_EQ(back.speeds()[0].seen.text, "t5");
  ASSERT_EQ(back.floors().size(), 1u);
  EXPECT_DOUBLE_EQ(back.floors()[0].floor, 659456.5);
  EXPECT_EQ(back.floors()[0].workload, "xor_loop/1000000");
}

// Builds were keyed "mm64fnv:..." (the standard library's hash) before XXH3: such a record is
// another build's, so the first run after the upgrade is its build's first here; the machine's
// fastest reference run carries over, since it is keyed by the machine alone.
TEST(History, ABuildKeyOfTheOldFingerprintIsAnotherBuild) {
  const run_history old = run_history::parse(R"({"harness_history": 1,
      "speeds": [{"machine": "m", "reference_ticks": 2666, "seen": "t5", "seen_unix": 5}],
      "floors": [{"machine": "m", "build": "mm64fnv:2425e7e83e092fda", "workload": "w/1",
                  "batch": 1, "floor_ticks": 100, "seen": "t5", "seen_unix": 5}]})",
                                             "h.json");
  EXPECT_FALSE(old.floor("m", "xxh3:e6c632b61e964e1f", "w/1", 1, at(6)));
  ASSERT_TRUE(old.fastest_reference("m", at(6)));
  run_history now = old;
  now.note_floor("m", "xxh3:e6c632b61e964e1f", "w/1", 1, 120, at(6));
  ASSERT_EQ(now.floors().size(), 2u);
  EXPECT_DOUBLE_EQ(now.floor("m", "xxh3:e6c632b61e964e1f", "w/1", 1, at(6))->floor, 120);
}

TEST(History, AFileThatIsNotAHarnessHistoryIsRefusedAndLeftAlone) {
  EXPECT_THROW(run_history::parse("not json", "f"), usage_error);
  try {
    run_history::parse(R"({"some": "other program's settings"})", "settings.json");
    FAIL() << "accepted a foreign file";
  } catch (const usage_error& e) {
    // What to do (--history, --no-history) is the command line's to say: it knows which history.
    EXPECT_EQ(std::string(e.what()),
              "settings.json: not a harness history (no \"harness_history\" key)");
  }
  EXPECT_THROW(run_history::parse(R"({"harness_history": 99})", "f"), usage_error);
  // A malformed record is named by its place, never in nlohmann's words.
  const auto refusal = [](std::string_view text) {
    return testing::message_of<usage_error>([&] { run_history::parse(text, "h.json"); });
  };
  EXPECT_EQ(refusal(R"({"harness_history": 1, "speeds": [{"machine": 3}]})"),
            "h.json: speeds[0].machine: expected a string, got the number 3");
  EXPECT_EQ(refusal(R"({"harness_history": 1, "floors": [{"machine": "m", "build": "b",
      "workload": "w", "batch": -2, "floor_ticks": 5, "seen": "t", "seen_unix": 1}]})"),
            "h.json: floors[0].batch: expected a whole number of 0 or more, got the number -2");
  EXPECT_EQ(refusal(R"({"harness_history": 1, "floors": [{"machine": "m", "build": "b",
      "workload": "w", "batch": 1, "floor_ticks": -5, "seen": "t", "seen_unix": 1}]})"),
            "h.json: floors[0].floor_ticks: -5 is out of range: a floor is 0 to 1e15 ticks");
  EXPECT_EQ(refusal(R"({"harness_history": 1, "speeds": [{"machine": "m",
      "reference_ticks": 5, "seen": "t"}]})"),
            "h.json: speeds[0].seen_unix: missing");
  EXPECT_EQ(refusal(R"({"harness_history": 1, "speeds": {}})"),
            "h.json: speeds: expected an array, got an object");
  EXPECT_THAT(refusal("[1e999]"), HasSubstr("h.json: not a harness history (not JSON: number "
                                            "overflow parsing '1e999')"));

  temp_dir dir;
  const fs::path foreign = dir.path() / "notes.txt";
  write(foreign, "my notes\n");
  EXPECT_THROW(cli::read_history(foreign), usage_error);
  std::ifstream in(foreign);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "my notes");  // untouched
  // A folder is not a file to read or replace.
  EXPECT_EQ(testing::message_of<usage_error>([&] { cli::read_history(dir.path()); }),
            dir.path().string() +
                ": it is a directory, not a regular file, so it is neither read nor replaced");
  // A missing file is an empty history.
  EXPECT_TRUE(cli::read_history(dir.path() / "none.json").speeds().empty());
}

TEST(History, DefaultPathFollowsTheEnvironment) {
  const fs::path state = fs::path("state");
  EXPECT_EQ(history_path_from("chosen.json", state), fs::path("chosen.json"));
  EXPECT_TRUE(history_path_from("off", state).empty());
  EXPECT_EQ(history_path_from(std::nullopt, state), state / "harness" / "history.json");
  EXPECT_EQ(history_path_from("", state), state / "harness" / "history.json");
  EXPECT_TRUE(history_path_from(std::nullopt, fs::path()).empty());
}

TEST(History, MachineKeyAndFingerprint) {
  EXPECT_EQ(machine_key("AMD EPYC", "rdtscp", 2.1e9, 1000),
            "AMD EPYC | rdtscp at 2100 MHz | reference loop of 1000 iterations");
  EXPECT_EQ(machine_key("", "rdtsc", 2.0964e9, 1000),
            "unknown CPU | rdtsc at 2096 MHz | reference loop of 1000 iterations");
  // Floors are kept per CPU the prepared phase is pinned to; unpinned, for the machine alone.
  EXPECT_EQ(floor_key("AMD EPYC | rdtsc", 1), "AMD EPYC | rdtsc | prepared on CPU 1");
  EXPECT_EQ(floor_key("AMD EPYC | rdtsc", std::nullopt), "AMD EPYC | rdtsc");
  temp_dir dir;
  write(dir.path() / "a", "a");
  // XXH3-64 with seed 0, as xxHash's own tests give it: the same on every platform and library.
  const std::string a = cli::file_fingerprint(dir.path() / "a");
  EXPECT_EQ(a, "xxh3:e6c632b61e964e1f");
  write(dir.path() / "empty", "");
  EXPECT_EQ(cli::file_fingerprint(dir.path() / "empty"), "xxh3:2d06800538d394c2");
  EXPECT_EQ(cli::file_fingerprint(dir.path() / "missing"), "");
  // The same bytes give the same fingerprint; a byte changed anywhere, in a whole group of words
  // or in the tail, or a zero byte added, gives another. 3 MiB + 13 bytes: three full reads and
  // a tail, with words in every lane.
  std::string big(3 * (1 << 20) + 13, '\0');
  for (std::size_t i = 0; i < big.size(); ++i)
    big[i] = static_cast<char>((i * 2654435761u) >> 13);
  write(dir.path() / "big", big);
  write(dir.path() / "same", big);
  const std::string original = cli::file_fingerprint(dir.path() / "big");
  EXPECT_EQ(cli::file_fingerprint(dir.path() / "same"), original);
  std::set<std::string> seen{original, a};
  for (const std::size_t at :
       {std::size_t{0}, std::size_t{9}, std::size_t{17}, std::size_t{31}, std::size_t{1} << 20,
        big.size() / 2, big.size() - 14, big.size() - 1}) {
    std::string changed = big;
    changed[at] = static_cast<char>(changed[at] ^ 0x40);
    write(dir.path() / "changed", changed);
    EXPECT_TRUE(seen.insert(cli::file_fingerprint(dir.path() / "changed")).second) << "byte " << at;
  }
  write(dir.path() / "longer", big + std::string(1, '\0'));
  EXPECT_TRUE(seen.insert(cli::file_fingerprint(dir.path() / "longer")).second);
  write(dir.path() / "a0", std::string("a\0", 2));
  EXPECT_TRUE(seen.insert(cli::file_fingerprint(dir.path() / "a0")).second);
}

}  // namespace
}  // namespace harness
