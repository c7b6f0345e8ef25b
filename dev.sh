#!/usr/bin/env bash
# The commands of the README's quick start, on a fresh Debian 12 machine:
#   ./dev.sh run [HARNESS OPTIONS]   install what is missing, build if needed, run `harness`
#   ./dev.sh test                    install what is missing, build, run the whole test suite
#   ./dev.sh package                 build the .deb (cpack -G DEB) into the build folder
#   ./dev.sh fuzz [DURATION]         every fuzz target for DURATION each (default 10m: 10m, 90s,
#                                    1h), its new inputs kept in the fuzz build's corpus folders
# All are idempotent and quick when everything is already there.
set -euo pipefail
cd "$(dirname "$0")"
root=$(pwd)
build=${HARNESS_BUILD_DIR:-$root/build}
jobs=${HARNESS_JOBS:-$(nproc)}  # build parallelism (HARNESS_JOBS=1 on a machine shared with others)

# Debian packages building and running `harness` needs (./dev.sh run). Why each one is here:
run_packages=(
  cmake g++ ninja-build              # the toolchain
  libbenchmark-dev                   # DoNotOptimize/ClobberMemory, and the benchmarks of the harness
  libspdlog-dev libfmt-dev           # logging and formatting
  libcli11-dev                       # every command-line option
  nlohmann-json3-dev                 # JSON output
  libboost-dev                       # Boost.Math: binomial, Student's t (headers; build only: the
                                     # compiled libs of libboost-math-dev are not used)
  libxxhash-dev                      # XXH3, header-only: the build's fingerprint in the history
  libjs-chart.js                     # Chart.js 3, embedded in the HTML report at build time
  libsqlite3-dev                     # the results store's default backend, a file (docs/store.md)
  libpq-dev                          # the results store on PostgreSQL, for a fleet of runners
  valgrind                           # --instructions: callgrind counts instructions per call; its
                                     # valgrind/callgrind.h client requests are built in
)
# And what the tests need besides (./dev.sh test, ./dev.sh package):
test_packages=(
  git                                # the style check lists the tracked files
  libgtest-dev libgmock-dev          # unit tests
  python3                            # end-to-end checks of JSON output
  python3-jsonschema                 # the e2e tests validate every JSON they produce (Draft 2020-12)
  util-linux                         # setpriv: the end-to-end test runs once as an unprivileged user
  procps                             # pgrep: the e2e tests check that no child of a run is left running
  libbenchmark-tools python3-scipy   # reports e2e: Google Benchmark's compare.py reads harness JSON
  clang-14 libclang-rt-14-dev        # libFuzzer and sanitizers: the fuzz targets of every reader
  clang-format-14                    # the style check: every C++ file as .clang-format says
  ccache                             # the consumer test compiles the library once for three builds
  dpkg-dev                           # cpack -G DEB, and dpkg-deb for the package test
  chromium                           # html_e2e: the HTML pages rendered in headless Chromium
  postgresql                         # the store's tests start a real PostgreSQL server of their own
                                     # (initdb in a temporary folder, a Unix socket only)
)

install_missing() {
  local missing=()
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "dev.sh: installing ${missing[*]}" >&2
  local sudo=()
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "dev.sh: need root (or sudo) to install: ${missing[*]}" >&2; exit 1; }
    sudo=(sudo)
  fi
  "${sudo[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

