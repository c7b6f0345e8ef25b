// The store's concurrency and crash tool (tests/store/store_concurrency.sh):
//   store_hammer save WHERE N [FLOOR]  saves N runs into the store, one transaction each
//   store_hammer check WHERE [COUNT]   opens the store, exits 1 unless every run in it is whole
//                                      (and there are COUNT of them, when given); prints the count
#include <fmt/format.h>

#include <cstdlib>
#include <exception>
#include <string>

#include "store/store.hpp"
#include "store_fixtures.hpp"

int main(int argc, char** argv) {
  using namespace harness::store;
  if (argc < 3) {
    fmt::print(stderr, "usage: store_hammer save WHERE N [FLOOR] | check WHERE [COUNT]\n");
    return 2;
  }
  const std::string command = argv[1];
  try {
    auto store = open_store(argv[2], true);
    if (command == "save" && argc >= 4) {
      const long n = std::strtol(argv[3], nullptr, 10);
      const double floor = argc >= 5 ? std::strtod(argv[4], nullptr) : 100.0;
      for (long i = 0; i < n; ++i) {
        save_request request = fixtures::request("run", floor + static_cast<double>(i));
        request.tags = {{"i", std::to_string(i)}, {"pid", std::to_string(::getpid())}};
        store->save(request);
      }
      return 0;
    }
    if (command == "check") {
      const auto runs = store->runs({});
      const auto partial = store->partial_runs();
      std::size_t without_report = 0;
      for (const auto& run : runs) {
        const auto json = store->report_json(run.id);
        if (!json || json->empty()) ++without_report;
        if (run.tags.size() != 2) ++without_report;
      }
      fmt::print("{} runs, {} partial, {} without their report or tags\n", runs.size(),
                 partial.size(), without_report);
      if (!partial.empty() || without_report != 0) return 1;
      if (argc >= 4 && runs.size() != std::strtoul(argv[3], nullptr, 10)) return 1;
      return 0;
    }
  } catch (const std::exception& e) {
    fmt::print(stderr, "store_hammer: {}\n", e.what());
    return 1;
  }
  fmt::print(stderr, "store_hammer: unknown command '{}'\n", command);
  return 2;
}
