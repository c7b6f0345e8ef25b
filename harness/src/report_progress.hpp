// The progress line on stderr while a run warms up and samples: "[2/5] sort_ints/10000: warmup
// for 1200 ms", rewritten in place on a terminal and never written anywhere else.
//
// It is a spdlog sink in front of the ordinary one: the runner already logs each phase as it
// starts (at level info), and this sink turns those messages into the progress line, while
// messages at the user's --log-level or above go through to the ordinary sink on their own line.
// No thread is involved and nothing is written while a sample is being timed: the runner logs
// only between phases.
// Caveats: progress is per phase, not per sample (the runner reports no more than that); the line
// is cut to the terminal's width so it never wraps, and cleared before other output.
#pragma once

#include <spdlog/sinks/base_sink.h>

#include <cstddef>
#include <iosfwd>
#include <mutex>
#include <string>

namespace harness {

class progress_sink final : public spdlog::sinks::base_sink<std::mutex> {
 public:
  // `next` receives messages at `pass_level` or above; the progress line goes to `terminal`
  // when `enabled`, cut to `width` columns (0: no limit).
  progress_sink(spdlog::sink_ptr next, spdlog::level::level_enum pass_level, std::ostream& terminal,
                bool enabled, std::size_t width);

  // The prefix of the lines to come: "[index/count] ".
  void set_position(std::size_t index, std::size_t count);
  // Removes the progress line (call before printing the report).
  void clear();

 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override;
  void flush_() override;

 private:
  void clear_unlocked();

  spdlog::sink_ptr next_;
  spdlog::level::level_enum pass_level_;
  std::ostream& terminal_;
  bool enabled_;
  std::size_t width_;
  std::string prefix_;
  bool line_shown_ = false;
};

}  // namespace harness
