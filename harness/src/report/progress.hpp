// The progress line on stderr while a run warms up and samples: "[2/5] sort_ints/10000: warmup
// for 1200 ms", rewritten in place on a terminal and never written anywhere else.
//
// The progress has its own channel: the runner's progress callback (run_options::progress) says
// when a stage begins and, within a phase, how far it has got (at most every 250 ms and only
// between samples), and show() rewrites the line. The class is also a spdlog sink in front of the
// ordinary one, only so that a log message (at the user's --log-level) clears the line before it
// is written on its own line. No thread is involved and nothing is written while a sample is
// being timed.
// Caveat: the line is cut to the terminal's width so it never wraps, and cleared before other
// output.
#pragma once

#include <spdlog/sinks/base_sink.h>

#include <cstddef>
#include <iosfwd>
#include <mutex>
#include <string>
#include <string_view>

#include "harness/run_options.hpp"

namespace harness {

class progress_sink final : public spdlog::sinks::base_sink<std::mutex> {
 public:
  // `next` receives the log messages; the progress line goes to `terminal` when `enabled`, cut
  // to `width` columns (0: no limit).
  progress_sink(spdlog::sink_ptr next, std::ostream& terminal, bool enabled, std::size_t width);

  // The prefix of the lines to come: "[index/count] ".
  void set_position(std::size_t index, std::size_t count);
  // Rewrites the progress line with `text` (after the position prefix); nothing off a terminal.
  void show(std::string_view text);
  bool enabled() const noexcept { return enabled_; }
  // Removes the progress line (call before printing the report).
  void clear();

 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override;
  void flush_() override;

 private:
  void clear_unlocked();
  void show_unlocked(std::string_view text);

  spdlog::sink_ptr next_;
  std::ostream& terminal_;
  bool enabled_;
  std::size_t width_;
  std::string prefix_;
  bool line_shown_ = false;
};

// The runner's progress as one line: "xor_loop: prepared samples 120/1000", "xor_loop: warmup 0.5
// of 1.2 s", "xor_loop: prepared samples 1520 (3.2 of at most 10.0 s)".
std::string progress_text(const sampling_progress& progress);

}  // namespace harness
