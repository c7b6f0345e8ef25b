// Workloads: the functions the harness measures, registered by name from user code.
//
//   static std::uint64_t xor_loop(std::int64_t count) { ...; return count; }
//   HARNESS_WORKLOAD(xor_loop).description("r ^= i ^ seed").default_arg(4'000'000);
//
// A workload takes no argument or one std::int64_t (given on the command line as `name/ARG`), and
// returns void or an integral count of the iterations it did (reports divide the time per call by
// it: time per iteration; a negative count fails the workload). Any other return value is sunk.
//
// What a call needs but should not be timed is built by a setup, declared on the registration
// line, which hands its result to the workload (no globals):
//
//   // Once per argument, before the first call: a map of N entries for map_lookup/N.
//   HARNESS_WORKLOAD_NAMED("map_lookup",
//                          harness::with_setup([](std::int64_t n) { return make_map(n); },
//                                              [](const lookup_map& m, std::int64_t n) { ... }))
//       .default_arg(1000);
//   // For a workload that consumes its input: a fresh one for every call, made before the
//   // sample that makes the call (one per call of a batched sample) and never timed.
//   HARNESS_WORKLOAD_NAMED("sort_fresh",
//                          harness::with_fresh_input([](std::int64_t n) { return shuffled(n); },
//                                                    [](std::vector<int>& v) { sort(v); }));
//
// with_setup takes an optional teardown, called with the state after the argument's last call
// (the state's destructor runs then too). Neither setup, fresh input nor teardown is timed, in the
// first call or any sample. Items and bytes one call processes are declared with
// .items_per_call() / .bytes_per_call(), for items/s and bytes/s in the reports.
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

#include <chrono>
#include <concepts>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "harness/workload_facts.hpp"

namespace harness {

// One argument's run of a workload: the state its setup built, the calls, its teardown. The
// experiment starts one per workload result (workload::start), gives each sample's fresh inputs
// before it (untimed), times run(), and finishes it after the last call.
class workload_session {
 public:
  virtual ~workload_session() = default;
  // Untimed, before a sample of `reps` calls: the fresh inputs of with_fresh_input, one per call.
  virtual void before_sample(std::uint64_t reps) { (void)reps; }
  // Timed: `reps` calls back to back. Returns the sum of the iteration counts they reported, or 0.
  virtual std::uint64_t run(std::uint64_t reps) = 0;
  // Untimed, once after the last call: with_setup's teardown.
  virtual void finish() {}
};

class workload {
 public:
  // Runs the workload `reps` times back to back with `arg` (ignored when it takes none). Returns
  // the sum of the iteration counts the calls reported, or 0 when the workload reports none.
  using invoker = std::function<std::uint64_t(std::int64_t arg, std::uint64_t reps)>;

  // What the experiment calls: makes one argument's session, running the setup (untimed).
  using starter = std::function<std::unique_ptr<workload_session>(std::int64_t arg)>;
  // Setups declared (with_setup, with_fresh_input), for `harness list` and the report.
  using setup_kind = harness::setup_kind;
  // What a call processes, as a function of the argument.
  using amount = std::function<double(std::int64_t arg)>;

  // Throws std::invalid_argument for an empty `fn` or `start`: the registering program's mistake,
  // which would otherwise be a std::bad_function_call taken for the workload's failure.
  workload(std::string name, invoker fn, bool takes_arg, bool returns_count);
  workload(std::string name, starter start, bool takes_arg, bool returns_count, setup_kind setup);

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
  // Its samples last at least this long (Google Benchmark's MinTime): calls are batched until
  // they do, as --min-sample-time batches every workload, which still decides when given. For a
  // workload whose call costs more or less with its input (with_fresh_input over random data),
  // a sample then holds many inputs, and its minimum is the cost of the inputs, not of the
  // luckiest one. Positive, at most 10 s; std::invalid_argument otherwise.
  workload& min_sample_time(std::chrono::nanoseconds shortest);
  // Each sample holds at least this many calls (nanobench's minEpochIterations): the batch is
  // raised to it when the sample length asks fewer; --batch still decides when given. For a
  // workload whose call costs more or less with its input, a count of inputs a sample is what
  // evens the samples out: min_sample_time() at a tiny argument asks millions of calls, each with
  // an input of its own. A count from 1 to kMaxMinBatch (std::invalid_argument otherwise), or a
  // function of the argument (`[](std::int64_t n) { ... }`) giving 0 (no minimum for that
  // argument) to kMaxMinBatch, checked when a run asks it (min_batch_for).
  workload& min_batch(std::uint64_t calls);
  template <class F, std::enable_if_t<std::is_invocable_v<F&, std::int64_t>, int> = 0>
  workload& min_batch(F f) {
    min_batch_ = [f = std::move(f)](std::int64_t arg) mutable {
      return static_cast<std::int64_t>(f(arg));
    };
    return *this;
  }
  // The items (elements, records, operations: what the user counts) and the bytes one call
  // processes: a number, or a function of the argument (`[](std::int64_t n) { return n; }`).
  // Reports show items/s and bytes/s (Google Benchmark's SetItemsProcessed/SetBytesProcessed).
  template <class F>
  workload& items_per_call(F f) {
    items_ = to_amount(std::move(f));
    return *this;
  }
  template <class F>
  workload& bytes_per_call(F f) {
    bytes_ = to_amount(std::move(f));
    return *this;
  }

