// The stop request: SIGINT and SIGTERM set it (run_command.cpp installs the handlers), the sampler
// reads it between samples and ends the phase, and what was gathered is reported.
#include <atomic>

#include "harness/runner.hpp"

namespace harness {
namespace {

std::atomic<int> g_stop_signal{0};

}  // namespace

void request_stop(int signal_number) noexcept {
  g_stop_signal.store(signal_number);
}
int stop_signal() noexcept {
  return g_stop_signal.load(std::memory_order_relaxed);
}
void clear_stop() noexcept {
  g_stop_signal.store(0);
}

}  // namespace harness
