// Probes of the CPU's speed: short fixed loops whose time changes only when the CPU runs slower.
//
// The harness times one of them (the reference loop) between samples to see what the workload's
// own samples cannot: a host that lowered the clock of the whole guest. Each probe is one kind of
// work, and a host's slow-downs are not uniform across kinds (docs/floor.md has the measurements):
//   multiply_chain  dependent multiply-adds, latency-bound (4 cycles an iteration on current x86):
//                   its time follows the core clock alone, so it reads the host's boost level;
//   tight_loop      an empty counted loop, one iteration a cycle, bound by the front end: it also
//                   slows when a busy sibling thread on the host shares the core.
// Both keep their state in a register through an empty asm statement rather than
// benchmark::DoNotOptimize, whose memory form would add a store and a load to the chain on some
// compilers: the loops compile to the same instructions wherever the harness is built.
//
// Caveat: a probe's ticks depend on the clock and the CPU; only readings of one probe, one
// iteration count and one clock on one machine compare.
#pragma once

#include <cstdint>

#include "harness/clock.hpp"
#include "harness/enum_names.hpp"

namespace harness {

enum class probe_kind { multiply_chain, tight_loop };
inline constexpr enum_table<probe_kind, probe_kind::tight_loop> kProbeKindNames{{
    {probe_kind::multiply_chain, "multiply_chain", "multiply chain"},
    {probe_kind::tight_loop, "tight_loop", "tight loop"},
}};
constexpr const auto& enum_names(probe_kind) noexcept {
  return kProbeKindNames;
}

// Runs `iterations` of the probe's loop between two reads of `clock`; returns the ticks.
std::uint64_t run_probe(probe_kind kind, const clock_source& clock, std::uint32_t iterations);

}  // namespace harness