  const std::string& name() const noexcept { return name_; }
  const std::string& description() const noexcept { return description_; }
  bool takes_arg() const noexcept { return takes_arg_; }
  bool returns_count() const noexcept { return returns_count_; }
  std::optional<std::int64_t> default_arg() const noexcept { return default_arg_; }
  // The default sweep (args() or range()); empty when there is none.
  const std::vector<std::int64_t>& default_args() const noexcept { return default_args_; }
  std::optional<std::int64_t> min_arg() const noexcept { return min_arg_; }
  std::optional<std::int64_t> max_arg() const noexcept { return max_arg_; }
  std::optional<std::chrono::nanoseconds> min_sample_time() const noexcept {
    return min_sample_time_;
  }
  // The calls a sample it declared for `arg` (min_batch); nullopt: none. Throws
  // std::invalid_argument when its function gives a count below 0 or above kMaxMinBatch.
  std::optional<std::uint64_t> min_batch_for(std::int64_t arg) const;
  bool declares_min_batch() const noexcept { return static_cast<bool>(min_batch_); }
  // Whether `arg` lies within min_arg() and max_arg().
  bool accepts(std::int64_t arg) const noexcept;
  // "an integer", "an integer of 0 or more", "an integer from 1 to 64": what the argument may be.
  std::string accepted_args() const;
  bool is_default() const noexcept { return is_default_; }
  const workload_build& build() const noexcept { return build_; }
  setup_kind setup() const noexcept { return setup_; }
  // What one call with `arg` processes; nullopt when not declared.
  std::optional<double> items_for(std::int64_t arg) const;
  std::optional<double> bytes_for(std::int64_t arg) const;

  // A session for `arg`: runs the setup, untimed. What the setup throws passes through.
  std::unique_ptr<workload_session> start(std::int64_t arg) const { return start_(arg); }
  // `reps` calls with `arg` in a session of their own: setup, fresh inputs, calls, teardown.
  std::uint64_t run(std::int64_t arg, std::uint64_t reps) const;

 private:
  std::string name_;
  std::string description_;
  starter start_;
  setup_kind setup_ = setup_kind::none;
  amount items_;
  amount bytes_;
  bool takes_arg_;
  bool returns_count_;
  std::optional<std::int64_t> default_arg_;
  std::vector<std::int64_t> default_args_;
  std::optional<std::int64_t> min_arg_;
  std::optional<std::int64_t> max_arg_;
  std::optional<std::chrono::nanoseconds> min_sample_time_;
  std::function<std::int64_t(std::int64_t)> min_batch_;
  bool is_default_ = false;
  workload_build build_;

  void check_default_in_range() const;

  template <class F>
  static amount to_amount(F f) {
    if constexpr (std::is_arithmetic_v<F>) {
      return [v = static_cast<double>(f)](std::int64_t) { return v; };
    } else if constexpr (std::is_invocable_v<F&, std::int64_t>) {
      return [f = std::move(f)](std::int64_t arg) mutable { return static_cast<double>(f(arg)); };
    } else {
      static_assert(std::is_invocable_v<F&>,
                    "items_per_call/bytes_per_call take a number or a function of the argument");
      return [f = std::move(f)](std::int64_t) mutable { return static_cast<double>(f()); };
    }
  }
};

// A workload with its argument resolved: what one run measures.
struct workload_instance {
  const workload* def = nullptr;
  std::optional<std::int64_t> arg;

