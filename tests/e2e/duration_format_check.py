#!/usr/bin/env python3
"""The HTML pages print durations as harness::format_seconds does (issue 28).

Runs common.js's durationText block (between its "---- durationText:" and "---- end of
durationText" lines) in headless Chromium over tests/data/duration_cases.json, the cases
tests/unit/duration_test.cpp prints with the C++ formatter, and fails on any text that differs.
Usage: duration_format_check.py COMMON_JS CASES_JSON
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


def main() -> int:
    page_js, cases_path = sys.argv[1], sys.argv[2]
    source = pathlib.Path(page_js).read_text(encoding="utf-8")
    if source.count(BEGIN) != 1 or source.count(END) != 1:
        print(f"FAIL: {page_js} has no single durationText block ({BEGIN!r} ... {END!r})")
        return 1
    block = source[source.index(BEGIN):source.index(END)]
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
            "var cases = " + json.dumps(cases) + ";\n"
            "var out = cases.map(function (c) {\n"
            "  var s = c.seconds === 'inf' ? Infinity : c.seconds;\n"
            "  return durationText(s, c);\n"
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
        print(f"FAIL: durationText printed {t!r} for {json.dumps(c, ensure_ascii=False)}")
    if len(texts) != len(cases):
        print(f"FAIL: {len(texts)} texts for {len(cases)} cases")
        return 1
    if failures:
        return 1
    print(f"PASS: common.js's durationText prints all {len(cases)} cases as the C++ formatter does")
    return 0


if __name__ == "__main__":
    sys.exit(main())
