#!/usr/bin/env python3
"""The HTML pages print durations and numbers as the C++ writers do (issue 28).

Runs common.js's durationText block (between its "---- durationText:" and "---- end of
durationText" lines) in headless Chromium over tests/data/duration_cases.json, the cases
tests/unit/duration_test.cpp prints with format_seconds; with "numbers", its numbers block too
(which uses the first) over tests/data/number_cases.json, the cases tests/unit/numbers_test.cpp
prints with base/numbers.cpp. Fails on any text that differs.
Usage: duration_format_check.py COMMON_JS CASES_JSON [numbers]
"""
import html
import json
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

BEGIN = "// ---- durationText:"
END = "// ---- end of durationText"
NUMBERS_BEGIN = "// ---- numbers:"
NUMBERS_END = "// ---- end of numbers"
# What prints a case: durationText, or the numbers block's function for the case's kind. JSON has
# no infinity, NaN or negative zero: strings stand for them.
DURATION_CALL = "durationText(c.seconds === 'inf' ? Infinity : c.seconds, c)"
NUMBER_CALL = "numberText(c)"
NUMBER_TEXT = """function numberText(c) {
  var special = { inf: Infinity, '-inf': -Infinity, nan: NaN, '-0': -0 };
  var v = typeof c.value === 'string' ? special[c.value] : c.value;
  switch (c.kind) {
    case 'fixed': return fixedText(v, c.digits);
    case 'significant': return significantText(v, c.digits);
    case 'signed_fixed': return signedFixedText(v, c.digits);
    case 'percent': return percentText(v, c.digits);
    case 'percent_significant': return percentSignificantText(v, c.digits);
    case 'factor': return factorText(v);
    case 'change_percent': return changePercentText(v);
    case 'signed_change_percent': return signedChangePercentText(v);
    case 'amount': return amountText(v);
    case 'frequency': return frequencyText(v);
  }
  return 'unknown kind ' + c.kind;
}
"""


def block_of(source, begin, end):
    if source.count(begin) != 1 or source.count(end) != 1:
        return None
    return source[source.index(begin):source.index(end)]


def main() -> int:
    page_js, cases_path = sys.argv[1], sys.argv[2]
    numbers = len(sys.argv) > 3 and sys.argv[3] == "numbers"
    source = pathlib.Path(page_js).read_text(encoding="utf-8")
    block = ""
    for begin, end in [(BEGIN, END)] + ([(NUMBERS_BEGIN, NUMBERS_END)] if numbers else []):
        part = block_of(source, begin, end)
        if part is None:
            print(f"FAIL: {page_js} has no single block {begin!r} ... {end!r}")
            return 1
        block += part
    what = "numbers block" if numbers else "durationText"
    cases = json.loads(pathlib.Path(cases_path).read_text(encoding="utf-8"))["cases"]
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        print("FAIL: chromium is not installed: apt-get install chromium (./dev.sh test installs it)")
        return 1
    with tempfile.TemporaryDirectory() as work:
        page = pathlib.Path(work, "durations.html")
        # JSON has no infinity: "inf" stands for it.
        script = (
            "(function () {\n'use strict';\n" + block + "\n"
            + (NUMBER_TEXT if numbers else "") +
            "var cases = " + json.dumps(cases) + ";\n"
            "var out = cases.map(function (c) {\n"
            "  return " + (NUMBER_CALL if numbers else DURATION_CALL) + ";\n"
            "});\n"
            "document.getElementById('out').textContent = JSON.stringify(out);\n"
            "})();\n")
        page.write_text('<!doctype html><meta charset="utf-8"><pre id="out">not run</pre>'
                        "<script>" + script + "</script>\n", encoding="utf-8")
        run = subprocess.run(
            [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
             "--disable-extensions", "--disable-background-networking", "--disable-sync",
             f"--user-data-dir={work}/profile", "--dump-dom", page.as_uri()],
            capture_output=True, text=True, timeout=90, check=False)
    found = re.search(r'<pre id="out">(.*?)</pre>', run.stdout, re.S)
    if run.returncode != 0 or found is None or found.group(1) == "not run":
        print(f"FAIL: Chromium did not run the block (exit {run.returncode}):\n{run.stderr[-2000:]}")
        return 1
    texts = json.loads(html.unescape(found.group(1)))
    failures = [(c, t) for c, t in zip(cases, texts) if t != c["text"]]
    for c, t in failures:
        print(f"FAIL: the {what} printed {t!r} for {json.dumps(c, ensure_ascii=False)}")
    if len(texts) != len(cases):
        print(f"FAIL: {len(texts)} texts for {len(cases)} cases")
        return 1
    if failures:
        return 1
    print(f"PASS: common.js's {what} prints all {len(cases)} cases as the C++ formatter does")
    return 0


if __name__ == "__main__":
    sys.exit(main())
