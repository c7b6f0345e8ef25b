// `--instructions`: a workload's instructions per call under Valgrind's callgrind
// (instructions.hpp).
#include "instructions.hpp"

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <chrono>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "harness/errors.hpp"
#include "harness/log.hpp"
#include "harness/runner.hpp"
#include "platform/child_process.hpp"
#include "scratch_folder.hpp"

#if !defined(_WIN32) && __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define HARNESS_HAVE_CALLGRIND 1
#else
#define HARNESS_HAVE_CALLGRIND 0
#endif

namespace harness::cli {
namespace {

// valgrind on the PATH the environment gives, the first executable one as the shell finds it;
// empty when there is none.
std::filesystem::path find_valgrind(const machine& host) {
#ifdef _WIN32
  (void)host;
  return {};
#else
  const std::optional<std::string> path = host.environment("PATH");
  std::stringstream dirs(path.value_or("/usr/local/bin:/usr/bin:/bin"));
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    if (dir.empty()) continue;
    const std::filesystem::path candidate = std::filesystem::path(dir) / "valgrind";
    std::error_code ec;
    const std::filesystem::file_status status = std::filesystem::status(candidate, ec);
    constexpr auto executable = std::filesystem::perms::owner_exec |
                                std::filesystem::perms::group_exec |
                                std::filesystem::perms::others_exec;
    if (!ec && std::filesystem::is_regular_file(status) &&
        (status.permissions() & executable) != std::filesystem::perms::none)
      return candidate;
  }
  return {};
#endif
}

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The first line of `text` that starts with `key`, without the key.
std::optional<std::string> field(const std::string& text, std::string_view key) {
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind(key, 0) == 0) return line.substr(key.size());
  }
  return std::nullopt;
}

int count_in_this_process(const context& ctx, const std::string& name, std::uint64_t calls) {
#if HARNESS_HAVE_CALLGRIND
  if (RUNNING_ON_VALGRIND == 0) {
    throw usage_error(
        "count-instructions runs under valgrind --tool=callgrind only (`harness run "
        "--instructions` starts it so)");
  }
  const std::vector<workload_instance> selected = ctx.host.workloads().select({name});
  if (selected.size() != 1) {
    throw usage_error(
        fmt::format("count-instructions: '{}' names {} workloads; give exactly one with its "
                    "argument",
                    name, selected.size()));
  }
  std::unique_ptr<workload_session> session = selected.front().start();
  CALLGRIND_START_INSTRUMENTATION;
  // Uncounted: the first call resolves symbols and touches its memory first.
  session->before_sample(1);
  (void)session->run(1);
  for (std::uint64_t i = 0; i < calls; ++i) {
    session->before_sample(1);
    CALLGRIND_ZERO_STATS;
    CALLGRIND_TOGGLE_COLLECT;
    (void)session->run(1);
    CALLGRIND_TOGGLE_COLLECT;
    CALLGRIND_DUMP_STATS_AT("harness counted call");
  }
  CALLGRIND_STOP_INSTRUMENTATION;
  session->finish();
  return 0;
#else
  (void)ctx;
  (void)name;
  (void)calls;
  throw usage_error(
      "count-instructions: this harness was built without valgrind/callgrind.h (Debian package "
      "valgrind); rebuild with it installed");
#endif
}

}  // namespace

void check_valgrind(const machine& host) {
  if (find_valgrind(host).empty()) {
    throw usage_error(
        "--instructions: valgrind is not installed (no executable valgrind on PATH); install the "
        "Debian package valgrind (apt-get install valgrind), or drop --instructions");
  }
}

callgrind_totals parse_callgrind_totals(const std::string& text) {
  const std::optional<std::string> events = field(text, "events:");
  std::optional<std::string> totals = field(text, "totals:");
  if (!totals) totals = field(text, "summary:");
  if (!events || !totals)
    throw std::runtime_error("a callgrind output file without its events and totals lines");
  std::map<std::string, std::uint64_t> by_name;
  std::istringstream names(*events);
  std::istringstream values(*totals);
  std::string event;
  while (names >> event) {
    std::uint64_t value = 0;
    // A trailing event with no value counts 0, as callgrind writes it.
    if (!(values >> value)) value = 0;
    by_name[event] = value;
  }
  if (by_name.count("Ir") == 0) throw std::runtime_error("a callgrind output file without Ir");
  callgrind_totals t;
  t.instructions = by_name["Ir"];
  if (by_name.count("I1mr") != 0) {
    t.l1_misses = by_name["I1mr"] + by_name["D1mr"] + by_name["D1mw"];
    t.ll_misses = by_name["ILmr"] + by_name["DLmr"] + by_name["DLmw"];
  }
  return t;
}

