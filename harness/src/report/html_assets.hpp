// The HTML report's scripts and style, embedded at build time (cmake/embed_html_assets.cmake):
// Chart.js (Debian's libjs-chart.js, read where HARNESS_CHARTJS says) and the page's own script
// and style (src/report/html/). Their "http://" and "https://" are cut, so a page needs no network.
//
// Internal header.
#pragma once

#include <string_view>

namespace harness::html_assets {

std::string_view chartjs() noexcept;   // Chart.js 3, minified, its licence comments kept
std::string_view page_js() noexcept;   // draws the charts from the page's JSON
std::string_view page_css() noexcept;  // light and dark colour schemes, 390 px to wide

}  // namespace harness::html_assets
