// main() of the `harness` command, and of user programs that link harness::main.
#include <iostream>

#include "cli.hpp"

int main(int argc, char** argv) {
  return harness::cli::run_cli(argc, argv, std::cout, std::cerr);
}
