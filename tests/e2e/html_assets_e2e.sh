#!/usr/bin/env bash
# The HTML report's build step (issue 18): Chart.js missing, or not Chart.js 3, stops the CMake
# configuration with a message saying what to install; cmake/embed_html_assets.cmake cuts the
# "http(s)://" of a script and refuses a script holding "</script" or "<!--". All in a temp folder.
# Usage: html_assets_e2e.sh SOURCE_ROOT
set -u
root=${1:?usage: html_assets_e2e.sh SOURCE_ROOT}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# shellcheck source=lib.sh
source "$root/tests/e2e/lib.sh"

# configure NAME CHARTJS MESSAGE: configuring harness with that Chart.js fails, saying MESSAGE.
configure() {
  local name=$1 chartjs=$2 message=$3
  if cmake -S "$root" -B "$work/build-$name" -G Ninja -DHARNESS_CHARTJS="$chartjs" \
    -DHARNESS_BUILD_TESTS=OFF -DHARNESS_BUILD_BENCHMARKS=OFF -DHARNESS_BUILD_EXAMPLES=OFF \
    -DHARNESS_INSTALL=OFF >"$work/out" 2>"$work/err"; then
    fail "$name: the configuration succeeded"
    return
  fi
  pass
  contains err "$message" "$name"
}
configure missing "$work/none/chart.min.js" "Chart.js is missing: $work/none/chart.min.js does not exist"
contains err "libjs-chart.js" missing
printf '/*!\n * Chart.js v4.4.1\n */\n' >"$work/chart4.js"
configure version-4 "$work/chart4.js" "is not Chart.js 3"

# The embedding step on its own.
printf '/*! lib v1\n * https://example.org\n * http://example.net\n */\nvar lib = 1;\n' >"$work/lib.js"
printf 'var page = "ok";\n' >"$work/page.js"
printf 'var common = 1;\n' >"$work/common.js"
printf 'body { color: black; }\n' >"$work/page.css"
# embed CHARTJS PAGE_SCRIPT...: the step over these (comma-separated page scripts).
embed() {
  local scripts
  scripts=$(IFS=,; echo "${*:2}")
  cmake -DOUT="$work/assets.cpp" -DCHARTJS="$1" -DCOMMON_JS="$work/common.js" \
    -DPAGE_SCRIPTS="$scripts" -DPAGE_CSS="$work/page.css" \
    -P "$root/cmake/embed_html_assets.cmake" >"$work/out" 2>"$work/err"
}
if embed "$work/lib.js" "$work/page.js"; then
  pass
  # The bytes are written as '\xNN' escapes: read them back.
  text=$(python3 -c 'import re, sys
print(bytes(int(h, 16) for h in re.findall(r"\\x([0-9a-f]{2})", open(sys.argv[1]).read())).decode())' \
    "$work/assets.cpp")
  if [[ "$text" == *"example.org"* && "$text" == *"example.net"* && "$text" != *"://"* ]]; then
    pass
  else
    fail "embed: the addresses were not cut: $text"
  fi
  # A page script is found by its page's name, the file's without .js.
  contains assets.cpp 'if (page == "page") return {page_page_js_bytes' embed-page
else
  fail "embed: the step failed"
  sed 's/^/    | /' "$work/err"
fi
# Two pages, each its own script.
printf 'var other = 2;\n' >"$work/other.js"
if embed "$work/lib.js" "$work/page.js" "$work/other.js"; then
  pass
  contains assets.cpp 'if (page == "page") return {page_page_js_bytes' embed-two-pages
  contains assets.cpp 'if (page == "other") return {page_other_js_bytes' embed-two-pages
else
  fail "embed: the step failed"
  sed 's/^/    | /' "$work/err"
fi
printf 'var s = "</script>";\n' >"$work/bad.js"
if embed "$work/lib.js" "$work/bad.js"; then fail "embed: a '</script' was let through"; else
  pass
  contains err "which would break the <script> element" embed-closing-tag
fi
printf 'var s = "<!-- x";\n' >"$work/bad2.js"
if embed "$work/lib.js" "$work/bad2.js"; then fail "embed: a '<!--' was let through"; else pass; fi
if embed "$work/none.js" "$work/page.js"; then fail "embed: a missing file was let through"; else
  pass
  contains err "does not exist" embed-missing
fi
if embed "$work/lib.js" "$work/page.js" "$work/none.js"; then
  fail "embed: a missing page script was let through"
else
  pass
  contains err "does not exist" embed-missing-page
fi
printf 'var bad = 1;\n' >"$work/Bad-Name.js"
if embed "$work/lib.js" "$work/Bad-Name.js"; then fail "embed: a page named Bad-Name was let through"; else
  pass
  contains err "named as its page" embed-bad-name
fi

echo "html_assets_e2e: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
