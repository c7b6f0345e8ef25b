// The speed probes' loops, kept out of line so every caller times the same code.
#include "harness/speed_probe.hpp"

namespace harness {
namespace {

// Loops are aligned so their closing jump never crosses a 64-byte boundary, which alone changed
// a loop's time 2x here; the empty asm keeps each value in a register and the loop alive. (GCC
// and Clang syntax: the harness builds with both, and with mingw-w64's GCC for Windows.)
#define HARNESS_PROBE_ALIGN __attribute__((noinline, aligned(64)))

HARNESS_PROBE_ALIGN std::uint64_t multiply_chain(std::uint32_t iterations) {
  std::uint64_t x = 0x9E3779B97F4A7C15ULL;
  for (std::uint32_t i = 0; i < iterations; ++i) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    asm volatile("" : "+r"(x));
  }
  return x;
}

HARNESS_PROBE_ALIGN std::uint32_t tight_loop(std::uint32_t iterations) {
  std::uint32_t i = 0;
  for (; i < iterations; ++i)
    asm volatile("" : "+r"(i));
  return i;
}

}  // namespace

std::uint64_t run_probe(probe_kind kind, const clock_source& clock, std::uint32_t iterations) {
  const std::uint64_t start = clock.now();
  volatile std::uint64_t sink =
      kind == probe_kind::multiply_chain ? multiply_chain(iterations) : tight_loop(iterations);
  (void)sink;
  const std::uint64_t stop = clock.now();
  return stop - start;
}

}  // namespace harness
