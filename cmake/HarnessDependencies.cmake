# Every dependency comes from the system (Debian 12 packages): nothing is vendored or downloaded.
find_package(Threads REQUIRED)
find_package(benchmark CONFIG REQUIRED)
find_package(fmt CONFIG REQUIRED)
find_package(spdlog CONFIG REQUIRED)
find_package(CLI11 CONFIG REQUIRED)
find_package(nlohmann_json CONFIG REQUIRED)
# XXH3 (libxxhash-dev) fingerprints a build's bytes for the history (src/cli/history_file.cpp). Used
# header-only (XXH_INLINE_ALL), so nothing is linked and the .deb needs no libxxhash at run time;
# the mingw build finds the header in the prefix scripts/windows-deps.sh fills.
find_path(HARNESS_XXHASH_INCLUDE_DIR xxhash.h REQUIRED
          DOC "Folder holding xxhash.h (Debian: libxxhash-dev)")
