// A side of `harness ab` that is a worker process (worker_side.hpp).
#include "ab/worker_side.hpp"

#include <fmt/format.h>

#include <system_error>
#include <thread>
#include <type_traits>
#include <variant>

#include "base/check.hpp"
#include "base/numbers.hpp"
#include "harness/duration.hpp"
#include "harness/errors.hpp"
#include "harness/log.hpp"

namespace harness {

namespace wp = worker_protocol;

namespace {

template <class Reply>
constexpr std::string_view reply_form() {
  if constexpr (std::is_same_v<Reply, wp::ready>) return "ready 1 clock=... tps=... ...";
  if constexpr (std::is_same_v<Reply, wp::overhead_ticks>) return "overhead TICKS";
  if constexpr (std::is_same_v<Reply, wp::batch>) return "batch CALLS ITERATIONS_PER_CALL";
  if constexpr (std::is_same_v<Reply, wp::samples>) return "samples REFERENCE SWITCHES RAW...";
  if constexpr (std::is_same_v<Reply, wp::bye>) return "bye";
  return "?";
}

std::chrono::milliseconds to_ms(std::chrono::nanoseconds d) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(d);
}

}  // namespace

worker_side::worker_side(std::string side, std::filesystem::path binary,
                         std::unique_ptr<platform::child_process> child,
                         std::filesystem::path err_file, const worker_settings& settings)
    : side_(std::move(side)),
      name_(fmt::format("{} ('{}')", side_, binary.string())),
      binary_(std::move(binary)),
      child_(std::move(child)),
      err_file_(std::move(err_file)),
      settings_(settings) {}

worker_side::~worker_side() {
  if (!child_->poll()) child_->kill();
}

std::string worker_side::stderr_tail() const {
  const std::string tail = platform::tail_of(err_file_, settings_.stderr_lines);
  return tail.empty() ? "; its stderr was empty" : "; the last lines of its stderr:\n" + tail;
}

void worker_side::fail(const std::string& what, bool workload_threw) {
  if (!child_->poll()) child_->kill();
  throw ab_side_failure(fmt::format("{} {}{}", name_, what, stderr_tail()), workload_threw);
}

std::string worker_side::no_harness_hint() const {
  // What goes wrong before ready is most often a program that is no harness worker at all.
  return ready_.workload.empty() ? ": is it a harness binary (one linked with harness::main) that "
                                   "has the worker command?"
                                 : "";
}

std::optional<platform::child_exit> worker_side::await_exit() {
  constexpr std::chrono::milliseconds kPoll{10};
  std::optional<platform::child_exit> exit;
  for (auto waited = std::chrono::milliseconds(0);
       !(exit = child_->poll()) && waited < settings_.exit_time; waited += kPoll)
    std::this_thread::sleep_for(kPoll);
  return exit;
}

void worker_side::send(const wp::command& command) {
  last_command_ = wp::format(command);
  try {
    child_->send(last_command_ + "\n");
  } catch (const std::system_error& e) {
    // It no longer reads: it has exited, or is about to.
    const std::optional<platform::child_exit> exit = await_exit();
    fail(fmt::format("{} before answering '{}'{} (it no longer read its input: {})",
                     exit ? exit->describe() : "stopped reading its input", last_command_,
                     no_harness_hint(), e.what()));
  }
}

template <class Reply>
Reply worker_side::receive(std::chrono::nanoseconds expected) {
  const std::chrono::milliseconds limit = to_ms(expected) + settings_.timeout;
  std::string line;
  platform::read_status status{};
  try {
    status = child_->read_line(line, limit);
  } catch (const std::system_error& e) {
    fail(fmt::format("could not be read from while it answered '{}': {}", last_command_, e.what()));
  }
  if (status == platform::read_status::timed_out) {
    child_->kill();
    const std::string beyond =
        to_ms(expected).count() == 0
            ? std::string()
            : fmt::format(" ({} beyond the {} it should take)",
                          format_duration(settings_.timeout, micro_spelling::ascii),
                          format_duration(to_ms(expected), micro_spelling::ascii));
    fail(fmt::format("did not answer '{}' within {}{}: taken for hung and killed", last_command_,
                     format_duration(limit, micro_spelling::ascii), beyond));
  }
  if (status == platform::read_status::closed) {
    const std::optional<platform::child_exit> exit = await_exit();
    const std::string how = exit ? exit->describe() : "closed its output and was killed";
    const std::string said =
        line.empty() ? std::string() : fmt::format(" (its last words: '{}')", wp::truncated(line));
    fail(fmt::format("{} before answering '{}'{}{}", how, last_command_, said, no_harness_hint()));
  }
  wp::reply reply;
  try {
    reply = wp::parse_reply(line);
  } catch (const wp::protocol_error& e) {
    fail(fmt::format("answered '{}' to '{}': not a line of the worker protocol ({}){}",
                     wp::truncated(line), last_command_, e.what(), no_harness_hint()));
  }
  if (const auto* e = std::get_if<wp::error>(&reply)) {
    switch (e->kind) {
      case wp::error_kind::usage:
        if constexpr (std::is_same_v<Reply, wp::ready>) {
          if (!child_->poll()) child_->kill();
          throw usage_error(fmt::format("{}: {}", name_, e->message));
        }
        break;
      case wp::error_kind::version:
        if (!child_->poll()) child_->kill();
        throw usage_error(fmt::format(
            "{} speaks worker protocol {}, this harness speaks {}: give two builds of harness "
            "versions that speak the same protocol (docs/ab.md)",
            name_, e->version, wp::kVersion));
      case wp::error_kind::workload:
        fail(fmt::format("failed: {}", e->message), true);
      case wp::error_kind::protocol:
      case wp::error_kind::failure:
        break;
    }
    fail(fmt::format("failed ({} error) while answering '{}': {}", wp::to_string(e->kind),
                     last_command_, e->message));
  }
  if (!std::holds_alternative<Reply>(reply)) {
    fail(fmt::format("answered '{}' to '{}': expected '{}'", wp::truncated(line), last_command_,
                     reply_form<Reply>()));
  }
  return std::get<Reply>(std::move(reply));
}

