// The page of `harness ab` (ab_report.hpp; report/html/ab.js draws it, docs/output.md "harness
// ab"): the JSON document without its rounds, each pair's round ratios to draw, a histogram of the
// ratios counted over every round, and the answer in the console's words; with gbench --vs, the
// same for each benchmark.
//
// Made from the JSON document alone, as the run page is (html.cpp), so that a page drawn later
// from an ab JSON file would be the page the run wrote. As on the run page, what is drawn is
// thinned (html::thin_for_drawing, above kHtmlMaxDrawn rounds a pair), never what is counted:
// the histogram counts every round, the figures in the text are the document's.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "harness/ab_report.hpp"
#include "harness/report.hpp"
#include "harness/statistics.hpp"
#include "report/ab_writers.hpp"
#include "report/html.hpp"

namespace harness::html {
namespace {

using ab_page_json = nlohmann::ordered_json;

// Bins of the histogram between its two edge bars.
constexpr std::size_t kAbHistogramBins = 40;
// The histogram's scale runs between Tukey's "far out" fences, the quartiles 3 interquartile
// ranges apart: a round of a host slow-down (a ratio of 1.3 among ratios within 0.1% of 1.01)
// goes to an edge bar instead of squeezing every other round into one bin, while rounds of the
// ordinary spread stay in the picture.
constexpr double kAbFenceIqrs = 3.0;
// When every ratio is the same: a scale this wide (relative) around it, so its bar has a width.
constexpr double kAbFlatScale = 0.001;

// One round that gave a ratio: whose it is, and its mark.
struct ab_ratio {
  std::size_t pair = 0;
  double ratio = 1;
  bool disturbed = false;
};

std::optional<ab_interval> interval_of(const ab_page_json& j) {
  if (j.is_null()) return std::nullopt;
  ab_interval i;
  i.ratio = j.at("ratio").get<double>();
  i.lower = j.at("lower").get<double>();
  i.upper = j.at("upper").get<double>();
  return i;
}

// "+1.00% [+0.98%, +1.02%]".
ab_page_json change_with_bounds(const std::optional<ab_interval>& i) {
  if (!i) return nullptr;
  return fmt::format("{} [{}, {}]", ab_change_text(i->ratio), ab_change_text(i->lower),
                     ab_change_text(i->upper));
}

// The answer as the console's first line gives it.
std::string headline(const std::optional<ab_interval>& answer, bool no_pairs,
                     std::size_t with_ratio) {
  if (answer) {
    return fmt::format("{} [{}, {}]", ab_headline(*answer), ab_change_text(answer->lower),
                       ab_change_text(answer->upper));
  }
  if (no_pairs) return "No rounds were measured";
  return fmt::format("Not answered: {} rounds gave a ratio, and an interval needs 6", with_ratio);
}

// The words of a stop's id, as the console gives them.
std::string stop_phrase(const std::string& id) {
  const std::optional<ab_stop> stop = parse_id<ab_stop>(id);
  return stop ? std::string(to_string(*stop)) : id;
}

// Counts per bin: index 0 holds the ratios below `low`, 1..bins those within, bins + 1 those
// above `top`. Undisturbed rounds per pair (`counts`), the disturbed ones of every pair together
// (`disturbed`), so the bars stack to the distribution of every round.
ab_page_json ratio_histogram(const std::vector<ab_ratio>& ratios, std::size_t pairs,
                             const std::optional<ab_interval>& answer) {
  if (ratios.empty()) return nullptr;
  std::vector<double> sorted;
  sorted.reserve(ratios.size());
  for (const ab_ratio& r : ratios)
    sorted.push_back(r.ratio);
  std::sort(sorted.begin(), sorted.end());
  const double lowest = sorted.front();
  const double highest = sorted.back();
  const double q1 = *stats::quantile_sorted(sorted, 0.25);
  const double q3 = *stats::quantile_sorted(sorted, 0.75);
  const double iqr = q3 - q1;
  double low = lowest;
  double top = highest;
  if (iqr > 0) {
    low = std::max(lowest, q1 - kAbFenceIqrs * iqr);
    top = std::min(highest, q3 + kAbFenceIqrs * iqr);
  }
  // The answer's interval is drawn over the bars: keep it on the scale.
  if (answer) {
    low = std::min(low, answer->lower);
    top = std::max(top, answer->upper);
  }
  if (!(top > low)) {
    const double half = std::max(std::fabs(low) * kAbFlatScale / 2, 1e-12);
    low -= half;
    top += half;
  }
  const double width = (top - low) / static_cast<double>(kAbHistogramBins);
  // Counted the one way (stats::count_bins), per pair's undisturbed rounds and all disturbed ones.
  std::vector<std::vector<double>> groups(pairs + 1);
  for (const ab_ratio& r : ratios)
    groups[r.disturbed ? pairs : r.pair].push_back(r.ratio);
  const auto bars = [&](const std::vector<double>& values) {
    const stats::bin_counts c = stats::count_bins(values, low, top, kAbHistogramBins);
    std::vector<std::size_t> out{c.below};
    out.insert(out.end(), c.counts.begin(), c.counts.end());
    out.push_back(c.above);
    return out;
  };
  std::vector<std::vector<std::size_t>> counts;
  for (std::size_t p = 0; p < pairs; ++p)
    counts.push_back(bars(groups[p]));
  const std::vector<std::size_t> disturbed = bars(groups[pairs]);
  return {{"bins", kAbHistogramBins},
          {"low", low},
          {"top", top},
          {"width", width},
          {"lowest", lowest},
          {"highest", highest},
          {"counts", counts},
          {"disturbed", disturbed}};
}

// One comparison's figures to draw: its pairs' round ratios (taken out of each pair: the page
// carries them as the series), the histogram over them, and its answer in the console's words.
// With gbench, one per benchmark (a pair each); otherwise the one over every pair.
ab_page_json comparison_view(ab_page_json& pairs, const ab_page_json& answer_json) {
  ab_page_json series = ab_page_json::array();
  std::vector<ab_ratio> ratios;
  for (ab_page_json& pair : pairs) {
    const std::size_t index = series.size();
    // The rounds that gave a ratio (A's minimum above 0), numbered as taken.
    std::vector<std::size_t> number;
    std::vector<double> value;
    std::vector<char> mark;
    const ab_page_json& rounds = pair.at("rounds");
    for (std::size_t k = 0; k < rounds.size(); ++k) {
      const ab_page_json& ratio = rounds[k].at("ratio");
      if (!ratio.is_number()) continue;
      number.push_back(k + 1);
      value.push_back(ratio.get<double>());
      mark.push_back(rounds[k].at("disturbed").get<bool>() ? 1 : 0);
      ratios.push_back({index, value.back(), mark.back() != 0});
    }
    const thinned drawn = thin_for_drawing(value, mark);
    ab_page_json i = ab_page_json::array();
    ab_page_json r = ab_page_json::array();
    ab_page_json d = ab_page_json::array();
    for (const std::size_t k : drawn.kept) {
      i.push_back(number[k]);
      r.push_back(value[k]);
      d.push_back(mark[k] != 0 ? 1 : 0);
    }
    const ab_page_json& estimate = pair.at("estimate");
    series.push_back({{"rounds", rounds.size()},
                      {"with_ratio", value.size()},
                      {"every", drawn.every},
                      {"i", i},
                      {"r", r},
                      {"d", d},
                      {"change", change_with_bounds(interval_of(estimate.at("rounds")))},
                      {"undisturbed", change_with_bounds(interval_of(estimate.at("undisturbed")))},
                      {"stopped", stop_phrase(pair.at("stopped_by").get<std::string>())}});
    // The page carries the rounds as the series above; the JSON file has them whole.
    pair.erase("rounds");
  }
  const std::optional<ab_interval> answer = interval_of(answer_json);
  const std::size_t count = series.size();
  return {{"headline", headline(answer, pairs.empty(), ratios.size())},
          {"answer", change_with_bounds(answer)},
          {"histogram", ratio_histogram(ratios, count, answer)},
          {"series", std::move(series)}};
}

// gbench: how the suite's benchmarks came out, "3 benchmarks compared: 1 slower, 2 same".
std::string suite_headline(const ab_page_json& comparisons) {
  if (comparisons.empty()) return "No benchmark both binaries list was compared";
  std::vector<std::string> counts;
  for (const auto& row : kAbVerdictNames.rows) {
    std::size_t n = 0;
    for (const ab_page_json& c : comparisons)
      n += c.at("verdict") == row.id ? 1 : 0;
    if (n > 0) counts.push_back(fmt::format("{} {}", n, row.id));
  }
  std::size_t unanswered = 0;
  for (const ab_page_json& c : comparisons)
    unanswered += c.at("verdict").is_null() ? 1 : 0;
  if (unanswered > 0) counts.push_back(fmt::format("{} not answered", unanswered));
  return fmt::format("{} benchmark{} compared: {}", comparisons.size(),
                     comparisons.size() == 1 ? "" : "s", fmt::join(counts, ", "));
}

// The page's title (html.hpp: ab_page).
std::string ab_page_title(const ab_page_json& document) {
  const ab_page_json& ab = document.at("ab");
  const ab_page_json& mode = ab.at("mode");
  if (mode == id_of(ab_mode::gbench)) {
    const ab_page_json& builds = ab.at("builds");
    return fmt::format("harness gbench --vs: {} against {}", builds.at("a").get<std::string>(),
                       builds.at("b").get<std::string>());
  }
  if (ab.at("a").is_null() || ab.at("b").is_null()) return "harness ab";
  // As the console names a side.
  const auto side = [&](const ab_page_json& s) {
    ab_side_facts facts;
    facts.workload = s.at("workload").get<std::string>();
    facts.build = s.at("build").get<std::string>();
    return ab_detail::side_name(facts, parse_id<ab_mode>(mode.get<std::string>()).value());
  };
  return fmt::format("harness ab: {} against {}", side(ab.at("a")), side(ab.at("b")));
}

// What the page draws (html.hpp: ab_page).
ab_page_json ab_page_data(ab_page_json document) {
  ab_page_json& ab = document.at("ab");
  ab_page_json view = comparison_view(ab.at("pairs"), ab.at("answer"));
  ab_page_json out = {{"page", "ab"}, {"max_drawn", kHtmlMaxDrawn}, {"slow_host", kAbSlowHost}};
  if (ab.at("mode") == id_of(ab_mode::gbench)) {
    ab_page_json benchmarks = ab_page_json::array();
    for (ab_page_json& c : ab.at("comparisons")) {
      ab_page_json pairs = ab_page_json::array();
      pairs.push_back(std::move(c.at("pair")));
      benchmarks.push_back(comparison_view(pairs, c.at("answer")));
      c["pair"] = std::move(pairs[0]);
    }
    out["headline"] = suite_headline(ab.at("comparisons"));
    out["benchmarks"] = std::move(benchmarks);
  } else {
    out["headline"] = std::move(view.at("headline"));
  }
  out["answer"] = std::move(view.at("answer"));
  out["histogram"] = std::move(view.at("histogram"));
  out["series"] = std::move(view.at("series"));
  out["report"] = std::move(document);
  return out;
}

}  // namespace

std::string ab_page(ab_page_json document) {
  const std::string title = ab_page_title(document);
  return page(page_kind::ab, title, ab_page_data(std::move(document)));
}

}  // namespace harness::html