  // "name" or "name/ARG".
  std::string display_name() const;
  std::unique_ptr<workload_session> start() const { return def->start(arg.value_or(0)); }
  std::uint64_t run(std::uint64_t reps) const { return def->run(arg.value_or(0), reps); }
};

// The most arguments one -w pattern (or one registered sweep) may expand to.
inline constexpr std::size_t kMaxArguments = 1000;
// The longest minimum sample time a workload may declare (workload::min_sample_time).
inline constexpr std::chrono::nanoseconds kMaxMinSampleTime = std::chrono::seconds(10);
// The most calls a sample a workload may declare (workload::min_batch).
inline constexpr std::uint64_t kMaxMinBatch = 1'000'000;

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
  // no default. An instance selected more than once (patterns that overlap, an ARG listed twice)
  // is measured once, where it was first selected: a report, a history and a store hold one
  // result per name. `repeated`, when given, receives the name of each one left out, once.
  std::vector<workload_instance> select(const std::vector<std::string>& patterns,
                                        std::vector<std::string>* repeated = nullptr) const;
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

// Whether `fn` is called with the leading arguments and then the workload's argument, or with the
// leading arguments alone.
template <class F, class... Lead>
constexpr bool takes_arg_after = std::is_invocable_v<F&, Lead&..., std::int64_t>;
template <class F, class... Lead>
constexpr bool invocable_after = takes_arg_after<F, Lead...> || std::is_invocable_v<F&, Lead&...>;

template <class F, class... Lead>
using result_after = typename std::conditional_t<takes_arg_after<F, Lead...>,
                                                 std::invoke_result<F&, Lead&..., std::int64_t>,
                                                 std::invoke_result<F&, Lead&...>>::type;

template <class F>
constexpr bool takes_int_arg = takes_arg_after<F>;
template <class F>
using result_of = result_after<F>;

template <class R>
constexpr bool is_count = std::is_integral_v<R> && !std::is_same_v<R, bool>;

// What benchmark::DoNotOptimize does for a value the compiler must assume read and changed, with
// constraints GCC compiles correctly: Google Benchmark 1.7's GCC form, "+m,r", lets GCC 12 at -O2
// read a call's inlined result from a stack slot it never wrote (measured: the counts the
// invoker summed were garbage). An integer or pointer goes through a register, anything else
// (floating point included: no general register holds a long double) through memory.
#if defined(__GNUC__) || defined(__clang__)
template <class T>
inline __attribute__((always_inline)) void keep(T& value) {
  if constexpr (std::is_const_v<T>) {
    asm volatile("" : : "m"(value) : "memory");  // read only: a const result, kept as it is
  } else if constexpr (std::is_integral_v<T> || std::is_pointer_v<T> || std::is_enum_v<T>) {
    asm volatile("" : "+r"(value) : : "memory");
  } else {
    asm volatile("" : "+m"(value) : : "memory");
  }
}
#else
template <class T>
inline void keep(T& value) {
  benchmark::DoNotOptimize(value);
}
#endif

template <class F, class... Lead>
decltype(auto) call_with_arg(F& fn, std::int64_t arg, Lead&... lead) {
  if constexpr (takes_arg_after<F, Lead...>) {
    return fn(lead..., arg);
  } else {
    return fn(lead...);
  }
}

// One call of the workload: the argument through keep() (the compiler must assume it
// changed, so a pure workload cannot be hoisted out of the caller's loop), the result sunk, its
// count added to `count` and ORed into `sign` (whose sign bit then tells a negative count).
template <class F, class... Lead>
inline void counted_call(F& fn, std::int64_t arg, std::uint64_t& count,
                         [[maybe_unused]] std::uint64_t& sign, Lead&... lead) {
  using R = result_after<F, Lead...>;
  keep(arg);
  if constexpr (std::is_void_v<R>) {
    call_with_arg(fn, arg, lead...);
    benchmark::ClobberMemory();
  } else {
    R r = call_with_arg(fn, arg, lead...);
    keep(r);
    if constexpr (is_count<R>) {
      count += static_cast<std::uint64_t>(r);
      if constexpr (std::is_signed_v<R>) sign |= static_cast<std::uint64_t>(r);
    }
  }
}

// Checked once after a sample's calls, so the timed loop gains one OR per call and no branch.
inline void check_sign(std::uint64_t sign) {
  if (sign >> 63 != 0) throw negative_count_error();
}

template <class F>
workload::invoker make_invoker(F fn) {
  return [fn = std::move(fn)](std::int64_t arg, std::uint64_t reps) mutable -> std::uint64_t {
    std::uint64_t count = 0;
    std::uint64_t sign = 0;
    for (std::uint64_t i = 0; i < reps; ++i)
      counted_call(fn, arg, count, sign);
    check_sign(sign);
    return count;
  };
}

}  // namespace detail

