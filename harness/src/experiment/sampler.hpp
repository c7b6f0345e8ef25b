// What the experiment's files share (internal): the timed sample, the reference loop, and the
// sampler's entry points.
//
//   experiment.cpp   run_workload: first call, baseline, preparation, warmup, prepared, restore
//   sampler.cpp      sample_phase (blocks, gaps, host slow-downs, progress) and warm_up
//   calibration.cpp  the clock's facts, the timer overhead, the batch
//   counting.cpp     the CPU counters' reads around the samples
//   stop.cpp         the stop request of SIGINT/SIGTERM
//   results.cpp      the result types' names and members
#pragma once

#include <chrono>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "experiment/counting.hpp"
#include "harness/clock.hpp"
#include "harness/floor.hpp"
#include "harness/runner.hpp"
#include "harness/speed_probe.hpp"
#include "harness/workload.hpp"

namespace harness::detail {

// What escaped the workload's own call, thrown in its place: run_workload catches this and only
// this as "the workload threw". Any other exception is the harness's own failure and propagates.
// Deliberately not a std::exception, so no handler for the harness's errors can take it.
class workload_threw {
 public:
  workload_threw(std::string message, bool threw, bool making_input = false)
      : message_(std::move(message)), threw_(threw), making_input_(making_input) {}
  const std::string& message() const noexcept { return message_; }
  // false: the call returned a count that cannot be an iteration count (it threw nothing).
  bool threw() const noexcept { return threw_; }
  // The fresh input's maker threw (with_fresh_input), not the call.
  bool making_input() const noexcept { return making_input_; }

  // Where in a phase or the warmup, said by the sampler that caught it on its way out.
  void at_sample(std::size_t sample, std::size_t block) noexcept {
    sample_ = sample;
    block_ = block;
  }
  std::size_t sample() const noexcept { return sample_; }
  std::size_t block() const noexcept { return block_; }

 private:
  std::string message_;
  bool threw_ = true;
  bool making_input_ = false;
  std::size_t sample_ = 0;  // 1-based; 0: not in a phase's or the warmup's samples
  std::size_t block_ = 0;
};

// Called inside a catch block around the workload's code: throws workload_threw with the caught
// exception's message; `making_input`: it came from the fresh input's maker. Out of line, so the
// timed path stays as short as it was.
[[noreturn]] void rethrow_as_workload_threw(bool making_input = false);

// The workload as the experiment runs it: its session (workload_session: the setup's state, the
// calls), its display name for progress, and the iteration count its first call returned (0: none,
// or not called yet), which the report divides a call's time by; and the CPU counters opened for
// it (none: a null reader).
struct live_workload {
  workload_session& session;
  std::string_view name;
  std::uint64_t iterations_per_call = 0;
  counter_reader* counters = nullptr;
  std::vector<cpu_counter> counted;  // the counters that opened, in the order asked
  // What the workload declared its samples last at least (workload::min_sample_time).
  std::optional<std::chrono::nanoseconds> min_sample_time;
  // The calls a sample it declared it needs (workload::min_batch); 0: none.
  std::uint64_t min_batch = 0;
};

// The most iterations a second a returned count may claim: 20,000 a cycle of a 5 GHz core. The
// widest vector loop does 64-1024 elements a cycle (1024 bits of AVX-512 popcounts); beyond this
// the count is not an iteration count (size_t's npos, a checksum) or the loop was optimised away.
inline constexpr double kMaxIterationsPerSecond = 1e14;

// A returned count is an iteration count only when every call returns the first call's (the
// figure per iteration divides by it) and no call claims more than kMaxIterationsPerSecond: `calls`
// calls returned `count` in `raw` ticks, `overhead` of them the timer's. Otherwise the workload
// fails, as with a negative count (errors.md): throws workload_threw, which threw nothing. The
// time is bounded above by one clock resolution more than measured, so a fast legitimate count
// is never refused for the clock's coarseness.
void check_iteration_count(const live_workload& workload, std::uint64_t calls, std::uint64_t count,
                           std::uint64_t raw, std::uint64_t overhead, const clock_facts& facts);

// One timed sample: the sample's fresh inputs made first, untimed, then `reps` calls between two
// clock reads and nothing else, so the raw sample is the calls plus the overhead that
// measure_overhead() finds for this very path. What the workload throws leaves as workload_threw
// (the clock reads cannot throw). Only the session's calls are inside the handlers, and the
// harness's sessions throw nothing of their own (workload.hpp: a broken precondition of theirs is
// a failed check), so what is handed on is the user's code's; the sampler's own work around this
// call is outside them, and what it throws is the harness's failure.
inline std::uint64_t timed_sample(workload_session& session, const clock_source& clock,
                                  std::uint64_t reps, std::uint64_t& iterations,
                                  sample_counting* counting = nullptr) {
  try {
    session.before_sample(reps);
  } catch (...) {
    rethrow_as_workload_threw(true);
  }
  if (counting != nullptr) counting->before();
  const std::uint64_t start = clock.now();
  try {
    iterations = session.run(reps);
  } catch (...) {
    rethrow_as_workload_threw();
  }
  const std::uint64_t stop = clock.now();
  if (counting != nullptr) counting->after();
  return stop - start;
}

// The reference loop: a fixed chain of dependent multiply-adds, whose time only changes when the
// CPU runs slower.
inline std::uint64_t reference_run(const clock_source& clock, std::uint32_t iterations) {
  return run_probe(probe_kind::multiply_chain, clock, iterations);
}

// A non-negative count of ticks as a whole number; past what 64 bits hold (a length of about 280
// years at 2 GHz) the most they hold, not a conversion out of range.
inline std::uint64_t ticks_or_most(double ticks) {
  constexpr double kPastMost = 18446744073709551616.0;  // 2^64
  return ticks >= kPastMost ? std::numeric_limits<std::uint64_t>::max()
                            : static_cast<std::uint64_t>(ticks);
}

inline std::uint64_t seconds_to_ticks(std::chrono::nanoseconds d, const clock_source& clock) {
  return ticks_or_most(static_cast<double>(d.count()) * 1e-9 * clock.ticks_per_second());
}

struct phase_plan {
  phase_kind kind;
  std::uint64_t batch;
  std::uint64_t overhead;
  double expected_sample_seconds;  // what one sample should take, to pace the side checks
  bool extendable;                 // more blocks may follow the planned ones
  floor_context floor;             // what the floor is checked against (granularity per call...)
};

// Samples one phase in blocks: the planned ones (a fixed count split evenly), then, when the
// plan allows, more until the floor is confirmed (and with auto, the target met twice in a row),
// within max_time. Between blocks the reference loop runs for block_gap.
phase_result sample_phase(const phase_plan& plan, const live_workload& workload,
                          const run_options& options, const clock_facts& facts,
                          platform::os_interface& os);

// Warms up with the very call that samples ("use the same mechanisms for warming up as for
// running"), until `options.warmup` has passed on the sampling clock (as max_time and the block
// gaps are measured: a test's fake clock decides how many calls it makes).
warmup_result warm_up(const live_workload& workload, std::uint64_t batch,
                      const run_options& options, const clock_source& clock);

// Finds how many calls make a sample of at least `min_ticks`: grows the batch until the fastest
// of three samples reaches it.
std::uint64_t calibrate_batch(workload_session& workload, const clock_source& clock,
                              std::uint64_t overhead, std::uint64_t min_ticks);

}  // namespace harness::detail
