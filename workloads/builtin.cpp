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
#include "last_two_inputs.hpp"

#ifdef _WIN32
#include <malloc.h>
#else
#include <sys/mman.h>
#include <unistd.h>
#endif

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
  static harness::builtin::last_two_inputs<std::vector<int>> sources;
  const std::vector<int>& source =
      sources.of(count, [count] { return random_ints(static_cast<std::size_t>(count)); });
  std::vector<int> copy = source;
  std::sort(copy.begin(), copy.end());
  benchmark::DoNotOptimize(copy.data());
  return count;
}

std::int64_t memcpy_bytes(std::int64_t bytes) {
  if (bytes < 0) throw std::invalid_argument("memcpy_bytes: the size must not be negative");
  struct buffers {
    std::vector<char> from, to;
  };
  static harness::builtin::last_two_inputs<buffers> kept;
  auto& [from, to] = kept.of(bytes, [bytes] {
    const auto n = static_cast<std::size_t>(bytes);
    return buffers{std::vector<char>(n, 'x'), std::vector<char>(n, 0)};
  });
  benchmark::DoNotOptimize(from.data());
  // Not for 0 bytes: an empty vector's data() may be null, which memcpy may not be given.
  if (!from.empty()) std::memcpy(to.data(), from.data(), from.size());
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

// The bytes the branchy sums read: ARG random bytes from a seeded generator, so every run sums the
// same sequence.
std::vector<unsigned char> random_bytes(std::int64_t count, std::uint64_t seed) {
  if (count < 0) throw std::invalid_argument("branchy_sum: the count must not be negative");
  std::mt19937_64 gen(seed);
  std::vector<unsigned char> bytes(static_cast<std::size_t>(count));
  // Eight bytes from each draw: 80 inputs of 64 KiB take ~5 ms this way, ~35 ms with one draw per
  // byte.
  for (std::size_t i = 0; i < bytes.size(); i += 8) {
    const std::uint64_t draw = gen();
    std::memcpy(bytes.data() + i, &draw, std::min<std::size_t>(8, bytes.size() - i));
  }
  return bytes;
}

// Sums the bytes of 128 and above through a real branch, taken half the time at random: the empty
// asm inside the taken side keeps the compiler from turning it into a conditional move (checked in
// the disassembly of GCC 12 and Clang 14 at -O2). A branch predictor that sees the same bytes over
// and over learns them; with fresh ones it cannot.
std::int64_t branchy_sum_of(const std::vector<unsigned char>& bytes) {
  std::int64_t sum = 0;
  for (const unsigned char b : bytes) {
    if (b >= 128) {
      sum += b;
      asm volatile("" : "+r"(sum));
    }
  }
  benchmark::DoNotOptimize(sum);
  return static_cast<std::int64_t>(bytes.size());
}

// Fresh bytes for every call of branchy_sum_fresh, from one generator: the same sequence every
// run, never the same bytes twice.
struct fresh_bytes {
  std::uint64_t calls = 0;
  std::vector<unsigned char> operator()(std::int64_t count) {
    return random_bytes(count, 0x5eed0000 + calls++);
  }
};

// The file file_open_close opens, in a folder made for this process alone and removed at exit. A
// fixed name in the shared temporary folder could be a symbolic link someone else planted, which
// creating the file as root would follow; a new folder (mkdir fails when the name exists, link or
// not) cannot be.
class scratch_folder {
 public:
  scratch_folder() {
    const std::filesystem::path base = std::filesystem::temp_directory_path();
    std::random_device random;
    for (int attempt = 0; attempt < 100 && folder_.empty(); ++attempt) {
      const std::filesystem::path candidate =
          base / ("harness-file-open-close-" + std::to_string(random()));
      std::error_code ec;
      if (std::filesystem::create_directory(candidate, ec)) folder_ = candidate;
    }
    if (folder_.empty())
      throw std::runtime_error("file_open_close: cannot make a folder in " + base.string());
    file_ = (folder_ / "file.tmp").string();
    std::FILE* f = std::fopen(file_.c_str(), "wb");
    if (f == nullptr) throw std::runtime_error("file_open_close: cannot create " + file_);
    std::fputs("harness\n", f);
    std::fclose(f);
  }
  ~scratch_folder() {
    std::error_code ignored;
    std::filesystem::remove_all(folder_, ignored);
  }
  scratch_folder(const scratch_folder&) = delete;
  scratch_folder& operator=(const scratch_folder&) = delete;
  const std::string& file() const noexcept { return file_; }

 private:
  std::filesystem::path folder_;
  std::string file_;
};

const std::string& scratch_file() {
  static const scratch_folder folder;
  return folder.file();
}

void file_open_close() {
  std::FILE* f = std::fopen(scratch_file().c_str(), "rb");
  if (f == nullptr) throw std::runtime_error("file_open_close: cannot open " + scratch_file());
  benchmark::DoNotOptimize(f);
  std::fclose(f);
}

// Maps `pages` fresh pages, writes a byte to each, and unmaps them: on Linux every write is a
// minor page fault (the kernel gives a zeroed page on first touch), so a call makes `pages` of
// them, which the page-faults counter shows per call. Windows (no counters there): an aligned
// allocation of as many 4 KiB pages, touched the same way.
std::int64_t fresh_pages(std::int64_t pages) {
  if (pages < 0) throw std::invalid_argument("fresh_pages: the page count must not be negative");
  if (pages == 0) return 0;
#ifdef _WIN32
  const std::size_t page = 4096;
  const std::size_t size = page * static_cast<std::size_t>(pages);
  auto* memory = static_cast<char*>(_aligned_malloc(size, page));
  if (memory == nullptr) throw std::runtime_error("fresh_pages: out of memory");
#else
  const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  const std::size_t size = page * static_cast<std::size_t>(pages);
  void* mapped = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mapped == MAP_FAILED) throw std::runtime_error("fresh_pages: mmap failed");
  auto* memory = static_cast<char*>(mapped);
#endif
  for (std::size_t at = 0; at < size; at += page)
    memory[at] = 1;
  benchmark::DoNotOptimize(memory);
  benchmark::ClobberMemory();
#ifdef _WIN32
  _aligned_free(memory);
#else
  ::munmap(mapped, size);
#endif
  return pages;
}

}  // namespace