instruction_count count_instructions(const machine& host, const std::filesystem::path& executable,
                                     const std::string& workload, std::uint64_t calls,
                                     bool cache_sim) {
  check_valgrind(host);
  const std::filesystem::path valgrind = find_valgrind(host);
  if (executable.empty())
    throw std::runtime_error("--instructions: this program's own file cannot be read");
  scratch_folder folder("instructions");
  const std::filesystem::path out = folder.path() / "callgrind.out";
  platform::child_spec spec;
  spec.program = valgrind;
  spec.args = {"--tool=callgrind", "--instr-atstart=no", "--collect-atstart=no",
               "--callgrind-out-file=" + out.string()};
  if (cache_sim) spec.args.push_back("--cache-sim=yes");
  spec.args.insert(spec.args.end(), {executable.string(), "count-instructions", "-w", workload,
                                     "--calls", std::to_string(calls)});
  spec.out_file = folder.path() / "stdout.txt";
  spec.err_file = folder.path() / "stderr.txt";
  logger().info("{}: counting instructions under {}", workload, valgrind.string());
  const std::unique_ptr<platform::child_process> child = host.launcher()->launch(spec);
  child->resume();
  std::optional<platform::child_exit> exit;
  while (!(exit = child->poll())) {
    if (stop_signal() != 0) {
      child->kill();
      throw std::runtime_error("--instructions: interrupted");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (!exit->ok()) {
    throw std::runtime_error(fmt::format("--instructions: valgrind counting {} {}:\n{}", workload,
                                         exit->describe(), platform::tail_of(spec.err_file, 8)));
  }
  instruction_count count;
  // Its banner says which valgrind counted: "==12== Using Valgrind-3.19.0 and LibVEX; ...".
  const std::string banner = read_file(spec.err_file);
  count.tool = "valgrind, callgrind";
  if (const std::size_t v = banner.find("Using Valgrind-"); v != std::string::npos) {
    const std::size_t from = v + std::string_view("Using Valgrind-").size();
    count.tool = fmt::format("valgrind-{}, callgrind",
                             banner.substr(from, banner.find_first_of(" \n", from) - from));
  }
  for (std::uint64_t i = 1; i <= calls; ++i) {
    const std::filesystem::path dump = out.string() + "." + std::to_string(i);
    std::error_code ec;
    if (!std::filesystem::is_regular_file(dump, ec)) {
      throw std::runtime_error(
          fmt::format("--instructions: callgrind left no count for call {} of {} ({} missing)", i,
                      workload, dump.filename().string()));
    }
    const callgrind_totals t = parse_callgrind_totals(read_file(dump));
    count.per_call.push_back(t.instructions);
    if (t.l1_misses) count.l1_misses.push_back(*t.l1_misses);
    if (t.ll_misses) count.ll_misses.push_back(*t.ll_misses);
  }
  return count;
}

void add_count_instructions_command(CLI::App& root, context& ctx) {
  struct flags {
    std::string workload;
    std::uint64_t calls = kInstructionCalls;
  };
  auto f = std::make_shared<flags>();
  // No group: hidden from --help. `--instructions` runs it under valgrind.
  CLI::App* cmd = root.add_subcommand(
      "count-instructions", "Calls a workload under callgrind for --instructions: not for people");
  cmd->group("");
  cmd->add_option("-w,--workload", f->workload)->required();
  cmd->add_option("--calls", f->calls);
  cmd->callback([f, &ctx] {
    ctx.action = [f, &ctx] { return count_in_this_process(ctx, f->workload, f->calls); };
  });
}

}  // namespace harness::cli
