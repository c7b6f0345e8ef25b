// The x86 time-stamp counter: feature detection, the three ways of reading it, and its calibration.
//
// Shared by every platform's clock list (Linux and Windows both call make_tsc_clocks()). The TSC
// only makes a clock when cpuid declares it invariant (constant rate across power states); its rate
// is not declared, so it is calibrated at start-up against the platform's monotonic clock. On
// other architectures everything here compiles to "unavailable" sources with the reason.
//
// Caveats: a hypervisor may advance the TSC in quanta coarser than one tick (10 ns on the
// Firecracker VMs this was written on); cpuid may hide RDTSCP although the instruction executes,
// and then the rdtscp source stays unavailable, since executing an unadvertised instruction may
// fault elsewhere.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "harness/clock.hpp"

namespace harness::clocks {

// What cpuid says about the TSC of the CPU this runs on.
struct tsc_features {
  bool x86_64 = false;  // compiled for x86-64 at all
  std::string vendor;   // cpuid leaf 0 vendor string, e.g. "AuthenticAMD"
  std::string brand;  // leaves 0x80000002-4, trimmed, e.g. "AMD EPYC 7R13 Processor"; may be empty
  bool tsc = false;   // leaf 1 EDX bit 4
  bool hypervisor = false;          // leaf 1 ECX bit 31: a hypervisor runs this CPU
  bool invariant = false;           // leaf 0x80000007 EDX bit 8: constant rate in every P/C-state
  bool rdtscp = false;              // leaf 0x80000001 EDX bit 27
  bool lfence_serializing = false;  // LFENCE waits for all earlier instructions (see lfence_basis)
  std::string lfence_basis;         // why lfence_serializing holds or not
};

tsc_features detect_tsc_features();

// Reads a clock; the calibration takes its TSC and its reference as functions so tests can fake
// both. The reference must be monotonic and read in nanoseconds.
using tick_reader = std::function<std::uint64_t()>;

// Tuning of the calibration, gathered here.
struct tsc_calibration_settings {
  // The first estimate spans 1 ms; each next one doubles the span from the same anchor, so the
  // bracket uncertainty (tens of ns) shrinks below the tolerance after a few rounds (~8 ms here).
  std::uint64_t first_interval_ns = 1'000'000;
  // Two successive estimates must agree this closely, and the bound of the last (bracket widths
  // plus the reference's step) must be under it too (10 ppm of a 1 ms sample is 10 ns, one TSC
  // quantum here).
  double tolerance_ppm = 10.0;
  // Start-up budget: the calibration stops before it would run longer than this, unconverged.
  std::uint64_t time_limit_ns = 100'000'000;
  // Each end point is the tightest of this many reference/TSC/reference brackets: an interrupt or
  // a host stall widens a bracket, and one of eight is very likely to escape it.
  int bracket_tries = 8;
  // Back-to-back reference reads that find the reference's step, which widens every bracket:
  // a few hundred show the step of a clock updated every few tens of ns, in microseconds.
  int quantum_reads = 256;
};

// Estimates the TSC rate in ticks per second against `read_reference_ns`. Fills every field of
// clock_calibration except the names.
clock_calibration calibrate_tsc(const tick_reader& read_tsc, const tick_reader& read_reference_ns,
                                const tsc_calibration_settings& settings = {});

// The TSC read in the ordered way the CPU supports (lfence;rdtsc, else rdtscp, else rdtsc); 0
// on other architectures. Used as the calibration's TSC reader.
std::uint64_t read_tsc_ordered() noexcept;

// A TSC clock source; every variant shares one calibration.
class tsc_clock_base : public clock_source {
 public:
  const clock_calibration* calibration() const noexcept { return calibration_.get(); }

 protected:
  tsc_clock_base(std::shared_ptr<const clock_calibration> calibration, std::string reason)
      : calibration_(std::move(calibration)), unavailable_reason_(std::move(reason)) {}

 public:
  clock_kind kind() const noexcept override { return clock_kind::wall; }
  bool is_monotonic() const noexcept override { return true; }
  double ticks_per_second() const noexcept override {
    return calibration_ ? calibration_->ticks_per_second : 0.0;
  }
  std::optional<double> declared_resolution() const noexcept override;
  bool available() const noexcept override { return unavailable_reason_.empty(); }
  std::string unavailable_reason() const override { return unavailable_reason_; }

 private:
  std::shared_ptr<const clock_calibration> calibration_;
  std::string unavailable_reason_;
};

// What the TSC sources are made from: what cpuid says, and the calibration against the
// platform's monotonic reference. The registry is built from the real ones (real_tsc_inputs());
// tests give made-up features and a calibration that returns set figures, so what they check
// does not depend on the TSC of the machine they run on.
struct tsc_inputs {
  tsc_features features;
  // Calibrates the TSC against `read_reference_ns`; called once, and only when `features` say
  // the TSC is invariant.
  std::function<clock_calibration(const tick_reader& read_reference_ns)> calibrate;
};

// This CPU's features, and calibrate_tsc() over read_tsc_ordered().
tsc_inputs real_tsc_inputs();

// The rdtsc, rdtscp and lfence_rdtsc sources, in that order, calibrated once against the
// platform's monotonic reference (named `reference_name`) when the TSC is invariant.
std::vector<std::unique_ptr<clock_source>> make_tsc_clocks(const tsc_inputs& inputs,
                                                           const tick_reader& read_reference_ns,
                                                           std::string_view reference_name);

// Why the default sampling clock, when it is a TSC source named `name`, reads the way it does on
// a CPU with these features.
std::string tsc_ordering_note(std::string_view name, const tsc_features& features);

}  // namespace harness::clocks
