#!/usr/bin/env bash
# Cross-builds harness for Windows with mingw-w64 and runs its test suite under Wine through ctest.
#
#   scripts/windows-test.sh [BUILD_DIR]        (default: <repo>/build-win)
#
# Environment: HARNESS_WINDOWS_DEPS is the cache that scripts/windows-deps.sh fills (default
# $XDG_CACHE_HOME/harness/windows-deps, else ~/.cache/..., else <repo>/build-win-deps without a
# HOME): kept outside the clone, a fresh clone on the same machine (CI) does not build Google
# Test and Google Benchmark for mingw again (about 65 s of its time; its stamps say when to).
# HARNESS_JOBS (default 2) is the build parallelism; extra ctest arguments go in
# HARNESS_CTEST_ARGS (e.g. "-R windows_os").
#
# One `wineserver -p` serves every test and is stopped at the end: without it each test pays
# about 2.7 s of Wine start-up and shutdown. The Wine prefix lives in the dependency cache, so only
# the first run on a machine pays its creation (about 700 MB, 4-9 s). WINEDEBUG=-all silences
# Wine's diagnostics and WINEDLLOVERRIDES skips the Mono and Gecko install prompts.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$repo/build-win}
if [[ -n ${XDG_CACHE_HOME:-} || -n ${HOME:-} ]]; then
  deps=${HARNESS_WINDOWS_DEPS:-${XDG_CACHE_HOME:-$HOME/.cache}/harness/windows-deps}
else
  deps=${HARNESS_WINDOWS_DEPS:-$repo/build-win-deps}
fi
jobs=${HARNESS_JOBS:-2}

start=$(date +%s)
HARNESS_JOBS=$jobs bash "$repo/scripts/windows-deps.sh" "$deps"
deps=$(cd "$deps" && pwd)

export WINEPREFIX=${WINEPREFIX:-$deps/wineprefix}
export WINEDEBUG=${WINEDEBUG:--all}
export WINEDLLOVERRIDES=${WINEDLLOVERRIDES:-mscoree,mshtml=}

# The libraries as a unity build, as on Linux: about half the compile time of the cross-build
# (mingw's g++ spends most of it parsing the same headers in each of the ~60 library sources).
# Release at -O1, not -O3: what runs under Wine is checked for what it does, not for its speed,
# and the tree builds in less time (204 s against 168 s here, 364 s of CPU against 290 s; -O0
# took 355 s, its objects too big to link quickly). -O1 still defines __OPTIMIZE__: the built-in
# workloads count as optimised, as in a user's Release build.
cmake -S "$repo" -B "$build" -G Ninja -DCMAKE_TOOLCHAIN_FILE="$repo/cmake/mingw-w64-x86_64.cmake" \
  -DHARNESS_WINDOWS_DEPS_PREFIX="$deps/prefix" -DHARNESS_WERROR=ON -DHARNESS_BUILD_BENCHMARKS=OFF \
  -DCMAKE_BUILD_TYPE=Release "-DCMAKE_CXX_FLAGS_RELEASE=-O1 -DNDEBUG" -DHARNESS_UNITY_BUILD=ON
cmake --build "$build" -j "$jobs"
built=$(date +%s)

stop_wine() { wineserver -k 2>/dev/null || true; }
trap stop_wine EXIT
mkdir -p "$WINEPREFIX"
# Fails when a server already runs for this prefix; that one serves the tests just as well.
wineserver -p 2>/dev/null || true
# Create or update the prefix now: done by the first test instead, it would eat into that test's
# discovery timeout.
wineboot -i >/dev/null 2>&1 || true

# shellcheck disable=SC2086  # HARNESS_CTEST_ARGS is split on purpose
ctest --test-dir "$build" --output-on-failure --timeout 600 -j "$jobs" ${HARNESS_CTEST_ARGS:-}
echo "windows-test: deps+build $((built - start)) s, tests $(($(date +%s) - built)) s"
