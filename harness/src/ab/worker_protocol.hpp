// The worker protocol of `harness ab --a BIN --b BIN` (docs/ab.md, "Two builds: the worker
// protocol"): the lines a parent and a `harness worker` exchange, formatted and read here, and
// nothing else. One line each way per command, text, words separated by one space, `\n` at the
// end. Pure: no process, no clock. Internal to the harness.
//
// parent                                      worker
//   hello 1 SPEC [CLOCK]                  ->    ready 1 clock=C tps=T step=S granularity=G
//                                                 workload=NAME build=FINGERPRINT harness=VERSION
//   overhead N                            ->    overhead TICKS
//   calibrate OVERHEAD MIN_TICKS          ->    batch B ITERATIONS_PER_CALL
//   sample COUNT BATCH REFERENCE_ITERS    ->    samples REFERENCE SWITCHES RAW1 ... RAWCOUNT
//   quit                                  ->    bye
// and to any of them:                           error KIND MESSAGE (KIND: usage, version,
//                                                 workload, protocol, failure)
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "harness/ab.hpp"
#include "harness/enum_names.hpp"

namespace harness::worker_protocol {

// The version this build speaks. A parent and a worker of different versions refuse each other:
// the first exchange (hello V / ready V, or error version V) keeps its form in every version.
inline constexpr int kVersion = 1;

// A line that does not follow the protocol; the message says what was wrong.
class protocol_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// ---- the parent's lines ----------------------------------------------------------------------

struct hello {
  int version = kVersion;
  std::string workload;  // NAME or NAME/ARG, as the user gave it (no space)
  std::string clock;     // empty: the worker's default clock
};
struct overhead {
  std::uint64_t samples = 0;
};
struct calibrate {
  std::uint64_t overhead = 0;
  std::uint64_t min_ticks = 0;
};
struct sample {
  std::uint64_t count = 0;
  std::uint64_t batch = 1;
  std::uint64_t reference_iterations = 0;
};
struct quit {};
using command = std::variant<hello, overhead, calibrate, sample, quit>;

std::string format(const command& c);          // without the line break
command parse_command(std::string_view line);  // throws protocol_error

// ---- the worker's lines ----------------------------------------------------------------------

struct ready {
  int version = kVersion;
  std::string clock;
  double ticks_per_second = 0;
  std::uint64_t step = 1;
  double granularity = 0;
  std::string workload;  // its display name
  std::string build;     // the fingerprint of the worker's executable (history.hpp)
  std::string harness;   // the harness version it was built from; empty when not said
  // The workload's declared minimum sample time (workload::min_sample_time), ns; 0: none (and
  // the key is left out of the line).
  std::uint64_t min_sample_ns = 0;
  // The calls a sample the workload declared it needs (workload::min_batch); 0: none (and the
  // key is left out of the line).
  std::uint64_t min_batch = 0;
};
struct overhead_ticks {
  std::uint64_t ticks = 0;
};
struct batch {
  std::uint64_t calls = 1;
  std::uint64_t iterations_per_call = 0;
};
struct samples {
  ab_side_samples taken;
};
struct bye {};

// What went wrong in the worker, in one word the parent acts on.
enum class error_kind {
  usage,     // hello named what the worker does not have (a workload, a clock): exit 2
  version,   // the worker speaks another protocol version: exit 2
  workload,  // the workload threw (setup, a call, teardown): exit 3
  protocol,  // the worker could not read the parent's line
  failure,   // anything else failed in the worker
};
// The word on the worker's error line.
inline constexpr enum_table<error_kind, error_kind::failure> kErrorKindNames{{
    {error_kind::usage, "usage"},
    {error_kind::version, "version"},
    {error_kind::workload, "workload"},
    {error_kind::protocol, "protocol"},
    {error_kind::failure, "failure"},
}};
constexpr const auto& enum_names(error_kind) noexcept {
  return kErrorKindNames;
}
using harness::id_of;
using harness::to_string;

struct error {
  error_kind kind = error_kind::failure;
  int version = 0;  // with error_kind::version: the version the worker speaks
  std::string message;
};
using reply = std::variant<ready, overhead_ticks, batch, samples, bye, error>;

// Without the line break; a message's line breaks become " / ".
std::string format(const reply& r);
reply parse_reply(std::string_view line);  // throws protocol_error

// `text` cut to at most `limit` characters (with "..." when cut), for quoting a bad line.
std::string truncated(std::string_view text, std::size_t limit = 80);

}  // namespace harness::worker_protocol
