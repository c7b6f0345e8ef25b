#!/usr/bin/env bash
# End-to-end test of the HTML pages (issue 18) in a real browser: a run page (-o run.html), one
# made by `harness report` from a JSON report, a compare page, a clocks page and an ab page, each
# opened in headless Chromium at 1280 px and at 390 px wide (a phone), in the light and the dark
# colour scheme (the ab page in the light one). For each, html_check.py reads what the page's script drew (<pre id="harness-status">
# in the DOM Chromium dumps) and checks every chart rendered: the expected number and kinds,
# their labels and axis titles, a painted canvas, no JavaScript error, no sideways scrolling.
# Every page is checked for network addresses (none may be in it). Screenshots are kept in
# SCREENSHOT_DIR (a CI artifact). No test here asserts a time.
# Usage: html_e2e.sh PATH/TO/harness SOURCE_ROOT SCREENSHOT_DIR GBENCH_PAIR_OLD GBENCH_PAIR_NEW
# (the last two: tests/gbench/gbench_pair.cpp's two builds, for the gbench --vs page).
set -u
usage="usage: html_e2e.sh PATH/TO/harness SOURCE_ROOT SCREENSHOT_DIR GBENCH_PAIR_OLD GBENCH_PAIR_NEW"
harness=${1:?$usage}
root=${2:?$usage}
shots=${3:?$usage}
pair_old=${4:?$usage}
pair_new=${5:?$usage}
check=("$root/tests/e2e/html_check.py")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$shots"

# shellcheck source=lib.sh
source "$root/tests/e2e/lib.sh"

chromium=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$chromium" ]; then
  echo "FAIL: chromium is not installed: apt-get install chromium (./dev.sh test installs it)"
  exit 1
fi

# browse W,H SCHEME OUT ARGS...: headless Chromium with a W x H window in the light or dark
# scheme, its own profile in the temp folder (root needs --no-sandbox), killed after 90 s so a
# hung browser fails the test instead of hanging CI. Its log goes to $work/browser.log, with the
# page's console messages (a page of the harness logs none: each one fails the check). Files may
# read files (the phone frame reads its page's status).
browse() {
  local window=$1 scheme=$2 out=$3
  shift 3
  local dark=()
  [ "$scheme" = dark ] && dark=(--force-dark-mode --blink-settings=preferredColorScheme=0)
  timeout -k 10 90 "$chromium" --headless --no-sandbox --disable-gpu --no-first-run \
    --disable-extensions --disable-background-networking --disable-sync --hide-scrollbars \
    --allow-file-access-from-files --user-data-dir="$work/profile-$scheme" \
    --window-size="$window" --virtual-time-budget=5000 --enable-logging=stderr --v=0 \
    "${dark[@]}" "$@" >"$out" 2>"$work/browser.log"
}

# quiet_console NAME: the last browse logged no console message (errors included).
quiet_console() {
  if grep -q ':CONSOLE' "$work/browser.log"; then
    fail "$1: the page logged to the console:"
    grep ':CONSOLE' "$work/browser.log" | head -5 | sed 's/^/    | /'
  else
    pass
  fi
}

# phone_frame PAGE: a page beside PAGE that shows it in a 390 px wide frame and copies its status
# out (headless Chromium makes no window narrower than 500 px); prints its path.
phone_frame() {
  local frame="${1%.html}-390.html"
  cat >"$frame" <<EOF
<!DOCTYPE html>
<html><head><meta charset="utf-8"><style>body{margin:0}iframe{border:0;width:390px;height:2600px;display:block}</style></head>
<body><iframe id="page" src="$(basename "$1")"></iframe><pre id="harness-status"></pre>
<script>
document.getElementById('page').addEventListener('load', function () {
  var out = document.getElementById('harness-status');
  try { out.textContent = this.contentDocument.getElementById('harness-status').textContent; }
  catch (e) { out.textContent = JSON.stringify({ errors: ['phone frame: ' + e], done: false }); }
});
</script></body></html>
EOF
  echo "$frame"
}

# check_page NAME FILE [SCHEMES]: the page has no network address, and renders at both widths in
# each scheme (default: light and dark); screenshots NAME-WIDTH-SCHEME.png.
check_page() {
  local name=$1 page=$2 schemes=${3:-light dark}
  if grep -qE 'https?://' "$page"; then
    fail "$name: the page holds a network address: $(grep -oE 'https?://[^"'"'"' ]*' "$page" | head -3)"
  else
    pass
  fi
  local width scheme flags url window
  for width in 1280 390; do
    url="file://$page"
    window=$width,900
    if [ "$width" = 390 ]; then
      url="file://$(phone_frame "$page")"
      window=500,2600
    fi
    for scheme in $schemes; do
      flags=(--width "$width")
      [ "$scheme" = dark ] && flags+=(--dark)
      # One browser start gives both: the DOM after the page's script ran, and the screenshot
      # of that same page (half the starts of one browse for each, the bulk of this test's time).
      rm -f "$shots/$name-$width-$scheme.png"
      if ! browse "$window" "$scheme" "$work/dom.html" --dump-dom \
        --screenshot="$shots/$name-$width-$scheme.png" "$url"; then
        fail "$name at $width px ($scheme): chromium failed or timed out"
        tail -5 "$work/browser.log" | sed 's/^/    | /'
        continue
      fi
      quiet_console "$name at $width px ($scheme)"
      if python3 "${check[@]}" "$page" "$work/dom.html" "${flags[@]}"; then pass; else
        fail "$name at $width px ($scheme): the page did not render as expected"
      fi
      if [ -s "$shots/$name-$width-$scheme.png" ]; then
        pass
      else
        fail "$name at $width px ($scheme): no screenshot"
      fi
    done
  done
}

