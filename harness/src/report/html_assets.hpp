// The HTML report's scripts and style, embedded at build time (cmake/embed_html_assets.cmake):
// Chart.js (Debian's libjs-chart.js, read where HARNESS_CHARTJS says) and the page's own script
// and style (src/report/html/). Their "http://" and "https://" are cut, so a page needs no network.
//
// Internal header.
#pragma once

#include <string_view>

namespace harness::html_assets {

std::string_view chartjs() noexcept;         // Chart.js 3, minified, its licence comments kept
std::string_view page_common_js() noexcept;  // what every page's script shares (common.js)
// The script that draws the page `page` (body data-page, html::page_kind's name) from its JSON,
// after the common one: src/report/html/<page>.js. Empty for a page without one.
std::string_view page_script(std::string_view page) noexcept;
std::string_view page_css() noexcept;  // light and dark colour schemes, 390 px to wide

}  // namespace harness::html_assets
