// What a run of the experiment is asked to do: how many samples in how many blocks, how long, the
// preparation, the sampler's tuning (runner.hpp runs it; run_results.hpp holds what comes back).
// Free of the workload templates and Google Benchmark, so the writers and the analysis can read
// it.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "harness/floor.hpp"
#include "harness/platform.hpp"

namespace harness {

// Tuning of the sampler, gathered here; each value says why.
struct sampler_settings {
  // Empty samples taken to measure the timer overhead: at ~30 ns each, 2000 take well under 1 ms
  // and show the cheapest path many times over.
  std::size_t overhead_samples = 2000;
  // A sample must last this many clock steps, or the workload is batched: at 1000 steps the
  // clock's quantisation is at most 0.1% of a sample.
  double min_sample_steps = 1000;
  // Host slow-downs last seconds, so checking the reference loop about once a millisecond catches
  // them while costing ~0.2% of the sampling time.
  std::chrono::microseconds reference_interval{1000};
  // The reference loop (speed_probe.hpp's multiply chain): ~1.5 us of dependent multiply-adds,
  // long against the clock step and short against a sample's budget.
  std::uint32_t reference_iterations = 1000;
  // Between two blocks the reference loop runs for this long: the blocks are spread out so one
  // slow stretch of the host is less likely to cover them (floor_settings::min_separation asks
  // two agreeing blocks to begin 100 ms apart: blocks two apart are), and the loop reads the
  // host's speed meanwhile. Five blocks add 0.2 s to a phase.
  std::chrono::milliseconds block_gap{50};
  // The baseline's gaps are shorter: it takes no extra blocks, and its floor serves to check the
  // prepared one's, so its blocks need only span the 100 ms two agreeing blocks need (blocks 1
  // and 5 do). The 0.1 s saved goes to the prepared phase's extra blocks, within the wall time
  // a default run had before blocks x 1.5.
  std::chrono::milliseconds baseline_block_gap{25};
  // Before each prepared block after the first, the workload runs untimed for this long, after the
  // gap's reference loop: a workload that learns its input (a branch predictor trained by the same
  // bytes) forgets it in the gap, and its blocks would each start untrained while the first,
  // right after the warmup, did not. 0: no re-warming. (docs/floor.md, "A workload that learns")
  std::chrono::milliseconds block_rewarm{0};
  // When the prepared blocks show only a first block far below the rest (analysis.hpp:
  // learning_finding), the workload runs this long between the two blocks of the learning check
  // (run_results.hpp: learning_check_result). A branchy sum's blocks re-warmed this long ran
  // within -1% to +9% of its first, 200 ms within -2% to +11%, where its first block ran ~20%
  // below an untrained one (2096 MHz AMD host, docs/floor.md). 0: no check.
  std::chrono::milliseconds learning_check_rewarm{500};
  // With `--samples auto`, a block holds this many samples or a quarter of those taken so far,
  // whichever is more, so the checks (O(n log n) each) cost a small multiple of one summary.
  std::size_t auto_block_samples = 20;
  // How a floor is confirmed.
  floor_settings floor;
  // A reference run this much slower than the phase's best marks the samples around it: the host
  // slow-downs seen here are 1.6-2x, ordinary jitter of the loop stays within ~10%.
  double host_slowdown_factor = 1.3;
  // Context switches are read (getrusage, ~0.4 us a call) only around samples at least this long,
  // keeping the cost under ~4% of the sampling time.
  std::chrono::microseconds switch_count_min_sample{20};
  // A phase stops here whatever its interval or floor, so memory stays bounded (8 bytes a
  // sample): `--samples auto`, or the prepared phase's extra blocks.
  std::size_t auto_max_samples = 10'000'000;
  // Progress is reported at most this often: enough to show a long phase moving, rare enough that
  // the report (a terminal write of a few microseconds, between samples) stays negligible.
  std::chrono::milliseconds progress_interval{250};
};

// How far a phase has got, for a progress line.
struct sampling_progress {
  std::string_view workload;  // display name
  std::string_view stage;     // "unprepared samples", "warmup" or "prepared samples"
  std::size_t done = 0;       // samples taken; warmup: samples' worth of calls made
  std::size_t total = 0;      // samples asked for; 0 when not known in advance (auto, warmup)
  double elapsed_seconds = 0;
  double budget_seconds = 0;  // the warmup's length or auto's --max-time; 0 when none
};
// Called between samples, never while one is timed, at most every progress_interval.
using progress_callback = std::function<void(const sampling_progress&)>;

// What earlier runs showed, for the floor's cross-checks; empty members: nothing known.
struct floor_memory {
  // The fastest reference-loop run known before this workload: this run's earlier phases and
  // workloads, or this machine's history for the sampling clock. Ticks.
  std::optional<std::uint64_t> fastest_reference;
  bool fastest_reference_remembered = false;  // it came from the history
  // The prepared floor earlier runs of this build showed here for a workload (display name) and
  // batch, per call; empty function or nullopt: none remembered.
  std::function<std::optional<double>(std::string_view name, std::uint64_t batch)> floor_of;
  // The CPU those floors were shown on: the one this run pins its prepared phase to, since
  // floors are remembered per CPU (history.hpp's floor_key); nullopt: not pinned.
  std::optional<int> floors_cpu;
};

struct run_options {
  std::size_t samples = 20;  // per phase, unless auto_samples
  bool auto_samples = false;
  double target = 0.001;  // auto: relative width of the min's CI
  // Samples are taken in this many blocks (fewer when there are fewer samples); one block
  // cannot confirm a floor.
  std::size_t blocks = 5;
  // How long a phase may sample: auto's ceiling, and how long the prepared phase may go on
  // taking blocks until its floor is confirmed. The planned blocks of a fixed count always run.
  std::chrono::nanoseconds max_time = std::chrono::seconds(10);
  std::chrono::nanoseconds warmup = std::chrono::milliseconds(1200);  // 0: no warmup
  std::optional<int> cpu;  // pin here; nullopt: do not pin
  platform::priority_level priority = platform::priority_level::high;
  bool baseline = true;                                     // take the unprepared baseline
  bool lock_memory = false;                                 // mlockall during the prepared phase
  std::optional<std::uint64_t> batch;                       // calls per sample; nullopt: calibrate
  std::optional<std::chrono::nanoseconds> min_sample_time;  // nullopt: min_sample_steps x step
  // Under realtime priority, sampling pauses for `realtime_pause` after holding the CPU this long,
  // so the rest of the system (and the kernel's own threads) can run.
  std::chrono::nanoseconds max_hold = std::chrono::seconds(2);
  std::chrono::nanoseconds realtime_pause = std::chrono::milliseconds(20);
  // The CPU counters read around each sample (cpu_counters.hpp; --counters): by default all of
  // them, the hardware ones where they open; empty: none, and nothing is read between samples.
  std::vector<cpu_counter> counters = all_cpu_counters();
  progress_callback progress;  // empty: no progress is reported and none is tracked
  floor_memory memory;
  sampler_settings tuning;

  // The blocks a phase plans: `blocks`, and with a fixed count never more than its samples.
  std::size_t planned_blocks() const noexcept {
    return auto_samples ? std::max<std::size_t>(blocks, 1)
                        : std::clamp<std::size_t>(blocks, 1, std::max<std::size_t>(samples, 1));
  }
};

}  // namespace harness
