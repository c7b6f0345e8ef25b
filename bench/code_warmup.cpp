// code_warmup: does a workload run slower right after other code than after itself?
//
// On some hosts of this VM kind a loop runs up to ~1.6x slower for its first few milliseconds
// after the CPU ran other code (the harness's reference loop between blocks, a spin, a sleep),
// stepping down to its steady speed call by call; after itself it runs at its steady speed from
// the first call (docs/floor.md, "A workload that learns"). The harness's gap between blocks is
// such other code, so on those hosts every block after the first starts slow, which the trust
// line reads as the workload speeding up with repetition.
//
// This program pins itself to one CPU, raises its priority, and --repeats times runs each case
// for --gap-ms, then times --calls calls of the workload one by one:
//   self       the workload itself, untimed (what --block-rewarm does)
//   reference  the multiply chain the harness runs between blocks
//   tight      the tight-loop probe: another busy loop, not the workload's code
//   spin       reading the clock until the time is up
//   sleep      sleeping 1 ms at a time
// The cases take turns within each repeat, so a change of the host's speed falls on all of them.
// It prints, per case, the median over the repeats of each call's time as a multiple of the
// fastest call seen in any case (the steady speed), and how many calls it took to come within 1%
// of it. Ticks are raw readings of the harness's default clock, two reads included in each.
#include <fmt/format.h>
#include <fmt/ostream.h>
#include <fmt/ranges.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <iostream>
#include <limits>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "harness/clock.hpp"
#include "harness/enum_names.hpp"
#include "harness/errors.hpp"
#include "harness/platform.hpp"
#include "harness/preparation.hpp"
#include "harness/speed_probe.hpp"
#include "harness/workload.hpp"
#include "study.hpp"