// with_setup(setup, fn[, teardown]): `setup(arg)` (or `setup()`) builds a state once per argument,
// before the first call; `fn(state, arg)` (or `fn(state)`) is the timed call; `teardown(state)`
// runs after the last call. See the header's comment.
struct no_teardown {};
template <class Setup, class Fn, class Teardown = no_teardown>
struct setup_spec {
  Setup setup;
  Fn fn;
  Teardown teardown;
};
template <class Setup, class Fn>
setup_spec<Setup, Fn> with_setup(Setup setup, Fn fn) {
  return {std::move(setup), std::move(fn), {}};
}
template <class Setup, class Fn, class Teardown>
setup_spec<Setup, Fn, Teardown> with_setup(Setup setup, Fn fn, Teardown teardown) {
  return {std::move(setup), std::move(fn), std::move(teardown)};
}

// with_fresh_input(make, fn): `make(arg)` (or `make()`) makes the input one call consumes; before
// every sample, one per call of the sample, untimed; `fn(input, arg)` (or `fn(input)`) is the
// timed call. Inputs are destroyed before the next sample's are made, untimed too.
template <class Make, class Fn>
struct fresh_input_spec {
  Make make;
  Fn fn;
};
template <class Make, class Fn>
fresh_input_spec<Make, Fn> with_fresh_input(Make make, Fn fn) {
  return {std::move(make), std::move(fn)};
}

namespace detail {

template <class Make>
auto make_with_arg(Make& make, std::int64_t arg) {
  if constexpr (std::is_invocable_v<Make&, std::int64_t>) {
    return make(arg);
  } else {
    return make();
  }
}
template <class Make>
using made_by = std::decay_t<decltype(make_with_arg(std::declval<Make&>(), std::int64_t{}))>;

// The harness's sessions below throw nothing of their own: what leaves their calls is the user's
// code's (a callable, a setup, a maker, a teardown) or a negative count, which the sampler hands on
// as the workload's failure. A broken precondition of theirs is the harness's bug, a failed check:
// a with_fresh_input session asked for a sample its inputs were not made for (`fresh`: made since
// the last sample; `made`: how many) ends the process saying so (docs/errors.md). Out of line, as
// the check is internal to the library.
[[noreturn]] void fresh_inputs_missing(bool fresh, std::uint64_t reps, std::size_t made) noexcept;

// A plain workload's session: its invoker with the argument.
class invoker_session final : public workload_session {
 public:
  invoker_session(const workload::invoker& fn, std::int64_t arg) : fn_(fn), arg_(arg) {}
  std::uint64_t run(std::uint64_t reps) override { return fn_(arg_, reps); }

 private:
  workload::invoker fn_;
  std::int64_t arg_;
};

template <class Setup, class Fn, class Teardown>
class setup_session final : public workload_session {
 public:
  using state_type = made_by<Setup>;
  setup_session(std::shared_ptr<setup_spec<Setup, Fn, Teardown>> spec, std::int64_t arg)
      : spec_(std::move(spec)), arg_(arg), state_(make_with_arg(spec_->setup, arg)) {}
  std::uint64_t run(std::uint64_t reps) override {
    std::uint64_t count = 0;
    std::uint64_t sign = 0;
    for (std::uint64_t i = 0; i < reps; ++i)
      counted_call(spec_->fn, arg_, count, sign, state_);
    check_sign(sign);
    return count;
  }
  void finish() override {
    if constexpr (!std::is_same_v<Teardown, no_teardown>) spec_->teardown(state_);
  }

