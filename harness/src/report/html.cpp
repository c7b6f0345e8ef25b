// The HTML report: the JSON report (without its per-sample rows) and, per workload, the samples to
// draw and a histogram of each phase, wrapped in one self-contained page whose script draws the
// charts (src/report/html/common.js and run.js, docs/output.md "HTML").
//
// Both ways to a page go through run_page_data(): from the report model (write_html_report) and
// from a JSON report read back (write_html_from_json, `harness report`, through the one report
// reader compare reads with too: report_reader.hpp), so a page made later from the file is the
// page the run would have written.
//
// What is drawn is thinned, never what is computed: a phase of more than kHtmlMaxDrawn samples is
// drawn as the lowest and the highest sample of each stretch of `every` consecutive ones (and the
// first disturbed one of a stretch that has any), so the floor, the spikes and the disturbed
// stretches stay in the picture; the histograms count every sample; the figures in the text and
// the table are the report's own.
#include <fmt/format.h>

#include <algorithm>
#include <istream>
#include <map>
#include <optional>
#include <ostream>

#include "base/check.hpp"
#include "harness/report.hpp"
#include "report/html.hpp"
#include "report/html_assets.hpp"
#include "report/json_document.hpp"
#include "report/report_reader.hpp"

namespace harness {
namespace {

using json = nlohmann::ordered_json;

// The samples of one phase of one workload, in the order taken.
struct phase_series {
  std::vector<double> ticks;    // ticks per call, timer overhead subtracted
  std::vector<char> disturbed;  // parallel to ticks
};
// Per workload (in report order): per phase id ("baseline", "prepared"), and their histogram on
// one scale (the phases in the map's order, which is report order).
struct workload_series {
  std::map<std::string, phase_series> phases;
  std::optional<stats::phases_histogram> histogram;
};
using run_series = std::vector<workload_series>;

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

// The histogram analysis made of the phases (stats::histogram_of), its counts keyed by phase id.
json histogram_json(const std::map<std::string, phase_series>& phases,
                    const std::optional<stats::phases_histogram>& h) {
  if (!h) return nullptr;
  HARNESS_CHECK(h->phases.size() == phases.size(), "a histogram of {} phases for {} drawn",
                h->phases.size(), phases.size());
  json counts = json::object();
  json above = json::object();
  std::size_t k = 0;
  for (const auto& [id, s] : phases) {
    counts[id] = h->phases[k].counts;
    above[id] = h->phases[k].above;
    ++k;
  }
  return {{"low_ticks", h->low},     {"top_ticks", h->top}, {"high_ticks", h->high},
          {"width_ticks", h->width}, {"bins", h->bins},     {"counts", counts},
          {"above", above}};
}

// `document` is the JSON report without its rows.
json run_page_data(json document, const run_series& series) {
  json workloads = json::array();
  for (const workload_series& w : series) {
    json drawn = json::object();
    for (const auto& [id, s] : w.phases)
      drawn[id] = drawn_points(s);
    workloads.push_back({{"phases", drawn}, {"histogram", histogram_json(w.phases, w.histogram)}});
  }
  document.erase("benchmarks");
  return {{"page", "run"},
          {"max_drawn", kHtmlMaxDrawn},
          {"report", std::move(document)},
          {"series", workloads}};
}

std::string run_title(const std::string& host, const std::string& date) {
  return fmt::format("harness report{}{}", host.empty() ? "" : " — " + host,
                     date.empty() ? "" : ", " + date);
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
  // Each page kind has its script (harness/CMakeLists.txt lists them): one without is a bug.
  const std::string_view script = html_assets::page_script(to_string(kind));
  HARNESS_CHECK(!script.empty(), "the HTML page \"{}\" has no script", to_string(kind));
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
      "<script>\n{chartjs}\n</script>\n<script>\n{common}\n{script}\n</script>\n</body>\n</html>\n",
      fmt::arg("title", heading), fmt::arg("css", html_assets::page_css()),
      fmt::arg("kind", to_string(kind)), fmt::arg("data", safe),
      fmt::arg("chartjs", html_assets::chartjs()),
      fmt::arg("common", html_assets::page_common_js()), fmt::arg("script", script));
}

}  // namespace html

void write_html_report(std::ostream& out, const report_model& model) {
  json document = report_detail::json_document(model);
  run_series series(model.workloads.size());
  for (std::size_t w = 0; w < model.workloads.size(); ++w) {
    for (const phase_analysis& a : model.workloads[w].phases) {
      const phase_result& p = *a.phase;
      if (p.kind == phase_kind::first) continue;
      phase_series& s = series[w].phases[std::string(id_of(p.kind))];
      s.ticks = p.values;
      s.disturbed.resize(p.values.size());
      for (std::size_t i = 0; i < p.values.size(); ++i)
        s.disturbed[i] = p.disturbed(i) ? 1 : 0;
    }
    series[w].histogram = model.workloads[w].histogram;
  }
  const run_context& c = model.run->context;
  out << html::page(html::page_kind::run, run_title(c.host_name, c.date),
                    run_page_data(std::move(document), series));
}

void write_html_from_json(std::ostream& out, std::istream& json_text, const std::string& source) {
  report_reader::saved_report saved = report_reader::read_saved_report(json_text, source);
  if (saved.ab) {
    // The page `harness ab -o FILE.html` draws, from the same document.
    out << html::ab_page(std::move(saved.run.document));
    return;
  }
  report_reader::report& read = saved.run;
  // The charts draw the sampled phases, baseline and prepared; the first call is one sample, in
  // the text.
  run_series series(read.workloads.size());
  for (std::size_t w = 0; w < read.workloads.size(); ++w) {
    for (report_reader::phase& p : read.workloads[w].phases) {
      if (p.id != "baseline" && p.id != "prepared") continue;
      phase_series& s = series[w].phases[p.id];
      if (!s.ticks.empty()) continue;  // a second phase of that id: its rows went to the first
      s.ticks = std::move(p.ticks);
      s.disturbed = std::move(p.disturbed);
    }
    // The histogram the analysis makes of a run's phases (analyze_run), of the phases read.
    std::vector<std::span<const double>> values;
    for (const auto& [id, s] : series[w].phases)
      values.emplace_back(s.ticks);
    series[w].histogram = stats::histogram_of(values);
  }
  out << html::page(html::page_kind::run, run_title(read.host_name, read.date),
                    run_page_data(std::move(read.document), series));
}

}  // namespace harness
