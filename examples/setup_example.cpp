// Setup outside the timing, and throughput: two workloads as users write them, linked with
// harness::main into the whole `harness` command line (`setup_example -w map_lookup/1000000`).
//
// - map_lookup/N looks up 1000 keys in a std::map of N entries. The map is built once per
//   argument by with_setup, before the first call and outside every timed region, and reaches the
//   workload as its first parameter: no globals. Without the setup, building a map of a million
//   entries would land in the first call (or in every sample, were it built inside).
// - sort_fresh/N sorts N shuffled ints in place: it consumes its input, so with_fresh_input makes a
//   fresh vector for every call, before the sample that makes the call, untimed.
//
// Both declare what a call processes (items_per_call), so the report shows items/s.
#include <harness/workload.hpp>

#include <algorithm>
#include <cstdint>
#include <map>
#include <numeric>
#include <random>
#include <vector>

namespace {

constexpr std::int64_t kLookups = 1000;

struct lookup_table {
  std::map<std::int64_t, std::int64_t> map;
  std::vector<std::int64_t> keys;  // kLookups keys to look up, from the map's range
};

lookup_table build_table(std::int64_t entries) {
  lookup_table t;
  for (std::int64_t i = 0; i < entries; ++i)
    t.map.emplace(i * 7, i);
  std::mt19937_64 random(42);
  std::uniform_int_distribution<std::int64_t> key(0, entries * 7);
  for (std::int64_t i = 0; i < kLookups; ++i)
    t.keys.push_back(key(random));
  return t;
}

std::int64_t look_up(const lookup_table& t) {
  std::int64_t found = 0;
  for (const std::int64_t k : t.keys)
    found += t.map.count(k) != 0 ? 1 : 0;
  benchmark::DoNotOptimize(found);
  return kLookups;
}

// A new permutation for every call, from one seeded generator: the same sequence in every run, but
// never the same input twice, which the branch predictor would learn: measured here, std::sort of
// one fixed permutation of 100 ints, over and over, took 250 ns; of a new one each time, 2.8 us.
struct shuffler {
  std::mt19937 random{7};
  std::vector<int> operator()(std::int64_t n) {
    std::vector<int> v(static_cast<std::size_t>(n));
    std::iota(v.begin(), v.end(), 0);
    std::shuffle(v.begin(), v.end(), random);
    return v;
  }
};

void sort_in_place(std::vector<int>& v) {
  std::sort(v.begin(), v.end());
  benchmark::DoNotOptimize(v.data());
}

}  // namespace

HARNESS_WORKLOAD_NAMED("map_lookup", harness::with_setup(build_table, look_up))
    .description("1000 lookups in a std::map of ARG entries, built once per argument (untimed)")
    .default_arg(100'000)
    .min_arg(1)
    .items_per_call(kLookups);

HARNESS_WORKLOAD_NAMED("sort_fresh", harness::with_fresh_input(shuffler{}, sort_in_place))
    .description("std::sort of ARG shuffled ints, a fresh copy for every call (made untimed)")
    .default_arg(10'000)
    .min_arg(0)
    .items_per_call([](std::int64_t n) { return n; });
