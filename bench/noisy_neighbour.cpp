// noisy_neighbour: a reproducible noisy neighbour on one CPU, so that a measurement on another
// (`harness ab`, bench/ab_sensitivity.sh) can be judged against a machine whose speed changes
// under it.
//
// It pins itself to --cpu and alternates bursts of busy work with idle gaps, both of random length
// (uniform in --burst-ms and --idle-ms), drawn from --seed so a run repeats its schedule. A burst
// is one of two kinds (--kind): alu, a dependent chain of integer multiply-adds in registers that
// competes for the core's and the host's execution resources; memory, a stream of reads and
// writes over a buffer larger than the last-level cache (--buffer-mib) that competes for the shared
// cache and memory bandwidth; mixed draws the kind per burst. It runs for --seconds, or until
// SIGINT or SIGTERM, and then prints a summary on stderr; --log FILE keeps one CSV line a burst.
// Its timing uses steady_clock: it is a load, not a measurement.
//
// Which CPU: the harness pins to the least-loaded CPU other than CPU 0 by default (CPU 1 on a
// 2-vCPU machine), so the neighbour defaults to the lowest CPU allowed other than the highest one;
// give --cpu to choose, and the harness its own --cpu elsewhere.
//
//   build/bench/noisy_neighbour --cpu 0 --kind memory &   harness ab ... --cpu 1
#include <fmt/format.h>
#include <fmt/ostream.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <fstream>
#include <iostream>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "harness/errors.hpp"
#include "harness/platform.hpp"

