// The store where this build has none (Windows: docs/store.md says why): every use of it is
// refused with that reason, and nothing links SQLite or libpq.
#include <fmt/format.h>

#include "store/store.hpp"

namespace harness::store {

bool store_available() {
  return false;
}

std::unique_ptr<results_store> open_store(const std::string& where, bool /*may_create*/) {
  throw store_unusable(fmt::format(
      "{}: this build has no results store (the Windows build leaves SQLite and libpq out; "
      "save from a Linux build, docs/store.md)",
      where));
}

}  // namespace harness::store
