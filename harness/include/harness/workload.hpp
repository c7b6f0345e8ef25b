// Workloads: the functions the harness measures, registered by name from user code.
//
//   static std::uint64_t xor_loop(std::int64_t count) { ...; return count; }
//   HARNESS_WORKLOAD(xor_loop).description("r ^= i ^ seed").default_arg(4'000'000);
//
// A workload takes no argument or one std::int64_t (given on the command line as `name/ARG`), and
// returns void or an integral count of the iterations it did (used for per-iteration figures; a
// negative count fails the workload). Any other return value is sunk.
//
// Names are letters, digits and _ - . : only, so that `-w NAME` selects them from any shell
// (`/` separates the argument, `*` and `?` are globs). The arguments a workload accepts are
// declared with .min_arg() / .max_arg(): the command line refuses others before any run (exit 2),
// instead of the workload throwing in its first call. A bad name, a second registration of a name,
// or a default argument outside the declared range is the registering program's mistake:
// std::invalid_argument, which during static initialisation ends the program naming it. Inputs and
// results pass through Google Benchmark's DoNotOptimize, so a pure function is neither hoisted out
// of the sampling loop nor optimised away.
#pragma once

#include <benchmark/benchmark.h>

#include <concepts>
#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace harness {

// How the file that registered a workload was compiled, as HARNESS_WORKLOAD records it where it is
// expanded: the user's build type, not the harness library's. nullopt: not recorded (a workload
// made without the macro, or a compiler that says nothing of its optimisation, like MSVC).
struct workload_build {
  std::optional<bool> optimized;   // __OPTIMIZE__ was defined (GCC, Clang)
  std::optional<bool> assertions;  // NDEBUG was not defined when workload.hpp was included

  // Known to be compiled without optimisation, or with assertions on: its times are not those of
  // a release build.
  bool suspect() const noexcept {
    return (optimized && !*optimized) || (assertions && *assertions);
  }
};

class workload {
 public:
  // Runs the workload `reps` times back to back with `arg` (ignored when it takes none). Returns
  // the sum of the iteration counts the calls reported, or 0 when the workload reports none.
  using invoker = std::function<std::uint64_t(std::int64_t arg, std::uint64_t reps)>;

  workload(std::string name, invoker fn, bool takes_arg, bool returns_count);

  // Builder-style setters, so registration stays one statement.
  workload& description(std::string text);
  workload& default_arg(std::int64_t arg);
  // The arguments it accepts: from `lowest` / up to `highest`, both included.
  workload& min_arg(std::int64_t lowest);
  workload& max_arg(std::int64_t highest);
  // The arguments it runs with when selected without one (-w NAME, or by default): each is its
  // own result, NAME/ARG. `args` lists them; `range` sweeps lo, lo*factor, lo*factor^2, ... and
  // hi (Google Benchmark's Range/RangeMultiplier). Either replaces default_arg().
  workload& args(std::vector<std::int64_t> list);
  workload& range(std::int64_t lo, std::int64_t hi, std::int64_t factor = 8);
  // Runs when `harness` is given no --workload. When no workload is marked, the first registered
  // runs.
  workload& by_default();
  // How its file was compiled; HARNESS_WORKLOAD passes it.
  workload& compiled_with(workload_build build);

  const std::string& name() const noexcept { return name_; }
  const std::string& description() const noexcept { return description_; }
  bool takes_arg() const noexcept { return takes_arg_; }
  bool returns_count() const noexcept { return returns_count_; }
  std::optional<std::int64_t> default_arg() const noexcept { return default_arg_; }
  // The default sweep (args() or range()); empty when there is none.
  const std::vector<std::int64_t>& default_args() const noexcept { return default_args_; }
  std::optional<std::int64_t> min_arg() const noexcept { return min_arg_; }
  std::optional<std::int64_t> max_arg() const noexcept { return max_arg_; }
  // Whether `arg` lies within min_arg() and max_arg().
  bool accepts(std::int64_t arg) const noexcept;
  // "an integer", "an integer of 0 or more", "an integer from 1 to 64": what the argument may be.
  std::string accepted_args() const;
  bool is_default() const noexcept { return is_default_; }
  const workload_build& build() const noexcept { return build_; }
  std::uint64_t run(std::int64_t arg, std::uint64_t reps) const { return fn_(arg, reps); }

 private:
  std::string name_;
  std::string description_;
  invoker fn_;
  bool takes_arg_;
  bool returns_count_;
  std::optional<std::int64_t> default_arg_;
  std::vector<std::int64_t> default_args_;
  std::optional<std::int64_t> min_arg_;
  std::optional<std::int64_t> max_arg_;
  bool is_default_ = false;
  workload_build build_;

  void check_default_in_range() const;
};

// A workload with its argument resolved: what one run measures.
struct workload_instance {
  const workload* def = nullptr;
  std::optional<std::int64_t> arg;

  // "name" or "name/ARG".
  std::string display_name() const;
  std::uint64_t run(std::uint64_t reps) const { return def->run(arg.value_or(0), reps); }
};

// The most arguments one -w pattern (or one registered sweep) may expand to.
inline constexpr std::size_t kMaxArguments = 1000;

// Expands `LO..HI:xF` / `LO..HI:+S`: LO, then each step below HI, then HI. Throws
// std::invalid_argument for a range that is empty (HI < LO), a factor under 2 or a step under 1,
// or more than kMaxArguments values.
std::vector<std::int64_t> expand_range(std::int64_t lo, std::int64_t hi, std::int64_t factor,
                                       bool geometric);

