// The progress line: the runner's phase messages and progress rewritten in place on a terminal.
#include "report/progress.hpp"

#include <fmt/format.h>

#include <ostream>

#include "harness/duration.hpp"

namespace harness {

progress_sink::progress_sink(spdlog::sink_ptr next, std::ostream& terminal, bool enabled,
                             std::size_t width)
    : next_(std::move(next)), terminal_(terminal), enabled_(enabled), width_(width) {}

void progress_sink::set_position(std::size_t index, std::size_t count) {
  const std::lock_guard<std::mutex> lock(mutex_);
  prefix_ = fmt::format("[{}/{}] ", index, count);
}

void progress_sink::clear() {
  const std::lock_guard<std::mutex> lock(mutex_);
  clear_unlocked();
}

void progress_sink::clear_unlocked() {
  if (!line_shown_) return;
  // Carriage return, then erase to the end of the line (ECMA-48 EL).
  terminal_ << "\r\x1b[K" << std::flush;
  line_shown_ = false;
}

void progress_sink::sink_it_(const spdlog::details::log_msg& msg) {
  // A log line never lands in the middle of the progress line: the line goes, the message is
  // written, and the next update draws the line again.
  clear_unlocked();
  next_->log(msg);
}

void progress_sink::show(std::string_view text) {
  const std::lock_guard<std::mutex> lock(mutex_);
  show_unlocked(text);
}

void progress_sink::show_unlocked(std::string_view text) {
  if (!enabled_) return;
  std::string line = prefix_ + std::string(text) + " ...";
  // One column is kept free: a line that fills the terminal exactly wraps on some terminals.
  if (width_ > 1 && line.size() > width_ - 1) line.resize(width_ - 1);
  terminal_ << "\r\x1b[K" << line << std::flush;
  line_shown_ = true;
}

std::string progress_text(const sampling_progress& p) {
  // A stage beginning: nothing counted yet.
  if (p.done == 0 && p.total == 0 && p.budget_seconds == 0) {
    return fmt::format("{}: {}", p.workload, p.stage);
  }
  if (p.total > 0) return fmt::format("{}: {} {}/{}", p.workload, p.stage, p.done, p.total);
  if (p.stage == "warmup") {
    return fmt::format("{}: warmup {} of {}", p.workload,
                       format_seconds(p.elapsed_seconds, kSpanFormat),
                       format_seconds(p.budget_seconds, kSpanFormat));
  }
  if (p.budget_seconds > 0) {
    return fmt::format("{}: {} {} ({} of at most {})", p.workload, p.stage, p.done,
                       format_seconds(p.elapsed_seconds, kSpanFormat),
                       format_seconds(p.budget_seconds, kSpanFormat));
  }
  return fmt::format("{}: {} {}", p.workload, p.stage, p.done);
}

void progress_sink::flush_() {
  next_->flush();
}

}  // namespace harness
