// The library's logger.
#include "harness/log.hpp"

#include <spdlog/sinks/stdout_color_sinks.h>

namespace harness {
namespace {

std::shared_ptr<spdlog::logger>& instance() {
  static std::shared_ptr<spdlog::logger> log = [] {
    auto l = std::make_shared<spdlog::logger>(
        "harness", std::make_shared<spdlog::sinks::stderr_color_sink_mt>());
    l->set_pattern("harness: %l: %v");
    l->set_level(spdlog::level::warn);
    return l;
  }();
  return log;
}

}  // namespace

spdlog::logger& logger() {
  return *instance();
}
std::shared_ptr<spdlog::logger> shared_logger() {
  return instance();
}
void set_logger(std::shared_ptr<spdlog::logger> replacement) {
  instance() = std::move(replacement);
}

}  // namespace harness