HARNESS_WORKLOAD(xor_loop)
    .description(
        "The Stopwatch article's test: r ^= i ^ seed over ARG iterations, seed from the clock")
    .default_arg(32'000'000)
    .min_arg(0)
    .by_default();
HARNESS_WORKLOAD(empty).description("Does nothing: what a sample costs with no work in it");
HARNESS_WORKLOAD_NAMED("branchy_sum",
                       harness::with_setup([](std::int64_t n) { return random_bytes(n, 0x5eed); },
                                           branchy_sum_of))
    .description(
        "Sums the bytes >= 128 of the same ARG random bytes every call, through a real branch: "
        "the branch predictor learns them with repetition")
    .default_arg(65'536)
    .min_arg(0)
    .bytes_per_call([](std::int64_t n) { return n; });
// A fresh input's cost varies with its bytes (its mispredictions, sd ~0.4% of a call over 64 KiB,
// falling as 1/sqrt(ARG)), so a one-call sample's minimum is the luckiest input's (docs/floor.md).
// Its samples hold as many inputs as make 5 MiB, from 1 to 80 (80 up to 64 KiB, 5 at 1 MiB): the
// inputs' spread then averages to ~0.05% of a sample, and a sample's inputs stay within 5 MiB.
// A count, not min_sample_time(): 20 ms asked millions of calls, each with its own input made
// before the sample, at an argument of 0 (43 s and 250 MB for two samples; bench/soak.sh).
HARNESS_WORKLOAD_NAMED("branchy_sum_fresh",
                       harness::with_fresh_input(fresh_bytes{},
                                                 [](std::vector<unsigned char>& bytes) {
                                                   return branchy_sum_of(bytes);
                                                 }))
    .description(
        "branchy_sum over fresh random bytes for every call (made untimed before the sample): "
        "nothing to learn")
    .default_arg(65'536)
    .min_arg(0)
    .min_batch([](std::int64_t n) {
      return std::clamp<std::int64_t>((std::int64_t{5} << 20) / std::max<std::int64_t>(n, 1), 1,
                                      80);
    })
    .bytes_per_call([](std::int64_t n) { return n; });
HARNESS_WORKLOAD(sort_ints)
    .description("Copies ARG random ints (fixed seed) and std::sorts the copy")
    .default_arg(10'000)
    .min_arg(0)
    .items_per_call([](std::int64_t count) { return count; });
HARNESS_WORKLOAD(memcpy_bytes)
    .description("memcpy of ARG bytes between two buffers")
    .default_arg(65'536)
    .min_arg(0)
    .bytes_per_call([](std::int64_t bytes) { return bytes; });
HARNESS_WORKLOAD(unordered_map_insert)
    .description("ARG inserts into a fresh std::unordered_map<int64, int64>")
    .default_arg(1'000)
    .min_arg(0);
HARNESS_WORKLOAD(fresh_pages)
    .description(
        "Maps ARG fresh pages, writes a byte to each and unmaps them: ARG minor page faults a "
        "call on Linux (--counters shows them)")
    .default_arg(64)
    .min_arg(0);
HARNESS_WORKLOAD(file_open_close).description("fopen and fclose of a small temporary file");
