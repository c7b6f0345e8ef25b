# Every dependency comes from the system (Debian 12 packages): nothing is vendored or downloaded.
find_package(Threads REQUIRED)
find_package(benchmark CONFIG REQUIRED)
find_package(fmt CONFIG REQUIRED)
find_package(spdlog CONFIG REQUIRED)
find_package(CLI11 CONFIG REQUIRED)
find_package(nlohmann_json CONFIG REQUIRED)
# Boost.Math's distributions (analysis/special_functions.cpp), header-only: Debian's libboost-dev.
# No public header includes Boost, so harness links it for its own build only and a consumer of
# the installed package needs nothing of it.
find_package(Boost 1.74 CONFIG REQUIRED)
