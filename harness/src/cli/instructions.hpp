// `--instructions` (harness run, harness ab): a workload's instructions per call, counted exactly
// under Valgrind's callgrind. The harness runs itself again under valgrind with its hidden command
// `count-instructions`, which calls the workload once uncounted (lazy binding, first touches),
// then for each counted call zeroes callgrind's counts, switches collection on around the
// workload's call alone (CALLGRIND_TOGGLE_COLLECT) and dumps them (CALLGRIND_DUMP_STATS_AT): one
// file per call, whose totals are that call's instructions (and, with --cache-sim, its simulated
// L1 and last-level misses). Internal header of cli/.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "cli.hpp"
#include "harness/run_results.hpp"

namespace harness::cli {

// Calls counted per workload: enough to show the count is the same call after call.
inline constexpr std::uint64_t kInstructionCalls = 5;

// Throws usage_error (exit 2) naming the Debian package when valgrind is not on the PATH.
void check_valgrind(const machine& host);

// Counts `workload` (one workload instance's display name, "xor_loop/1000000") under valgrind,
// running `executable` (this program). Throws usage_error (exit 2) when valgrind is not installed,
// naming the Debian package; std::runtime_error when valgrind or the child failed (its stderr's
// last lines in the message).
instruction_count count_instructions(const machine& host, const std::filesystem::path& executable,
                                     const std::string& workload, std::uint64_t calls,
                                     bool cache_sim);

// The totals of one callgrind output file's text ("events: Ir ..." and "totals: N ..."):
// instructions, and with a cache simulation the L1 (I1mr + D1mr + D1mw) and last-level (ILmr +
// DLmr + DLmw) misses. Throws std::runtime_error naming what is missing.
struct callgrind_totals {
  std::uint64_t instructions = 0;
  std::optional<std::uint64_t> l1_misses;
  std::optional<std::uint64_t> ll_misses;
};
callgrind_totals parse_callgrind_totals(const std::string& text);

// Registers the hidden `count-instructions -w NAME --calls N` the counting runs under valgrind.
void add_count_instructions_command(CLI::App& root, context& ctx);

}  // namespace harness::cli