namespace {

struct options {
  std::string workload = "xor_loop/1000000";
  int calls = 20;
  int repeats = 6;
  double gap_ms = 50;
  int cpu = 1;
  std::string priority = "high";
};

enum class before { self, reference, tight, spin, sleep };
constexpr harness::enum_table<before, before::sleep> kBeforeNames{{
    {before::self, "self"},
    {before::reference, "reference"},
    {before::tight, "tight"},
    {before::spin, "spin"},
    {before::sleep, "sleep"},
}};
constexpr const auto& enum_names(before) noexcept {
  return kBeforeNames;
}
constexpr std::array<before, 5> kCases{before::self, before::reference, before::tight, before::spin,
                                       before::sleep};

// Runs `what` until `ticks` have passed since it began.
void run_before(before what, std::uint64_t ticks, harness::workload_session& session,
                const harness::clock_source& clock) {
  const std::uint64_t begin = clock.now();
  while (clock.now() - begin < ticks) {
    switch (what) {
      case before::self:
        session.before_sample(1);
        session.run(1);
        break;
      case before::reference:
        (void)harness::run_probe(harness::probe_kind::multiply_chain, clock, 1000);
        break;
      case before::tight:
        (void)harness::run_probe(harness::probe_kind::tight_loop, clock, 4000);
        break;
      case before::spin:
        break;
      case before::sleep:
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
        break;
    }
  }
}

using harness::study::median;

int run(const options& opt) {
  auto os = harness::platform::make_native_os();
  harness::study::check_cpu(opt.cpu, os->affinity());
  const harness::workload_instance workload = harness::study::one_workload(opt.workload);
  const harness::clock_source& clock = harness::default_clock();
  const auto gap = static_cast<std::uint64_t>(opt.gap_ms * 1e-3 * clock.ticks_per_second());

  harness::preparation prep(*os);
  prep.apply(harness::study::plan_of(opt.cpu, opt.priority));
  const std::unique_ptr<harness::workload_session> session = workload.start();

  // times[case][repeat][call], raw ticks.
  std::vector<std::vector<std::vector<double>>> times(kCases.size());
  for (int r = 0; r < opt.repeats; ++r) {
    for (std::size_t c = 0; c < kCases.size(); ++c) {
      run_before(kCases[c], gap, *session, clock);
      std::vector<double> calls;
      for (int k = 0; k < opt.calls; ++k) {
        session->before_sample(1);
        const std::uint64_t start = clock.now();
        session->run(1);
        calls.push_back(static_cast<double>(clock.now() - start));
      }
      times[c].push_back(std::move(calls));
    }
  }
  session->finish();
  prep.restore();

  double steady = std::numeric_limits<double>::infinity();
  for (const auto& per_case : times)
    for (const auto& calls : per_case)
      steady = std::min(steady, *std::min_element(calls.begin(), calls.end()));

  std::vector<std::string> refused;
  for (const auto& step : prep.report().refused())
    refused.push_back(fmt::format("{} refused: {}", step.action, step.reason));
  fmt::print("code_warmup: {} on CPU {} ({}), {} ms of each case before {} calls, {} repeats\n",
             workload.display_name(), opt.cpu,
             refused.empty() ? std::string("preparation applied")
                             : fmt::to_string(fmt::join(refused, "; ")),
             opt.gap_ms, opt.calls, opt.repeats);
  fmt::print("  clock: {}; steady speed: the fastest call of any case, {:.0f} ticks\n",
             clock.name(), steady);
  fmt::print(
      "  per case: the median over the repeats of each call as a multiple of it, and the "
      "calls it took to come within 1% of it (median; {} = never)\n",
      opt.calls);
  for (std::size_t c = 0; c < kCases.size(); ++c) {
    std::vector<std::string> ratios;
    for (int k = 0; k < opt.calls; ++k) {
      std::vector<double> at_k;
      for (const auto& calls : times[c])
        at_k.push_back(calls[static_cast<std::size_t>(k)] / steady);
      ratios.push_back(fmt::format("{:.2f}", median(at_k)));
    }
    std::vector<double> reached;
    for (const auto& calls : times[c]) {
      const auto first =
          std::find_if(calls.begin(), calls.end(), [&](double t) { return t <= steady * 1.01; });
      reached.push_back(static_cast<double>(first - calls.begin()));
    }
    fmt::print("  {:<9} {:>4g}  {}\n", harness::id_of(kCases[c]), median(reached),
               fmt::join(ratios, " "));
  }
  return 0;
}

constexpr const char* kFooter = R"(
Examples:
  code_warmup                         xor_loop/1000000, 50 ms of each case, 20 calls, 6 repeats
  code_warmup -w sort_ints/10000      another workload
  code_warmup --gap-ms 5 --calls 40   a shorter gap, more calls after it

Exit codes: 0 done, 2 a bad command line.)";

}  // namespace

int main(int argc, char** argv) {
  options opt;
  CLI::App app{
      "code_warmup: does a workload run slower right after other code than after itself? Times "
      "its first calls after 50 ms of itself, of the reference loop, of another busy loop, of "
      "spinning and of sleeping",
      "code_warmup"};
  app.footer(kFooter);
  app.add_option("-w,--workload", opt.workload, "The workload: NAME or NAME/ARG, one registered")
      ->capture_default_str();
  app.add_option("--calls", opt.calls, "Calls timed after each case")
      ->check(CLI::Range(1, 10000))
      ->capture_default_str();
  app.add_option("--repeats", opt.repeats, "Times each case runs")
      ->check(CLI::Range(1, 10000))
      ->capture_default_str();
  app.add_option("--gap-ms", opt.gap_ms, "How long each case runs before the timed calls, ms")
      ->check(CLI::Range(0.0, 10000.0))
      ->capture_default_str();
  app.add_option("--cpu", opt.cpu, "The CPU to pin to")->capture_default_str();
  app.add_option("--priority", opt.priority, "Priority while measuring: high (nice -20) or normal")
      ->check(CLI::IsMember({"high", "normal"}))
      ->capture_default_str();
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    fmt::print(std::cerr, "code_warmup: {}\nRun 'code_warmup --help' for the options.\n", e.what());
    return 2;
  }
  try {
    return run(opt);
  } catch (const harness::usage_error& e) {
    fmt::print(std::cerr, "code_warmup: {}\n", e.what());
    return 2;
  }
}
