// `harness ab --a BIN --b BIN` (issue 26, two builds): the worker protocol's lines, the worker end
// (`harness worker`) on a fake machine, the parent's side of it (worker_side) over faked children,
// and the whole command from the command line with worker processes faked in this process: each
// fake child hands the lines it is sent to a real worker end on a fake machine and its fake clock,
// so every figure is exact, and a child told to hang, exit or speak garbage stands for the bad
// workers. Nothing here starts a process or reads a real clock.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <csignal>
#include <deque>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>

#include "ab/worker_protocol.hpp"
#include "ab/worker_side.hpp"
#include "fake_machine.hpp"
#include "harness/errors.hpp"
#include "history_file.hpp"
#include "platform/child_process.hpp"
#include "report_text.hpp"
#include "scratch.hpp"
#include "worker_command.hpp"

namespace harness {
namespace {

namespace wp = worker_protocol;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::message_of;
using ::testing::Not;

// ---- the protocol's lines ----------------------------------------------------------------------

TEST(WorkerProtocol, CommandsAreOneLineEachAndReadBack) {
  EXPECT_EQ(wp::format(wp::hello{1, "xor_loop/1000", ""}), "hello 1 xor_loop/1000");
  EXPECT_EQ(wp::format(wp::hello{1, "xor_loop", "rdtscp"}), "hello 1 xor_loop rdtscp");
  EXPECT_EQ(wp::format(wp::overhead{2000}), "overhead 2000");
  EXPECT_EQ(wp::format(wp::calibrate{40, 36000}), "calibrate 40 36000");
  EXPECT_EQ(wp::format(wp::sample{7, 3, 1000}), "sample 7 3 1000");
  EXPECT_EQ(wp::format(wp::quit{}), "quit");

  const auto h = std::get<wp::hello>(wp::parse_command("hello 1 sort_ints/5 CLOCK_MONOTONIC"));
  EXPECT_EQ(h.version, 1);
  EXPECT_EQ(h.workload, "sort_ints/5");
  EXPECT_EQ(h.clock, "CLOCK_MONOTONIC");
  EXPECT_EQ(std::get<wp::hello>(wp::parse_command("hello 1 empty")).clock, "");
  EXPECT_EQ(std::get<wp::overhead>(wp::parse_command("overhead 2000")).samples, 2000u);
  const auto c = std::get<wp::calibrate>(wp::parse_command("calibrate 40 36000"));
  EXPECT_EQ(c.overhead, 40u);
  EXPECT_EQ(c.min_ticks, 36000u);
  const auto s = std::get<wp::sample>(wp::parse_command("sample 7 3 1000"));
  EXPECT_EQ(s.count, 7u);
  EXPECT_EQ(s.batch, 3u);
  EXPECT_EQ(s.reference_iterations, 1000u);
  EXPECT_TRUE(std::holds_alternative<wp::quit>(wp::parse_command("quit")));
}

TEST(WorkerProtocol, RepliesAreOneLineEachAndReadBack) {
  const wp::ready r{.version = 1,
                    .clock = "rdtscp",
                    .ticks_per_second = 2599998200.0976448,
                    .step = 34,
                    .granularity = 2,
                    .workload = "xor_loop/1000",
                    .build = "xxh3:2425e7e83e092fda",
                    .harness = "0.1.0"};
  const std::string line = wp::format(r);
  EXPECT_EQ(line,
            "ready 1 clock=rdtscp tps=2599998200.0976448 step=34 granularity=2 "
            "workload=xor_loop/1000 build=xxh3:2425e7e83e092fda harness=0.1.0");
  const auto back = std::get<wp::ready>(wp::parse_reply(line));
  EXPECT_EQ(back.clock, "rdtscp");
  EXPECT_EQ(back.ticks_per_second, r.ticks_per_second);  // 17 digits: the same double
  EXPECT_EQ(back.step, 34u);
  EXPECT_EQ(back.granularity, 2);
  EXPECT_EQ(back.workload, "xor_loop/1000");
  EXPECT_EQ(back.build, "xxh3:2425e7e83e092fda");
  EXPECT_EQ(back.harness, "0.1.0");

  EXPECT_EQ(wp::format(wp::overhead_ticks{34}), "overhead 34");
  EXPECT_EQ(wp::format(wp::batch{69, 1000}), "batch 69 1000");
  ab_side_samples taken;
  taken.reference = 3468;
  taken.switches = 1;
  taken.raw = {750, 688, 688};
  EXPECT_EQ(wp::format(wp::samples{taken}), "samples 3468 1 750 688 688");
  EXPECT_EQ(wp::format(wp::bye{}), "bye");

  EXPECT_EQ(std::get<wp::overhead_ticks>(wp::parse_reply("overhead 34")).ticks, 34u);
  const auto b = std::get<wp::batch>(wp::parse_reply("batch 69 1000"));
  EXPECT_EQ(b.calls, 69u);
  EXPECT_EQ(b.iterations_per_call, 1000u);
  const auto s = std::get<wp::samples>(wp::parse_reply("samples 3468 1 750 688 688")).taken;
  EXPECT_EQ(s.reference, 3468u);
  EXPECT_EQ(s.switches, 1u);
  EXPECT_THAT(s.raw, ElementsAre(750, 688, 688));
  EXPECT_TRUE(std::holds_alternative<wp::bye>(wp::parse_reply("bye")));
}

// ready's optional keys (min_sample_ns, min_batch): left out when 0, read back when set, refused
// when not a number.
TEST(WorkerProtocol, ReadySaysAWorkloadsDeclaredMinimumsOnlyWhenItDeclaresThem) {
  const wp::ready none{.clock = "c",
                       .ticks_per_second = 1e9,
                       .workload = "w",
                       .build = "b",
                       .harness = "",
                       .min_sample_ns = 0,
                       .min_batch = 0};
  EXPECT_THAT(wp::format(none),
              ::testing::AllOf(Not(HasSubstr("min_sample_ns")), Not(HasSubstr("min_batch"))));
  const auto none_back = std::get<wp::ready>(wp::parse_reply(wp::format(none)));
  EXPECT_EQ(none_back.min_sample_ns, 0u);
  EXPECT_EQ(none_back.min_batch, 0u);
  wp::ready both = none;
  both.min_sample_ns = 20'000'000;
  both.min_batch = 80;
  EXPECT_THAT(wp::format(both), ::testing::EndsWith(" min_sample_ns=20000000 min_batch=80"));
  const auto both_back = std::get<wp::ready>(wp::parse_reply(wp::format(both)));
  EXPECT_EQ(both_back.min_sample_ns, 20'000'000u);
  EXPECT_EQ(both_back.min_batch, 80u);
  for (const std::string key : {"min_sample_ns", "min_batch"}) {
    EXPECT_THAT(
        message_of<wp::protocol_error>([&] {
          wp::parse_reply("ready 1 clock=c tps=1e9 step=1 granularity=0 workload=w build= " + key +
                          "=soon");
        }),
        HasSubstr(key));
  }
}

TEST(WorkerProtocol, ReadyLeavesUnknownKeysAloneAndNeedsTheOthers) {
  const auto r = std::get<wp::ready>(wp::parse_reply(
      "ready 1 numa=0 clock=c tps=1e9 step=1 granularity=0 workload=w build= later=x"));
  EXPECT_EQ(r.clock, "c");
  EXPECT_EQ(r.ticks_per_second, 1e9);
  EXPECT_EQ(r.build, "");    // unreadable fingerprint
  EXPECT_EQ(r.harness, "");  // not said
  EXPECT_THAT(message_of<wp::protocol_error>(
                  [] { wp::parse_reply("ready 1 clock=c tps=1e9 step=1 granularity=0 build=b"); }),
              HasSubstr("'ready' lacks workload="));
  // Another version may say anything after its version: only the version is read.
  const auto other = std::get<wp::ready>(wp::parse_reply("ready 2 something else entirely"));
  EXPECT_EQ(other.version, 2);
}

TEST(WorkerProtocol, RefusesWhatIsNotTheProtocolSayingWhy) {
  const std::vector<std::pair<std::string, std::string>> replies = {
      {"", "'' is no reply of protocol 1"},
      {"Segmentation fault", "'Segmentation' is no reply of protocol 1"},
      {"samples 5 0 12 zz", "sample 2: 'zz' is not a whole number of 0 or more"},
      {"samples 5", "'samples' takes REFERENCE SWITCHES RAW..."},
      {"samples 5 0 -3", "'-3' is not a whole number"},
      {"overhead", "'overhead' takes 1 word after it (TICKS), got 0"},
      {"batch 0 5", "'batch': 0 calls per sample"},
      {"batch 1", "'batch' takes 2 words after it"},
      {"bye now", "'bye' takes 0 words after it"},
      {"ready", "'ready' takes the protocol version"},
      {"ready 0", "no protocol has version 0"},
      {"ready 1 clock=c tps=nan step=1 granularity=0 workload=w build=b",
       "ready's tps: 'nan' is not a finite number"},
      {"ready 1 clock=c tps=0 step=1 granularity=0 workload=w build=b", "'ready': tps= is 0"},
      {"ready 1 clock=c junk", "'ready': 'junk' is not KEY=VALUE"},
      {"error", "'error' takes KIND MESSAGE"},
      {"error oops it broke", "'error': 'oops' is no kind"},
      {"error version", "'error version' takes the worker's version"},
      // Found by fuzz/worker_protocol_fuzz: a tab in a name read back, then written, reached
      // word()'s HARNESS_CHECK (an abort); a line break inside a line is no line.
      {"ready 1 clock=c\tx tps=1 step=1 granularity=0 workload=w build=b",
       "'ready': 'clock=c\\x09x' holds a tab"},
      {"bye\r", "the line holds a carriage return at byte 3"},
      {"overhead 5\nbye", "the line holds a line break at byte 10"},
  };
  for (const auto& [line, why] : replies) {
    // Captured by name: clang 14 (the fuzz and sanitizer build) cannot capture a binding.
    const std::string& text = line;
    EXPECT_THAT(message_of<wp::protocol_error>([&] { wp::parse_reply(text); }), HasSubstr(why))
        << line;
  }
  const std::vector<std::pair<std::string, std::string>> commands = {
      {"hello", "'hello' takes VERSION SPEC [CLOCK] after it, got 0 words"},
      {"hello 1 a b c", "got 4 words"},
      {"hello one xor_loop", "the protocol version: 'one' is not a whole number"},
      {"sample 0 1 1000", "'sample': count and batch are 1 or more"},
      {"sample 1 1 99999999999", "do not fit 32 bits"},
      {"calibrate 1", "'calibrate' takes 2 words after it (OVERHEAD MIN_TICKS), got 1"},
      {"quit now", "'quit' takes 0 words"},
      {"run fast", "'run' is no command of protocol 1"},
      {"hello 1 xor\tloop/1000", "'hello': 'xor\\x09loop/1000' holds a tab"},
      {"hello 1 xor_loop rdtsc\t", "'hello': 'rdtsc\\x09' holds a tab"},
      {"hello 1 xor_loop\n", "the line holds a line break at byte 16"},
  };
  for (const auto& [line, why] : commands) {
    // Captured by name: clang 14 (the fuzz and sanitizer build) cannot capture a binding.
    const std::string& text = line;
    EXPECT_THAT(message_of<wp::protocol_error>([&] { wp::parse_command(text); }), HasSubstr(why))
        << line;
  }
}

TEST(WorkerProtocol, ErrorsKeepTheirMessageOnOneLine) {
  EXPECT_EQ(wp::format(wp::error{wp::error_kind::workload, 0, "it threw:\r\nline two"}),
            "error workload it threw: / line two");
  EXPECT_EQ(wp::format(wp::error{wp::error_kind::version, 1, "this worker speaks protocol 1"}),
            "error version 1 this worker speaks protocol 1");
  const auto e = std::get<wp::error>(wp::parse_reply("error usage the workload  'x' is unknown"));
  EXPECT_EQ(e.kind, wp::error_kind::usage);
  EXPECT_EQ(e.message, "the workload  'x' is unknown");  // spaces as they came
  const auto v = std::get<wp::error>(wp::parse_reply("error version 3 speaks 3"));
  EXPECT_EQ(v.kind, wp::error_kind::version);
  EXPECT_EQ(v.version, 3);
  EXPECT_EQ(v.message, "speaks 3");
  EXPECT_EQ(std::get<wp::error>(wp::parse_reply("error failure")).message, "");
}

TEST(WorkerProtocol, QuotesAreCutAndShowControlCharacters) {
  EXPECT_EQ(wp::truncated("abc"), "abc");
  EXPECT_EQ(wp::truncated(std::string(100, 'x'), 10), "xxxxxxxxxx...");
  EXPECT_EQ(wp::truncated("a\x1b[2Jb"), "a\\x1b[2Jb");
}

// ---- the worker end, on a fake machine ---------------------------------------------------------

class Worker : public ::testing::Test {
 protected:
  testing::fake_machine m;
  cli::worker w{m.host, [] { return std::string("xxh3:0123"); }};
};

// `harness worker` answers hello with the fingerprint of the machine's executable
// (machine::executable_path): a file of the test's own here; "" when it cannot be read.
TEST(WorkerBuild, IsTheFingerprintOfTheMachinesExecutable) {
  const testing::scratch_folder dir("worker-build");
  testing::fake_machine m;
  m.executable = dir.path() / "worker-of-the-test";
  { std::ofstream(m.executable) << "a build"; }
  const std::string fingerprint = cli::file_fingerprint(m.executable);
  ASSERT_THAT(fingerprint, ::testing::StartsWith("xxh3:"));
  cli::worker w{m.host, cli::build_of(m.host)};
  EXPECT_EQ(std::get<wp::ready>(wp::parse_reply(w.answer("hello 1 exact"))).build, fingerprint);

  m.executable = dir.path() / "no-such-file";
  cli::worker unreadable{m.host, cli::build_of(m.host)};
  EXPECT_EQ(std::get<wp::ready>(wp::parse_reply(unreadable.answer("hello 1 exact"))).build, "");
}

TEST_F(Worker, AnswersEachCommandOnTheMachinesClockAndPinsNothing) {
  const std::string ready = w.answer("hello 1 exact");
  EXPECT_THAT(ready, ::testing::StartsWith("ready 1 clock=stepping tps=1000000000 step=1 "
                                           "granularity=1 workload=exact build=xxh3:0123 "
                                           "harness="));
  EXPECT_FALSE(std::get<wp::ready>(wp::parse_reply(ready)).harness.empty());
  // A read costs 1000 ticks of the fake clock: so does an empty sample.
  EXPECT_EQ(w.answer("overhead 100"), "overhead 1000");
  // Each call costs 100,000 ticks, more than 1,000 asked for: one call a sample.
  EXPECT_EQ(w.answer("calibrate 1000 1000"), "batch 1 0");
  // Three samples of 2 calls: 2 x 100,000 plus the read; the reference loop reads the clock twice
  // (1000 ticks a read).
  const auto s = std::get<wp::samples>(wp::parse_reply(w.answer("sample 3 2 1000"))).taken;
  EXPECT_THAT(s.raw, ElementsAre(201'000, 201'000, 201'000));
  EXPECT_EQ(s.reference, 1000u);
  EXPECT_EQ(s.switches, 0u);
  EXPECT_FALSE(w.done());
  EXPECT_EQ(w.answer("quit"), "bye");
  EXPECT_TRUE(w.done());
  EXPECT_EQ(w.exit_code(), 0);
  for (const std::string& call : m.os.calls) {
    EXPECT_THAT(call, Not(HasSubstr("set_affinity")));
    EXPECT_THAT(call, Not(HasSubstr("raise_priority")));
  }
}

TEST_F(Worker, RefusesAWorkloadItDoesNotHaveNamingWhatItHas) {
  EXPECT_EQ(w.answer("hello 1 nope"),
            "error usage the workload 'nope' matches no workload; known workloads: exact, throws, "
            "negative");
  EXPECT_TRUE(w.done());
  EXPECT_EQ(w.exit_code(), 2);
}

TEST_F(Worker, RefusesAnotherProtocolVersion) {
  EXPECT_EQ(w.answer("hello 2 exact"), "error version 1 this worker speaks protocol 1, not 2");
  EXPECT_EQ(w.exit_code(), 2);
}

TEST_F(Worker, SaysHelloFirstAndOnce) {
  EXPECT_EQ(w.answer("overhead 10"), "error protocol 'overhead 10' before hello: say hello first");
  EXPECT_EQ(w.exit_code(), 1);
  testing::fake_machine m2;
  cli::worker twice(m2.host, {});
  EXPECT_THAT(twice.answer("hello 1 exact"), HasSubstr("ready 1 "));
  EXPECT_EQ(twice.answer("hello 1 exact"), "error protocol hello was said already");
}

TEST_F(Worker, AWorkloadThatThrowsIsItsError) {
  ASSERT_THAT(w.answer("hello 1 throws"), HasSubstr("ready 1 "));
  ASSERT_THAT(w.answer("calibrate 1000 1000"), HasSubstr("batch 1 "));
  EXPECT_THAT(w.answer("sample 20 1 1000"),
              HasSubstr("error workload throws: the workload threw: disk on fire"));
  EXPECT_EQ(w.exit_code(), 3);
  EXPECT_THAT(w.answer("quit"), HasSubstr("error protocol the worker is done"));
}

TEST(WorkerServe, AnswersLineByLineUntilQuit) {
  testing::fake_machine m;
  std::istringstream in("hello 1 exact\r\noverhead 10\nquit\nnever read\n");
  std::ostringstream out;
  EXPECT_EQ(cli::serve_worker(in, out, m.host, {}), 0);
  EXPECT_THAT(out.str(), HasSubstr("ready 1 clock=stepping"));
  EXPECT_THAT(out.str(), HasSubstr("\noverhead 1000\nbye\n"));
}

TEST(WorkerServe, FailsWhenTheParentGoesAwayWithoutQuit) {
  testing::fake_machine m;
  std::istringstream in("hello 1 exact\n");
  std::ostringstream out;
  EXPECT_EQ(cli::serve_worker(in, out, m.host, {}), 1);
}

// `harness worker` end to end through the machine's standard input (cli::machine::standard_input):
// the parent's lines in, the answers on stdout, the exit code from how the talk ended.
TEST(WorkerCommand, ReadsTheParentsLinesFromTheMachinesStandardInput) {
  testing::fake_machine m;
  m.input.str("hello 1 exact\noverhead 10\nquit\n");
  const testing::outcome r = testing::run(m, {"worker"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, ::testing::StartsWith("ready 1 clock=stepping tps=1000000000 "));
  EXPECT_THAT(r.out, ::testing::EndsWith("\noverhead 1000\nbye\n"));
}

TEST(WorkerCommand, ExitsWithTheTalksEnd) {
  testing::fake_machine gone;
  gone.input.str("hello 1 exact\n");
  EXPECT_EQ(testing::run(gone, {"worker"}).code, 1);
  testing::fake_machine unknown;
  unknown.input.str("hello 1 nope\n");
  const testing::outcome r = testing::run(unknown, {"worker"});
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.out, ::testing::StartsWith("error usage the workload 'nope' matches no workload"));
  testing::fake_machine silent;
  EXPECT_EQ(testing::run(silent, {"worker"}).code, 1);
}

// ---- worker processes, faked in this process --------------------------------------------------

// What a fake child does with one answer of its worker end.
struct fake_answer {
  enum { line, hang, exit } what = line;
  std::string text;            // line: what it writes; exit: its last words, without a break
  platform::child_exit ended;  // exit: how it ends
};
// Sees each command and the worker end's answer to it; returns what the child does instead.
using tamper_fn = std::function<fake_answer(const std::string& command, std::string answer)>;

struct children_log {
  std::vector<std::string> events;  // "A <- sample 1 1 1000", "A -> samples ...", "A: kill"...
  std::vector<std::chrono::milliseconds> limits;  // each read's time limit
  int killed = 0;
};

// A worker process faked in this process: the lines sent to it go to a cli::worker on `host`,
// whose answers (through `tamper`) are what it writes.
class inproc_child final : public platform::child_process {
 public:
  inproc_child(std::string tag, const cli::machine& host, std::string build, tamper_fn tamper,
               children_log& log)
      : tag_(std::move(tag)),
        worker_(host, [build] { return build; }),
        tamper_(std::move(tamper)),
        log_(log) {}
  int id() const override { return 4242; }
  platform::cpu_list affinity() override { return cpus_; }
  std::string describe_priority() override { return "nice " + std::to_string(nice_); }
  platform::step_result set_affinity(const platform::cpu_list& cpus) override {
    log_.events.push_back(tag_ + ": pin " + platform::format_cpu_list(cpus));
    cpus_ = cpus;
    return {"pin to CPU " + platform::format_cpu_list(cpus), true, 0, {}};
  }
  std::vector<platform::step_result> raise_priority(platform::priority_level level) override {
    log_.events.push_back(tag_ + ": raise " + std::string(platform::to_string(level)));
    nice_ = -20;
    return {{"nice -20", true, 0, {}}};
  }
  void resume() override { log_.events.push_back(tag_ + ": resume"); }
  std::optional<platform::child_exit> poll() override {
    if (!ended_ && worker_.done() && out_.empty())
      ended_ = platform::child_exit{false, worker_.exit_code()};
    return ended_;
  }
  void stop(int) override {}
  void kill() override {
    if (ended_) return;
    ++log_.killed;
    log_.events.push_back(tag_ + ": kill");
    ended_ = platform::child_exit{true, 9};  // SIGKILL (Windows has none)
    closed_ = true;
  }
  void send(std::string_view text) override {
    if (ended_ || closed_) throw std::system_error(EPIPE, std::generic_category(), "send");
    std::istringstream lines{std::string(text)};
    for (std::string line; std::getline(lines, line);) {
      log_.events.push_back(tag_ + " <- " + line);
      fake_answer a{fake_answer::line, worker_.answer(line), {}};
      if (tamper_) a = tamper_(line, a.text);
      if (a.what == fake_answer::line) {
        out_.push_back(a.text);
      } else if (a.what == fake_answer::hang) {
        hung_ = true;
      } else {
        last_words_ = a.text;
        closed_ = true;
        ended_ = a.ended;
      }
    }
  }
  platform::read_status read_line(std::string& line, std::chrono::milliseconds limit) override {
    log_.limits.push_back(limit);
    if (!out_.empty()) {
      line = out_.front();
      out_.pop_front();
      log_.events.push_back(tag_ + " -> " + line.substr(0, line.find(' ')));
      return platform::read_status::line;
    }
    if (closed_) {
      line = std::exchange(last_words_, {});
      return platform::read_status::closed;
    }
    return platform::read_status::timed_out;  // hung, or nothing asked: no answer comes
  }

 private:
  std::string tag_;
  cli::worker worker_;
  tamper_fn tamper_;
  children_log& log_;
  std::deque<std::string> out_;
  std::string last_words_;
  bool hung_ = false;
  bool closed_ = false;
  std::optional<platform::child_exit> ended_;
  platform::cpu_list cpus_{0, 1, 2, 3};
  int nice_ = 0;
};

// Two builds, faked: "./a" runs on machine `a`, "./b" on machine `b` (its workload "exact" may
// cost otherwise), each with a tamper of its own.
struct fake_builds {
  testing::fake_machine a;
  testing::fake_machine b;
  tamper_fn tamper_a;
  tamper_fn tamper_b;
  children_log log;
  std::vector<std::string> launched;  // "A: worker --log-level warn talk"
  testing::scratch_folder dir{"ab-builds"};

  // The stderr a child of `side` leaves, for the failure to show.
  std::map<std::string, std::string> stderr_of;

  std::unique_ptr<platform::child_process> launch(const platform::child_spec& spec) {
    const bool is_b = spec.program.filename() == "b";
    const std::string tag = is_b ? "B" : "A";
    launched.push_back(
        fmt::format("{}: {}{}", tag, fmt::join(spec.args, " "), spec.talk ? " talk" : ""));
    std::ofstream(spec.err_file) << stderr_of[tag];
    return std::make_unique<inproc_child>(tag, is_b ? b.host : a.host,
                                          is_b ? "xxh3:bbbb" : "xxh3:aaaa",
                                          is_b ? tamper_b : tamper_a, log);
  }
};

class launcher_of final : public platform::process_launcher {
 public:
  explicit launcher_of(fake_builds& builds) : builds_(builds) {}
  std::unique_ptr<platform::child_process> launch(const platform::child_spec& spec) override {
    return builds_.launch(spec);
  }

 private:
  fake_builds& builds_;
};

// A worker_side over one fake child of `builds`.
std::unique_ptr<worker_side> side_of(fake_builds& builds, const std::string& binary,
                                     const worker_settings& settings = {}) {
  const std::filesystem::path err = builds.dir.path() / (binary + ".err");
  platform::child_spec spec{binary, {"worker"}, {}, err, true};
  return std::make_unique<worker_side>(binary == "./b" ? "B" : "A", binary, builds.launch(spec),
                                       err, settings);
}

class WorkerSide : public ::testing::Test {
 protected:
  fake_builds builds;
};

TEST_F(WorkerSide, SpeaksTheProtocolAndTakesItsFactsFromReady) {
  auto a = side_of(builds, "./a");
  a->hello("exact", "");
  EXPECT_EQ(a->facts().workload, "exact");
  EXPECT_EQ(a->facts().build, "./a (xxh3:aaaa)");
  EXPECT_EQ(a->facts().clock, "stepping");
  EXPECT_EQ(a->facts().ticks_per_second, 1e9);
  EXPECT_EQ(a->measure_overhead(100), 1000u);
  EXPECT_EQ(a->calibrate(1000, 1000), 1u);
  const ab_side_samples s = a->sample(4, 1, 1000);
  EXPECT_THAT(s.raw, ElementsAre(101'000, 101'000, 101'000, 101'000));
  a->quit();
  EXPECT_THAT(builds.log.events,
              ElementsAre("A <- hello 1 exact", "A -> ready", "A <- overhead 100", "A -> overhead",
                          "A <- calibrate 1000 1000", "A -> batch", "A <- sample 4 1 1000",
                          "A -> samples", "A <- quit", "A -> bye"));
  EXPECT_EQ(builds.log.killed, 0);
  EXPECT_EQ(a->facts().min_sample_ns, 0u);  // "exact" declares none
  EXPECT_EQ(a->facts().min_batch, 0u);
}

TEST_F(WorkerSide, TakesTheWorkloadsMinimumSampleTimeFromReady) {
  builds.a.registry.add(workload("long_samples", detail::make_invoker([] {}), false, false)
                            .min_sample_time(std::chrono::milliseconds(5)));
  auto a = side_of(builds, "./a");
  a->hello("long_samples", "");
  EXPECT_EQ(a->facts().min_sample_ns, 5'000'000u);
  a->quit();
}

TEST_F(WorkerSide, TakesTheWorkloadsMinimumBatchFromReady) {
  builds.a.registry.add(
      workload("many_inputs", detail::make_invoker([] {}), false, false).min_batch(80));
  auto a = side_of(builds, "./a");
  a->hello("many_inputs", "");
  EXPECT_EQ(a->facts().min_batch, 80u);
  a->quit();
}

TEST_F(WorkerSide, EachReplyIsAwaitedForWhatItShouldTakeAndTheTimeoutBeyond) {
  worker_settings settings;
  settings.timeout = std::chrono::milliseconds(3000);
  auto a = side_of(builds, "./a", settings);
  a->hello("exact", "");
  a->calibrate(1000, 1000);
  a->sample(1, 1, 1000);   // nothing seen yet: the timeout alone
  a->sample(20, 1, 1000);  // 20 x 101,000 ticks at 1e9/s, twice over: 4.04 ms
  EXPECT_THAT(builds.log.limits,
              ElementsAre(std::chrono::milliseconds(23000),  // hello: 20 s more
                          std::chrono::milliseconds(3000), std::chrono::milliseconds(3000),
                          std::chrono::milliseconds(3004)));
}

TEST_F(WorkerSide, AHungWorkerIsKilledAndTheRunFailsNamingTheSide) {
  builds.stderr_of["B"] = "worker: waiting for a lock\n";
  builds.tamper_b = [](const std::string& command, std::string answer) {
    return command.starts_with("sample") ? fake_answer{fake_answer::hang, {}, {}}
                                         : fake_answer{fake_answer::line, answer, {}};
  };
  auto b = side_of(builds, "./b");
  b->hello("exact", "");
  const std::string message = message_of<ab_side_failure>([&] { b->sample(2, 1, 1000); });
  EXPECT_THAT(message,
              HasSubstr("B ('./b') did not answer 'sample 2 1 1000' within 10 s: taken for "
                        "hung and killed"));
  EXPECT_THAT(message,
              HasSubstr("the last lines of its stderr:\n    | worker: waiting for a lock"));
  EXPECT_EQ(builds.log.killed, 1);
}

TEST_F(WorkerSide, GarbageMidRunIsAFailureQuotingWhatItSaid) {
  int samples = 0;
  builds.tamper_a = [&](const std::string& command, std::string answer) {
    if (command.starts_with("sample") && ++samples == 3)
      return fake_answer{fake_answer::line, "samples 5 0 12 zz" + std::string(200, '!'), {}};
    return fake_answer{fake_answer::line, answer, {}};
  };
  auto a = side_of(builds, "./a");
  a->hello("exact", "");
  a->sample(1, 1, 1000);
  a->sample(1, 1, 1000);
  const ab_side_failure failure = [&] {
    try {
      a->sample(1, 1, 1000);
    } catch (const ab_side_failure& e) {
      return e;
    }
    return ab_side_failure("nothing thrown", true);
  }();
  EXPECT_FALSE(failure.workload_threw());
  EXPECT_THAT(failure.what(), HasSubstr("A ('./a') answered 'samples 5 0 12 zz!!!"));
  EXPECT_THAT(failure.what(), HasSubstr("!!!...' to 'sample 1 1 1000': not a line of the worker "
                                        "protocol (sample 2: 'zz!!!"));
  EXPECT_THAT(failure.what(), HasSubstr("its stderr was empty"));
  EXPECT_EQ(builds.log.killed, 1);
}

TEST_F(WorkerSide, AReplyOfAnotherKindOrCountIsAFailure) {
  builds.tamper_a = [](const std::string& command, std::string answer) {
    if (command == "sample 2 1 1000") return fake_answer{fake_answer::line, "bye", {}};
    if (command == "sample 3 1 1000") return fake_answer{fake_answer::line, "samples 1 0 7", {}};
    return fake_answer{fake_answer::line, answer, {}};
  };
  auto a = side_of(builds, "./a");
  a->hello("exact", "");
  EXPECT_THAT(message_of<ab_side_failure>([&] { a->sample(2, 1, 1000); }),
              HasSubstr("A ('./a') answered 'bye' to 'sample 2 1 1000': expected 'samples "
                        "REFERENCE SWITCHES RAW...'"));
  auto a2 = side_of(builds, "./a");
  a2->hello("exact", "");
  EXPECT_THAT(message_of<ab_side_failure>([&] { a2->sample(3, 1, 1000); }),
              HasSubstr("A ('./a') answered 1 samples to 'sample 3 1 1000'"));
}

TEST_F(WorkerSide, AWorkerThatExitsIsAFailureWithItsStatusAndStderr) {
  builds.stderr_of["A"] = "line 1\nharness: the worker crashed here\n";
  builds.tamper_a = [](const std::string& command, std::string answer) {
    if (command.starts_with("overhead"))
      return fake_answer{fake_answer::exit, "overh", platform::child_exit{true, SIGSEGV}};
    return fake_answer{fake_answer::line, answer, {}};
  };
  auto a = side_of(builds, "./a");
  a->hello("exact", "");
  const std::string message = message_of<ab_side_failure>([&] { a->measure_overhead(2000); });
  const std::string crash = platform::child_exit{true, SIGSEGV}.describe();
  EXPECT_THAT(message, HasSubstr("A ('./a') " + crash));
  EXPECT_THAT(message, HasSubstr("before answering 'overhead 2000' (its last words: 'overh')"));
  EXPECT_THAT(message, HasSubstr("    | line 1\n    | harness: the worker crashed here"));
  EXPECT_THAT(message, Not(HasSubstr("is it a harness binary")));
  // And writing to it afterwards says it is gone.
  EXPECT_THAT(message_of<ab_side_failure>([&] { a->measure_overhead(1); }),
              HasSubstr("A ('./a') " + crash +
                        " before answering 'overhead 1' (it no longer read its input: send: "));
}

TEST_F(WorkerSide, ABinaryThatIsNoHarnessEndsBeforeReady) {
  builds.tamper_a = [](const std::string&, std::string) {
    return fake_answer{fake_answer::exit, "", platform::child_exit{false, 0}};
  };
  auto a = side_of(builds, "./a");
  EXPECT_THAT(message_of<ab_side_failure>([&] { a->hello("exact", ""); }),
              HasSubstr("A ('./a') exited with status 0 before answering 'hello 1 exact': is it "
                        "a harness binary (one linked with harness::main) that has the worker "
                        "command?"));
  // One that echoes what it reads (cat) is no harness either.
  builds.tamper_b = [](const std::string& command, std::string) {
    return fake_answer{fake_answer::line, command, {}};
  };
  auto b = side_of(builds, "./b");
  EXPECT_THAT(message_of<ab_side_failure>([&] { b->hello("exact", "rdtsc"); }),
              HasSubstr("B ('./b') answered 'hello 1 exact rdtsc' to 'hello 1 exact rdtsc': not "
                        "a line of the worker protocol ('hello' is no reply of protocol 1): is it "
                        "a harness binary"));
}

TEST_F(WorkerSide, AnotherProtocolVersionOrAnUnknownWorkloadIsTheUsersToFix) {
  builds.tamper_a = [](const std::string&, std::string) {
    return fake_answer{fake_answer::line, "ready 2 clock=c anything", {}};
  };
  auto a = side_of(builds, "./a");
  EXPECT_EQ(message_of<usage_error>([&] { a->hello("exact", ""); }),
            "A ('./a') speaks worker protocol 2, this harness speaks 1: give two builds of "
            "harness versions that speak the same protocol (docs/ab.md)");
  builds.tamper_b = [](const std::string&, std::string) {
    return fake_answer{fake_answer::line, "error version 3 this worker speaks protocol 3", {}};
  };
  auto b = side_of(builds, "./b");
  EXPECT_THAT(message_of<usage_error>([&] { b->hello("exact", ""); }),
              HasSubstr("B ('./b') speaks worker protocol 3, this harness speaks 1"));
  builds.tamper_a = nullptr;
  auto d = side_of(builds, "./a");
  EXPECT_EQ(message_of<usage_error>([&] { d->hello("nope", ""); }),
            "A ('./a'): the workload 'nope' matches no workload; known workloads: exact, throws, "
            "negative");
}

TEST_F(WorkerSide, AWorkloadThatThrowsInTheWorkerIsTheWorkloadsFailure) {
  auto a = side_of(builds, "./a");
  a->hello("throws", "");
  a->calibrate(1000, 1000);
  const ab_side_failure failure = [&] {
    try {
      a->sample(20, 1, 1000);
    } catch (const ab_side_failure& e) {
      return e;
    }
    return ab_side_failure("nothing thrown", false);
  }();
  EXPECT_TRUE(failure.workload_threw());
  EXPECT_THAT(failure.what(),
              HasSubstr("A ('./a') failed: throws: the workload threw: disk on fire"));
}

TEST_F(WorkerSide, TheDuetSendsBothSamplesBeforeReadingEither) {
  auto a = side_of(builds, "./a");
  auto b = side_of(builds, "./b");
  a->hello("exact", "");
  b->hello("exact", "stepping");
  builds.log.events.clear();
  duet_sides duet(*a, *b);
  duet.b().sample(3, 1, 1000);  // a round that B begins
  duet.a().sample(3, 1, 1000);
  duet.a().sample(2, 1, 1000);  // and one that A begins
  duet.b().sample(2, 1, 1000);
  EXPECT_THAT(
      builds.log.events,
      ElementsAre("B <- sample 3 1 1000", "A <- sample 3 1 1000", "B -> samples", "A -> samples",
                  "A <- sample 2 1 1000", "B <- sample 2 1 1000", "A -> samples", "B -> samples"));
}

// ---- the command: harness ab --a ./a --b ./b WORKLOAD ------------------------------------------

class AbBuilds : public ::testing::Test {
 protected:
  void SetUp() override {
    clear_stop();
    for (const char* name : {"a", "b"}) {
      const std::filesystem::path p = builds.dir.path() / name;
      std::ofstream(p) << "#!/bin/sh\nexit 99\n";  // never run: the children are faked
      std::filesystem::permissions(p, std::filesystem::perms::owner_all);
    }
    parent.host.launcher = [this] { return std::make_unique<launcher_of>(builds); };
    // B's build does 1% more work a call.
    builds.b.registry = workload_registry{};
    builds.b.registry.add(workload("exact", detail::make_invoker([this] {
                                     builds.b.clock.advance(testing::kCost + testing::kCost / 100);
                                   }),
                                   false, false));
  }
  void TearDown() override { clear_stop(); }

  testing::outcome ab(std::vector<std::string> extra) {
    std::vector<std::string> words = {"ab",
                                      "--a",
                                      (builds.dir.path() / "a").string(),
                                      "--b",
                                      (builds.dir.path() / "b").string(),
                                      "--warmup",
                                      "0",
                                      "--max-time",
                                      "60s"};
    words.insert(words.end(), extra.begin(), extra.end());
    std::vector<const char*> args;
    for (const std::string& w : words)
      args.push_back(w.c_str());
    return testing::run(parent, args);
  }
  std::string a_path() const { return (builds.dir.path() / "a").string(); }
  std::string b_path() const { return (builds.dir.path() / "b").string(); }

  fake_builds builds;
  testing::fake_machine parent;
};

TEST_F(AbBuilds, FreshPairsOfWorkersPinnedAndRaisedGiveTheAnswerOverProcesses) {
  const testing::outcome o = ab({"exact", "--pairs", "2"});
  ASSERT_EQ(o.code, 0) << o.err;
  // The console's lines are wrapped at 100 columns: the phrases are looked for in the text joined.
  const std::string out = testing::unwrapped(o.out);
  EXPECT_THAT(out, HasSubstr("A: exact of " + a_path() + " (xxh3:aaaa)"));
  EXPECT_THAT(out, HasSubstr("B: exact of " + b_path() + " (xxh3:bbbb)"));
  // Exact figures: B's call costs 1% more, in every round of both pairs.
  // Widened by a step of the fake clock (1 tick) over each side's floor: 1e-5 + 0.99e-5.
  EXPECT_THAT(out, HasSubstr("B is 1.00% slower than A [+1.00%, +1.00%] (95%, over 2 pairs of "
                             "processes, widened +-0.002% for the clock's step)"));
  EXPECT_THAT(out, HasSubstr("verdict: slower"));
  EXPECT_THAT(out, HasSubstr("pair 2: +1.00% [+1.00%, +1.00%]"));
  EXPECT_THAT(out,
              HasSubstr("workers: 2 of 2 pairs, layout turns (the two take turns on one CPU)"));
  EXPECT_THAT(out, HasSubstr("A worker: pin to CPU 2: applied; A worker: nice -20: applied; B "
                             "worker: pin to CPU 2: applied"));
  EXPECT_EQ(o.err, "");
  // Four processes, each held, pinned to the doctor's CPU, raised, released, then told to quit.
  EXPECT_THAT(builds.launched,
              ElementsAre("A: worker --log-level warn talk", "B: worker --log-level warn talk",
                          "B: worker --log-level warn talk", "A: worker --log-level warn talk"));
  std::vector<std::string> lifecycle;
  for (const std::string& e : builds.log.events) {
    if (e.find("sample") == std::string::npos && e.find("overhead") == std::string::npos &&
        e.find("batch") == std::string::npos && e.find("calibrate") == std::string::npos)
      lifecycle.push_back(e);
  }
  // The second pair starts B first: being started first is then no side's advantage. The one
  // started second quits first, so the other side takes the memory the first freed last.
  const std::vector<std::string> two_pairs = {"A: pin 2",
                                              "A: raise high",
                                              "A: resume",
                                              "A <- hello 1 exact",
                                              "A -> ready",
                                              "B: pin 2",
                                              "B: raise high",
                                              "B: resume",
                                              "B <- hello 1 exact stepping",
                                              "B -> ready",
                                              "B <- quit",
                                              "B -> bye",
                                              "A <- quit",
                                              "A -> bye",
                                              "B: pin 2",
                                              "B: raise high",
                                              "B: resume",
                                              "B <- hello 1 exact",
                                              "B -> ready",
                                              "A: pin 2",
                                              "A: raise high",
                                              "A: resume",
                                              "A <- hello 1 exact stepping",
                                              "A -> ready",
                                              "A <- quit",
                                              "A -> bye",
                                              "B <- quit",
                                              "B -> bye"};
  EXPECT_EQ(lifecycle, two_pairs);
  EXPECT_EQ(builds.log.killed, 0);
  // The parent prepared nothing of its own: it read its affinity, no more.
  for (const std::string& call : parent.os.calls)
    EXPECT_EQ(call, "affinity");
}

TEST_F(AbBuilds, TheJsonReportSaysBuildsAndWhereTheWidthComesFrom) {
  const testing::outcome o = ab({"exact", "--pairs", "3", "--format", "json"});
  ASSERT_EQ(o.code, 0) << o.err;
  const auto j = nlohmann::json::parse(o.out);
  const auto& ab = j["ab"];
  EXPECT_EQ(ab["mode"], "builds");
  EXPECT_EQ(ab["options"]["layout"], "turns");
  EXPECT_EQ(ab["options"]["pairs"], 3);
  EXPECT_EQ(ab["pairs"].size(), 3u);
  EXPECT_EQ(ab["pair_ratios"].size(), 3u);
  EXPECT_DOUBLE_EQ(ab["between_pairs"]["ratio"].get<double>(), 1.01);
  EXPECT_EQ(ab["pooled_rounds"]["count"], 90);
  EXPECT_EQ(ab["a"]["build"], a_path() + " (xxh3:aaaa)");
  EXPECT_EQ(ab["preparations"].size(), 2u);
  EXPECT_EQ(j["harness"]["clock"]["name"], "stepping");
}

TEST_F(AbBuilds, TheDuetPinsBOnAnotherCpuAndSamplesBothAtOnce) {
  const testing::outcome o = ab({"exact", "--pairs", "2", "--layout", "duet"});
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_THAT(testing::unwrapped(o.out),
              HasSubstr("layout duet (the two sample each round at the same time on two "
                        "CPUs)"));
  EXPECT_THAT(o.out, HasSubstr("B is 1.00% slower than A"));
  const auto& e = builds.log.events;
  // B on the least loaded other CPU (the doctor's rule: the highest of equals), then swapped.
  std::vector<std::string> pins;
  std::copy_if(e.begin(), e.end(), std::back_inserter(pins),
               [](const std::string& x) { return x.find(": pin ") != std::string::npos; });
  EXPECT_THAT(pins, ElementsAre("A: pin 2", "B: pin 3", "B: pin 2", "A: pin 3"));
  // Every round: both told to sample before either is read.
  for (std::size_t i = 0; i + 1 < e.size(); ++i) {
    if (e[i].starts_with("A <- sample")) {
      EXPECT_TRUE(e[i + 1].starts_with("B <- sample") || e[i - 1].starts_with("B <- sample"))
          << i << ": " << e[i];
    }
  }
}

TEST_F(AbBuilds, TwoWorkersOnDifferentClocksOrRatesAreRefused) {
  builds.tamper_b = [](const std::string& command, std::string answer) {
    if (command.starts_with("hello"))
      answer.replace(answer.find("clock=stepping"), 14, "clock=other");
    return fake_answer{fake_answer::line, answer, {}};
  };
  const std::filesystem::path report = builds.dir.path() / "r.json";
  testing::outcome o = ab({"exact", "-o", report.string()});
  EXPECT_EQ(o.code, 2);
  EXPECT_EQ(o.err, fmt::format("harness: the two workers sample different clocks: A ('{}') "
                               "stepping, B ('{}') other; their ticks do not compare: give --clock "
                               "NAME with a clock both builds have (harness clocks lists them)\n",
                               a_path(), b_path()));
  EXPECT_EQ(o.out, "");
  EXPECT_FALSE(std::filesystem::exists(report));
  EXPECT_EQ(builds.log.killed, 2);  // both ended there

  builds.tamper_b = [](const std::string& command, std::string answer) {
    if (command.starts_with("hello"))
      answer.replace(answer.find("tps=1000000000"), 14, "tps=1002000000");
    return fake_answer{fake_answer::line, answer, {}};
  };
  o = ab({"exact"});
  EXPECT_EQ(o.code, 2);
  EXPECT_THAT(o.err, HasSubstr("the two workers' stepping runs at different rates: A ('" +
                               a_path() + "') 1000000000 ticks/s, B ('" + b_path() +
                               "') 1002000000 ticks/s, 0.200% apart, more than the 0.1%"));
}

TEST_F(AbBuilds, AnUnknownWorkloadOnEitherSideIsAUsageError) {
  builds.b.registry = workload_registry{};
  builds.b.registry.add(workload("other", detail::make_invoker([] {}), false, false));
  const testing::outcome o = ab({"exact"});
  EXPECT_EQ(o.code, 2);
  EXPECT_EQ(o.err, "harness: B ('" + b_path() +
                       "'): the workload 'exact' matches no workload; known workloads: other\n");
  EXPECT_EQ(o.out, "");
}

TEST_F(AbBuilds, AWorkerThatFailsMidRunEndsTheRunWithNoReport) {
  // B's second worker (the second pair's) answers its first sample with garbage.
  int hellos = 0;
  builds.tamper_b = [&](const std::string& command, std::string answer) {
    if (command.starts_with("hello")) ++hellos;
    if (command.starts_with("sample") && hellos == 2)
      return fake_answer{fake_answer::line, "¡garbage!", {}};
    return fake_answer{fake_answer::line, answer, {}};
  };
  const std::filesystem::path report = builds.dir.path() / "r.json";
  const testing::outcome o = ab({"exact", "--pairs", "2", "-o", report.string()});
  EXPECT_EQ(o.code, 1);
  EXPECT_THAT(o.err, HasSubstr("harness: B ('" + b_path() + "') answered '"));
  EXPECT_THAT(o.err, HasSubstr("harness: no report: 1 of 2 pairs had finished\n"));
  EXPECT_EQ(o.out, "");
  EXPECT_FALSE(std::filesystem::exists(report));
  EXPECT_EQ(builds.log.killed, 2);  // B for its garbage, A with it
}

TEST_F(AbBuilds, AWorkloadThatThrowsInAWorkerExits3) {
  builds.b.registry = workload_registry{};
  builds.b.registry.add(workload("exact", detail::make_invoker([this] {
                                   builds.b.clock.advance(testing::kCost);
                                   if (++builds.b.throwing_calls == 30)
                                     throw std::runtime_error("out of cheese");
                                 }),
                                 false, false));
  const testing::outcome o = ab({"exact"});
  EXPECT_EQ(o.code, 3);
  EXPECT_THAT(o.err,
              HasSubstr("B ('" + b_path() + "') failed: exact: the workload threw: out of cheese"));
  EXPECT_EQ(o.out, "");
}

TEST_F(AbBuilds, AStopEndsTheRoundsReportsWhatCameAndQuitsTheWorkers) {
  int samples = 0;
  builds.tamper_a = [&](const std::string& command, std::string answer) {
    if (command.starts_with("sample") && ++samples == 30) request_stop(SIGINT);
    return fake_answer{fake_answer::line, answer, {}};
  };
  const testing::outcome o = ab({"exact", "--pairs", "3"});
  EXPECT_EQ(o.code, 130);
  EXPECT_THAT(o.out, HasSubstr("workers: 1 of 3 pairs"));
  EXPECT_THAT(o.out, HasSubstr("interrupted: the figures are what came before"));
  EXPECT_EQ(
      std::count(builds.launched.begin(), builds.launched.end(), "A: worker --log-level warn talk"),
      1);
  EXPECT_EQ(std::count(builds.log.events.begin(), builds.log.events.end(), "B -> bye"), 1);
  EXPECT_EQ(builds.log.killed, 0);
}

TEST_F(AbBuilds, TheCommandLineIsCheckedBeforeAnyWorkerStarts) {
  const auto refused = [&](std::vector<std::string> words, const std::string& message) {
    std::vector<const char*> args;
    for (const std::string& w : words)
      args.push_back(w.c_str());
    const testing::outcome o = testing::run(parent, args);
    EXPECT_EQ(o.code, 2) << fmt::format("{}", fmt::join(words, " "));
    EXPECT_THAT(o.err, HasSubstr(message)) << fmt::format("{}", fmt::join(words, " "));
    EXPECT_EQ(o.out, "");
  };
  const std::string a = a_path();
  const std::string b = b_path();
  refused({"ab", "--a", a, "exact"}, "--a given without --b: two builds take both");
  refused({"ab", "--b", b, "exact"}, "--b given without --a");
  refused({"ab", "--a", a, "--b", b, "exact", "exact"},
          "with --a and --b give one workload, run in both builds (e.g. harness ab --a A_BIN --b "
          "B_BIN xor_loop/1000000); got 2 workloads (exact, exact)");
  refused({"ab", "--a", a, "--b", b}, "got 0 workloads");
  refused({"ab", "--a", a, "--b", b, "exa ct"}, "is NAME or NAME/ARG, without spaces");
  refused({"ab", "--a", a, "--b", b, "exact", "--pairs", "0"},
          "--pairs: invalid value '0': expected a positive number of pairs");
  refused({"ab", "--a", a, "--b", b, "exact", "--pairs", "101"}, "at most 100 pairs");
  refused({"ab", "--a", a, "--b", b, "exact", "--layout", "side-by-side"},
          "--layout: invalid value 'side-by-side': expected turns (the two workers take turns "
          "on one CPU) or duet");
  refused({"ab", "--a", a, "--b", b, "exact", "--worker-timeout", "0s"},
          "--worker-timeout: invalid value '0s'");
  refused({"ab", "--a", "", "--b", b, "exact"}, "--a: the path is empty");
  const std::string missing = (builds.dir.path() / "missing").string();
  refused({"ab", "--a", a, "--b", missing, "exact"},
          "--b: cannot run '" + missing + "': No such file or directory");
  refused({"ab", "--a", a, "--b", missing, "exact"},
          "; give the path of a harness binary (one linked with harness::main)");
  refused({"ab", "--a", "harness", "--b", b, "exact"}, "the PATH is not searched");
#ifndef _WIN32  // Windows has no execute bit to refuse
  const std::filesystem::path plain = builds.dir.path() / "plain";
  std::ofstream(plain) << "x";
  std::filesystem::permissions(plain, std::filesystem::perms::owner_read);
  refused({"ab", "--a", plain.string(), "--b", b, "exact"},
          "--a: cannot run '" + plain.string() + "': not executable");
#endif
  refused({"ab", "--a", builds.dir.path().string(), "--b", b, "exact"}, "it is a directory");
  refused({"ab", "exact", "exact", "--pairs", "3"},
          "--pairs only applies to two builds: give --a BIN --b BIN");
  refused({"ab", "exact", "exact", "--layout", "duet"}, "--layout only applies to two builds");
  refused({"ab", "exact", "exact", "--worker-timeout", "1s"},
          "--worker-timeout only applies to two builds");
  refused({"ab", "--a", a, "--b", b, "exact", "--decide-after", "1s"},
          "--decide-after only applies to two workloads of this binary: with two builds each pair "
          "of processes runs to --max-time or the target");
  refused({"ab", "exact", "exact", "--decide-after", "soon"},
          "--decide-after: invalid duration 'soon': it does not start with a number; expected a "
          "positive number with a unit ns, us, ms or s (e.g. 1200ms, 1.5s)\n");
  refused({"ab", "exact", "exact", "--decide-after", "0"},
          "a duration such as 2s, or off (the rounds stop at the target or --max-time only)");
  // A bad sample length is refused before any worker starts (it was once read after the first
  // pair's hello).
  refused({"ab", "--a", a_path(), "--b", b, "exact", "--min-sample-time", "0"},
          "--min-sample-time: invalid value '0'");
  EXPECT_TRUE(builds.launched.empty());
}

TEST_F(AbBuilds, ADuetNeedsTwoCpus) {
  parent.os.allowed = {1};
  const testing::outcome o = ab({"exact", "--layout", "duet"});
  EXPECT_EQ(o.code, 2);
  EXPECT_THAT(o.err, HasSubstr("--layout duet: the two workers need two CPUs, and this process "
                               "may run on 1 only; give --layout turns"));
  EXPECT_TRUE(builds.launched.empty());
}

}  // namespace
}  // namespace harness