void worker_side::hello(std::string_view workload, std::string_view clock) {
  send(wp::hello{wp::kVersion, std::string(workload), std::string(clock)});
  ready_ = receive<wp::ready>(settings_.hello_time);
  if (ready_.version != wp::kVersion) {
    if (!child_->poll()) child_->kill();
    throw usage_error(fmt::format(
        "{} speaks worker protocol {}, this harness speaks {}: give two builds of harness "
        "versions that speak the same protocol (docs/ab.md)",
        name_, ready_.version, wp::kVersion));
  }
  facts_.workload = ready_.workload;
  facts_.build = fmt::format("{} ({})", binary_.string(),
                             ready_.build.empty() ? "fingerprint unreadable" : ready_.build);
  facts_.clock = ready_.clock;
  facts_.ticks_per_second = ready_.ticks_per_second;
  facts_.clock_step = ready_.step;
  facts_.granularity = ready_.granularity;
  facts_.min_sample_ns = ready_.min_sample_ns;
  facts_.min_batch = ready_.min_batch;
  logger().info("{}: ready, pid {}, {} on {} ({} ticks/s), build {}, harness {}", name_,
                child_->id(), ready_.workload, ready_.clock, fixed_text(ready_.ticks_per_second, 0),
                ready_.build, ready_.harness.empty() ? "unknown" : ready_.harness);
}

std::uint64_t worker_side::measure_overhead(std::size_t samples) {
  send(wp::overhead{samples});
  return receive<wp::overhead_ticks>(std::chrono::nanoseconds(0)).ticks;
}

std::uint64_t worker_side::calibrate(std::uint64_t overhead, std::uint64_t min_ticks) {
  send(wp::calibrate{overhead, min_ticks});
  const wp::batch b = receive<wp::batch>(std::chrono::nanoseconds(0));
  facts_.iterations_per_call = b.iterations_per_call;
  return b.calls;
}

void worker_side::send_sample(std::size_t count, std::uint64_t batch,
                              std::uint32_t reference_iterations) {
  const wp::sample s{count, batch, reference_iterations};
  send(s);
  pending_sample_ = s;
}

ab_side_samples worker_side::receive_samples() {
  const std::uint64_t count = pending_sample_ ? pending_sample_->count : 0;
  pending_sample_.reset();
  // The samples asked for at the slowest seen so far, twice over (0 before the first).
  const double seconds = 2.0 * static_cast<double>(count) * static_cast<double>(slowest_sample_) /
                         facts_.ticks_per_second;
  const auto expected = std::chrono::nanoseconds(static_cast<std::int64_t>(seconds * 1e9));
  ab_side_samples taken = receive<wp::samples>(expected).taken;
  if (taken.raw.size() != count) {
    fail(fmt::format("answered {} samples to '{}'", taken.raw.size(), last_command_));
  }
  for (const std::uint64_t raw : taken.raw)
    slowest_sample_ = std::max(slowest_sample_, raw);
  return taken;
}

ab_side_samples worker_side::sample(std::size_t count, std::uint64_t batch,
                                    std::uint32_t reference_iterations) {
  send_sample(count, batch, reference_iterations);
  return receive_samples();
}

void worker_side::quit() {
  send(wp::quit{});
  (void)receive<wp::bye>(std::chrono::nanoseconds(0));
  const std::optional<platform::child_exit> exit = await_exit();
  if (!exit) {
    child_->kill();
    fail(fmt::format("did not exit within {} of saying bye: killed",
                     format_duration(settings_.exit_time, micro_spelling::ascii)));
  }
  if (!exit->ok()) fail(fmt::format("{} after saying bye", exit->describe()));
}

duet_sides::duet_sides(worker_side& a, worker_side& b)
    : wa_(a), wb_(b), a_(*this, a, 0), b_(*this, b, 1) {}

ab_side_samples duet_sides::member::sample(std::size_t count, std::uint64_t batch,
                                           std::uint32_t reference_iterations) {
  if (duet_.pending_ == index_) {
    // The second ask of the round: the same samples as the first (run_rounds asks both alike).
    const worker_protocol::sample& asked = duet_.pending_request_;
    HARNESS_CHECK(asked.count == count && asked.batch == batch &&
                      asked.reference_iterations == reference_iterations,
                  "a duet round asked its sides for different samples");
    duet_.pending_ = -1;
    return self_.receive_samples();
  }
  HARNESS_CHECK(duet_.pending_ < 0, "a duet round asked one side twice");
  const int other = 1 - index_;
  self_.send_sample(count, batch, reference_iterations);
  duet_.worker(other).send_sample(count, batch, reference_iterations);
  duet_.pending_ = other;
  duet_.pending_request_ = {count, batch, reference_iterations};
  return self_.receive_samples();
}

}  // namespace harness