class workload_registry {
 public:
  // Adds a workload. Throws std::invalid_argument for a name that is empty or holds a character
  // other than letters, digits and _ - . :, or one already registered.
  workload& add(workload w);
  const workload* find(std::string_view name) const;
  // All workloads in registration order.
  const std::deque<workload>& all() const noexcept { return workloads_; }

  // Resolves command-line selections: each is `GLOB` or `GLOB/ARGS`, GLOB matched against names
  // with * and ?, ARGS one integer, a list `1000,10000,100000`, a geometric range `LO..HI:xF`
  // (LO, LO*F, ... below HI, then HI) or an arithmetic one `LO..HI:+S` (LO, LO+S, ... up to HI);
  // each argument is its own instance. At most kMaxArguments arguments per pattern. Throws
  // usage_error for a pattern that matches nothing, a malformed ARG, an ARG on a workload that
  // takes none, an ARG outside what the workload accepts, or a workload that needs an ARG and has
  // no default.
  std::vector<workload_instance> select(const std::vector<std::string>& patterns) const;
  // What runs when no pattern is given: the workloads marked by_default(), or else the first one
  // registered (none when none is).
  std::vector<workload_instance> default_selection() const;

 private:
  std::deque<workload> workloads_;  // deque: references handed out stay valid
};

// The process-wide registry that HARNESS_WORKLOAD fills during static initialisation.
workload_registry& global_registry();

// Glob match with '*' (any run) and '?' (any one character).
bool glob_match(std::string_view pattern, std::string_view text) noexcept;

namespace detail {

// A call returned a negative iteration count: the workload's failure, reported as such.
struct negative_count_error : std::runtime_error {
  negative_count_error()
      : std::runtime_error(
            "it returned a negative iteration count; return the number of iterations it did (0 or "
            "more), or void") {}
};

template <class F>
constexpr bool takes_int_arg = std::is_invocable_v<F&, std::int64_t>;

template <class F>
using result_of = std::conditional_t<takes_int_arg<F>, std::invoke_result<F&, std::int64_t>,
                                     std::invoke_result<F&>>::type;

template <class R>
constexpr bool is_count = std::is_integral_v<R> && !std::is_same_v<R, bool>;

template <class F>
workload::invoker make_invoker(F fn) {
  return [fn = std::move(fn)](std::int64_t arg, std::uint64_t reps) mutable -> std::uint64_t {
    using R = result_of<F>;
    std::uint64_t count = 0;
    // The OR of every count: its sign bit is set when any count was negative.
    [[maybe_unused]] std::uint64_t sign = 0;
    for (std::uint64_t i = 0; i < reps; ++i) {
      // The argument goes through DoNotOptimize on every call: the compiler must assume it changed,
      // so a pure workload cannot be hoisted out of this loop.
      benchmark::DoNotOptimize(arg);
      if constexpr (std::is_void_v<R>) {
        if constexpr (takes_int_arg<F>) {
          fn(arg);
        } else {
          fn();
        }
        benchmark::ClobberMemory();
      } else {
        R r = [&]() -> R {
          if constexpr (takes_int_arg<F>) {
            return fn(arg);
          } else {
            return fn();
          }
        }();
        benchmark::DoNotOptimize(r);
        if constexpr (is_count<R>) {
          count += static_cast<std::uint64_t>(r);
          if constexpr (std::is_signed_v<R>) sign |= static_cast<std::uint64_t>(r);
        }
      }
    }
    // Checked once after the calls, so the timed loop gains one OR per call and no branch.
    if (sign >> 63 != 0) throw negative_count_error();
    return count;
  };
}

}  // namespace detail

// Registers `fn` under `name` in the global registry; returns it for .description()/.default_arg().
template <class F>
requires(std::is_invocable_v<F&> ||
         std::is_invocable_v<F&, std::int64_t>) workload& register_workload(std::string name,
                                                                            F fn) {
  constexpr bool returns_count = detail::is_count<detail::result_of<F>>;
  return global_registry().add(workload(std::move(name), detail::make_invoker(std::move(fn)),
                                        detail::takes_int_arg<F>, returns_count));
}

}  // namespace harness

// The build of the file this header is included in, for HARNESS_WORKLOAD: each translation unit
// expands these with its own flags (a macro, not a function, which would be compiled once).
#if defined(__OPTIMIZE__)
#define HARNESS_DETAIL_OPTIMIZED true
#elif defined(__GNUC__) || defined(__clang__)
#define HARNESS_DETAIL_OPTIMIZED false
#else
#define HARNESS_DETAIL_OPTIMIZED std::nullopt
#endif
#if defined(NDEBUG)
#define HARNESS_DETAIL_ASSERTIONS false
#else
#define HARNESS_DETAIL_ASSERTIONS true
#endif

#define HARNESS_DETAIL_CONCAT2(a, b) a##b
#define HARNESS_DETAIL_CONCAT(a, b) HARNESS_DETAIL_CONCAT2(a, b)

// HARNESS_WORKLOAD(fn): registers function `fn` under its own name.
#define HARNESS_WORKLOAD(fn) HARNESS_WORKLOAD_NAMED(#fn, fn)
// HARNESS_WORKLOAD_NAMED("name", callable): registers any callable (a lambda) under `name`, with
// the build of the file it is expanded in (workload_build).
#define HARNESS_WORKLOAD_NAMED(name, ...)                                               \
  [[maybe_unused]] static ::harness::workload& HARNESS_DETAIL_CONCAT(harness_workload_, \
                                                                     __COUNTER__) =     \
      ::harness::register_workload(name, __VA_ARGS__)                                   \
          .compiled_with(                                                               \
              ::harness::workload_build{HARNESS_DETAIL_OPTIMIZED, HARNESS_DETAIL_ASSERTIONS})
