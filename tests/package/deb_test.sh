#!/usr/bin/env bash
# The .deb (CPack) of a built tree: what it holds and what it depends on, then a user's project
# (tests/consumer) built against it unpacked in a throw-away root, never the real system.
#   deb_test.sh BUILD_DIR SOURCE_DIR
set -uo pipefail
build=$1
src=$2
work=$(mktemp -d "${TMPDIR:-/tmp}/harness-deb.XXXXXX")
trap 'rm -rf "$work"' EXIT
export HARNESS_HISTORY=off
failed=0
fail() { echo "FAIL: $*"; failed=$((failed + 1)); }

if ! cpack -G DEB --config "$build/CPackConfig.cmake" -B "$work/out" >"$work/cpack.log" 2>&1; then
  echo "FAIL: cpack -G DEB"
  tail -30 "$work/cpack.log" | sed 's/^/    | /'
  exit 1
fi
deb=$(ls "$work"/out/harness_*.deb 2>/dev/null | head -1)
[ -n "$deb" ] || { echo "FAIL: no harness_*.deb in $work/out"; exit 1; }
echo "package: $(basename "$deb")"

dpkg-deb -c "$deb" >"$work/contents" || fail "dpkg-deb -c"
for path in ./usr/bin/harness ./usr/include/harness/workload.hpp \
  './usr/lib/.*cmake/harness/harness-config.cmake' \
  './usr/lib/.*cmake/harness/harness-config-version.cmake' \
  './usr/lib/.*cmake/harness/harness-targets.cmake' './usr/lib/.*libharness.a' \
  './usr/lib/.*libharness_main.a'; do
  grep -qE " ${path}\$" "$work/contents" || fail "the package lacks $path"
done
# Nothing of the build or the tests in it.
if grep -qE "gtest|unit_tests|_bench|/home/|/work/|/tmp/" "$work/contents"; then
  fail "the package holds files it should not:"
  grep -E "gtest|unit_tests|_bench|/home/|/work/|/tmp/" "$work/contents" | sed 's/^/    | /'
fi

depends=$(dpkg-deb -f "$deb" Depends)
echo "Depends: $depends"
for p in libbenchmark-dev libfmt-dev libspdlog-dev libcli11-dev nlohmann-json3-dev libsqlite3-dev libpq-dev; do
  [[ "$depends" == *"$p"* ]] || fail "Depends lacks $p"
done
[ "$(dpkg-deb -f "$deb" Package)" = harness ] || fail "Package is not harness"

# Unpacked in a throw-away root: its binary runs, and the consumer builds against its CMake
# package (the package's paths are relative to where it lies, so the root's usr/ is the prefix).
dpkg-deb -x "$deb" "$work/root" || fail "dpkg-deb -x"
"$work/root/usr/bin/harness" --version >"$work/version" 2>&1 || fail "usr/bin/harness --version"
if cmake -S "$src/tests/consumer" -B "$work/consumer" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DHARNESS_CONSUME=package -DCMAKE_PREFIX_PATH="$work/root/usr" >"$work/log" 2>&1 &&
  cmake --build "$work/consumer" >>"$work/log" 2>&1; then
  if "$work/consumer/my_bench" -n 3 --warmup 0 --no-history >"$work/run" 2>&1 &&
    grep -q '^consumer_sum/10000' "$work/run"; then
    echo "ok: the consumer built against the unpacked package runs"
  else
    fail "my_bench built against the package did not run its workload"
    head -20 "$work/run" | sed 's/^/    | /'
  fi
else
  fail "the consumer does not build against the unpacked package"
  tail -30 "$work/log" | sed 's/^/    | /'
fi
echo "deb: $failed failed"
[ "$failed" -eq 0 ]
