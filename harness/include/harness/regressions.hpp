// Regressions over saved runs: the commits after which a workload's floor moved, machine by
// machine (issue 29, `harness history --regressions`).
//
// The rule, over one series (one machine key, one workload; runs of different machine keys are
// never compared, not even through a common commit):
//   - the commits are put in the order their first run was saved;
//   - at every boundary between two neighbouring commits, the runs of up to `window` commits
//     before it are compared with the runs of up to `window` commits from it on;
//   - the figure compared is the logarithm of each run's floor, so a change is a ratio and the
//     noise a fraction whatever the floor's size;
//   - the noise is what the store has seen: the pooled standard deviation of the log floors
//     within the two windows (each window's runs around their own mean), and how sure a move is
//     comes from Student's t of the difference of the windows' means with that noise (the pooled
//     two-sample t test; with one run after the boundary it is the test of a new value against
//     the prediction interval of the runs before it);
//   - a boundary is a finding when the change of the windows' geometric means is larger than
//     `threshold` and its p-value is under `significance`, and no neighbouring boundary (within
//     `window` commits, the same direction) explains it better (a larger |t|): a step shows at
//     the boundaries around it too, with part of it in each window, and only the step itself is
//     reported.
// A boundary with fewer than `min_runs_before` runs before it, or no degree of freedom left for
// the noise, is not judged: a short history can say nothing.
//
// Pure: runs in, findings out; the store and the command line do the reading and printing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "harness/enum_names.hpp"

namespace harness::regressions {

// One saved run's figure for one workload.
struct saved_floor {
  std::string machine;        // the machine key: only runs of one key are compared
  std::string workload;       // the workload's name with its argument
  std::string commit;         // the commit CI gave (--commit); the run's own id where none was
  std::int64_t saved_at = 0;  // seconds since the epoch: orders the commits
  double floor_seconds = 0;   // the prepared phase's floor per call
  bool confirmed = false;     // whether its blocks agreed on it
};

struct settings {
  // A move smaller than this is never a finding, however sure (LNT ignores changes under 1%).
  double threshold = 0.01;
  // Two-sided p-value under which a move counts as sure (99%).
  double significance = 0.01;
  // Commits compared on each side of a boundary.
  std::size_t window = 5;
  // Runs needed before a boundary to judge it.
  std::size_t min_runs_before = 3;
};

enum class direction : std::uint8_t { slower, faster };
inline constexpr enum_table<direction, direction::faster> kDirectionNames{{
    {direction::slower, "slower"},
    {direction::faster, "faster"},
}};
constexpr const auto& enum_names(direction) noexcept {
  return kDirectionNames;
}
using harness::id_of;
using harness::to_string;

struct finding {
  std::string machine;
  std::string workload;
  std::string commit_before;       // the last commit before the move
  std::string commit_after;        // the first commit after it
  std::size_t commits_before = 0;  // commits in each window
  std::size_t commits_after = 0;
  std::size_t runs_before = 0;  // runs in each window
  std::size_t runs_after = 0;
  double floor_before = 0;  // geometric mean of the window's floors, seconds per call
  double floor_after = 0;
  double change = 0;   // floor_after / floor_before - 1
  double noise = 0;    // pooled standard deviation of the log floors (a fraction)
  double t = 0;        // Student's t of the move
  double dof = 0;      // its degrees of freedom
  double p_value = 1;  // two-sided
  direction dir = direction::slower;
};

// Every finding in `runs`, ordered by machine, workload and then commit. A floor that is not a
// positive finite number is a bug of the caller (a failed check).
std::vector<finding> find(std::span<const saved_floor> runs, const settings& s = {});

// Whether any finding is a slow-down (the gate's exit 4).
bool any_slower(std::span<const finding> findings) noexcept;

}  // namespace harness::regressions
