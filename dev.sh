#!/usr/bin/env bash
# The two commands of the README's quick start, on a fresh Debian 12 machine:
#   ./dev.sh run [HARNESS OPTIONS]   install what is missing, build if needed, run `harness`
#   ./dev.sh test                    install what is missing, build, run the whole test suite
# Both are idempotent and quick when everything is already there.
set -euo pipefail
cd "$(dirname "$0")"
root=$(pwd)
build=${HARNESS_BUILD_DIR:-$root/build}

# Debian packages the build and the tests need. Why each one is here:
packages=(
  cmake g++ ninja-build git          # the toolchain
  libbenchmark-dev                   # DoNotOptimize/ClobberMemory, and the benchmarks of the harness
  libspdlog-dev libfmt-dev           # logging and formatting
  libcli11-dev                       # every command-line option
  nlohmann-json3-dev                 # JSON output
  libgtest-dev libgmock-dev          # unit tests
  python3                            # end-to-end checks of JSON output
  util-linux                         # setpriv: the end-to-end test runs once as an unprivileged user
  libbenchmark-tools python3-scipy   # reports e2e: Google Benchmark's compare.py reads harness JSON
  clang-14 libclang-rt-14-dev        # libFuzzer and sanitizers for the format-template fuzz test
  clang-format-14                    # the style check: every C++ file as .clang-format says
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
  for f in "${files[@]}"; do
    clang-format-14 --dry-run -Werror "$root/$f" >/dev/null 2>&1 || bad+=("$f")
  done
  if [ ${#bad[@]} -gt 0 ]; then
    echo "dev.sh: not clang-format clean (clang-format-14 -i FILE fixes it): ${bad[*]}" >&2
    return 1
  fi
  echo "dev.sh: style: ${#files[@]} files clang-format clean"
}

configure_and_build() {
  if [ ! -f "$build/build.ninja" ]; then
    cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DHARNESS_WERROR=ON
  fi
  cmake --build "$build" -j "$(nproc)"
}

cmd=${1:-run}
[ $# -gt 0 ] && shift
case "$cmd" in
  run)
    install_missing "${packages[@]}"
    configure_and_build >&2
    exec "$build/bin/harness" "$@"
    ;;
  test)
    install_missing "${packages[@]}"
    check_style
    configure_and_build
    ctest --test-dir "$build" --output-on-failure -j "$(nproc)"
    # The template parser's fuzz target, a bounded run under ASan+UBSan (clang only).
    fuzz=$build-fuzz
    if [ ! -f "$fuzz/build.ninja" ]; then
      cmake -S "$root" -B "$fuzz" -G Ninja -DCMAKE_CXX_COMPILER=clang++-14 -DHARNESS_FUZZ=ON \
        -DHARNESS_WERROR=ON -DHARNESS_BUILD_EXAMPLES=OFF -DHARNESS_BUILD_BENCHMARKS=OFF
    fi
    cmake --build "$fuzz" -j "$(nproc)" --target format_template_fuzz
    ctest --test-dir "$fuzz" -L fuzz --output-on-failure
    # The same suite for Windows: cross-built with mingw-w64, run under Wine (installs both).
    bash "$root/scripts/windows-test.sh" "$build-win"
    ;;
  *)
    echo "usage: ./dev.sh run [harness options] | ./dev.sh test" >&2
    exit 2
    ;;
esac
