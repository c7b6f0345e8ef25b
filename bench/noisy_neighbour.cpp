// noisy_neighbour: a reproducible noisy neighbour on another CPU of this machine.
//
// A paired A/B design (`harness ab`) is meant to hold its answer while the host's speed changes
// under it. This program makes such changes on purpose: pinned to one CPU, it alternates bursts
// of busy work with idle gaps, both of uniformly random length, so that a measurement on the other
// CPU sees its host slow down and recover at random moments.
//
//   kind alu     a dependent chain of 64-bit integer multiply-adds and double multiply-adds, in
//                registers: it loads the core (and its SMT sibling, where the host has one) but
//                leaves caches and memory alone.
//   kind memory  read-modify-write passes over a buffer (--buffer-mib, 64 MiB by default: more
//                than the L2 and the usual share of an L3), so it evicts the shared cache and takes
//                memory bandwidth.
//   kind mixed   each burst draws one of the two, with even odds.
//
// The CPU: `harness` pins to the least-loaded allowed CPU and counts CPU 0 busier for its
// housekeeping, ties going to the highest number (harness/src/doctor/checks_load.cpp). So by
// default the neighbour takes the lowest-numbered allowed CPU (CPU 0 on the 2-vCPU VM), the one
// the harness would not choose; and since the harness measures the load before it picks, a
// neighbour started first pushes it further away. Give --cpu to put it elsewhere, e.g. beside a
// run of `harness --cpu 0`.
//
// Reproducible: the sequence of bursts (kind, busy length, idle length, drawn in that order per
// burst) is a function of --seed alone, with our own generator (splitmix64) rather than the
// standard library's distributions, whose results differ between library implementations. The
// lengths are targets: a burst ends at the first check of the clock past its target (every few
// tens of microseconds), an idle gap when the sleep returns, and the end of --seconds or a
// signal cuts the last one short. The log records the lengths as they were.
//
// Timing uses std::chrono::steady_clock and idle is a sleep: this is a load generator, not a
// measurement. Only std:: facilities and the harness's platform layer are used, so the file also
// builds for Windows.
#include <fmt/format.h>
#include <fmt/ostream.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdint>
#include <fstream>
#include <iostream>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "harness/errors.hpp"
#include "harness/platform.hpp"

