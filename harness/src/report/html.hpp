// One self-contained HTML page around a JSON document: the style, Chart.js and the page's script
// inline (html_assets.hpp), the document in a <script type="application/json"> element that the
// script draws from. Used by the run report (report.hpp), `harness compare --format html`,
// `harness clocks --format html`, `harness ab` (ab_report.hpp) and `harness history`
// (history_report.hpp).
//
// What the page promises: nothing is fetched when it is opened (no "http://" or "https://" in the
// file: the document's '/' are written "\/", which JSON reads back as '/'); every '<' of the
// document is written "\u003c", so no text in it can end the element. The page's script writes
// what it drew into <pre id="harness-status"> (JSON: the charts, their labels, the pixels they
// painted, the errors caught), for the browser test (tests/e2e/html_e2e.sh).
//
// Internal header: nlohmann_json is a private dependency of the harness library.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <string_view>
#include <vector>
#include "harness/enum_names.hpp"

namespace harness::html {

enum class page_kind { run, compare, clocks, ab, history };
// The page's body data-page, which the page's script reads; each has its own,
// src/report/html/<name>.js (after common.js).
inline constexpr enum_table<page_kind, page_kind::history> kPageKindNames{{
    {page_kind::run, "run"},
    {page_kind::compare, "compare"},
    {page_kind::clocks, "clocks"},
    {page_kind::ab, "ab"},
    {page_kind::history, "history"},
}};
constexpr const auto& enum_names(page_kind) noexcept {
  return kPageKindNames;
}
using harness::id_of;
using harness::to_string;

// The page: `title` (escaped) in <title> and the heading; `data` is what the script draws.
std::string page(page_kind kind, std::string_view title, const nlohmann::ordered_json& data);

// `text` with &, <, >, " and ' as entities.
std::string escape(std::string_view text);

// Which of a series a chart draws (report.hpp, kHtmlMaxDrawn): all of them up to kHtmlMaxDrawn;
// above, the lowest and the highest of each stretch of `every` consecutive values, and the first
// disturbed one of a stretch that has any, so the extremes and the disturbed stretches stay in the
// picture. `disturbed` is parallel to `values` (non-zero: disturbed).
struct thinned {
  std::size_t every = 1;          // values a stretch holds (1: nothing thinned)
  std::vector<std::size_t> kept;  // indexes into the series, ascending
};
thinned thin_for_drawing(std::span<const double> values, std::span<const char> disturbed);

// The ab page (ab_html.cpp) from ab's JSON document (report/ab_json.cpp), written by `harness ab`
// and `gbench --vs` or read back by `harness report`: titled "harness ab: A against B" (with
// builds, each "WORKLOAD of BUILD") or "harness gbench --vs: OLD against NEW"; its data the
// document without each pair's rounds, the ratios to draw per pair, their histogram, the answer's
// words.
std::string ab_page(nlohmann::ordered_json document);

}  // namespace harness::html
