// The HTML report: the JSON report (without its per-sample rows) and, per workload, the samples to
// draw and a histogram of each phase, wrapped in one self-contained page whose script draws the
// charts (src/report/html/page.js, docs/output.md "HTML").
//
// Both ways to a page go through run_page_data(): from the report model (write_html_report) and
// from a JSON report read back (write_html_from_json, `harness report`), so a page made later
// from the file is the page the run would have written.
//
// What is drawn is thinned, never what is computed: a phase of more than kHtmlMaxDrawn samples is
// drawn as the lowest and the highest sample of each stretch of `every` consecutive ones (and the
// first disturbed one of a stretch that has any), so the floor, the spikes and the disturbed
// stretches stay in the picture; the histograms count every sample; the figures in the text and
// the table are the report's own.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <istream>
#include <map>
#include <optional>
#include <ostream>

#include "check.hpp"
#include "harness/errors.hpp"
#include "harness/report.hpp"
#include "json_field.hpp"
#include "report/html.hpp"
#include "report/html_assets.hpp"
#include "report/json_document.hpp"

namespace harness {
namespace {

using json = nlohmann::ordered_json;

// The samples of one phase of one workload, in the order taken.
struct phase_series {
  std::vector<double> ticks;    // ticks per call, timer overhead subtracted
  std::vector<char> disturbed;  // parallel to ticks
  // Read back from a file: the lowest sample and its row in "benchmarks", to name it if refused.
  double lowest = 0;
  std::size_t lowest_row = 0;
};
// Per workload (in report order), per phase id ("baseline", "prepared").
using run_series = std::vector<std::map<std::string, phase_series>>;

constexpr std::size_t kHistogramBins = 40;

json drawn_points(const phase_series& s) {
  const html::thinned drawn = html::thin_for_drawing(s.ticks, s.disturbed);
  json index = json::array();
  json ticks = json::array();
  json disturbed = json::array();
  for (const std::size_t i : drawn.kept) {
    index.push_back(i + 1);
    ticks.push_back(s.ticks[i]);
    disturbed.push_back(s.disturbed[i] != 0 ? 1 : 0);
  }
  return {{"samples", s.ticks.size()},
          {"every", drawn.every},
          {"i", index},
          {"t", ticks},
          {"d", disturbed}};
}

double quantile_of(std::vector<double> values, double q) {
  const auto k = static_cast<std::size_t>(std::floor(q * static_cast<double>(values.size() - 1)));
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(k), values.end());
  return values[k];
}

// One scale for the phases given, shared by the samples chart: from the lowest sample to the
// highest phase's "fence", its 75th percentile plus 1.5 times that percentile's distance above
// the phase's minimum (or the highest sample, when it is lower). Samples above it are counted in
// one "above" figure and drawn on the samples chart's edge, so a few slow outliers do not squeeze
// every other sample into the first bin.
json histogram(const std::map<std::string, phase_series>& phases) {
  double low = INFINITY;
  double high = -INFINITY;
  double top = -INFINITY;
  for (const auto& [id, s] : phases) {
    if (s.ticks.empty()) continue;
    const auto [min, max] = std::minmax_element(s.ticks.begin(), s.ticks.end());
    low = std::min(low, *min);
    high = std::max(high, *max);
    const double q75 = quantile_of(s.ticks, 0.75);
    top = std::max(top, q75 + 1.5 * (q75 - *min));
  }
  if (!std::isfinite(low) || !std::isfinite(top)) return nullptr;
  top = std::min(top, high);
  // All samples alike: one narrow bin's worth around them.
  if (!(top > low)) top = low + std::max(std::fabs(low) * 0.01, 1e-9);
  const double width = (top - low) / static_cast<double>(kHistogramBins);
  json counts = json::object();
  json above = json::object();
  for (const auto& [id, s] : phases) {
    std::vector<std::size_t> bins(kHistogramBins, 0);
    std::size_t over = 0;
    for (const double t : s.ticks) {
      if (t > top) {
        ++over;
        continue;
      }
      const auto bin = static_cast<std::size_t>(std::floor((t - low) / width));
      ++bins[std::min(bin, kHistogramBins - 1)];
    }
    counts[id] = bins;
    above[id] = over;
  }
  return {{"low_ticks", low},     {"top_ticks", top},       {"high_ticks", high},
          {"width_ticks", width}, {"bins", kHistogramBins}, {"counts", counts},
          {"above", above}};
}

// `document` is the JSON report without its rows.
json run_page_data(json document, const run_series& series) {
  json workloads = json::array();
  for (const auto& phases : series) {
    json drawn = json::object();
    for (const auto& [id, s] : phases)
      drawn[id] = drawn_points(s);
    workloads.push_back({{"phases", drawn}, {"histogram", histogram(phases)}});
  }
  document.erase("benchmarks");
  return {{"page", "run"},
          {"max_drawn", kHtmlMaxDrawn},
          {"report", std::move(document)},
          {"series", workloads}};
}

std::string run_title(const json& document) {
  const json& context = document.at("context");
  const std::string host = context.value("host_name", "");
  const std::string date = context.value("date", "");
  return fmt::format("harness report{}{}", host.empty() ? "" : " — " + host,
                     date.empty() ? "" : ", " + date);
}

// ---- reading a JSON report back ------------------------------------------------------------

// The report schema this build reads (docs/output.md).
constexpr int kSchemaVersion = 1;
constexpr double kMaxTicksPerSecond = 1e15;
constexpr double kMaxTicks = 1e15;

using field = json_field<json>;

// What the page's script reads of the document, checked so that no report the harness could have
// written draws a broken page, and anything else is refused in words: the file and the value's
// place in it (json_field.hpp).
void check_document(const json& doc, run_series& series, const std::string& source) {
  if (!doc.is_object() || !doc.contains("harness") || !doc["harness"].is_object()) {
    throw usage_error(fmt::format(
        "{}: not a harness JSON report (it has no \"harness\" object; write one with --format "
        "json or -o FILE.json)",
        source));
  }
  const json& h = doc["harness"];
  const json version = h.value("schema_version", json(nullptr));
  if (!version.is_number_integer() || version.get<int>() != kSchemaVersion) {
    throw usage_error(fmt::format("{}: schema_version {} is not one this harness reads ({})",
                                  source, version.dump(), kSchemaVersion));
  }
  if (!doc.contains("context") || !doc["context"].is_object()) {
    throw usage_error(fmt::format("{}: the report has no \"context\" object", source));
  }
  const field root(doc, source);
  const field harness = root.at("harness");
  const field clock = harness.at("clock");
  const field rate = clock.at("ticks_per_second");
  if (!(rate.number() >= 1 && rate.number() <= kMaxTicksPerSecond)) {
    rate.refuse(fmt::format("{} is out of range: a clock ticks from 1 to 1e15 times a second",
                            rate.json().dump()));
  }
  const field workloads = harness.at("workloads");
  if (series.size() > workloads.array().size()) {
    throw usage_error(
        fmt::format("{}: a sample row's family_index {} names no workload (the report lists {})",
                    source, series.size() - 1, workloads.array().size()));
  }
  series.resize(workloads.array().size());
  std::size_t w = 0;
  workloads.each([&](const field& workload) {
    workload.at("name").text();
    const field phases = workload.at("phases");
    phases.each([&](const field& phase) {
      const std::string id = phase.at("phase").text();
      const auto found = series[w].find(id);
      if (found == series[w].end() || found->second.ticks.empty()) return;
      // A sample is its calls' raw time less the timer overhead, per call: never below minus the
      // overhead per call (an empty workload's may lie a little below 0, none further).
      const auto overhead = phase.find("overhead_ticks");
      const auto batch = phase.find("batch");
      const double per_call = batch && batch->count() > 0 ? static_cast<double>(batch->count()) : 1;
      const double lowest = -(overhead ? overhead->number() : 0.0) / per_call;
      const phase_series& s = found->second;
      if (!(s.lowest >= lowest)) {
        const std::string place = fmt::format("benchmarks[{}].ticks", s.lowest_row);
        const json value = s.lowest;
        field(value, source, place)
            .refuse(fmt::format(
                "a sample of {} ticks is out of range: a sample is its calls' time less the "
                "timer overhead, so it lies at or above minus the overhead per call ({:g} ticks "
                "in {}'s {} phase)",
                value.dump(), lowest, workload.at("name").text(), id));
      }
    });
    ++w;
  });
}

// Reads the document, keeping each sample row's figures in `series` and dropping the row itself,
// so a report of a million samples is held as numbers, not as a million JSON objects. A sample row
// is an element of the top-level "benchmarks" whose run_type is "iteration".
json read_document(std::istream& in, run_series& series, const std::string& source) {
  std::optional<usage_error> row_error;
  bool in_rows = false;  // inside the top-level "benchmarks"
  std::size_t row = 0;   // the index in it of the element being parsed
  const auto keep_row = [&](int depth, json::parse_event_t event, json& parsed) {
    if (depth == 1 && event == json::parse_event_t::key) in_rows = parsed == "benchmarks";
    if (!in_rows || depth != 2) return true;
    // An element of "benchmarks" ends: an object, an array or a value.
    if (event != json::parse_event_t::object_end && event != json::parse_event_t::array_end &&
        event != json::parse_event_t::value) {
      return true;
    }
    // Every row is dropped: the page carries the document without them.
    const std::size_t index = row++;
    if (row_error || !parsed.is_object() || !parsed.contains("run_type") ||
        parsed["run_type"] != "iteration") {
      return false;
    }
    try {
      const std::string place = fmt::format("benchmarks[{}]", index);
      const field r(parsed, source, place);
      const field family = r.at("family_index");
      const std::uint64_t w = family.count();
      // A report names each workload once; more families than that is a broken file.
      if (w >= 1000000) family.refuse(fmt::format("{} is out of range (below 1000000)", w));
      const std::string phase = r.at("phase").text();
      const field ticks = r.at("ticks");
      const double value = ticks.number();
      if (!(value <= kMaxTicks)) {
        ticks.refuse(fmt::format("a sample of {} ticks is out of range (at most 1e15)",
                                 ticks.json().dump()));
      }
      const auto disturbed = r.find("disturbed");
      const bool was_disturbed = disturbed && disturbed->flag();
      if (series.size() <= w) series.resize(w + 1);
      phase_series& s = series[w][phase];
      if (s.ticks.empty() || value < s.lowest) {
        s.lowest = value;
        s.lowest_row = index;
      }
      s.ticks.push_back(value);
      s.disturbed.push_back(was_disturbed ? 1 : 0);
    } catch (const usage_error& e) {
      row_error = e;  // thrown once the parse is done; the rows after it are dropped unread
    }
    return false;
  };
  json doc;
  try {
    doc = json::parse(in, keep_row);
  } catch (const json::exception& e) {
    // A syntax error, or a number no double holds (out_of_range: 1e400).
    throw usage_error(fmt::format("{}: not JSON: {}", source, json_error_text(e)));
  }
  if (row_error) throw *row_error;
  check_document(doc, series, source);
  // The charts draw the sampled phases, baseline and prepared; the first call is one sample, in
  // the text.
  for (auto& phases : series) {
    std::erase_if(phases, [](const auto& entry) {
      return entry.first != "baseline" && entry.first != "prepared";
    });
  }
  return doc;
}

}  // namespace

