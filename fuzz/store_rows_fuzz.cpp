// libFuzzer target: a report's JSON read into the results store's rows (store/report_rows.cpp).
// Anything that is not a harness report must end in store_failed; what is read must be rows the
// store can keep: a phase or an A/B answer with finite figures only, a non-negative sample count.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "store/store.hpp"

namespace {
void finite_or_absent(const std::optional<double>& v) {
  if (v && !std::isfinite(*v)) std::abort();
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  harness::store::report_rows rows;
  try {
    rows = harness::store::rows_of_report(text);
  } catch (const harness::store::store_failed&) {
    return 0;
  }
  if (rows.kind != "run" && rows.kind != "gbench" && rows.kind != "ab") std::abort();
  for (const auto& p : rows.phases) {
    if (p.phase == "first") std::abort();  // never kept
    for (const auto* v : {&p.min_ticks, &p.median_ticks, &p.spread_percent, &p.floor_ticks})
      finite_or_absent(*v);
  }
  for (const auto& a : rows.ab) {
    for (const auto* v : {&a.ratio, &a.lower, &a.upper, &a.level})
      finite_or_absent(*v);
  }
  return 0;
}
