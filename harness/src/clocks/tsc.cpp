// The x86 time-stamp counter sources and their calibration (see tsc.hpp).
//
// The only preprocessor branches here are on the architecture and the compiler's spelling of the
// intrinsics; on anything but x86-64 the readers return 0 and the sources say why they are
// unavailable.
#include "clocks/tsc.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <optional>

#if defined(__x86_64__) || defined(_M_X64)
#define HARNESS_TSC_X86_64 1
#if defined(_MSC_VER)
#include <intrin.h>
#else
#include <cpuid.h>
#include <x86intrin.h>
#endif
#else
#define HARNESS_TSC_X86_64 0
#endif

namespace harness::clocks {

namespace {

#if HARNESS_TSC_X86_64
std::array<std::uint32_t, 4> cpuid(std::uint32_t leaf) {
#if defined(_MSC_VER)
  int regs[4] = {};
  __cpuidex(regs, static_cast<int>(leaf), 0);
  return {static_cast<std::uint32_t>(regs[0]), static_cast<std::uint32_t>(regs[1]),
          static_cast<std::uint32_t>(regs[2]), static_cast<std::uint32_t>(regs[3])};
#else
  unsigned a = 0, b = 0, c = 0, d = 0;
  __cpuid_count(leaf, 0, a, b, c, d);
  return {a, b, c, d};
#endif
}

bool bit(std::uint32_t reg, int n) {
  return ((reg >> n) & 1U) != 0;
}

inline std::uint64_t rdtsc_plain() noexcept {
  return __rdtsc();
}
inline std::uint64_t rdtscp_read() noexcept {
  unsigned aux = 0;
  return __rdtscp(&aux);
}
inline std::uint64_t lfence_rdtsc() noexcept {
  _mm_lfence();
  return __rdtsc();
}
#else
inline std::uint64_t rdtsc_plain() noexcept {
  return 0;
}
inline std::uint64_t rdtscp_read() noexcept {
  return 0;
}
inline std::uint64_t lfence_rdtsc() noexcept {
  return 0;
}
#endif

const tsc_features& features() {
  static const tsc_features cached = detect_tsc_features();
  return cached;
}

// One end point: a TSC reading, which fell between ref_before and ref_before + 2 * half_width_ns
// on the reference.
struct bracket_point {
  std::uint64_t tsc = 0;
  std::uint64_t ref_before = 0;
  double half_width_ns = std::numeric_limits<double>::infinity();
};

// A reading r of a reference that moves in steps of q means a time in [r, r + q): the bracket of
// the TSC reading is [r0, r1 + q), so q widens every bracket (20 ns here, on kvm-clock).
bracket_point tightest_bracket(const tick_reader& read_tsc, const tick_reader& read_ref, int tries,
                               std::uint64_t quantum_ns) {
  bracket_point best;
  for (int i = 0; i < tries; ++i) {
    const std::uint64_t r0 = read_ref();
    const std::uint64_t t = read_tsc();
    const std::uint64_t r1 = read_ref();
    if (r1 < r0) continue;  // a reference going backwards gives no information
    const double half = static_cast<double>(r1 - r0 + quantum_ns) / 2.0;
    if (half < best.half_width_ns) {
      best.tsc = t;
      best.ref_before = r0;
      best.half_width_ns = half;
    }
  }
  return best;
}

// The smallest step of the reference seen over `reads` back-to-back readings (an over-estimate
// when a reading costs more than the step, which only makes the error bound safer); 0 if it never
// moved.
std::uint64_t reference_quantum(const tick_reader& read_ref, int reads) {
  std::uint64_t smallest = 0;
  std::uint64_t previous = read_ref();
  for (int i = 0; i < reads; ++i) {
    const std::uint64_t value = read_ref();
    if (value > previous && (smallest == 0 || value - previous < smallest)) {
      smallest = value - previous;
    }
    previous = value;
  }
  return smallest;
}

}  // namespace

tsc_features detect_tsc_features() {
  tsc_features f;
#if HARNESS_TSC_X86_64
  f.x86_64 = true;
  const auto leaf0 = cpuid(0);
  char vendor[13] = {};
  for (int i = 0; i < 4; ++i) {
    vendor[i] = static_cast<char>(leaf0[1] >> (8 * i));
    vendor[4 + i] = static_cast<char>(leaf0[3] >> (8 * i));
    vendor[8 + i] = static_cast<char>(leaf0[2] >> (8 * i));
  }
  f.vendor = vendor;
  if (leaf0[0] >= 1) {
    const auto leaf1 = cpuid(1);
    f.tsc = bit(leaf1[3], 4);
    f.hypervisor = bit(leaf1[2], 31);
  }
  const std::uint32_t max_ext = cpuid(0x80000000U)[0];
  if (max_ext >= 0x80000004U) {
    std::string brand;
    for (std::uint32_t leaf = 0x80000002U; leaf <= 0x80000004U; ++leaf) {
      for (const std::uint32_t reg : cpuid(leaf)) {
        for (int i = 0; i < 4; ++i)
          brand += static_cast<char>(reg >> (8 * i));
      }
    }
    brand = brand.substr(0, brand.find('\0'));
    const auto first = brand.find_first_not_of(' ');
    const auto last = brand.find_last_not_of(' ');
    f.brand = first == std::string::npos ? std::string() : brand.substr(first, last - first + 1);
  }
  if (max_ext >= 0x80000001U) f.rdtscp = bit(cpuid(0x80000001U)[3], 27);
  if (max_ext >= 0x80000007U) f.invariant = bit(cpuid(0x80000007U)[3], 8);
  if (f.vendor == "GenuineIntel") {
    f.lfence_serializing = true;
    f.lfence_basis = "LFENCE is dispatch-serializing on every Intel CPU";
  } else if (f.vendor == "AuthenticAMD" || f.vendor == "HygonGenuine") {
    f.lfence_serializing = max_ext >= 0x80000021U && bit(cpuid(0x80000021U)[0], 2);
    f.lfence_basis = f.lfence_serializing
                         ? "cpuid 0x80000021 EAX bit 2 says LFENCE is always serializing"
                         : "on this AMD CPU LFENCE serializes only if the OS set an MSR bit, which "
                           "cpuid does not confirm";
  } else {
    f.lfence_basis = "unknown vendor: LFENCE ordering not established";
  }
#else
  f.lfence_basis = "not an x86-64 CPU";
#endif
  return f;
}

std::uint64_t read_tsc_ordered() noexcept {
  const tsc_features& f = features();
  if (f.lfence_serializing) return lfence_rdtsc();
  if (f.rdtscp) return rdtscp_read();
  return rdtsc_plain();
}

clock_calibration calibrate_tsc(const tick_reader& read_tsc, const tick_reader& read_reference_ns,
                                const tsc_calibration_settings& settings) {
  clock_calibration result;
  const std::uint64_t begin = read_reference_ns();
  const std::uint64_t quantum = reference_quantum(read_reference_ns, settings.quantum_reads);
  const bracket_point anchor =
      tightest_bracket(read_tsc, read_reference_ns, settings.bracket_tries, quantum);
  const double anchor_mid = static_cast<double>(anchor.ref_before - begin) + anchor.half_width_ns;

  std::optional<double> previous;
  std::uint64_t interval = settings.first_interval_ns;
  for (;;) {
    while (read_reference_ns() - anchor.ref_before < interval) {
      // Spin: sleeping would let the scheduler move us at the end point.
    }
    const bracket_point end =
        tightest_bracket(read_tsc, read_reference_ns, settings.bracket_tries, quantum);
    const double end_mid = static_cast<double>(end.ref_before - begin) + end.half_width_ns;
    const double span_ns = end_mid - anchor_mid;
    ++result.rounds;
    if (span_ns > 0 && end.tsc > anchor.tsc) {
      const double estimate = static_cast<double>(end.tsc - anchor.tsc) * 1e9 / span_ns;
      const double bound_ppm = (anchor.half_width_ns + end.half_width_ns) / span_ns * 1e6;
      const double disagreement_ppm = previous ? std::abs(estimate - *previous) / *previous * 1e6
                                               : std::numeric_limits<double>::infinity();
      result.ticks_per_second = estimate;
      result.error_ppm = std::max(bound_ppm, previous ? disagreement_ppm : bound_ppm);
      if (disagreement_ppm <= settings.tolerance_ppm && bound_ppm <= settings.tolerance_ppm) {
        result.converged = true;
        break;
      }
      previous = estimate;
    }
    // The next end point is twice as far from the anchor: stop if that would pass the budget.
    const std::uint64_t elapsed = read_reference_ns() - begin;
    if (elapsed + interval > settings.time_limit_ns) break;
    interval *= 2;
  }
  result.duration_seconds = static_cast<double>(read_reference_ns() - begin) / 1e9;
  return result;
}

std::optional<double> tsc_clock_base::declared_resolution() const noexcept {
  // The architecture counts in single ticks; a hypervisor may step coarser (see `harness clocks`).
  const double tps = ticks_per_second();
  if (tps <= 0) return std::nullopt;
  return 1.0 / tps;
}

namespace {

enum class tsc_read { plain, rdtscp, lfence };

template <tsc_read Variant>
class tsc_clock final : public tsc_clock_base {
 public:
  tsc_clock(std::shared_ptr<const clock_calibration> calibration, std::string reason, bool in_order)
      : tsc_clock_base(std::move(calibration), std::move(reason)), in_order_(in_order) {}

