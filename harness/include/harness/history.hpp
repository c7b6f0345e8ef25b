// What earlier runs showed on this machine, kept between runs: the floor's memory.
//
// A slow-down that lasts a whole process leaves nothing faster within it to compare with: every
// block agrees on the slowed floor. Two records, kept in one JSON file, catch it in the next runs:
//   - per machine and sampling clock, the fastest reference-loop run seen: a run whose blocks all
//     ran the loop slower ran at a lowered host speed (floor.hpp: below_full_speed);
//   - per machine, build (a fingerprint of the executable's bytes) and workload, the lowest
//     agreed prepared floor (floor.hpp's agreed_floor: the lowest level two blocks reached),
//     confirmed or not: noise only adds time, so it proves the build can run that fast here
//     again, and a run whose floor lies above it was slowed, in any way the reference loop may
//     not see (above_remembered).
// A record lives for `lifetime` after it was last seen again: the host's speed depends on what
// else runs on it, which changes over minutes to hours here, and a machine's key cannot tell one
// host of a CPU model from another.
//
// The file is the harness's own: it is read only when it holds a harness history, and written
// whole or not at all (a temporary file, then a rename). This header is the text and the rules;
// the command line reads and writes the file (src/cli/history_file.hpp, run_history.hpp).
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace harness {

// The version of the file's format this build reads and writes.
inline constexpr int kHistoryVersion = 1;

struct history_settings {
  // Records not seen again for this long are ignored, then replaced.
  std::chrono::seconds lifetime{3600};
  // A value within this fraction above a record counts as seeing it again (refreshes its time):
  // the reference loop repeats to ~0.1% at one host speed, a floor to ~0.01%.
  double reference_refresh = 0.005;
  double floor_refresh = 0.0005;
};

class run_history {
 public:
  // A moment, as seconds since the Unix epoch, and the same as ISO 8601 text for people.
  struct moment {
    std::int64_t unix_seconds = 0;
    std::string text;
  };
  // The moment `unix_seconds` after the epoch, with its text in UTC ("2026-12-02T18:40:00Z").
  // The caller reads the wall clock (cli/): nothing in analysis/ does.
  static moment moment_at(std::int64_t unix_seconds);

  // Parses a history file's text; throws usage_error "SOURCE: WHY" when it is not a harness
  // history of a version this build reads, or a record is malformed ("SOURCE: floors[2].batch:
  // expected a whole number of 0 or more, got a string").
  static run_history parse(std::string_view json_text, const std::string& source);
  std::string to_json() const;

  struct speed_record {
    std::string machine;
    std::uint64_t reference_ticks = 0;
    moment seen;
  };
  struct floor_record {
    std::string machine;
    std::string build;
    std::string workload;  // display name, "xor_loop/1000000"
    std::uint64_t batch = 1;
    double floor = 0;  // ticks per call
    moment seen;
  };

  // The fastest reference run remembered for `machine`, unless older than the lifetime.
  std::optional<speed_record> fastest_reference(std::string_view machine, const moment& at,
                                                const history_settings& settings = {}) const;
  std::optional<floor_record> floor(std::string_view machine, std::string_view build,
                                    std::string_view workload, std::uint64_t batch,
                                    const moment& at, const history_settings& settings = {}) const;

  // Records what a run saw: a lower value replaces a live record, one within the refresh
  // fraction above it renews its time, an expired record is replaced.
  void note_reference(std::string_view machine, std::uint64_t ticks, const moment& at,
                      const history_settings& settings = {});
  void note_floor(std::string_view machine, std::string_view build, std::string_view workload,
                  std::uint64_t batch, double floor, const moment& at,
                  const history_settings& settings = {});

  const std::vector<speed_record>& speeds() const noexcept { return speeds_; }
  const std::vector<floor_record>& floors() const noexcept { return floors_; }

 private:
  std::vector<speed_record> speeds_;
  std::vector<floor_record> floors_;
};

// The file used when the user names none: $HARNESS_HISTORY (`env`, nullopt when unset), else
// $XDG_STATE_HOME/harness/history.json, else ~/.local/state/harness/history.json
// (%LOCALAPPDATA%\harness\history.json on Windows), from `state_directory`. Empty when there is
// no such place, or when $HARNESS_HISTORY is "off".
std::filesystem::path history_path_from(std::optional<std::string_view> env,
                                        const std::filesystem::path& state_directory);

// What identifies this machine for the reference loop's ticks: the CPU model, the sampling clock
// and its rate (MHz), and the loop's length.
std::string machine_key(std::string_view cpu_model, std::string_view clock_name,
                        double ticks_per_second, std::uint32_t reference_iterations);
// The key a prepared floor is remembered under: the machine's (above), and the CPU the prepared
// phase is pinned to (nullopt: not pinned, any CPU). The CPUs of one virtual machine need not run
// at one speed: two vCPUs here ran branchy code 4-8% apart, and which was faster changed within
// the hour, while the default CPU is chosen by load and moves from run to run. A floor shown on
// one CPU is no evidence for another ("MACHINE | prepared on CPU 1").
std::string floor_key(std::string_view machine, std::optional<int> cpu);
// The key of a machine for floors alone, when no reference loop runs (`harness gbench`, whose
// figures are the binary's own): the CPU model and what the figures are in.
std::string machine_key(std::string_view cpu_model, std::string_view figures);

}  // namespace harness
