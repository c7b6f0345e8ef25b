// The doctor of the Linux build: the checks over the real /proc and /sys (below options.root).
#include "harness/doctor.hpp"

namespace harness::doctor {

doctor_report run_doctor(const doctor_options& options) {
  return run_tree_doctor(options);
}

}  // namespace harness::doctor
