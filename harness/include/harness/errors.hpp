// Errors the harness reports to its user.
//
// A user's mistake (a bad flag value, an unknown workload, a malformed duration) is a usage_error:
// its message names the bad value and what is accepted, and the command line maps it to exit
// code 2. A shortfall of the environment (cannot pin, cannot raise priority) is not an error: it is
// carried into the report as a refused step. A bug in the harness is a failed check.
#pragma once

#include <stdexcept>
#include <string>

namespace harness {

class usage_error : public std::invalid_argument {
 public:
  explicit usage_error(const std::string& message) : std::invalid_argument(message) {}
};

}  // namespace harness
