// last_two_inputs: the inputs of a built-in workload for the last two arguments it was called
// with, made at the first call of each.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>

namespace harness::builtin {

// `harness ab sort_ints/10000 sort_ints/20000` calls two arguments in turn: with one input, remade
// whenever the argument changed, every turn remade it inside the timed call. Two, because ab
// compares two sides (and A/A shares one); a sweep over arguments keeps only its last two.
template <class Input>
class last_two_inputs {
 public:
  // The input of `arg`, made by `make()` when it is not one of the two kept (the older one goes
  // first, so at most two are held at once).
  template <class Make>
  Input& of(std::int64_t arg, Make make) {
    for (std::size_t i = 0; i < kept_.size(); ++i) {
      if (kept_[i] && kept_[i]->first == arg) {
        older_ = 1 - i;
        return kept_[i]->second;
      }
    }
    const std::size_t slot = older_;
    kept_[slot].reset();
    kept_[slot].emplace(arg, make());
    older_ = 1 - slot;
    return kept_[slot]->second;
  }

 private:
  std::array<std::optional<std::pair<std::int64_t, Input>>, 2> kept_;
  std::size_t older_ = 0;
};

}  // namespace harness::builtin