namespace {

constexpr int kExitOk = 0;
constexpr int kExitFailure = 1;  // cannot pin, cannot allocate the buffer, the log failed
constexpr int kExitUsage = 2;    // a bad command line

// Work between two checks of the clock and of the stop flag: ~30 us of ALU chain, one MiB of the
// buffer (~50-100 us at a few GB/s). Short against the shortest useful burst (1 ms), long against
// a clock read (~25 ns), so the checks cost nothing measurable.
constexpr int kAluChunk = 1 << 15;
constexpr std::size_t kMemoryChunkBytes = std::size_t{1} << 20;
// An idle gap sleeps in slices of at most this, so a signal ends the program within it.
constexpr std::chrono::milliseconds kSleepSlice{20};
// Limits on the command line. A phase longer than a minute is no longer a "burst"; the buffer
// limit keeps a typo from asking for the machine's whole memory.
constexpr double kMaxPhaseMs = 60'000;
constexpr std::uint32_t kMaxBufferMib = 16 * 1024;
constexpr double kMaxSeconds = 1e7;

using clock_type = std::chrono::steady_clock;

enum class kind { alu, memory, mixed };

const char* to_string(kind k) {
  switch (k) {
    case kind::alu:
      return "alu";
    case kind::memory:
      return "memory";
    case kind::mixed:
      return "mixed";
  }
  return "?";
}

struct range_ms {
  double min = 0;
  double max = 0;
};

struct options {
  std::optional<int> cpu;  // empty: the lowest-numbered allowed CPU
  std::string kind_name = "mixed";
  std::uint32_t buffer_mib = 64;
  std::string burst_ms = "10-300";
  std::string idle_ms = "10-300";
  std::uint64_t seed = 1;
  std::optional<double> seconds;  // empty: until SIGINT or SIGTERM
  std::string log;
};

// One burst and the idle gap after it, as they ran.
struct burst {
  double start_seconds = 0;  // from the start of the run
  kind k = kind::alu;
  double busy_ms = 0;
  double idle_ms = 0;
};

volatile std::sig_atomic_t g_stop_signal = 0;

void on_stop_signal(int sig) {
  g_stop_signal = sig;
  std::signal(sig, SIG_DFL);  // a second signal ends the process at once
}

// splitmix64 (Steele, Lea, Flood 2014): tiny, fast, and the same numbers on every platform.
class rng {
 public:
  explicit rng(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  // Uniform in [lo, hi], from the top 53 bits.
  double uniform(double lo, double hi) {
    const double u = static_cast<double>(next() >> 11) * 0x1.0p-53;
    return lo + (hi - lo) * u;
  }

 private:
  std::uint64_t state_;
};

// "10-300" or "50" (both ends 50), in milliseconds.
range_ms parse_range(std::string_view flag, const std::string& text, double lowest) {
  const auto bad = [&](std::string_view why) {
    return harness::usage_error(fmt::format(
        "{}: invalid value '{}': {}; expected MIN-MAX or N in milliseconds, {} MIN <= MAX <= "
        "{:g}, e.g. 10-300",
        flag, text, why, lowest == 0 ? "0 <=" : "0 <", kMaxPhaseMs));
  };
  const auto number = [&](std::string_view s) {
    double v = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (s.empty() || ec != std::errc{} || end != s.data() + s.size() || !std::isfinite(v)) {
      throw bad(fmt::format("'{}' is not a number", s));
    }
    return v;
  };
  const std::string_view s = text;
  // The separator is the first '-' after the first character, so that "-5" reads as a number
  // (and is then refused as negative) rather than as an empty MIN.
  const std::size_t dash = s.size() > 1 ? s.find('-', 1) : std::string_view::npos;
  range_ms r;
  if (dash == std::string_view::npos) {
    r.min = r.max = number(s);
  } else {
    r.min = number(s.substr(0, dash));
    r.max = number(s.substr(dash + 1));
  }
  if (r.min < 0 || r.max < 0) throw bad("a length cannot be negative");
  if (lowest > 0 && r.min <= 0) throw bad("a burst must last longer than 0 ms");
  if (r.min > r.max) throw bad("MIN is greater than MAX");
  if (r.max > kMaxPhaseMs) throw bad(fmt::format("more than {:g} ms", kMaxPhaseMs));
  return r;
}

kind parse_kind(const std::string& name) {
  for (const kind k : {kind::alu, kind::memory, kind::mixed}) {
    if (name == to_string(k)) return k;
  }
  throw harness::usage_error(
      fmt::format("--kind: invalid value '{}': expected alu, memory or mixed", name));
}

// ---------------------------------------------------------------------------------------------
// The work

// Where the chains' values end, so that the compiler must compute them.
volatile std::uint64_t g_sink_int = 0;
volatile double g_sink_double = 0;

bool past(clock_type::time_point end) {
  return g_stop_signal != 0 || clock_type::now() >= end;
}

void alu_burst(clock_type::time_point end) {
  std::uint64_t x = g_sink_int | 1;
  double y = g_sink_double;
  do {
    for (int i = 0; i < kAluChunk; ++i) {
      // Each step depends on the last: the chain runs at the multiplier's latency and cannot be
      // vectorised or folded away. y converges to 1.0, staying a normal number (no slow denormals).
      x = x * 0x5851f42d4c957f2dULL + 0x14057b7ef767814fULL;
      y = y * 0.9999999 + 1e-7;
    }
    g_sink_int = x;
    g_sink_double = y;
  } while (!past(end));
}

// Passes over the buffer continue where the last burst left them, so the whole buffer cycles
// through the cache however short the bursts are.
void memory_burst(std::vector<std::uint64_t>& buffer, std::size_t& position,
                  clock_type::time_point end) {
  constexpr std::size_t chunk = kMemoryChunkBytes / sizeof(std::uint64_t);
  std::uint64_t step = g_sink_int | 1;
  do {
    const std::size_t stop = std::min(position + chunk, buffer.size());
    for (std::size_t i = position; i < stop; ++i)
      buffer[i] += step;
    position = stop == buffer.size() ? 0 : stop;
    ++step;
  } while (!past(end));
  g_sink_int = buffer[position];
}

void idle(clock_type::time_point end) {
  while (g_stop_signal == 0) {
    const auto now = clock_type::now();
    if (now >= end) return;
    std::this_thread::sleep_for(std::min<clock_type::duration>(end - now, kSleepSlice));
  }
}

double ms_between(clock_type::time_point a, clock_type::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

// ---------------------------------------------------------------------------------------------

struct plan {
  int cpu = 0;
  kind k = kind::mixed;
  range_ms burst;
  range_ms idle;
};

plan check(const options& opt, const harness::platform::cpu_list& allowed) {
  plan p;
  p.k = parse_kind(opt.kind_name);
  p.burst = parse_range("--burst-ms", opt.burst_ms, 1e-3);
  p.idle = parse_range("--idle-ms", opt.idle_ms, 0);
  if (opt.buffer_mib == 0 || opt.buffer_mib > kMaxBufferMib) {
    throw harness::usage_error(fmt::format("--buffer-mib: invalid value '{}': expected 1 to {} MiB",
                                           opt.buffer_mib, kMaxBufferMib));
  }
  if (opt.seconds &&
      (!std::isfinite(*opt.seconds) || *opt.seconds <= 0 || *opt.seconds > kMaxSeconds)) {
    throw harness::usage_error(fmt::format(
        "--seconds: invalid value '{}': expected a positive number of seconds, at most {:g}",
        *opt.seconds, kMaxSeconds));
  }
  if (allowed.empty()) throw std::runtime_error("no CPU is allowed to this process");
  p.cpu = opt.cpu.value_or(allowed.front());
  if (std::find(allowed.begin(), allowed.end(), p.cpu) == allowed.end()) {
    throw harness::usage_error(
        fmt::format("--cpu: CPU {} is not one this process may run on; allowed CPUs: {}", p.cpu,
                    harness::platform::format_cpu_list(allowed)));
  }
  return p;
}

void write_log_line(std::ostream& log, const burst& b) {
  fmt::print(log, "{:.6f},{},{:.3f},{:.3f}\n", b.start_seconds, to_string(b.k), b.busy_ms,
             b.idle_ms);
  log.flush();  // a few lines a second: the log stays whole however the process ends
}

int run(const options& opt) {
  auto os = harness::platform::make_native_os();
  const plan p = check(opt, os->affinity());

  std::optional<std::ofstream> log;
  if (!opt.log.empty()) {
    // A log that cannot be written is found before any load is made.
    log.emplace(opt.log);
    if (!*log) {
      throw harness::usage_error(
          fmt::format("--log: cannot write '{}': give a file in a folder that exists", opt.log));
    }
    fmt::print(*log, "start_seconds,kind,busy_ms,idle_ms\n");
  }

  // Unpinned, the neighbour would wander onto the measured CPU: better not to run at all.
  const harness::platform::step_result pinned = os->set_affinity({p.cpu});
  if (!pinned.applied) throw std::runtime_error(pinned.action + ": " + pinned.reason);

  std::vector<std::uint64_t> buffer;
  if (p.k != kind::alu) {
    // Every page touched now, so that no burst pays for the first faults.
    buffer.assign(std::size_t{opt.buffer_mib} * 1024 * 1024 / sizeof(std::uint64_t), 1);
  }
  std::size_t position = 0;

  // Caught from before the start line, so that whoever waits for that line may signal at once.
  const auto old_int = std::signal(SIGINT, on_stop_signal);
  const auto old_term = std::signal(SIGTERM, on_stop_signal);
  fmt::print(std::cerr,
             "noisy_neighbour: CPU {}{}, kind {}, bursts {:g}-{:g} ms, idle {:g}-{:g} ms{}, "
             "seed {}, {}\n",
             p.cpu, opt.cpu ? "" : " (the lowest allowed)", to_string(p.k), p.burst.min,
             p.burst.max, p.idle.min, p.idle.max,
             p.k == kind::alu ? "" : fmt::format(", buffer {} MiB", opt.buffer_mib), opt.seed,
             opt.seconds ? fmt::format("for {:g} s", *opt.seconds)
                         : std::string("until SIGINT or SIGTERM"));

  rng random(opt.seed);
  std::vector<burst> bursts;
  const auto start = clock_type::now();
  const auto deadline = opt.seconds ? start + std::chrono::duration_cast<clock_type::duration>(
                                                  std::chrono::duration<double>(*opt.seconds))
                                    : clock_type::time_point::max();
  const auto after = [&](clock_type::time_point t, double ms) {
    const auto d = std::chrono::duration_cast<clock_type::duration>(
        std::chrono::duration<double, std::milli>(ms));
    return deadline - t < d ? deadline : t + d;
  };
  bool log_ok = true;
  while (g_stop_signal == 0) {
    burst b;
    b.k = p.k != kind::mixed ? p.k : (random.next() >> 63) == 0 ? kind::alu : kind::memory;
    const double busy_target = random.uniform(p.burst.min, p.burst.max);
    const double idle_target = random.uniform(p.idle.min, p.idle.max);
    const auto t0 = clock_type::now();
    if (t0 >= deadline) break;
    if (b.k == kind::alu) {
      alu_burst(after(t0, busy_target));
    } else {
      memory_burst(buffer, position, after(t0, busy_target));
    }
    const auto t1 = clock_type::now();
    idle(after(t1, idle_target));
    const auto t2 = clock_type::now();
    b.start_seconds = std::chrono::duration<double>(t0 - start).count();
    b.busy_ms = ms_between(t0, t1);
    b.idle_ms = ms_between(t1, t2);
    bursts.push_back(b);
    if (log && log_ok) {
      write_log_line(*log, b);
      log_ok = static_cast<bool>(*log);
    }
  }
  const auto end = clock_type::now();
  std::signal(SIGINT, old_int);
  std::signal(SIGTERM, old_term);

  std::size_t alu = 0;
  double busy_ms = 0;
  for (const burst& b : bursts) {
    if (b.k == kind::alu) ++alu;
    busy_ms += b.busy_ms;
  }
  const double elapsed = std::chrono::duration<double>(end - start).count();
  fmt::print(std::cerr,
             "noisy_neighbour: {} bursts (alu {}, memory {}), busy {:.3f} s of {:.3f} s "
             "({:.1f}%), CPU {}, seed {}{}\n",
             bursts.size(), alu, bursts.size() - alu, busy_ms / 1e3, elapsed,
             elapsed > 0 ? busy_ms / 1e3 / elapsed * 100 : 0.0, p.cpu, opt.seed,
             g_stop_signal == SIGINT    ? ", stopped by SIGINT"
             : g_stop_signal == SIGTERM ? ", stopped by SIGTERM"
                                        : "");
  if (log) {
    log->close();
    if (!log_ok || !*log) {
      fmt::print(std::cerr, "noisy_neighbour: --log: writing '{}' failed\n", opt.log);
      return kExitFailure;
    }
  }
  return kExitOk;
}

constexpr const char* kFooter = R"(
The CPU: by default the lowest-numbered allowed CPU (CPU 0 on a 2-vCPU VM), the one `harness` avoids (it
prefers the least-loaded allowed CPU other than CPU 0, ties to the highest number). Beside a run of
`harness --cpu N`, give the neighbour another CPU.

The sequence of bursts (kind, busy and idle length) depends on --seed alone; the lengths are
targets, cut short by the end of --seconds or a signal. The summary goes to stderr.

Examples:
  noisy_neighbour                                  mixed bursts on the lowest CPU until Ctrl-C
  noisy_neighbour --kind memory --seconds 20       memory bursts for 20 s
  noisy_neighbour --burst-ms 50 --idle-ms 0-500    50 ms bursts, gaps of 0 to 500 ms
  noisy_neighbour --seed 7 --log bursts.csv        another sequence, one CSV line per burst

Exit codes: 0 done (--seconds passed, or stopped by SIGINT/SIGTERM after the summary), 1 cannot pin,
allocate the buffer or finish writing the log, 2 a bad command line (nothing has run).)";

}  // namespace

int main(int argc, char** argv) {
  options opt;
  CLI::App app{
      "noisy_neighbour: a reproducible noisy neighbour. Pinned to one CPU, it runs bursts of busy "
      "work (ALU chains or memory passes) of random length with random idle gaps, so that a "
      "measurement on another CPU sees its host change speed",
      "noisy_neighbour"};
  app.footer(kFooter);
  app.add_option("--cpu", opt.cpu,
                 "The CPU to pin to; default: the lowest-numbered allowed CPU (not the harness's)");
  app.add_option("--kind", opt.kind_name,
                 "alu (dependent arithmetic in registers), memory (passes over --buffer-mib) or "
                 "mixed (each burst draws one)")
      ->capture_default_str();
  app.add_option("--buffer-mib", opt.buffer_mib,
                 "The memory kind's buffer in MiB: larger than the caches it should disturb")
      ->capture_default_str();
  app.add_option("--burst-ms", opt.burst_ms,
                 "Busy length in ms, uniform in MIN-MAX (or N for a fixed length)")
      ->capture_default_str();
  app.add_option("--idle-ms", opt.idle_ms,
                 "Idle gap after each burst in ms, uniform in MIN-MAX (or N; 0 allowed)")
      ->capture_default_str();
  app.add_option("--seed", opt.seed, "Seed of the sequence of bursts")->capture_default_str();
  app.add_option("--seconds", opt.seconds, "How long to run; default: until SIGINT or SIGTERM");
  app.add_option("--log", opt.log,
                 "Write one CSV line per burst, as it ends: start_seconds,kind,busy_ms,idle_ms");
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
