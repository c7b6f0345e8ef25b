// The library's logger: progress and warnings about the environment, never results.
//
// By default it writes to stderr at level warn, so a program using the library hears about a
// refused priority raise but gets no chatter; the `harness` command sets it from --log-level.
#pragma once

#include <spdlog/logger.h>

#include <memory>

namespace harness {

spdlog::logger& logger();
// The logger itself, to put back after a set_logger() that is meant to last only a while.
std::shared_ptr<spdlog::logger> shared_logger();
void set_logger(std::shared_ptr<spdlog::logger> replacement);

}  // namespace harness