# The run page of the issue's own example: two sort workloads, 50 samples a phase.
if expect 0 run-html -- -w 'sort*' -n 50 --warmup 100ms -o "$work/run.html"; then
  check_page run "$work/run.html"
fi

# A JSON report drawn afterwards by `harness report`; and --format html on stdout.
tiny=(-w empty -n 20 --warmup 10ms)
if expect 0 json-a -- "${tiny[@]}" -o "$work/a.json" &&
  expect 0 json-b -- "${tiny[@]}" -o "$work/b.json"; then
  fits_schema "json-a, json-b" "$work/a.json" "$work/b.json"
  if expect 0 report-html -- report "$work/a.json" -o "$work/report.html"; then
    # A run page as the run page above, from `harness report`: one colour scheme (the dark one
    # of run pages is drawn above; a browser start is ~4 s of this test's time).
    check_page report "$work/report.html" light
  fi
  # Compare's page: each workload's two floors with their intervals.
  if "$harness" compare --format html "$work/a.json" "$work/b.json" >"$work/compare.html" \
    2>"$work/err"; [ $? -le 6 ] && [ -s "$work/compare.html" ]; then
    pass
    check_page compare "$work/compare.html"
  else
    fail "compare --format html: no page"
    sed 's/^/    | /' "$work/err" | head
  fi
fi
if expect 0 stdout-html -- "${tiny[@]}" --format html; then
  contains out '<pre id="harness-status"' stdout-html
  lacks out 'http://' stdout-html
fi

# The golden report of the unit tests drawn: a failed workload, one with a batch of 64 and no
# baseline, one with two samples, a name with a comma and a bar. One colour scheme, as the report
# page's.
if expect 0 golden-html -- report "$root/tests/golden/report.json" -o "$work/golden.html"; then
  check_page golden "$work/golden.html" light
fi

# The clocks page: call cost and granularity of every clock source, log scale.
if "$harness" clocks --format html >"$work/clocks.html" 2>"$work/err"; then
  pass
  check_page clocks "$work/clocks.html"
else
  fail "clocks --format html failed"
  sed 's/^/    | /' "$work/err" | head
fi

# The ab page (issue 26): the ratio round by round with the answer's interval, the ratios'
# histogram and the facts, from a tiny budget. One colour scheme: the dark one's colours are the
# other pages' (common.js), already drawn in both.
if expect 0 ab-html -- ab xor_loop/1000 xor_loop/1100 --warmup 10ms --max-time 200ms \
  -o "$work/ab.html"; then
  check_page ab "$work/ab.html" light
fi
# ... and drawn later by `harness report` from the JSON report of another such run.
if expect 0 ab-json -- ab xor_loop/1000 xor_loop/1100 --warmup 10ms --max-time 200ms \
  -o "$work/ab.json" &&
  expect 0 ab-report-html -- report "$work/ab.json" -o "$work/ab-report.html"; then
  check_page ab-report "$work/ab-report.html" light
fi

# The gbench --vs page: per benchmark its answer and both figures, the facts a column each. The
# pair's suite: BM_fails fails in NEW (exit 3) and gives no round, so its section draws nothing;
# one benchmark only in each binary.
if expect 3 gbench-vs-html -- gbench --vs "$pair_old" -n 10 --min-time 0.5ms --max-time 0.7s \
  -o "$work/gbench-vs.html" -- "$pair_new"; then
  check_page gbench-vs "$work/gbench-vs.html" light
fi

# The history page (issue 29): three saved runs of a workload at three commits, drawn from the
# store; one colour scheme, as the ab page.
for c in 0a0a 1b1b 2c2c; do
  "$harness" -w xor_loop/1000 -n 5 --warmup 10ms --no-baseline --save --db "$work/h.db" \
    --commit "$c" --branch main >/dev/null 2>"$work/err" || fail "history-save $c: $(cat "$work/err")"
done
if expect 0 history-html -- history xor_loop/1000 --db "$work/h.db" --regressions \
  -o "$work/history.html"; then
  # The floors carry their intervals (store schema 2), which the page draws and lists.
  if grep -qE '"floor_lower_seconds": ?[0-9]' "$work/history.html"; then pass; else
    fail "history-html: no run has a floor interval"
  fi
  check_page history "$work/history.html" light
fi

echo "html_e2e: $passed passed, $failed failed (screenshots in $shots)"
[ "$failed" -eq 0 ]
