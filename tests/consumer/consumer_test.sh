#!/usr/bin/env bash
# A user's project (tests/consumer: one file, one workload, harness::main and nothing else) built
# the three ways the README gives, each run once:
#   package       the built tree BUILD_DIR installed into a temporary prefix, as the README's
#                 `cmake --install build --prefix P`, then find_package(harness 0.1 CONFIG
#                 REQUIRED); the user's project in Release, and once more in Debug
#   subdirectory  add_subdirectory(<harness source>), in Debug
#   fetchcontent  FetchContent from the local source tree, in Debug
# Only the library targets are built (no tests, benchmarks or examples: they default to off in a
# subproject). The two subproject ways compile the library in the user's build type (harness
# leaves it alone): Debug, the cheaper one to compile, and the one whose warning about the user's
# build each run must print. Everything lives in a temporary folder; with ccache present the
# library's objects are compiled once and the second way takes them from a cache inside that
# folder (nothing is read from or left in the user's cache). For that both ways build at the same
# path, $work/consumer (harness's binary dir at harness/ in it), so the library's generated unity
# sources lie at the same absolute paths: ccache keys on a source's path. Each build is then moved
# to its own folder (consumer-WAY).
#   consumer_test.sh SOURCE_DIR BUILD_DIR [WORK_DIR]     WORK_DIR (kept) instead of a temporary one
set -uo pipefail
src=$(cd "$1" && pwd)
build=$(cd "$2" && pwd)
if [ $# -ge 3 ]; then
  work=$3
  mkdir -p "$work"
else
  work=$(mktemp -d "${TMPDIR:-/tmp}/harness-consumer.XXXXXX")
  trap 'rm -rf "$work"' EXIT
fi
consumer=$src/tests/consumer
jobs=${HARNESS_CONSUMER_JOBS:-$(nproc)}
export HARNESS_HISTORY=off
launcher=()
if command -v ccache >/dev/null; then
  # No CCACHE_BASEDIR: the ways share absolute paths (above), not paths relative to their builds.
  export CCACHE_DIR=$work/ccache CCACHE_NOHASHDIR=1
  unset CCACHE_BASEDIR
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
failed=0
start=$SECONDS

step() {  # step NAME COMMAND...: runs it quietly, shows its output when it fails
  local name=$1
  shift
  if ! "$@" >"$work/log" 2>&1; then
    echo "FAIL: $name: $*"
    tail -40 "$work/log" | sed 's/^/    | /'
    return 1
  fi
}

# check WAY BUILD_DIR BUILD_TYPE: the user's binary runs once, exits 0 and reports its own
# workload, and says whether the user's file was built unoptimised (Debug) or not (Release).
check() {
  local way=$1 bin=$2/my_bench type=$3
  if ! "$bin" -n 3 --warmup 0 --no-history >"$work/$way.out" 2>"$work/$way.err"; then
    echo "FAIL: $way: my_bench -n 3 --warmup 0 --no-history exited $?"
    sed 's/^/    | /' "$work/$way.err" | head -20
    failed=$((failed + 1))
    return
  fi
  if ! grep -q '^consumer_sum/10000' "$work/$way.out"; then
    echo "FAIL: $way: the report does not name consumer_sum/10000"
    head -20 "$work/$way.out" | sed 's/^/    | /'
    failed=$((failed + 1))
    return
  fi
  # Its help names the binary and its own workload, not `harness` and the built-in ones.
  "$bin" --help >"$work/$way.help" 2>&1
  if ! grep -qF "my_bench -w consumer_sum/10000 -n 50" "$work/$way.help" ||
    grep -qE "xor_loop|'sort\*'|^  harness " "$work/$way.help"; then
    echo "FAIL: $way: my_bench --help does not name my_bench and consumer_sum"
    grep -A3 Examples "$work/$way.help" | sed 's/^/    | /'
    failed=$((failed + 1))
    return
  fi
  # A Release build draws no warning about the user's build; a Debug one does. The report wraps
  # its lines: read it as one line of single spaces.
  tr -s ' \n' '  ' <"$work/$way.out" >"$work/$way.flat"
  if [ "$type" = Release ] && grep -qF "YOUR BUILD" "$work/$way.flat"; then
    echo "FAIL: $way: a Release build is reported as unoptimised or with assertions"
    failed=$((failed + 1))
    return
  fi
  if [ "$type" = Debug ] && ! grep -qF "YOUR BUILD" "$work/$way.flat"; then
    echo "FAIL: $way: a Debug build is not reported as unoptimised"
    failed=$((failed + 1))
    return
  fi
  echo "ok: $way, $type ($((SECONDS - start)) s so far$(cached))"
}

# cached: how many of the compilations since the last new_way ccache served (", 11 of 12
# compilations from the cache"), or nothing without ccache.
cached() {
  [ ${#launcher[@]} -gt 0 ] || return 0
  ccache --print-stats | awk -F'\t' '$1 ~ /^(direct|preprocessed)_cache_hit$/ { hits += $2 }
    $1 == "cache_miss" { misses = $2 }
    END { printf ", %d of %d compilations from the cache", hits, hits + misses }'
}
new_way() { [ ${#launcher[@]} -eq 0 ] || ccache --zero-stats >/dev/null; }

# consume WAY BUILD_TYPE [CMAKE ARGS...]: configure, build and run the consumer one way, in a new
# build at $work/consumer (see above), then moved to $work/consumer-WAY.
consume() {
  local way=$1 type=$2
  shift 2
  local dir=$work/consumer
  rm -rf "$dir" "$work/consumer-$way"
  if step "$way: configure" cmake -S "$consumer" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE="$type" \
    -DHARNESS_CONSUME="$way" "${launcher[@]}" "$@" &&
    step "$way: build" cmake --build "$dir" -j "$jobs"; then
    check "$way" "$dir" "$type"
  else
    failed=$((failed + 1))
  fi
  [ ! -d "$dir" ] || mv "$dir" "$work/consumer-$way"
}

# 1. The installed package: the tree under test installed, as the README's
# `cmake --install build --prefix P`.
new_way
rm -rf "$work/prefix"
if step "package: install" cmake --install "$build" --prefix "$work/prefix"; then
  consume package Release -DCMAKE_PREFIX_PATH="$work/prefix"
else
  failed=$((failed + 1))
fi
# The same file in a Debug build (one file to compile against the installed package): each run
# says the workload was compiled without optimisation and with assertions on.
new_way
dir=$work/consumer-debug
if [ -d "$work/prefix" ] &&
  step "debug: configure" cmake -S "$consumer" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Debug \
    -DHARNESS_CONSUME=package -DCMAKE_PREFIX_PATH="$work/prefix" "${launcher[@]}" &&
  step "debug: build" cmake --build "$dir" -j "$jobs"; then
  "$dir/my_bench" -n 3 --warmup 0 --no-history -o "$work/debug.json" >"$work/debug.out" 2>&1
  # The report wraps its lines: read it as one line of single spaces.
  tr -s ' \n' '  ' <"$work/debug.out" >"$work/debug.flat"
  if grep -qF "YOUR BUILD: the file that registered it was compiled without optimisation" \
    "$work/debug.flat" && grep -qF "with assertions on (no NDEBUG)" "$work/debug.flat" &&
    python3 -c 'import json, sys
b = json.load(open(sys.argv[1]))["harness"]["workloads"][0]["build"]
assert b == {"optimized": False, "assertions": True}, b' "$work/debug.json"; then
    echo "ok: debug build reported ($((SECONDS - start)) s so far$(cached))"
  else
    echo "FAIL: debug: the Debug build of the workload is not reported"
    grep -n "consumer_sum" -A2 "$work/debug.out" | head -10 | sed 's/^/    | /'
    failed=$((failed + 1))
  fi
else
  failed=$((failed + 1))
fi

# 2. add_subdirectory, and 3. FetchContent, both from the source tree. Debug with line tables
# only (-g1): what is checked is the build being reported (no optimisation, assertions on), and
# the library compiles in three quarters of the time (harness_report's unity_1: 17.7 s of CPU at
# -O0 -g, 13.3 s at -O0 -g1).
new_way
consume subdirectory Debug -DHARNESS_SOURCE_DIR="$src" -DCMAKE_CXX_FLAGS_DEBUG=-g1
new_way
consume fetchcontent Debug -DHARNESS_SOURCE_DIR="$src" -DCMAKE_CXX_FLAGS_DEBUG=-g1

echo "consumer: 3 ways and a Debug build, $failed failed, $((SECONDS - start)) s"
[ "$failed" -eq 0 ]
