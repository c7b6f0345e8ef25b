// The registry of clock sources: the platform's sources plus the std::chrono clocks, built once
// on first use (the TSC calibration runs then), and lookup by name.
#include <fmt/format.h>

#include <memory>
#include <vector>

#include "clocks/clock_lookup.hpp"
#include "clocks/platform_clocks.hpp"
#include "clocks/tsc.hpp"
#include "harness/clock.hpp"
#include "harness/errors.hpp"

namespace harness {

namespace {

struct registry {
  std::vector<std::unique_ptr<clock_source>> owned;
  std::vector<const clock_source*> view;
};

const registry& the_registry() {
  static const registry built = [] {
    registry r;
    r.owned = clocks::make_platform_clocks();
    for (auto& source : clocks::make_chrono_clocks())
      r.owned.push_back(std::move(source));
    for (const auto& source : r.owned)
      r.view.push_back(source.get());
    return r;
  }();
  return built;
}

std::string available_names(std::span<const clock_source* const> sources) {
  std::vector<std::string_view> names;
  for (const clock_source* source : sources) {
    if (source->available()) names.push_back(source->name());
  }
  return fmt::format("{}", fmt::join(names, ", "));
}

}  // namespace

std::string_view to_string(clock_kind kind) noexcept {
  switch (kind) {
    case clock_kind::wall:
      return "wall";
    case clock_kind::thread_cpu:
      return "thread_cpu";
    case clock_kind::process_cpu:
      return "process_cpu";
  }
  return "unknown";
}

std::span<const clock_source* const> all_clocks() {
  return the_registry().view;
}

const clock_source* find_clock(std::string_view name) {
  for (const clock_source* source : all_clocks()) {
    if (source->name() == name) return source;
  }
  return nullptr;
}

const clock_source& clocks::resolve_clock_in(std::span<const clock_source* const> sources,
                                             std::string_view name) {
  const clock_source* found = nullptr;
  for (const clock_source* source : sources) {
    if (source->name() == name) found = source;
  }
  if (found == nullptr) {
    throw usage_error(
        fmt::format("unknown clock '{}'; available clocks: {}", name, available_names(sources)));
  }
  if (!found->available()) {
    throw usage_error(fmt::format("clock '{}' is not available here ({}); available clocks: {}",
                                  name, found->unavailable_reason(), available_names(sources)));
  }
  return *found;
}

const clock_source& resolve_clock(std::string_view name) {
  return clocks::resolve_clock_in(all_clocks(), name);
}

std::optional<clock_calibration> tsc_calibration() {
  for (const clock_source* source : all_clocks()) {
    const auto* tsc = dynamic_cast<const clocks::tsc_clock_base*>(source);
    if (tsc != nullptr && tsc->calibration() != nullptr) return *tsc->calibration();
  }
  return std::nullopt;
}

}  // namespace harness