namespace {

constexpr int kExitUsage = 2;
constexpr int kExitFailure = 1;

std::atomic<int> stop_requested{0};
// The bursts' results land here, so the compiler keeps their work.
volatile std::uint64_t sink = 0;
extern "C" void on_stop(int) {
  stop_requested.store(1);
}

struct range_ms {
  double lo = 0;
  double hi = 0;
};

// "10-300" -> {10, 300}; usage_error naming the option otherwise.
range_ms parse_range(const std::string& text, std::string_view option) {
  const auto dash = text.find('-');
  double lo = -1;
  double hi = -1;
  try {
    if (dash != std::string::npos) {
      std::size_t used = 0;
      lo = std::stod(text.substr(0, dash), &used);
      if (used != dash) lo = -1;
      hi = std::stod(text.substr(dash + 1), &used);
      if (used != text.size() - dash - 1) hi = -1;
    }
  } catch (const std::exception&) {
    lo = hi = -1;
  }
  if (!(lo >= 0) || !(hi >= lo) || hi > 3'600'000) {
    throw harness::usage_error(fmt::format(
        "{}: invalid value '{}': expected MIN-MAX in milliseconds, 0 <= MIN <= MAX, such as 10-300",
        option, text));
  }
  return {lo, hi};
}

struct options {
  std::optional<int> cpu;
  std::string kind = "mixed";
  std::string burst = "10-300";
  std::string idle = "10-300";
  std::uint64_t seed = 1;
  double seconds = 0;  // 0: until a signal
  std::size_t buffer_mib = 64;
  std::string log;
};

enum class burst_kind { alu, memory };

// Dependent multiply-adds until `until`, checked every 4096 steps (~10 us).
std::uint64_t alu_burst(std::chrono::steady_clock::time_point until) {
  std::uint64_t x = 0x9e3779b97f4a7c15ULL;
  do {
    for (int i = 0; i < 4096; ++i)
      x = x * 6364136223846793005ULL + 1442695040888963407ULL;
  } while (std::chrono::steady_clock::now() < until && stop_requested.load() == 0);
  return x;
}

// Reads and writes every cache line of the buffer, pass after pass, until `until`.
std::uint64_t memory_burst(std::vector<std::uint64_t>& buffer,
                           std::chrono::steady_clock::time_point until) {
  std::uint64_t sum = 0;
  constexpr std::size_t kLine = 64 / sizeof(std::uint64_t);
  do {
    for (std::size_t i = 0; i < buffer.size(); i += kLine) {
      sum += buffer[i];
      buffer[i] = sum;
      if ((i & 0xffff) == 0 && std::chrono::steady_clock::now() >= until) break;
    }
  } while (std::chrono::steady_clock::now() < until && stop_requested.load() == 0);
  return sum;
}

int run(const options& opt) {
  const range_ms burst = parse_range(opt.burst, "--burst-ms");
  const range_ms idle = parse_range(opt.idle, "--idle-ms");
  if (opt.kind != "alu" && opt.kind != "memory" && opt.kind != "mixed") {
    throw harness::usage_error(
        fmt::format("--kind: invalid value '{}': expected alu, memory or mixed", opt.kind));
  }
  if (!(opt.seconds >= 0)) {
    throw harness::usage_error(fmt::format(
        "--seconds: invalid value '{}': expected 0 (until a signal) or more", opt.seconds));
  }
  auto os = harness::platform::make_native_os();
  const harness::platform::cpu_list allowed = os->affinity();
  if (allowed.empty()) throw std::runtime_error("no CPU is allowed to this process");
  const int cpu = opt.cpu.value_or(allowed.size() > 1 ? allowed.front() : allowed.back());
  if (std::find(allowed.begin(), allowed.end(), cpu) == allowed.end()) {
    throw harness::usage_error(fmt::format("--cpu: {} is not among the CPUs allowed here ({})", cpu,
                                           harness::platform::format_cpu_list(allowed)));
  }
  std::optional<std::ofstream> log;
  if (!opt.log.empty()) {
    log.emplace(opt.log);
    if (!*log) throw harness::usage_error(fmt::format("--log: cannot write '{}'", opt.log));
    *log << "start_seconds,kind,busy_ms,idle_ms\n";
  }
  const harness::platform::step_result pinned = os->set_affinity({cpu});
  if (!pinned.applied) throw std::runtime_error(pinned.action + ": " + pinned.reason);
  std::signal(SIGINT, on_stop);
  std::signal(SIGTERM, on_stop);

  std::vector<std::uint64_t> buffer;
  if (opt.kind != "alu") buffer.assign(opt.buffer_mib * (1 << 20) / sizeof(std::uint64_t), 1);
  std::mt19937_64 random(opt.seed);
  std::uniform_real_distribution<double> burst_ms(burst.lo, burst.hi);
  std::uniform_real_distribution<double> idle_ms(idle.lo, idle.hi);
  std::bernoulli_distribution coin(0.5);
  using clock = std::chrono::steady_clock;
  const auto begin = clock::now();
  const auto end = begin + std::chrono::duration_cast<clock::duration>(
                               std::chrono::duration<double>(opt.seconds));
  std::size_t bursts[2] = {0, 0};
  double busy_seconds = 0;
  while (stop_requested.load() == 0 && (opt.seconds == 0 || clock::now() < end)) {
    const burst_kind kind = opt.kind == "alu"      ? burst_kind::alu
                            : opt.kind == "memory" ? burst_kind::memory
                            : coin(random)         ? burst_kind::alu
                                                   : burst_kind::memory;
    const double busy = burst_ms(random);
    const double rest = idle_ms(random);
    const auto start = clock::now();
    auto until = start + std::chrono::duration_cast<clock::duration>(
                             std::chrono::duration<double, std::milli>(busy));
    if (opt.seconds > 0) until = std::min(until, end);
    sink = sink + (kind == burst_kind::alu ? alu_burst(until) : memory_burst(buffer, until));
    busy_seconds += std::chrono::duration<double>(clock::now() - start).count();
    ++bursts[kind == burst_kind::alu ? 0 : 1];
    if (log) {
      *log << fmt::format("{:.6f},{},{:.3f},{:.3f}\n",
                          std::chrono::duration<double>(start - begin).count(),
                          kind == burst_kind::alu ? "alu" : "memory", busy, rest);
    }
    auto wake = clock::now() + std::chrono::duration_cast<clock::duration>(
                                   std::chrono::duration<double, std::milli>(rest));
    if (opt.seconds > 0) wake = std::min(wake, end);
    while (stop_requested.load() == 0 && clock::now() < wake)
      std::this_thread::sleep_for(
          std::min<clock::duration>(wake - clock::now(), std::chrono::milliseconds(10)));
  }
  const double total = std::chrono::duration<double>(clock::now() - begin).count();
  fmt::print(std::cerr,
             "noisy_neighbour: CPU {}, seed {}: {} alu and {} memory bursts, busy {:.2f} s of "
             "{:.2f} s ({:.0f}%)\n",
             cpu, opt.seed, bursts[0], bursts[1], busy_seconds, total,
             total > 0 ? busy_seconds / total * 100 : 0.0);
  if (log && !log->flush()) {
    fmt::print(std::cerr, "noisy_neighbour: --log: could not write '{}'\n", opt.log);
    return kExitFailure;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  options opt;
  CLI::App app{
      "A reproducible noisy neighbour: random bursts of ALU or memory work with random idle gaps, "
      "pinned to one CPU",
      "noisy_neighbour"};
  app.add_option("--cpu", opt.cpu,
                 "The CPU to load (default: the lowest allowed one, when more than one is)");
  app.add_option("--kind", opt.kind, "alu, memory, or mixed (drawn per burst)")
      ->capture_default_str();
  app.add_option("--burst-ms", opt.burst, "A burst's length, MIN-MAX milliseconds")
      ->capture_default_str();
  app.add_option("--idle-ms", opt.idle, "A gap's length, MIN-MAX milliseconds")
      ->capture_default_str();
  app.add_option("--seed", opt.seed, "The seed of the lengths and kinds")->capture_default_str();
  app.add_option("--seconds", opt.seconds, "How long to run; 0: until SIGINT or SIGTERM")
      ->capture_default_str();
  app.add_option("--buffer-mib", opt.buffer_mib, "The memory kind's buffer, MiB")
      ->check(CLI::Range(std::size_t{1}, std::size_t{4096}))
      ->capture_default_str();
  app.add_option("--log", opt.log, "Write one CSV line per burst to this file");
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    fmt::print(std::cerr, "noisy_neighbour: {}\nRun 'noisy_neighbour --help' for the options.\n",
               e.what());
    return kExitUsage;
  }
  try {
    return run(opt);
  } catch (const harness::usage_error& e) {
    fmt::print(std::cerr, "noisy_neighbour: {}\n", e.what());
    return kExitUsage;
  } catch (const std::exception& e) {
    fmt::print(std::cerr, "noisy_neighbour: error: {}\n", e.what());
    return kExitFailure;
  }
}
