// A side of `harness ab` that is a worker process of another build (`BIN worker`), spoken to in
// the worker protocol (worker_protocol.hpp, docs/ab.md) over its stdin and stdout. It times
// nothing itself: every figure comes from the worker's own clock.
//
// Every reply is awaited with a time limit: what the command should take (the samples asked for,
// at the slowest sample seen so far, twice over) plus worker_settings::timeout. A worker that
// does not answer within it is taken for hung and killed; one that answers what the protocol does
// not allow, or exits, is a failure; each message names the side and the binary, quotes what the
// worker said (cut short) and shows the last lines of its stderr. Internal to the harness.
#pragma once

#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "ab/worker_protocol.hpp"
#include "harness/ab.hpp"
#include "platform/child_process.hpp"

namespace harness {

// How long a worker may take; each value says why.
struct worker_settings {
  // Beyond what a command should take: long enough for a worker descheduled by a busy host, short
  // enough that a hung one ends the run soon (`--worker-timeout`).
  std::chrono::milliseconds timeout{10'000};
  // What hello should take: the worker calibrates its clock (the TSC: up to about a second),
  // measures the clock's facts, fingerprints its executable and runs the workload's setup.
  std::chrono::milliseconds hello_time{20'000};
  // After bye, or when it closed its output, a worker has this long to exit before it is killed.
  std::chrono::milliseconds exit_time{2'000};
  // The stderr lines a failure shows.
  std::size_t stderr_lines = 8;
};

class worker_side final : public ab_side {
 public:
  // `side` is "A" or "B", `binary` the program as given; `child` was launched with talk and is
  // running; its stderr goes to `err_file`.
  worker_side(std::string side, std::filesystem::path binary,
              std::unique_ptr<platform::child_process> child, std::filesystem::path err_file,
              const worker_settings& settings);
  // A worker still running is killed: nothing is left behind.
  ~worker_side() override;
  worker_side(const worker_side&) = delete;
  worker_side& operator=(const worker_side&) = delete;

  // Says hello and reads ready, which gives facts(). `clock` empty: the worker's default. Throws
  // usage_error when the worker refused what hello named or speaks another protocol version (the
  // user's to fix: exit 2), ab_side_failure otherwise.
  void hello(std::string_view workload, std::string_view clock);
  const worker_protocol::ready& ready() const noexcept { return ready_; }
  // "A ('build/bin/harness')": how messages name it.
  const std::string& name() const noexcept { return name_; }

  const ab_side_facts& facts() const override { return facts_; }
  std::uint64_t measure_overhead(std::size_t samples) override;
  std::uint64_t calibrate(std::uint64_t overhead, std::uint64_t min_ticks) override;
  ab_side_samples sample(std::size_t count, std::uint64_t batch,
                         std::uint32_t reference_iterations) override;

  // sample() in two halves, so two workers can sample at once (the duet layout): the command is
  // sent, and its reply read later.
  void send_sample(std::size_t count, std::uint64_t batch, std::uint32_t reference_iterations);
  ab_side_samples receive_samples();

  // Says quit, reads bye and waits for the worker to exit (killed after exit_time). Throws
  // ab_side_failure when it does not say bye or exits with another status than 0.
  void quit();

 private:
  // Sends the command and reads one reply, which must be of type Reply (or an error, which is
  // thrown as the failure it says).
  void send(const worker_protocol::command& command);
  template <class Reply>
  Reply receive(std::chrono::nanoseconds expected);
  // How it ended, waiting up to exit_time; nullopt: it still runs.
  std::optional<platform::child_exit> await_exit();
  [[noreturn]] void fail(const std::string& what, bool workload_threw = false);
  std::string stderr_tail() const;
  std::string no_harness_hint() const;

  std::string side_;
  std::string name_;
  std::filesystem::path binary_;
  std::unique_ptr<platform::child_process> child_;
  std::filesystem::path err_file_;
  worker_settings settings_;
  worker_protocol::ready ready_;
  ab_side_facts facts_;
  std::string last_command_;  // for messages: what the reply answers
  std::optional<worker_protocol::sample> pending_sample_;
  std::uint64_t slowest_sample_ = 0;  // the slowest raw sample seen, ticks: sizes the time limit
};

// The duet layout (Bulej et al. 2020): two workers on two CPUs take each round's samples at the
// same time, so what the host does to its speed meanwhile falls on both at once. run_rounds asks
// one side and then the other; here the first ask of a round sends the command to both workers
// and reads its own reply, the second reads the other's reply, already under way. The rounds, the
// estimate and everything else stay as they are.
class duet_sides {
 public:
  duet_sides(worker_side& a, worker_side& b);
  ab_side& a() noexcept { return a_; }
  ab_side& b() noexcept { return b_; }

 private:
  class member final : public ab_side {
   public:
    member(duet_sides& duet, worker_side& self, int index)
        : duet_(duet), self_(self), index_(index) {}
    const ab_side_facts& facts() const override { return self_.facts(); }
    std::uint64_t measure_overhead(std::size_t samples) override {
      return self_.measure_overhead(samples);
    }
    std::uint64_t calibrate(std::uint64_t overhead, std::uint64_t min_ticks) override {
      return self_.calibrate(overhead, min_ticks);
    }
    ab_side_samples sample(std::size_t count, std::uint64_t batch,
                           std::uint32_t reference_iterations) override;

   private:
    duet_sides& duet_;
    worker_side& self_;
    int index_;
  };

  worker_side& worker(int index) noexcept { return index == 0 ? wa_ : wb_; }

  worker_side& wa_;
  worker_side& wb_;
  member a_;
  member b_;
  // The side whose samples were asked for with the other's, its reply not yet read; -1: none.
  int pending_ = -1;
  worker_protocol::sample pending_request_;
};

}  // namespace harness
