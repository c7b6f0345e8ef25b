// The three std::chrono clocks as clock sources, identical on every platform.
//
// Their ticks are the clock's own duration count (nanoseconds with libstdc++ and MSVC), and their
// declared resolution is the clock's period, which says nothing about how often the value moves.
#include <chrono>
#include <ratio>

#include "clocks/platform_clocks.hpp"

namespace harness::clocks {

namespace {

template <class Clock>
class chrono_clock final : public clock_source {
 public:
  chrono_clock(std::string_view name, std::string_view description)
      : name_(name), description_(description) {}

  std::string_view name() const noexcept override { return name_; }
  std::string_view description() const noexcept override { return description_; }
  clock_kind kind() const noexcept override { return clock_kind::wall; }
  bool is_monotonic() const noexcept override { return Clock::is_steady; }
  double ticks_per_second() const noexcept override {
    return static_cast<double>(Clock::period::den) / static_cast<double>(Clock::period::num);
  }
  std::optional<double> declared_resolution() const noexcept override {
    return static_cast<double>(Clock::period::num) / static_cast<double>(Clock::period::den);
  }
  std::uint64_t now() const noexcept override {
    return static_cast<std::uint64_t>(Clock::now().time_since_epoch().count());
  }
  bool available() const noexcept override { return true; }

 private:
  std::string_view name_;
  std::string_view description_;
};

}  // namespace

std::vector<std::unique_ptr<clock_source>> make_chrono_clocks() {
  std::vector<std::unique_ptr<clock_source>> clocks;
  clocks.push_back(std::make_unique<chrono_clock<std::chrono::steady_clock>>(
      "steady_clock", "std::chrono::steady_clock: the standard library's monotonic clock"));
  clocks.push_back(std::make_unique<chrono_clock<std::chrono::system_clock>>(
      "system_clock", "std::chrono::system_clock: the standard library's calendar time"));
  clocks.push_back(std::make_unique<chrono_clock<std::chrono::high_resolution_clock>>(
      "high_resolution_clock",
      "std::chrono::high_resolution_clock: an alias of one of the other two"));
  return clocks;
}

}  // namespace harness::clocks
