// `harness worker` (worker_command.hpp): the worker end of the worker protocol.
#include "worker_command.hpp"

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <istream>
#include <ostream>
#include <variant>

#include "ab/worker_protocol.hpp"
#include "base/numbers.hpp"
#include "harness/errors.hpp"
#include "harness/history.hpp"
#include "harness/log.hpp"
#include "history_file.hpp"
#include "run_command.hpp"

namespace harness::cli {

namespace wp = worker_protocol;

namespace {

// The one workload `spec` names in `registry`; usage_error otherwise. The registry's messages
// begin with "--workload: ", which the parent's user did not type: they say "the workload".
workload_instance named_workload(const workload_registry& registry, const std::string& spec) {
  std::vector<workload_instance> found;
  try {
    found = registry.select({spec});
  } catch (const usage_error& e) {
    std::string_view text = e.what();
    if (text.starts_with("--workload: ")) text.remove_prefix(12);
    throw usage_error(fmt::format("the workload {}", text));
  }
  if (found.size() != 1) {
    std::vector<std::string> names;
    for (const auto& w : found)
      names.push_back(w.display_name());
    throw usage_error(
        fmt::format("the workload '{}' names {} workloads of this binary ({}); give "
                    "exactly one",
                    spec, found.size(), fmt::join(names, ", ")));
  }
  return found.front();
}

std::string error_line(wp::error_kind kind, std::string_view message) {
  return wp::format(wp::error{kind, 0, std::string(message)});
}

}  // namespace

worker::worker(const machine& host, std::function<std::string()> build)
    : host_(host), build_(std::move(build)) {}

worker::~worker() = default;

std::string worker::hello(std::string_view line) {
  const wp::hello h = std::get<wp::hello>(wp::parse_command(line));
  if (h.version != wp::kVersion) {
    exit_code_ = exit_usage;
    return wp::format(
        wp::error{wp::error_kind::version, wp::kVersion,
                  fmt::format("this worker speaks protocol {}, not {}", wp::kVersion, h.version)});
  }
  try {
    workload_ = named_workload(host_.workloads(), h.workload);
    const clock_source& clock = host_.clock(h.clock);
    os_ = host_.os();
    // Measured here, on the CPU and at the priority the parent gave this process: the rounds'.
    facts_ = host_.measure_clock(clock);
  } catch (const usage_error& e) {
    exit_code_ = exit_usage;
    return error_line(wp::error_kind::usage, e.what());
  }
  const std::string build = build_ ? build_() : std::string();
  side_ = std::make_unique<local_side>(*workload_, *facts_, *os_, build);
  const ab_side_facts& f = side_->facts();
  logger().info("worker: {} on {} ({} ticks/s), build {}", f.workload, f.clock,
                fixed_text(f.ticks_per_second, 0), build);
  return wp::format(wp::ready{.version = wp::kVersion,
                              .clock = f.clock,
                              .ticks_per_second = f.ticks_per_second,
                              .step = f.clock_step,
                              .granularity = f.granularity,
                              .workload = f.workload,
                              .build = build,
                              .harness = HARNESS_VERSION,
                              .min_sample_ns = f.min_sample_ns,
                              .min_batch = f.min_batch});
}

std::string worker::answer(std::string_view line) {
  if (done()) return error_line(wp::error_kind::protocol, "the worker is done: it said so");
  try {
    const wp::command command = wp::parse_command(line);
    if (std::holds_alternative<wp::hello>(command)) {
      if (side_) throw wp::protocol_error("hello was said already");
      return hello(line);
    }
    if (std::holds_alternative<wp::quit>(command)) {
      side_.reset();  // the workload's teardown (a teardown that throws is logged)
      exit_code_ = exit_ok;
      return wp::format(wp::bye{});
    }
    if (!side_) {
      throw wp::protocol_error(
          fmt::format("'{}' before hello: say hello first", wp::truncated(line, 40)));
    }
    if (const auto* o = std::get_if<wp::overhead>(&command)) {
      return wp::format(wp::overhead_ticks{side_->measure_overhead(o->samples)});
    }
    if (const auto* c = std::get_if<wp::calibrate>(&command)) {
      const std::uint64_t calls = side_->calibrate(c->overhead, c->min_ticks);
      return wp::format(wp::batch{calls, side_->facts().iterations_per_call});
    }
    const auto& s = std::get<wp::sample>(command);
    return wp::format(wp::samples{
        side_->sample(s.count, s.batch, static_cast<std::uint32_t>(s.reference_iterations))});
  } catch (const wp::protocol_error& e) {
    exit_code_ = exit_failure;
    return error_line(wp::error_kind::protocol, e.what());
  } catch (const ab_side_failure& e) {
    exit_code_ = e.workload_threw() ? exit_workload_failed : exit_failure;
    return error_line(e.workload_threw() ? wp::error_kind::workload : wp::error_kind::failure,
                      e.what());
  } catch (const std::exception& e) {
    exit_code_ = exit_failure;
    return error_line(wp::error_kind::failure, e.what());
  }
}

int serve_worker(std::istream& in, std::ostream& out, const machine& host,
                 std::function<std::string()> build) {
  worker w(host, std::move(build));
  for (std::string line; !w.done() && std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    out << w.answer(line) << '\n';
    out.flush();
  }
  if (!w.done()) {
    logger().error("worker: the parent closed its end before saying quit");
    return exit_failure;
  }
  return w.exit_code();
}

std::function<std::string()> build_of(const machine& host) {
  return [&host] { return file_fingerprint(host.executable_path()); };
}

void add_worker_command(CLI::App& root, context& ctx) {
  auto log_level = std::make_shared<std::string>("warn");
  // No group: hidden from --help. The parent of `harness ab --a BIN --b BIN` runs it.
  CLI::App* cmd = root.add_subcommand(
      "worker", "The worker end of `harness ab --a BIN --b BIN` (docs/ab.md): not for people");
  cmd->group("");
  cmd->add_option("--log-level", *log_level, "Log level on stderr")->capture_default_str();
  cmd->callback([log_level, &ctx] {
    ctx.action = [log_level, &ctx] {
      configure_logging(*log_level, ctx);
      return serve_worker(ctx.host.standard_input(), ctx.out, ctx.host, build_of(ctx.host));
    };
  });
}

}  // namespace harness::cli