 private:
  std::shared_ptr<setup_spec<Setup, Fn, Teardown>> spec_;
  std::int64_t arg_;
  state_type state_;
};

template <class Make, class Fn>
class fresh_input_session final : public workload_session {
 public:
  using input_type = made_by<Make>;
  fresh_input_session(std::shared_ptr<fresh_input_spec<Make, Fn>> spec, std::int64_t arg)
      : spec_(std::move(spec)), arg_(arg) {}
  void before_sample(std::uint64_t reps) override {
    inputs_.clear();  // the last sample's consumed inputs go now, untimed
    inputs_.reserve(static_cast<std::size_t>(reps));
    for (std::uint64_t i = 0; i < reps; ++i)
      inputs_.push_back(make_with_arg(spec_->make, arg_));
    fresh_ = true;
  }
  std::uint64_t run(std::uint64_t reps) override {
    // A consumed input is never handed out twice.
    if (!fresh_ || reps > inputs_.size()) [[unlikely]]
      fresh_inputs_missing(fresh_, reps, inputs_.size());
    fresh_ = false;
    std::uint64_t count = 0;
    std::uint64_t sign = 0;
    for (std::uint64_t i = 0; i < reps; ++i)
      counted_call(spec_->fn, arg_, count, sign, inputs_[static_cast<std::size_t>(i)]);
    check_sign(sign);
    return count;
  }
  void finish() override { inputs_.clear(); }

 private:
  std::shared_ptr<fresh_input_spec<Make, Fn>> spec_;
  std::int64_t arg_;
  std::vector<input_type> inputs_;
  bool fresh_ = false;
};

}  // namespace detail

// The workload `fn` under `name`, not registered anywhere (register_workload registers one).
template <class F>
requires(std::is_invocable_v<F&> || std::is_invocable_v<F&, std::int64_t>) workload
    make_workload(std::string name, F fn) {
  constexpr bool returns_count = detail::is_count<detail::result_of<F>>;
  return workload(std::move(name), detail::make_invoker(std::move(fn)), detail::takes_int_arg<F>,
                  returns_count);
}

// A workload with a setup once per argument (with_setup).
template <class Setup, class Fn, class Teardown>
workload make_workload(std::string name, setup_spec<Setup, Fn, Teardown> spec) {
  static_assert(std::is_invocable_v<Setup&, std::int64_t> || std::is_invocable_v<Setup&>,
                "with_setup: the setup takes the argument (std::int64_t) or nothing");
  using state = detail::made_by<Setup>;
  static_assert(detail::invocable_after<Fn, state>,
                "with_setup: the workload takes the setup's state (by reference), then optionally "
                "the argument");
  static_assert(std::is_same_v<Teardown, no_teardown> || std::is_invocable_v<Teardown&, state&>,
                "with_setup: the teardown takes the setup's state (by reference)");
  using session = detail::setup_session<Setup, Fn, Teardown>;
  constexpr bool takes_arg =
      std::is_invocable_v<Setup&, std::int64_t> || detail::takes_arg_after<Fn, state>;
  constexpr bool returns_count = detail::is_count<detail::result_after<Fn, state>>;
  auto shared = std::make_shared<setup_spec<Setup, Fn, Teardown>>(std::move(spec));
  return workload(
      std::move(name),
      [shared](std::int64_t arg) -> std::unique_ptr<workload_session> {
        return std::make_unique<session>(shared, arg);
      },
      takes_arg, returns_count, setup_kind::per_argument);
}

// A workload that consumes its input, made fresh for every call (with_fresh_input).
template <class Make, class Fn>
workload make_workload(std::string name, fresh_input_spec<Make, Fn> spec) {
  static_assert(std::is_invocable_v<Make&, std::int64_t> || std::is_invocable_v<Make&>,
                "with_fresh_input: the input maker takes the argument (std::int64_t) or nothing");
  using input = detail::made_by<Make>;
  static_assert(detail::invocable_after<Fn, input>,
                "with_fresh_input: the workload takes the input (by reference), then optionally "
                "the argument");
  using session = detail::fresh_input_session<Make, Fn>;
  constexpr bool takes_arg =
      std::is_invocable_v<Make&, std::int64_t> || detail::takes_arg_after<Fn, input>;
  constexpr bool returns_count = detail::is_count<detail::result_after<Fn, input>>;
  auto shared = std::make_shared<fresh_input_spec<Make, Fn>>(std::move(spec));
  return workload(
      std::move(name),
      [shared](std::int64_t arg) -> std::unique_ptr<workload_session> {
        return std::make_unique<session>(shared, arg);
      },
      takes_arg, returns_count, setup_kind::per_call);
}

// Registers make_workload(name, fn) in the global registry: `fn` is a callable, with_setup(...) or
// with_fresh_input(...). Returns it for .description()/.default_arg()/...
template <class F>
requires requires(std::string name, F fn) {
  make_workload(std::move(name), std::move(fn));
}
workload& register_workload(std::string name, F fn) {
  return global_registry().add(make_workload(std::move(name), std::move(fn)));
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
