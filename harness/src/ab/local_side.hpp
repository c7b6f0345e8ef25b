// A side of `harness ab` that is a workload of this process: its samples are taken here, through
// the sampler's own timed path (experiment/sampler.hpp), on whatever CPU and priority the caller
// prepared. Internal to the harness.
#pragma once

#include <memory>
#include <string>

#include "harness/ab.hpp"
#include "harness/clock.hpp"
#include "harness/platform.hpp"
#include "harness/runner.hpp"
#include "harness/workload.hpp"

namespace harness {

class local_side final : public ab_side {
 public:
  // Starts the workload's session (its setup runs here, untimed). Throws ab_side_failure when the
  // setup throws.
  local_side(const workload_instance& workload, const clock_facts& clock,
             platform::os_interface& os, std::string build = "this process");
  ~local_side() override;
  local_side(const local_side&) = delete;
  local_side& operator=(const local_side&) = delete;

  const ab_side_facts& facts() const override { return facts_; }
  std::uint64_t measure_overhead(std::size_t samples) override;
  std::uint64_t calibrate(std::uint64_t overhead, std::uint64_t min_ticks) override;
  ab_side_samples sample(std::size_t count, std::uint64_t batch,
                         std::uint32_t reference_iterations) override;

 private:
  // Runs `fn`, turning what the workload threw into an ab_side_failure naming it.
  template <class Fn>
  auto guarded(Fn&& fn);

  const clock_source& clock_;
  platform::os_interface& os_;
  ab_side_facts facts_;
  std::unique_ptr<workload_session> session_;
  bool count_switches_ = false;
};

}  // namespace harness
