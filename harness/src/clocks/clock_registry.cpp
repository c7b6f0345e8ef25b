// The registry of clock sources: the platform's sources plus the std::chrono clocks, and lookup
// by name; the process's own is built once, on first use (the TSC calibration runs then).
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

std::string available_names(std::span<const clock_source* const> sources) {
  std::vector<std::string_view> names;
  for (const clock_source* source : sources) {
    if (source->available()) names.push_back(source->name());
  }
  return fmt::format("{}", fmt::join(names, ", "));
}

}  // namespace

clocks::clock_registry::clock_registry(const tsc_inputs& tsc) : features_(tsc.features) {
  owned_ = make_platform_clocks(tsc);
  for (auto& source : make_chrono_clocks())
    owned_.push_back(std::move(source));
  for (const auto& source : owned_)
    view_.push_back(source.get());
}

const clock_source* clocks::clock_registry::find(std::string_view name) const {
  for (const clock_source* source : view_) {
    if (source->name() == name) return source;
  }
  return nullptr;
}

const clock_source& clocks::clock_registry::resolve(std::string_view name) const {
  return resolve_clock_in(view_, name);
}

std::optional<clock_calibration> clocks::clock_registry::tsc_calibration() const {
  for (const clock_source* source : view_) {
    const auto* tsc = dynamic_cast<const tsc_clock_base*>(source);
    if (tsc != nullptr && tsc->calibration() != nullptr) return *tsc->calibration();
  }
  return std::nullopt;
}

const clocks::clock_registry& clocks::process_registry() {
  static const clock_registry built(real_tsc_inputs());
  return built;
}

std::span<const clock_source* const> all_clocks() {
  return clocks::process_registry().all();
}

const clock_source* find_clock(std::string_view name) {
  return clocks::process_registry().find(name);
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
  return clocks::process_registry().resolve(name);
}

std::optional<clock_calibration> tsc_calibration() {
  return clocks::process_registry().tsc_calibration();
}

}  // namespace harness
