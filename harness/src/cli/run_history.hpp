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
#include "harness/run_report.hpp"
#include "harness/runner.hpp"

namespace harness::cli {

// The history this run reads and then adds to (history.hpp), when it keeps one.
struct history_plan {
  std::filesystem::path path;
  bool named = false;  // --history named it (else the default place)
  run_history records;
  std::string machine;
  std::string build;  // the executable's fingerprint; empty when it could not be read
  run_history::moment at;
};

// The history the flags ask for, read (a file that is not a harness history is a usage_error),
// with this machine's key and this build's fingerprint; nullptr when none is kept (--no-history,
// HARNESS_HISTORY=off, or no place for one). `named` is --history's value when given.
std::shared_ptr<history_plan> plan_history(bool no_history, const std::optional<std::string>& named,
                                           const clock_source& clock,
                                           const sampler_settings& tuning);
// The same for `harness gbench`: the machine is keyed by its CPU and Google Benchmark's real_time,
// the build by the fingerprint of `binary` (the Google Benchmark binary, not the harness) and
// `setup`, what else shapes its figures (the repetition length, the binary's own arguments).
std::shared_ptr<history_plan> plan_gbench_history(bool no_history,
                                                  const std::optional<std::string>& named,
                                                  const std::filesystem::path& binary,
                                                  std::string_view setup);

// What the history knows, for the runner; the floors only when the build could be identified.
floor_memory memory_of(const std::shared_ptr<history_plan>& plan);

// The fastest reference-loop run of a workload's phases and warmup, ticks; 0 when none ran.
std::uint64_t fastest_reference_of(const workload_result& r);

// Adds what the run saw to the history and writes it whole; a history that cannot be written is
// a warning on `err`.
void save_history(history_plan& plan, const run_report& report, std::ostream& err);

// What the report says of the history.
history_use use_of(const std::shared_ptr<history_plan>& plan, const floor_memory& memory);

}  // namespace harness::cli
