// Running one workload through the experiment: cold first call, unprepared baseline, preparation,
// warmup, prepared samples, restore.
//
// Each phase is sampled in blocks spread out in time, with the reference loop running in the gaps
// between them; the floor of the phase is confirmed from its blocks (floor.hpp). The prepared
// phase (and every phase with `--samples auto`) takes more blocks until its floor is confirmed,
// within max_time.
//
// Every figure is in native ticks of the sampling clock. What a sample adds around the workload
// (two clock reads and one call through the registry) is measured in each phase as the timer
// overhead and subtracted; a workload too short to time alone runs `batch` times per sample and
// values are per call. Each sample is checked for disturbance: involuntary context switches (when
// samples are long enough to read them cheaply) and host slow-downs, which a virtual machine's
// guest cannot see, found by timing a short fixed reference loop between samples.
// The runner only measures; reports are made from its results elsewhere.
#pragma once

#include <cstddef>
#include <cstdint>

#include "harness/platform.hpp"
#include "harness/run_options.hpp"
#include "harness/run_results.hpp"
#include "harness/workload.hpp"

namespace harness {

// Runs the experiment for one workload. Affinity and priority are restored before returning, also
// when the workload throws or a stop is requested. Only an exception that escapes the workload's
// own call (first call, batch calibration, warmup, a sample) is the workload's failure: it is kept
// in `failure`, with where it happened and the results gathered before it. Any other exception is
// the harness's own failure and propagates, after affinity, priority and memory locking are put
// back. Throws std::invalid_argument for options it cannot run with (auto sampling with a target
// that is not a positive, finite fraction).
workload_result run_workload(const workload_instance& workload, const run_options& options,
                             const clock_facts& clock, platform::os_interface& os);

// The timer overhead: the cheapest of `samples` empty samples through the sampling path, ticks.
std::uint64_t measure_overhead(const clock_source& clock, std::size_t samples);

// Asks running samplers to stop after the current sample (async-signal-safe), and reads it.
void request_stop(int signal_number) noexcept;
int stop_signal() noexcept;  // 0 while no stop was requested
void clear_stop() noexcept;

}  // namespace harness
