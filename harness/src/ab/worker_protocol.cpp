// The lines of the worker protocol (worker_protocol.hpp), formatted and read.
#include "ab/worker_protocol.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <map>
#include <system_error>

#include "base/check.hpp"

namespace harness::worker_protocol {

namespace {

// The reader hands over a line without its '\n'; one holding a line break or a carriage return
// is no line of this protocol (format() never writes one).
std::vector<std::string_view> words_of(std::string_view line) {
  if (const std::size_t at = line.find_first_of("\r\n"); at != std::string_view::npos) {
    throw protocol_error(fmt::format("the line holds a {} at byte {}",
                                     line[at] == '\n' ? "line break" : "carriage return", at));
  }
  std::vector<std::string_view> words;
  std::size_t begin = 0;
  while (begin <= line.size()) {
    const std::size_t end = std::min(line.find(' ', begin), line.size());
    words.push_back(line.substr(begin, end - begin));
    begin = end + 1;
  }
  return words;
}

// A word that goes on a line as it is: no space, no line break, nothing a reader would split.
std::string_view word(std::string_view w) {
  HARNESS_CHECK(w.find_first_of(" \t\r\n") == std::string_view::npos,
                "'{}' cannot be one word of a worker protocol line", w);
  return w;
}

// A name, clock or KEY=VALUE word as format() writes it through word(): no tab either (a tab
// in a parsed name reached word()'s check, a harness bug, when it was written back).
std::string_view plain_word(std::string_view w, std::string_view what) {
  if (w.find('\t') != std::string_view::npos)
    throw protocol_error(fmt::format("{}: '{}' holds a tab", what, truncated(w, 40)));
  return w;
}

std::uint64_t unsigned_of(std::string_view w, std::string_view what) {
  std::uint64_t v = 0;
  const auto [end, ec] = std::from_chars(w.data(), w.data() + w.size(), v);
  if (w.empty() || ec != std::errc{} || end != w.data() + w.size()) {
    throw protocol_error(
        fmt::format("{}: '{}' is not a whole number of 0 or more", what, truncated(w, 40)));
  }
  return v;
}

double real_of(std::string_view w, std::string_view what) {
  double v = 0;
  const auto [end, ec] = std::from_chars(w.data(), w.data() + w.size(), v);
  if (w.empty() || ec != std::errc{} || end != w.data() + w.size() || !(v >= 0) || v > 1e300) {
    throw protocol_error(
        fmt::format("{}: '{}' is not a finite number of 0 or more", what, truncated(w, 40)));
  }
  return v;
}

int version_of(std::string_view w) {
  const std::uint64_t v = unsigned_of(w, "the protocol version");
  if (v == 0 || v > 1'000'000) throw protocol_error(fmt::format("no protocol has version {}", v));
  return static_cast<int>(v);
}

void expect_words(const std::vector<std::string_view>& w, std::size_t count,
                  std::string_view form) {
  if (w.size() != count) {
    throw protocol_error(fmt::format("'{}' takes {} word{} after it ({}), got {}", w.front(),
                                     count - 1, count == 2 ? "" : "s", form, w.size() - 1));
  }
}

struct command_formatter {
  std::string operator()(const hello& h) const {
    return h.clock.empty()
               ? fmt::format("hello {} {}", h.version, word(h.workload))
               : fmt::format("hello {} {} {}", h.version, word(h.workload), word(h.clock));
  }
  std::string operator()(const overhead& o) const { return fmt::format("overhead {}", o.samples); }
  std::string operator()(const calibrate& c) const {
    return fmt::format("calibrate {} {}", c.overhead, c.min_ticks);
  }
  std::string operator()(const sample& s) const {
    return fmt::format("sample {} {} {}", s.count, s.batch, s.reference_iterations);
  }
  std::string operator()(const quit&) const { return "quit"; }
};

std::string one_line(std::string_view message) {
  std::string out;
  for (const char c : message) {
    if (c == '\n') {
      out += " / ";
    } else if (c != '\r') {
      out += c;
    }
  }
  return out;
}

struct reply_formatter {
  std::string operator()(const ready& r) const {
    return fmt::format(
        "ready {} clock={} tps={:.17g} step={} granularity={:.17g} workload={} build={} "
        "harness={}{}{}",
        r.version, word(r.clock), r.ticks_per_second, r.step, r.granularity, word(r.workload),
        word(r.build), word(r.harness),
        r.min_sample_ns == 0 ? std::string() : fmt::format(" min_sample_ns={}", r.min_sample_ns),
        r.min_batch == 0 ? std::string() : fmt::format(" min_batch={}", r.min_batch));
  }
  std::string operator()(const overhead_ticks& o) const {
    return fmt::format("overhead {}", o.ticks);
  }
  std::string operator()(const batch& b) const {
    return fmt::format("batch {} {}", b.calls, b.iterations_per_call);
  }
  std::string operator()(const samples& s) const {
    return fmt::format("samples {} {}{}{}", s.taken.reference, s.taken.switches,
                       s.taken.raw.empty() ? "" : " ", fmt::join(s.taken.raw, " "));
  }
  std::string operator()(const bye&) const { return "bye"; }
  std::string operator()(const error& e) const {
    if (e.kind == error_kind::version) {
      return fmt::format("error version {} {}", e.version, one_line(e.message));
    }
    return fmt::format("error {} {}", to_string(e.kind), one_line(e.message));
  }
};

ready parse_ready(const std::vector<std::string_view>& w) {
  if (w.size() < 2) throw protocol_error("'ready' takes the protocol version after it");
  ready r;
  r.version = version_of(w[1]);
  // A worker of another version may say anything after its version: the caller refuses it.
  if (r.version != kVersion) return r;
  std::map<std::string_view, std::string_view> fields;
  for (std::size_t i = 2; i < w.size(); ++i) {
    plain_word(w[i], "'ready'");
    const std::size_t eq = w[i].find('=');
    if (eq == std::string_view::npos || eq == 0) {
      throw protocol_error(fmt::format("'ready': '{}' is not KEY=VALUE", truncated(w[i], 40)));
    }
    fields[w[i].substr(0, eq)] = w[i].substr(eq + 1);
  }
  // Keys it does not know are left alone: a later revision of version 1 may add some.
  const auto field = [&](std::string_view key) -> std::string_view {
    const auto it = fields.find(key);
    if (it == fields.end()) throw protocol_error(fmt::format("'ready' lacks {}=", key));
    return it->second;
  };
  r.clock = std::string(field("clock"));
  if (r.clock.empty()) throw protocol_error("'ready': clock= names no clock");
  r.ticks_per_second = real_of(field("tps"), "ready's tps");
  if (!(r.ticks_per_second > 0)) throw protocol_error("'ready': tps= is 0");
  r.step = unsigned_of(field("step"), "ready's step");
  r.granularity = real_of(field("granularity"), "ready's granularity");
  r.workload = std::string(field("workload"));
  if (r.workload.empty()) throw protocol_error("'ready': workload= names no workload");
  r.build = std::string(field("build"));
  if (const auto it = fields.find("harness"); it != fields.end()) r.harness = it->second;
  if (const auto it = fields.find("min_sample_ns"); it != fields.end())
    r.min_sample_ns = unsigned_of(it->second, "ready's min_sample_ns");
  if (const auto it = fields.find("min_batch"); it != fields.end())
    r.min_batch = unsigned_of(it->second, "ready's min_batch");
  return r;
}

}  // namespace

std::string format(const command& c) {
  return std::visit(command_formatter{}, c);
}

command parse_command(std::string_view line) {
  const std::vector<std::string_view> w = words_of(line);
  const std::string_view name = w.front();
  if (name == "hello") {
    if (w.size() < 3 || w.size() > 4) {
      throw protocol_error(
          fmt::format("'hello' takes VERSION SPEC [CLOCK] after it, got {} words", w.size() - 1));
    }
    hello h;
    h.version = version_of(w[1]);
    h.workload = std::string(plain_word(w[2], "'hello'"));
    if (h.workload.empty()) throw protocol_error("'hello' names no workload");
    if (w.size() == 4) h.clock = std::string(plain_word(w[3], "'hello'"));
    return h;
  }
  if (name == "overhead") {
    expect_words(w, 2, "SAMPLES");
    return overhead{unsigned_of(w[1], "overhead's samples")};
  }
  if (name == "calibrate") {
    expect_words(w, 3, "OVERHEAD MIN_TICKS");
    return calibrate{unsigned_of(w[1], "calibrate's overhead"),
                     unsigned_of(w[2], "calibrate's minimum ticks")};
  }
  if (name == "sample") {
    expect_words(w, 4, "COUNT BATCH REFERENCE_ITERATIONS");
    sample s{unsigned_of(w[1], "sample's count"), unsigned_of(w[2], "sample's batch"),
             unsigned_of(w[3], "sample's reference iterations")};
    if (s.count == 0 || s.batch == 0)
      throw protocol_error("'sample': count and batch are 1 or more");
    if (s.reference_iterations > UINT32_MAX)
      throw protocol_error("'sample': the reference iterations do not fit 32 bits");
    return s;
  }
  if (name == "quit") {
    expect_words(w, 1, "nothing");
    return quit{};
  }
  throw protocol_error(
      fmt::format("'{}' is no command of protocol {} (hello, overhead, "
                  "calibrate, sample, quit)",
                  truncated(name, 40), kVersion));
}

std::string format(const reply& r) {
  return std::visit(reply_formatter{}, r);
}

reply parse_reply(std::string_view line) {
  const std::vector<std::string_view> w = words_of(line);
  const std::string_view name = w.front();
  if (name == "ready") return parse_ready(w);
  if (name == "overhead") {
    expect_words(w, 2, "TICKS");
    return overhead_ticks{unsigned_of(w[1], "overhead's ticks")};
  }
  if (name == "batch") {
    expect_words(w, 3, "CALLS ITERATIONS_PER_CALL");
    const batch b{unsigned_of(w[1], "batch's calls"), unsigned_of(w[2], "batch's iterations")};
    if (b.calls == 0) throw protocol_error("'batch': 0 calls per sample");
    return b;
  }
  if (name == "samples") {
    if (w.size() < 3) {
      throw protocol_error("'samples' takes REFERENCE SWITCHES RAW... after it");
    }
    samples s;
    s.taken.reference = unsigned_of(w[1], "samples' reference");
    s.taken.switches = unsigned_of(w[2], "samples' switches");
    s.taken.raw.reserve(w.size() - 3);
    for (std::size_t i = 3; i < w.size(); ++i)
      s.taken.raw.push_back(unsigned_of(w[i], fmt::format("sample {}", i - 2)));
    return s;
  }
  if (name == "bye") {
    expect_words(w, 1, "nothing");
    return bye{};
  }
  if (name == "error") {
    if (w.size() < 2) throw protocol_error("'error' takes KIND MESSAGE after it");
    error e;
    std::size_t message_from = 2;
    if (w[1] == "usage") {
      e.kind = error_kind::usage;
    } else if (w[1] == "version") {
      e.kind = error_kind::version;
      if (w.size() < 3) throw protocol_error("'error version' takes the worker's version");
      e.version = version_of(w[2]);
      message_from = 3;
    } else if (w[1] == "workload") {
      e.kind = error_kind::workload;
    } else if (w[1] == "protocol") {
      e.kind = error_kind::protocol;
    } else if (w[1] == "failure") {
      e.kind = error_kind::failure;
    } else {
      throw protocol_error(
          fmt::format("'error': '{}' is no kind (usage, version, workload, protocol, failure)",
                      truncated(w[1], 40)));
    }
    // The message as it came, with its spaces.
    std::size_t at = 0;
    for (std::size_t i = 0; i < message_from && at != std::string_view::npos; ++i) {
      at = line.find(' ', at);
      if (at != std::string_view::npos) ++at;
    }
    e.message = at == std::string_view::npos ? std::string() : std::string(line.substr(at));
    return e;
  }
  throw protocol_error(
      fmt::format("'{}' is no reply of protocol {}", truncated(name, 40), kVersion));
}

std::string truncated(std::string_view text, std::size_t limit) {
  std::string out;
  for (const char c : text.substr(0, limit)) {
    // A control character is shown, not sent to the terminal.
    const auto u = static_cast<unsigned char>(c);
    out += u < 0x20 || u == 0x7f ? fmt::format("\\x{:02x}", u) : std::string(1, c);
  }
  return text.size() > limit ? out + "..." : out;
}

}  // namespace harness::worker_protocol
