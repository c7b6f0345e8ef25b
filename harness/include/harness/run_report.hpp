// A run as the experiment left it: the clock, the options, each workload's raw results, the
// machine and program it ran on. Nothing here is analysed yet: analysis.hpp makes the report
// model from it, and the writers (report.hpp) format that model.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "harness/clock.hpp"
#include "harness/doctor.hpp"
#include "harness/run_options.hpp"
#include "harness/run_results.hpp"

namespace harness {

// Version of the JSON report's `harness` block and harness fields (docs/output.md). Raised when a
// field changes meaning or goes away; adding a field keeps it.
inline constexpr int kReportSchemaVersion = 1;

// The machine and program a run happened on, as Google Benchmark's JSON context has it.
struct run_context {
  std::string date;        // local time, ISO 8601 with offset: "2024-05-01T12:00:00+02:00"
  std::string host_name;   // empty when unknown
  std::string executable;  // path of the running program; empty when unknown
  int num_cpus = 0;
  double mhz_per_cpu = 0;  // as Google Benchmark's CPUInfo reads it; 0 when unknown
  bool cpu_scaling_enabled = false;
  struct cache {
    std::string type;  // "Data", "Instruction", "Unified"
    int level = 0;
    long long size = 0;  // bytes
    int num_sharing = 0;
  };
  std::vector<cache> caches;
  std::vector<double> load_avg;    // 1, 5 and 15 minutes; empty when unknown
  std::string library_build_type;  // "release" or "debug": how the harness library was built
  std::string harness_version;
  std::optional<doctor::doctor_summary> doctor;  // nullopt when the doctor did not run
};

// Reads the context of this process and machine now (Google Benchmark's CPUInfo and SystemInfo,
// the clock of the system). Takes the doctor's summary as given.
run_context collect_run_context(std::optional<doctor::doctor_summary> doctor);

// The history a run read (history.hpp).
struct history_use {
  std::string path;     // empty: none (--no-history, or no place for one)
  std::string machine;  // the key of this machine and clock
  std::string build;    // the executable's fingerprint; empty when unreadable (no floors kept)
  std::optional<std::uint64_t> fastest_reference;  // remembered at the start, ticks
};

// Where the samples came from when the harness did not take them itself (`harness gbench`: a
// Google Benchmark binary's repetitions). The writers say this instead of describing the
// harness's sampler (timer overhead, reference loop, context switches), none of which ran.
struct sample_source {
  std::string tool;     // "Google Benchmark"
  std::string command;  // the binary and the arguments it was given, as typed
  std::string sample;   // what one sample is, for people
  std::string plan;     // the repetitions, invocations and their length, for people
  std::string warmup;   // how the prepared invocations warmed up, for people
};

struct run_report {
  clock_facts clock;
  std::string clock_reason;  // why this clock samples (default choice or --clock)
  run_options options;
  history_use history;
  std::vector<workload_result> results;
  bool show_samples = false;  // list every sample (one workload with few samples, or --detail)
  // The console report in full (--detail): every statistic, the clock's reasons, the blocks, the
  // preparation's steps; without it, about ten lines a workload.
  bool detail = false;
  // The command as the user runs it (`harness`, or their own binary linking harness::main), for
  // the commands the report suggests.
  std::string program = "harness";
  // The TSC calibration the clock's rate came from (clock.hpp's tsc_calibration()), when the
  // sampling clock is a TSC source; the report says how the rate was found.
  std::optional<clock_calibration> calibration;
  run_context context;                  // the doctor's summary is its `doctor`
  std::optional<sample_source> source;  // nullopt: the harness's own sampler took the samples
};

}  // namespace harness
