// The built-in workloads: the Stopwatch article's test function, an empty one for timer overhead,
// and a few operations every C++ programmer recognises.
//
// Each keeps its inputs outside the measured call where the article does, and creates what the
// call consumes (a fresh copy to sort, a fresh map) inside it, as the description says, so every
// call does the same work.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <random>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include "harness/workload.hpp"

namespace {

// The article takes its seed from the clock so no compiler can fold the loop to a constant.
const std::int64_t kSeed = std::chrono::steady_clock::now().time_since_epoch().count();

std::int64_t xor_loop(std::int64_t count) {
  std::int64_t seed = kSeed;
  benchmark::DoNotOptimize(seed);
  std::int64_t result = seed;
  for (std::int64_t i = 0; i < count; ++i)
    result ^= i ^ seed;
  benchmark::DoNotOptimize(result);
  return count;
}

void empty() {}

std::vector<int> random_ints(std::size_t n) {
  std::mt19937 gen(42);  // fixed seed: every run sorts the same data
  std::uniform_int_distribution<int> dist;
  std::vector<int> v(n);
  for (int& x : v)
    x = dist(gen);
  return v;
}

std::int64_t sort_ints(std::int64_t count) {
  if (count < 0) throw std::invalid_argument("sort_ints: the count must not be negative");
  static std::vector<int> source;
  if (source.size() != static_cast<std::size_t>(count))
    source = random_ints(static_cast<std::size_t>(count));
  std::vector<int> copy = source;
  std::sort(copy.begin(), copy.end());
  benchmark::DoNotOptimize(copy.data());
  return count;
}

std::int64_t memcpy_bytes(std::int64_t bytes) {
  if (bytes < 0) throw std::invalid_argument("memcpy_bytes: the size must not be negative");
  static std::vector<char> from, to;
  if (from.size() != static_cast<std::size_t>(bytes)) {
    from.assign(static_cast<std::size_t>(bytes), 'x');
    to.assign(static_cast<std::size_t>(bytes), 0);
  }
  benchmark::DoNotOptimize(from.data());
  std::memcpy(to.data(), from.data(), from.size());
  benchmark::ClobberMemory();
  return bytes;
}

std::int64_t unordered_map_insert(std::int64_t count) {
  std::unordered_map<std::int64_t, std::int64_t> map;
  for (std::int64_t i = 0; i < count; ++i)
    map.emplace(i * 2654435761, i);
  benchmark::DoNotOptimize(map);
  return count;
}

const std::string& scratch_file() {
  static const std::string path = [] {
    auto p = std::filesystem::temp_directory_path() / "harness-file-open-close.tmp";
    if (std::FILE* f = std::fopen(p.string().c_str(), "wb")) {
      std::fputs("harness\n", f);
      std::fclose(f);
    }
    return p.string();
  }();
  return path;
}

void file_open_close() {
  std::FILE* f = std::fopen(scratch_file().c_str(), "rb");
  if (f == nullptr) throw std::runtime_error("file_open_close: cannot open " + scratch_file());
  benchmark::DoNotOptimize(f);
  std::fclose(f);
}

}  // namespace

HARNESS_WORKLOAD(xor_loop)
    .description(
        "The Stopwatch article's test: r ^= i ^ seed over ARG iterations, seed from the clock")
    .default_arg(32'000'000)
    .min_arg(0)
    .by_default();
HARNESS_WORKLOAD(empty).description("Does nothing: what a sample costs with no work in it");
HARNESS_WORKLOAD(sort_ints)
    .description("Copies ARG random ints (fixed seed) and std::sorts the copy")
    .default_arg(10'000)
    .min_arg(0);
HARNESS_WORKLOAD(memcpy_bytes)
    .description("memcpy of ARG bytes between two buffers")
    .default_arg(65'536)
    .min_arg(0);
HARNESS_WORKLOAD(unordered_map_insert)
    .description("ARG inserts into a fresh std::unordered_map<int64, int64>")
    .default_arg(1'000)
    .min_arg(0);
HARNESS_WORKLOAD(file_open_close).description("fopen and fclose of a small temporary file");