  std::string_view name() const noexcept override {
    if constexpr (Variant == tsc_read::plain) return "rdtsc";
    if constexpr (Variant == tsc_read::rdtscp) return "rdtscp";
    if constexpr (Variant == tsc_read::lfence) return "lfence_rdtsc";
  }
  std::string_view description() const noexcept override {
    if constexpr (Variant == tsc_read::plain)
      return "TSC read by RDTSC alone: the CPU may execute it before earlier or after later "
             "instructions";
    if constexpr (Variant == tsc_read::rdtscp)
      return "TSC read by RDTSCP: waits until every earlier instruction has executed";
    if constexpr (Variant == tsc_read::lfence)
      return "TSC read by LFENCE;RDTSC: waits until every earlier instruction has completed";
  }
  bool reads_in_order() const noexcept override { return in_order_; }
  std::uint64_t now() const noexcept override {
    if constexpr (Variant == tsc_read::plain) return rdtsc_plain();
    if constexpr (Variant == tsc_read::rdtscp) return rdtscp_read();
    if constexpr (Variant == tsc_read::lfence) return lfence_rdtsc();
  }

 private:
  bool in_order_;
};

}  // namespace

tsc_inputs real_tsc_inputs() {
  return {features(), [](const tick_reader& read_reference_ns) {
            return calibrate_tsc([] { return read_tsc_ordered(); }, read_reference_ns);
          }};
}

std::vector<std::unique_ptr<clock_source>> make_tsc_clocks(const tsc_inputs& inputs,
                                                           const tick_reader& read_reference_ns,
                                                           std::string_view reference_name) {
  const tsc_features& f = inputs.features;
  std::string reason;
  if (!f.x86_64) {
    reason = "not an x86-64 CPU";
  } else if (!f.tsc) {
    reason = "cpuid does not advertise a TSC (leaf 1 EDX bit 4)";
  } else if (!f.invariant) {
    reason = "the TSC is not invariant (cpuid 0x80000007 EDX bit 8 clear): its rate may change";
  }
  std::shared_ptr<clock_calibration> calibration;
  if (reason.empty()) {
    calibration = std::make_shared<clock_calibration>(inputs.calibrate(read_reference_ns));
    calibration->source = "rdtsc";
    calibration->reference = std::string(reference_name);
    if (calibration->ticks_per_second <= 0) {
      reason = fmt::format("TSC calibration against {} failed", reference_name);
    }
  }
  const std::string rdtscp_reason =
      !reason.empty() || f.rdtscp
          ? reason
          : "cpuid does not advertise RDTSCP (0x80000001 EDX bit 27), so it may fault";

  std::vector<std::unique_ptr<clock_source>> clocks;
  clocks.push_back(std::make_unique<tsc_clock<tsc_read::plain>>(calibration, reason, false));
  clocks.push_back(std::make_unique<tsc_clock<tsc_read::rdtscp>>(calibration, rdtscp_reason, true));
  clocks.push_back(
      std::make_unique<tsc_clock<tsc_read::lfence>>(calibration, reason, f.lfence_serializing));
  return clocks;
}

std::string tsc_ordering_note(std::string_view name, const tsc_features& f) {
  std::string note;
  if (name == "lfence_rdtsc") {
    note = fmt::format(
        "LFENCE;RDTSC takes its reading only after every earlier instruction has completed ({}), "
        "so a stop reading cannot be taken while the measured code is still in flight",
        f.lfence_basis);
  } else if (name == "rdtscp") {
    note =
        "RDTSCP takes its reading only after every earlier instruction has executed (on Intel and "
        "AMD alike), so a stop reading cannot be taken while the measured code is still in flight";
  } else {
    return {};
  }
  note +=
      "; plain RDTSC is cheaper but the CPU may execute it early or late by up to its reorder "
      "window, which shifts the start and stop of a sample by a varying amount";
  return note;
}

}  // namespace harness::clocks
