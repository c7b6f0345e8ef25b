#!/usr/bin/env python3
"""Checks what headless Chromium made of a harness HTML page (tests/e2e/html_e2e.sh).

Usage: html_check.py PAGE.html DOM.html [--width PX] [--dark]

PAGE.html is the file the harness wrote; DOM.html what `chromium --dump-dom` printed after the
page's script ran. The script writes what it drew into <pre id="harness-status"> (JSON); this
checks, against what the page's own data says should be there:
- the script finished (done) and caught no error (window.onerror, rejections, console.error);
- the expected number of charts of each kind, each with its dataset labels and axis titles;
- every chart painted its canvas (pixels with alpha above 0, and a PNG data URL of some size);
- the page is no wider than the window (readable at 390 px), and the colour scheme the browser
  was asked for is the one the page drew with.
Exit 0 when all hold; otherwise one line per failure on stderr and exit 1.
"""
import argparse
import html
import json
import re
import sys


def page_data(page_text):
    m = re.search(r'<script id="harness-data" type="application/json">(.*?)</script>', page_text,
                  re.S)
    if not m:
        raise SystemExit("the page has no harness-data element")
    return json.loads(m.group(1))


def status_of(dom_text):
    m = re.search(r'<pre id="harness-status"[^>]*>(.*?)</pre>', dom_text, re.S)
    if not m or not m.group(1).strip():
        raise SystemExit("the DOM has no harness-status text: the page's script did not run")
    return json.loads(html.unescape(m.group(1)))


