// Errors the harness reports to its user.
//
// A user's mistake (a bad flag value, an unknown workload, a malformed duration) is a usage_error:
// its message names the bad value and what is accepted, and the command line maps it to exit
// code 2. A shortfall of the environment (cannot pin, cannot raise priority) is not an error: it is
// carried into the report as a refused step. A bug in the harness is a failed check.
//
// usage_error is a std::runtime_error, not a std::invalid_argument: a handler for a public
// function's std::invalid_argument (a programmer's mistake) never takes a user's mistake for one,
// nor the other way round (docs/errors.md).
#pragma once

#include <stdexcept>
#include <string>

namespace harness {

class usage_error : public std::runtime_error {
 public:
  explicit usage_error(const std::string& message) : std::runtime_error(message) {}
};

}  // namespace harness