namespace html {

thinned thin_for_drawing(std::span<const double> values, std::span<const char> disturbed) {
  HARNESS_CHECK(disturbed.size() == values.size());
  const std::size_t n = values.size();
  thinned out;
  if (n <= kHtmlMaxDrawn) {
    out.kept.resize(n);
    for (std::size_t i = 0; i < n; ++i)
      out.kept[i] = i;
    return out;
  }
  // Up to three points a stretch: its lowest, its highest and its first disturbed value.
  out.every = (n + kHtmlMaxDrawn / 2 - 1) / (kHtmlMaxDrawn / 2);
  for (std::size_t first = 0; first < n; first += out.every) {
    const std::size_t end = std::min(n, first + out.every);
    std::size_t low = first;
    std::size_t high = first;
    std::optional<std::size_t> first_disturbed;
    for (std::size_t i = first; i < end; ++i) {
      if (values[i] < values[low]) low = i;
      if (values[i] > values[high]) high = i;
      if (!first_disturbed && disturbed[i] != 0) first_disturbed = i;
    }
    std::vector<std::size_t> stretch{low, high};
    if (first_disturbed) stretch.push_back(*first_disturbed);
    std::sort(stretch.begin(), stretch.end());
    stretch.erase(std::unique(stretch.begin(), stretch.end()), stretch.end());
    out.kept.insert(out.kept.end(), stretch.begin(), stretch.end());
  }
  return out;
}

std::string escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string page(page_kind kind, std::string_view title, const nlohmann::ordered_json& data) {
  // Bytes that are not UTF-8 (a workload's error message may hold any) are replaced.
  const std::string text = data.dump(-1, ' ', false, json::error_handler_t::replace);
  std::string safe;
  safe.reserve(text.size() + text.size() / 16);
  for (const char c : text) {
    if (c == '<') {
      safe += "\\u003c";
    } else if (c == '/') {
      safe += "\\/";
    } else {
      safe += c;
    }
  }
  // The title may hold "//" too (a host or a workload name): the "//" of an address is broken.
  std::string heading = escape(title);
  for (std::size_t at = heading.find("//"); at != std::string::npos; at = heading.find("//", at))
    heading.replace(at, 2, "/&#47;");
  return fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      "<meta name=\"color-scheme\" content=\"light dark\">\n"
      "<meta name=\"generator\" content=\"harness\">\n<title>{title}</title>\n"
      "<style>\n{css}</style>\n</head>\n<body data-page=\"{kind}\">\n"
      "<header><h1>{title}</h1></header>\n"
      "<main id=\"harness-page\"><p class=\"note\">This page draws its charts with the "
      "JavaScript inlined in it; with scripts off, read the same figures in the JSON report "
      "(harness --format json).</p></main>\n"
      "<pre id=\"harness-status\" hidden></pre>\n"
      "<script id=\"harness-data\" type=\"application/json\">{data}</script>\n"
      "<script>\n{chartjs}\n</script>\n<script>\n{script}\n</script>\n</body>\n</html>\n",
      fmt::arg("title", heading), fmt::arg("css", html_assets::page_css()),
      fmt::arg("kind", to_string(kind)), fmt::arg("data", safe),
      fmt::arg("chartjs", html_assets::chartjs()), fmt::arg("script", html_assets::page_js()));
}

}  // namespace html

void write_html_report(std::ostream& out, const report_model& model) {
  json document = report_detail::json_document(model);
  run_series series(model.workloads.size());
  for (std::size_t w = 0; w < model.workloads.size(); ++w) {
    for (const phase_analysis& a : model.workloads[w].phases) {
      const phase_result& p = *a.phase;
      if (p.kind == phase_kind::first) continue;
      phase_series& s = series[w][std::string(id_of(p.kind))];
      s.ticks = p.values;
      s.disturbed.resize(p.values.size());
      for (std::size_t i = 0; i < p.values.size(); ++i)
        s.disturbed[i] = p.disturbed(i) ? 1 : 0;
    }
  }
  const std::string title = run_title(document);
  out << html::page(html::page_kind::run, title, run_page_data(std::move(document), series));
}

void write_html_from_json(std::ostream& out, std::istream& json_text, const std::string& source) {
  run_series series;
  json document = read_document(json_text, series, source);
  const std::string title = run_title(document);
  out << html::page(html::page_kind::run, title, run_page_data(std::move(document), series));
}

}  // namespace harness