# Every C++ source of the project formatted as .clang-format says; lists the files that are not.
check_style() {
  local files bad=()
  if git -C "$root" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    mapfile -t files < <(git -C "$root" ls-files '*.cpp' '*.hpp' '*.h')
  else
    mapfile -t files < <(cd "$root" && find harness workloads examples bench tests fuzz \
      \( -name '*.cpp' -o -name '*.hpp' -o -name '*.h' \) -not -path '*/build*')
  fi
  # One clang-format per file, as many at once as there are CPUs; each prints the name of a file
  # it finds unformatted.
  mapfile -t bad < <(printf '%s\n' "${files[@]}" | xargs -P "$(nproc)" -I{} \
    sh -c 'clang-format-14 --dry-run -Werror "$1/$2" >/dev/null 2>&1 || echo "$2"' _ "$root" {})
  if [ ${#bad[@]} -gt 0 ]; then
    echo "dev.sh: not clang-format clean (clang-format-14 -i FILE fixes it): ${bad[*]}" >&2
    return 1
  fi
  echo "dev.sh: style: ${#files[@]} files clang-format clean"
}

# configure_and_build [TARGET]: the whole tree (tests, benchmarks, examples), or only TARGET. A
# tree configured by `run` (tests and the rest off, so GoogleTest is not needed) is turned into a
# whole one by the next `test`.
# Its flags are RelWithDebInfo's with line tables only (-g1): a backtrace still names file, line
# and function, and the whole tree took 568 s of CPU to build against 728 s with -g (one of its
# files, harness_report's unity_1: 21 s against 34 s). -g changes no code gcc emits.
tree_flags=(-G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG" -DHARNESS_WERROR=ON)
configure_and_build() {
  if [ $# -gt 0 ]; then
    if [ ! -f "$build/build.ninja" ]; then
      cmake -S "$root" -B "$build" "${tree_flags[@]}" \
        -DHARNESS_BUILD_TESTS=OFF -DHARNESS_BUILD_BENCHMARKS=OFF -DHARNESS_BUILD_EXAMPLES=OFF
    fi
    cmake --build "$build" -j "$jobs" --target "$1"
    return
  fi
  cmake -S "$root" -B "$build" "${tree_flags[@]}" \
    -DHARNESS_BUILD_TESTS=ON -DHARNESS_BUILD_BENCHMARKS=ON -DHARNESS_BUILD_EXAMPLES=ON >/dev/null
  cmake --build "$build" -j "$jobs"
}

# The fuzz build (clang, the library instrumented for libFuzzer, ASan+UBSan) and its targets,
# each fuzz test set to run at most SECONDS from libFuzzer's SEED (0: a new seed each run, for
# SECONDS; otherwise a fixed count of inputs, fuzz/CMakeLists.txt); then any
# further TARGETs of that tree. The same tree is the sanitizer build of the suite: the unit tests
# and the binary linked without libFuzzer's runtime (tests/CMakeLists.txt: sanitized_tests), so
# the library is compiled once for both.
configure_fuzz() {  # configure_fuzz SECONDS OPTIMIZE SEED [TARGET...]
  local fuzz=$build-fuzz seconds=$1 optimize=$2 seed=$3
  shift 3
  # Line tables only (a sanitizer's report names file and line), and OPTIMIZE: -O1 for a long
  # fuzz run, OSS-Fuzz's choice; the suite's -O0 compiles the library three times faster than
  # -O2 -g (analysis/: 15 s of CPU against 47 s) for its bounded runs and sanitized tests.
  cmake -S "$root" -B "$fuzz" -G Ninja -DCMAKE_CXX_COMPILER=clang++-14 -DHARNESS_FUZZ=ON \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="$optimize -gline-tables-only -DNDEBUG" \
    -DHARNESS_WERROR=ON -DHARNESS_BUILD_EXAMPLES=OFF -DHARNESS_BUILD_BENCHMARKS=OFF \
    -DHARNESS_BUILD_TESTS=ON -DHARNESS_INSTALL=OFF -DHARNESS_FUZZ_SECONDS="$seconds" \
    -DHARNESS_FUZZ_SEED="$seed" >/dev/null
  cmake --build "$fuzz" -j "$jobs" --target harness_fuzzers "$@"
}

cmd=${1:-run}
[ $# -gt 0 ] && shift
case "$cmd" in
  run)
    # Only what building and running needs, and only the `harness` binary: the first result
    # comes before the tests, benchmarks and examples are ever built.
    install_missing "${run_packages[@]}"
    configure_and_build harness_bin >&2
    exec "$build/bin/harness" "$@"
    ;;
  package)
    # The .deb: build/harness_VERSION_ARCH.deb (binary, headers, libraries, CMake package).
    install_missing "${run_packages[@]}" "${test_packages[@]}"
    configure_and_build
    (cd "$build" && cpack -G DEB)
    ;;
  test)
    # Which host this is, first: a run that fails on a new host shape can be read from its log.
    echo "dev.sh: host: $(grep -m1 '^model name' /proc/cpuinfo | sed 's/^[^:]*: *//'), $(nproc) CPUs, $(uname -sr)"
    install_missing "${run_packages[@]}" "${test_packages[@]}"
    check_style
    configure_and_build
    # ... and its clocks as the harness sees them (harness clocks, in a few lines).
    "$build/bin/harness" clocks --format json | python3 "$root/scripts/clock_facts.py" |
      sed 's/^/dev.sh: /'
    # First the tests that measure for real (unit, e2e, ...), with no build beside them; then those
    # that may share the CPUs (label busy_ok): the consumer test (a user's project built the three
    # ways against harness) and the .deb test beside the browser test, the bad inputs and the
    # compile checks, each filling the CPU time the others leave (tests/CMakeLists.txt).
    ctest --test-dir "$build" --output-on-failure -j "$(nproc)" -LE busy_ok
    ctest --test-dir "$build" --output-on-failure -j "$(nproc)" -L busy_ok
    # Every reader's fuzz target, a bounded run each under ASan+UBSan (clang only); then, in that
    # tree, the unit tests and the binary's e2e tests under ASan+UBSan (sanitized_e2e): the
    # first error ends the process with SIGABRT (halt_on_error, abort_on_error: no exit code a
    # test could take for one of ours; UBSan too, -fno-sanitize-recover=all), and LeakSanitizer is
    # on: a leak is a bug to fix, not to suppress.
    # The suite's fuzz runs start from one fixed seed and run a fixed count of inputs each
    # (fuzz/CMakeLists.txt), so a clean clone's run tries the same inputs each time; 60 s caps
    # each. `./dev.sh fuzz` explores from a new seed each run.
    configure_fuzz 60 -O0 1 sanitized_tests
    ctest --test-dir "$build-fuzz" -L fuzz --output-on-failure -j "$(nproc)"
    ASAN_OPTIONS=halt_on_error=1:abort_on_error=1:detect_leaks=1:strict_string_checks=1 \
      UBSAN_OPTIONS=halt_on_error=1:abort_on_error=1:print_stacktrace=1 \
      ctest --test-dir "$build-fuzz" -L "^(unit|sanitized_e2e)$" --output-on-failure -j "$(nproc)"
    # The same suite for Windows: cross-built with mingw-w64, run under Wine (installs both).
    bash "$root/scripts/windows-test.sh" "$build-win"
    ;;
  fuzz)
    # A longer fuzz run than the suite's: DURATION for each target (a number of seconds, or with
    # s, m or h). What a target finds stays in build-fuzz; put a crash's input in fuzz/corpus.
    spec=${1:-10m}
    case "$spec" in
      *[!0-9smh]* | '' | [smh]*) echo "dev.sh fuzz: '$spec' is not a duration (say 90s, 10m, 1h)" >&2; exit 2 ;;
    esac
    case "$spec" in
      *h) seconds=$(( ${spec%h} * 3600 )) ;;
      *m) seconds=$(( ${spec%m} * 60 )) ;;
      *s) seconds=${spec%s} ;;
      *) seconds=$spec ;;
    esac
    [ "$seconds" -gt 0 ] 2>/dev/null || { echo "dev.sh fuzz: '$spec' is not a positive duration" >&2; exit 2; }
    install_missing "${run_packages[@]}" "${test_packages[@]}"
    configure_fuzz "$seconds" -O1 0
    ctest --test-dir "$build-fuzz" -L fuzz --output-on-failure --timeout $((seconds + 600))
    ;;
  *)
    echo "usage: ./dev.sh run [harness options] | ./dev.sh test | ./dev.sh package | ./dev.sh fuzz [DURATION]" >&2
    exit 2
    ;;
esac