def expected_charts(page, data):
    """(kind, dataset labels that must be there, x title part, y title part) per chart."""
    if page == "run":
        out = []
        for series in data["series"]:
            phases = [p for p, s in series["phases"].items() if s["samples"] > 0]
            if not phases:
                continue
            out.append(("samples", [f"{p} samples" for p in phases] +
                        [f"{p} floor" for p in phases], "sample, in the order taken",
                        "time per call ("))
            out.append(("distribution", [f"{p} (" for p in phases], "time per call (",
                        "share of the phase's samples (%)"))
        return out
    if page == "compare":
        # Where a side confirmed no floor, the medians decided and are drawn instead.
        return [("medians", ["median interval", "median of all"], "time per call (", "side")
                if w.get("decided_by") == "median_shift" else
                ("floors", ["floor interval", "min"], "time per call (", "side")
                for w in data["workloads"]]
    if page == "clocks":
        return [("clocks", ["call cost (ns per read)", "granularity"], "ns (log scale)",
                 "clock source")]
    if page == "ab" and data["report"]["ab"]["mode"] == "gbench":
        # One pair a benchmark: both figures for each benchmark with a round ratio, in order.
        out = []
        for made, compared in zip(data["benchmarks"], data["report"]["ab"]["comparisons"]):
            if made["histogram"] is None:
                continue
            rounds = ["round ratios"]
            if compared["answer"] is not None:
                rounds += ["95% interval of the answer", "median of the"]
            out += [("ab-rounds", rounds, "round, in the order taken", "B/A"),
                    ("ab-histogram", ["rounds ("], "B/A, bins of", "rounds")]
        return out
    if page == "ab":
        if data["histogram"] is None:
            return []
        several = len(data["series"]) > 1
        rounds = ([f"pair {k} rounds" for k in range(1, len(data["series"]) + 1)]
                  if several else ["round ratios"])
        bars = ([f"pair {k}, undisturbed (" for k in range(1, len(data["series"]) + 1)]
                if several else ["undisturbed rounds ("])
        if data["report"]["ab"]["answer"] is not None:
            rounds += ["95% interval of the answer", "the answer" if several else "median of the"]
        if sum(data["histogram"]["disturbed"]) > 0:
            rounds.append("disturbed rounds")
            bars.append("disturbed rounds")
        return [("ab-rounds", rounds, "round, in the order taken", "B/A"),
                ("ab-histogram", bars, "B/A, bins of", "rounds")]
    if page == "history":
        charts = []
        for name in dict.fromkeys(r["workload"] for r in data["runs"]):
            # One line per series: a machine and the CPU its floors ran on.
            series = dict.fromkeys(r["series"] for r in data["runs"] if r["workload"] == name)
            charts.append(("history", [m + " (" for m in series],
                           "commit, in the order first saved", "floor per call ("))
        return charts
    raise SystemExit(f"unknown page kind {page}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("page")
    parser.add_argument("dom")
    parser.add_argument("--width", type=int, default=0)
    parser.add_argument("--dark", action="store_true")
    args = parser.parse_args()
    with open(args.page, encoding="utf-8") as f:
        page_text = f.read()
    with open(args.dom, encoding="utf-8") as f:
        dom_text = f.read()
    data = page_data(page_text)
    kind = re.search(r'<body data-page="(\w+)">', page_text)
    if not kind:
        raise SystemExit("the page has no <body data-page=...>")
    data["page"] = kind.group(1)
    status = status_of(dom_text)
    problems = []
    if not status.get("done"):
        problems.append("the page's script did not finish")
    for e in status.get("errors", []):
        problems.append(f"JavaScript error: {e}")
    expected = expected_charts(data["page"], data)
    charts = status.get("charts", [])
    if status.get("page") != data["page"]:
        problems.append(f"page kind {status.get('page')}, expected {data['page']}")
    if len(charts) != len(expected):
        problems.append(f"{len(charts)} charts drawn, expected {len(expected)}")
    for n, (chart, (kind, labels, x, y)) in enumerate(zip(charts, expected), 1):
        name = f"chart {n} ({chart.get('id')}, {kind})"
        if chart.get("kind") != kind:
            problems.append(f"{name}: kind {chart.get('kind')}")
        for label in labels:
            if not any(l.startswith(label) for l in chart.get("labels", [])):
                problems.append(f"{name}: no dataset labelled '{label}...': {chart.get('labels')}")
        if x not in chart.get("x", ""):
            problems.append(f"{name}: x axis '{chart.get('x')}' lacks '{x}'")
        if y not in chart.get("y", ""):
            problems.append(f"{name}: y axis '{chart.get('y')}' lacks '{y}'")
        if chart.get("points", 0) < 1:
            problems.append(f"{name}: no data points")
        # Pixels counted on a grid of every 4th one: a blank canvas has none; axes, their labels
        # and two points give some 400.
        if chart.get("painted", 0) < 100:
            problems.append(f"{name}: only {chart.get('painted')} pixels painted (blank canvas?)")
        if chart.get("data_url_length", 0) < 5000:
            problems.append(f"{name}: data URL of {chart.get('data_url_length')} characters")
    if args.width:
        if status.get("window_width") != args.width:
            problems.append(f"window {status.get('window_width')} px wide, expected {args.width}")
        if status.get("scroll_width", 0) > status.get("window_width", 0):
            problems.append(f"the page is {status.get('scroll_width')} px wide in a "
                            f"{status.get('window_width')} px window: it scrolls sideways")
    if data["page"] == "history" and "<body data-page=" in dom_text:
        # Each run with a floor interval shows it in the table ("[lower, upper]"), the others "-"
        # (seen in the page's own DOM; a phone frame's holds only the frame).
        want = sum(1 for r in data["runs"] if r.get("floor_lower_seconds") is not None
                   and r.get("floor_upper_seconds") is not None)
        cells = len(re.findall(r"<td[^>]*>\[", dom_text))
        if cells != want:
            problems.append(f"{cells} interval cells in the tables, expected {want} (the runs "
                            f"with an interval)")
    if data["page"] == "ab" and "<body data-page=" in dom_text:
        # Each pair's round minimums over its floors, A / B, in its column of the facts table
        # (with gbench --vs, each benchmark's pair).
        ab = data["report"]["ab"]
        pairs = ab["pairs"] + [c["pair"] for c in ab.get("comparisons", [])]
        for k, pair in enumerate(pairs, 1):
            e = pair["estimate"]
            if e.get("slow_a") is None or e.get("slow_b") is None:
                continue
            want = f"{e['slow_a']:.2f}x / {e['slow_b']:.2f}x"
            if want not in dom_text:
                problems.append(f"pair {k}: the round minimums over the floors, {want}, are not "
                                f"in the facts table")
    if status.get("dark") != args.dark:
        problems.append(f"dark colour scheme: {status.get('dark')}, expected {args.dark}")
    for p in problems:
        print(f"{args.page}: {p}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
