// The commits after which a workload's floor moved (regressions.hpp says the rule).
#include "harness/regressions.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <utility>

#include "base/check.hpp"
#include "harness/statistics.hpp"

namespace harness::regressions {

namespace {

// One commit of a series: its name and the log floors of its runs, in the order they were saved.
struct commit_runs {
  std::string commit;
  std::vector<double> logs;
};

// The commits of one series in the order of their first saved run.
std::vector<commit_runs> commits_in_order(std::vector<const saved_floor*> runs) {
  std::stable_sort(runs.begin(), runs.end(), [](const saved_floor* x, const saved_floor* y) {
    return x->saved_at < y->saved_at;
  });
  std::vector<commit_runs> commits;
  std::map<std::string, std::size_t> index;
  for (const saved_floor* r : runs) {
    auto [at, added] = index.try_emplace(r->commit, commits.size());
    if (added) commits.push_back({r->commit, {}});
    commits[at->second].logs.push_back(std::log(r->floor_seconds));
  }
  return commits;
}

// The runs of commits [first, last), their mean and the sum of squares around it.
struct window {
  std::size_t commits = 0;
  std::size_t runs = 0;
  double mean = 0;
  double squares = 0;
};

window window_of(const std::vector<commit_runs>& commits, std::size_t first, std::size_t last) {
  window w;
  w.commits = last - first;
  double sum = 0;
  for (std::size_t c = first; c < last; ++c) {
    for (const double v : commits[c].logs) {
      sum += v;
      ++w.runs;
    }
  }
  w.mean = sum / static_cast<double>(w.runs);
  for (std::size_t c = first; c < last; ++c) {
    for (const double v : commits[c].logs)
      w.squares += (v - w.mean) * (v - w.mean);
  }
  return w;
}

// The boundary before commit `j` of one series, judged; nullopt when it cannot be.
std::optional<finding> judge(const std::vector<commit_runs>& commits, std::size_t j,
                             const settings& s) {
  const std::size_t first = j >= s.window ? j - s.window : 0;
  const std::size_t last = std::min(commits.size(), j + s.window);
  const window before = window_of(commits, first, j);
  const window after = window_of(commits, j, last);
  if (before.runs < s.min_runs_before) return std::nullopt;
  const std::size_t dof = before.runs + after.runs - 2;
  if (dof == 0) return std::nullopt;
  const double noise = std::sqrt((before.squares + after.squares) / static_cast<double>(dof));
  const double shift = after.mean - before.mean;
  const double error = noise * std::sqrt(1.0 / static_cast<double>(before.runs) +
                                         1.0 / static_cast<double>(after.runs));
  finding f;
  f.commit_before = commits[j - 1].commit;
  f.commit_after = commits[j].commit;
  f.commits_before = before.commits;
  f.commits_after = after.commits;
  f.runs_before = before.runs;
  f.runs_after = after.runs;
  f.floor_before = std::exp(before.mean);
  f.floor_after = std::exp(after.mean);
  f.change = std::expm1(shift);
  f.noise = noise;
  f.dof = static_cast<double>(dof);
  f.dir = shift > 0 ? direction::slower : direction::faster;
  if (error > 0) {
    f.t = shift / error;
    f.p_value = stats::student_t_two_sided_p(f.t, f.dof);
  } else {
    // Every run of both windows gave one floor each side: no noise at all, so any move is sure.
    f.t = shift == 0 ? 0 : std::copysign(HUGE_VAL, shift);
    f.p_value = shift == 0 ? 1 : 0;
  }
  return f;
}

bool counts(const finding& f, const settings& s) {
  return std::abs(f.change) > s.threshold && f.p_value < s.significance;
}

// The findings of one series: the boundaries that count, each kept only when no boundary within
// `window` commits of it in the same direction has a larger |t| (the step itself, not its
// shoulders).
std::vector<finding> find_in_series(const std::vector<commit_runs>& commits, const settings& s) {
  std::vector<std::pair<std::size_t, finding>> candidates;
  for (std::size_t j = 1; j < commits.size(); ++j) {
    std::optional<finding> f = judge(commits, j, s);
    if (f && counts(*f, s)) candidates.emplace_back(j, std::move(*f));
  }
  std::vector<finding> kept;
  for (const auto& candidate : candidates) {
    const std::size_t j = candidate.first;
    const finding& f = candidate.second;
    const double tf = std::abs(f.t);
    const bool beaten = std::any_of(candidates.begin(), candidates.end(), [&](const auto& other) {
      const std::size_t k = other.first;
      const std::size_t apart = k > j ? k - j : j - k;
      if (k == j || apart > s.window || other.second.dir != f.dir) return false;
      const double tg = std::abs(other.second.t);
      return tg > tf || (tg == tf && k < j);  // a tie: the earlier boundary
    });
    if (!beaten) kept.push_back(f);
  }
  return kept;
}

}  // namespace

std::vector<finding> find(std::span<const saved_floor> runs, const settings& s) {
  HARNESS_CHECK(s.window >= 1, "regressions: a window of no commits");
  std::map<std::pair<std::string, std::string>, std::vector<const saved_floor*>> series;
  for (const saved_floor& r : runs) {
    HARNESS_CHECK(std::isfinite(r.floor_seconds) && r.floor_seconds > 0,
                  "regressions: a floor that is not a positive number");
    series[{r.machine, r.workload}].push_back(&r);
  }
  std::vector<finding> all;
  for (const auto& [key, members] : series) {
    for (finding& f : find_in_series(commits_in_order(members), s)) {
      f.machine = key.first;
      f.workload = key.second;
      all.push_back(std::move(f));
    }
  }
  return all;
}

bool any_slower(std::span<const finding> findings) noexcept {
  return std::any_of(findings.begin(), findings.end(),
                     [](const finding& f) { return f.dir == direction::slower; });
}

}  // namespace harness::regressions
