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
# XXH3 (libxxhash-dev) fingerprints a build's bytes for the history (src/cli/history_file.cpp). Used
# header-only (XXH_INLINE_ALL), so nothing is linked and the .deb needs no libxxhash at run time;
# the mingw build finds the header in the prefix scripts/windows-deps.sh fills.
find_path(HARNESS_XXHASH_INCLUDE_DIR xxhash.h REQUIRED
          DOC "Folder holding xxhash.h (Debian: libxxhash-dev)")
# The results store (harness/src/store, docs/store.md): SQLite for the default file
# (libsqlite3-dev), libpq for PostgreSQL (libpq-dev). Not on Windows, whose build has no store.
if(NOT WIN32)
  find_package(SQLite3 REQUIRED)
  find_package(PostgreSQL REQUIRED)
endif()
