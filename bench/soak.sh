#!/usr/bin/env bash
# A soak of the `harness` binary (issue 31): N runs (default 500), one after the other, each with
# random valid options, random built-in workloads (from `harness list`), a random report format
# written with -o into a folder of its own, and in some runs SIGINT or SIGTERM at a random moment
# (sent at most once; a second signal ends the process at once, as documented, and is not tried).
# A run is `harness run`, `harness ab` of two built-in workloads, or (fewer) `harness ab --a BIN
# --b BIN` with worker processes. Budgets are tiny (--warmup 0..10ms, -n 2..12, --max-time
# 20..200ms), so 500 runs take minutes.
#
# After each run, checked:
#   exit code     one docs/errors.md lists (0, 1, 2, 3, 4, 5, 6, 130, 143); and the one expected:
#                 0 (4 for ab --fail-if-slower 0%... when B came out slower), or 130/143 when this
#                 run was signalled; 2 for an ab pair refused because one sample of a side would
#                 outlast --max-time (counted as "refused pairs"). A process killed by a signal it
#                 was not sent, an exit code of 134 (HARNESS_CHECK's abort), or a sanitizer's or
#                 check's report on stderr is a crash.
#   restored      the process's CPU affinity (/proc/PID/status Cpus_allowed_list) and nice value
#                 (/proc/PID/stat) as it leaves, read from the zombie before it is reaped
#                 (waitid WNOWAIT), equal to what it started with (a random nice 0..5 above the
#                 soak's own, and every CPU); while it runs they are read every 2 ms, to count how
#                 often it was seen pinned and raised. Every child seen (the ab workers) must be
#                 gone afterwards, and the TMPDIR it was given (the workers' stderr files) empty; a
#                 zombie has ended (a sanitized binary's LeakSanitizer tracer is one when the signal
#                 lands in it).
#   files         the -o report and the --history file: absent, or whole (JSON parses with
#                 python3 json; CSV rows all as wide as the header; HTML ends with </html>;
#                 Markdown and text end with a newline); no other file left in the folder (a
#                 temporary file of a write cut short). A run that exited 0 must have written its
#                 report.
# A quarter of the runs (run and ab) also --save into one results store for the whole soak
# (signals may land mid-save). After about one run in four, a reader runs over what the runs
# left: `harness report` of a JSON report a run or an ab wrote (exit 0), `harness compare` of two
# or more of the runs' (exit 0, 4 or 6; 2 only for reports with no workload in common, or, one
# time in ten, with an ab report given, which it refuses), or `harness history`
# over the store (exit 0, 4 with --regressions), each in a random format, to stdout or -o.
# Checked as the runs are (no crash, the exit code expected; killed after 120 s), and its output
# whole: the -o file, or stdout in its format.
#
# Prints the counts: runs, by exit code, signalled, crashes, unexpected codes, unrestored, children
# left, partial files, missing reports, readers; each failure with its command line and stderr's
# last lines. Exits 1 when any of crashes, unrestored, children left, partial files, unlisted or
# unexpected exit codes is not 0.
#
# Usage: bench/soak.sh [-n RUNS] [--seed S] [--harness PATH] [--keep DIR]
#   --harness  the binary (default: build/bin/harness of this checkout; ./dev.sh run builds it)
#   --seed     the random seed (default: from the clock; printed, so a run can be repeated)
#   --keep     keep each failing run's folder under DIR
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
runs=500
seed=
harness=$root/build/bin/harness
keep=
while [ $# -gt 0 ]; do
  case "$1" in
    -n) runs=${2:?-n needs a number}; shift 2 ;;
    --seed) seed=${2:?--seed needs a number}; shift 2 ;;
    --harness) harness=${2:?--harness needs a path}; shift 2 ;;
    --keep) keep=${2:?--keep needs a folder}; shift 2 ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "soak.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
case "$runs" in
  '' | *[!0-9]* | 0) echo "soak.sh: -n: '$runs' is not a positive number of runs" >&2; exit 2 ;;
esac
case "$seed" in
  *[!0-9]*) echo "soak.sh: --seed: '$seed' is not a non-negative integer" >&2; exit 2 ;;
esac
[ -x "$harness" ] || { echo "soak.sh: no harness binary at '$harness' (give --harness PATH)" >&2; exit 2; }
exec /usr/bin/python3 - "$harness" "$runs" "${seed:-$(date +%s%N)}" "$keep" <<'PY'
import csv
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

harness, runs, seed, keep = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]) % 2**32, sys.argv[4]
rng = random.Random(seed)
LISTED = {0, 1, 2, 3, 4, 5, 6, 130, 143}  # docs/errors.md, README's exit codes

# The built-in workloads and which take an argument, from `harness list`.
listing = subprocess.run([harness, "list"], capture_output=True, text=True, check=True).stdout
workloads = []
for line in listing.splitlines()[1:]:
    m = re.match(r"^(\S+)\s+(none|\S.*?)\s{2,}", line)
    if m and not line.startswith(" "):
        workloads.append((m.group(1), m.group(2) != "none"))
if not workloads:
    sys.exit(f"soak.sh: `{harness} list` named no workload")


def spec(with_list=True):
    name, takes_arg = rng.choice(workloads)
    if not takes_arg:
        return name
    # Tiny arguments: a call of microseconds at most.
    small = lambda: rng.choice([0, 1, 16, 100, 1000, 4096])
    if with_list and rng.random() < 0.2:
        return f"{name}/{small()},{small()}"
    return f"{name}/{small()}"


EXTENSIONS = {"json": "json", "csv": "csv", "markdown": "md", "html": "html", "console": "txt"}


def output_options(folder, cmd):
    """-o into the run's folder: by extension, or an explicit --format; sometimes none."""
    if rng.random() < 0.15:
        return [], None
    fmt = rng.choice(list(EXTENSIONS))
    path = os.path.join(folder, f"report.{EXTENSIONS[fmt]}")
    opts = ["-o", path]
    if rng.random() < 0.3:
        opts += ["--format", fmt]
    return opts, (fmt, path)


def common_options(ab):
    opts = []
    if rng.random() < 0.3:
        opts += ["--cpu", str(rng.choice(sorted(os.sched_getaffinity(0))))]
    elif rng.random() < 0.1:
        opts += ["--no-pin"]
    if rng.random() < 0.4:
        opts += ["--priority", rng.choice(["normal", "high", "high", "realtime"])]
    if rng.random() < 0.2:
        opts += ["--batch", str(rng.choice([1, 7, 50]))]
    elif rng.random() < 0.1:  # one or the other: both is a usage error
        opts += ["--min-sample-time", rng.choice(["1us", "20us"])]
    if rng.random() < 0.15:
        opts += ["--clock", "CLOCK_MONOTONIC"]
    opts += ["--log-level", rng.choice(["warn", "warn", "info", "debug", "off"])]
    return opts


def save_options():
    """Sometimes --save into the soak's one store, which the readers' `history` then reads."""
    if rng.random() >= 0.25:
        return []
    opts = ["--save", "--db", store]
    if rng.random() < 0.5:
        opts += ["--commit", f"{rng.getrandbits(160):040x}"]
    if rng.random() < 0.5:
        opts += ["--branch", rng.choice(["main", "pr-7"])]
    if rng.random() < 0.3:
        opts += ["--tag", "runner=soak"]
    return opts


def command(folder):
    """A random valid command line, what its report format is, and its expected length (s)."""
    kind = rng.choices(["run", "ab", "ab_builds"], weights=[70, 20, 10])[0]
    out, report = output_options(folder, kind)
    if kind == "run":
        argv = [harness, "run"] if rng.random() < 0.5 else [harness]
        for _ in range(rng.choice([1, 1, 2, 3])):
            argv += ["-w", spec()]
        argv += ["-n", str(rng.randint(2, 12)) if rng.random() < 0.8 else "auto"]
        argv += ["--warmup", rng.choice(["0", "1ms", "10ms"])]
        argv += ["--max-time", rng.choice(["20ms", "50ms", "200ms"])]
        if rng.random() < 0.3:
            argv += ["--blocks", str(rng.randint(1, 5))]
        if rng.random() < 0.1:
            argv += ["--block-rewarm", "1ms"]
        if rng.random() < 0.2:
            argv += ["--no-baseline"]
        if rng.random() < 0.2:
            argv += ["--detail"]
        if rng.random() < 0.1:
            argv += ["--lock-memory"]
        if rng.random() < 0.5:
            argv += ["--history", os.path.join(folder, "history.json")]
        else:
            argv += ["--no-history"]
        if rng.random() < 0.1 and report is None:
            argv += ["--line", "{workload} {phase}: min {min}, median {median}"]
        argv += common_options(False) + save_options()
        expected = 0.6
    else:
        argv = [harness, "ab"]
        if kind == "ab":
            argv += [spec(False), spec(False)]
        else:
            copies = [os.path.join(folder, side, "harness") for side in ("a", "b")]
            argv += ["--a", copies[0], "--b", copies[1], spec(False)]
            argv += ["--pairs", str(rng.randint(1, 2))]
            argv += ["--layout", rng.choice(["turns", "duet"])]
        argv += ["--warmup", rng.choice(["0", "1ms", "10ms"])]
        argv += ["--max-time", rng.choice(["20ms", "50ms", "100ms"])]
        if rng.random() < 0.2:
            argv += ["--order", "random", "--seed", str(rng.randint(0, 99))]
        if rng.random() < 0.2:
            argv += ["--fail-if-slower", "50%"]
        argv += common_options(True) + save_options()
        expected = 1.0 if kind == "ab_builds" else 0.4
    return kind, argv + out, report, expected


def proc_facts(pid):
    """(Cpus_allowed_list, nice) of a process or zombie; None when it is gone."""
    try:
        with open(f"/proc/{pid}/status") as f:
            cpus = next(l.split(":", 1)[1].strip() for l in f if l.startswith("Cpus_allowed_list"))
        with open(f"/proc/{pid}/stat") as f:
            nice = int(f.read().rsplit(")", 1)[1].split()[16])
        return cpus, nice
    except (OSError, StopIteration, IndexError, ValueError):
        return None


def start_time(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[19]
    except OSError:
        return None


def reports_crash(code, err_text):
    """Whether an exit code or stderr says the process crashed: abort (134), a sanitizer's report,
    a failed check of the harness's own, an uncaught exception."""
    return code == 134 or any(t in err_text for t in (
        "AddressSanitizer", "runtime error:", "LeakSanitizer", "check failed:",
        "terminate called"))


def run_state(pid):
    """The process's state letter (R, S, Z...); None when it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return None


def children_of(pid):
    kids = set()
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children") as f:
                kids.update(int(k) for k in f.read().split())
    except OSError:
        pass
    return kids


def whole(fmt, path):
    """None when the report file is whole, else what is wrong with it."""
    with open(path, "rb") as f:
        data = f.read()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        return f"not UTF-8: {e}"
    if fmt == "json":
        try:
            json.loads(text)
        except ValueError as e:
            return f"JSON does not parse: {e}"
        return None
    if not text.endswith("\n"):
        return "does not end with a newline"
    if fmt == "csv":
        rows = list(csv.reader(text.splitlines()))
        if not rows:
            return "CSV without a header"
        widths = {len(r) for r in rows}
        return None if len(widths) == 1 else f"CSV rows of {sorted(widths)} fields"
    if fmt == "html":
        return None if text.rstrip().endswith("</html>") else "HTML without its </html>"
    return None if text.strip() else "empty"


def reader_command(folder):
    """A reader over what the runs left: (what, argv, exit codes expected, the -o file as (format,
    path) or None, stdout's format or None); None when nothing is there to read yet."""
    choices = (["report", "compare"] if reports else []) + (["history"] if os.path.exists(store)
                                                             else [])
    if ab_reports and not reports:
        choices.append("report")
    if not choices:
        return None
    what = rng.choice(choices)
    if what == "report":
        chosen = rng.choice(reports + ab_reports)
        what = "report" if chosen in reports else "report ab"
        argv = [harness, "report", chosen]
        if rng.random() < 0.5:
            page = os.path.join(folder, "page.html")
            return what, argv + ["-o", page], {0}, ("html", page), None
        return what, argv, {0}, None, "html"
    if what == "compare" and ab_reports and rng.random() < 0.1:
        return "compare ab", [harness, "compare", rng.choice(reports), rng.choice(ab_reports)], \
            {2}, None, None
    if what == "compare":
        argv = [harness, "compare"]
        if rng.random() < 0.7:
            argv += [rng.choice(reports), rng.choice(reports)]
        else:  # one report per process, on each side
            for side in ("-a", "-b"):
                for _ in range(rng.randint(1, 3)):
                    argv += [side, rng.choice(reports)]
        fmt = "text"
        if rng.random() < 0.6:
            fmt = rng.choice(["text", "json", "html"])
            argv += ["--format", fmt]
        if rng.random() < 0.4:
            argv += ["--threshold", rng.choice(["0%", "2%", "50%"])]
        if rng.random() < 0.3:
            argv += ["--allow-not-compared"]
        return what, argv, {0, 4, 6}, None, {"text": "console"}.get(fmt, fmt)
    name = rng.choice(workloads)[0]
    argv = [harness, "history", rng.choice(["*", f"{name}*", f"{name}/*"]), "--db", store]
    want = {0}
    if rng.random() < 0.3:
        argv += ["--regressions", "--threshold", rng.choice(["1%", "5%"])]
        want.add(4)
    if rng.random() < 0.3:
        argv += ["--branch", "main"]
    fmt = rng.choice(list(EXTENSIONS))
    if rng.random() < 0.5:
        path = os.path.join(folder, f"history.{EXTENSIONS[fmt]}")
        return what, argv + ["--format", fmt, "-o", path], want, (fmt, path), fmt
    return what, argv + ["--format", fmt], want, None, fmt


def read_back(folder):
    """Runs a reader in `folder`; returns its problems (empty when none) and its command line."""
    chosen = reader_command(folder)
    if chosen is None:
        return [], None
    what, argv, want, output, stdout_fmt = chosen
    counts["readers"] += 1
    by_kind["reader " + what] = by_kind.get("reader " + what, 0) + 1
    out_path, err_path = os.path.join(folder, "stdout"), os.path.join(folder, "stderr")
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        try:
            code = subprocess.run(argv, stdout=out, stderr=err, timeout=120,
                                  env=dict(os.environ, HARNESS_HISTORY="off")).returncode
        except subprocess.TimeoutExpired:  # killed by subprocess.run
            code = -signal.SIGKILL
    with open(err_path, errors="replace") as f:
        err_text = f.read()
    shown = code if code >= 0 else f"signal {-code}"
    by_code[shown] = by_code.get(shown, 0) + 1
    problems = []
    if code < 0 or reports_crash(code, err_text):
        counts["crashes"] += 1
        problems.append(f"crash: {shown}")
    elif code == 2 and what == "compare" and "no workload in common" in err_text:
        counts["readers refused"] += 1
    elif code not in want:
        counts["unexpected"] += 1
        problems.append(f"exit code {shown}, expected one of {sorted(want)}")
    if code in want:
        for fmt, path in ([output] if output else []) + (
                [(stdout_fmt, out_path)] if stdout_fmt and not output else []):
            bad = whole(fmt, path) if os.path.exists(path) else "not written"
            if bad:
                counts["partial files"] += 1
                problems.append(f"{os.path.basename(path)} ({fmt}): {bad}")
    stray = sorted(set(os.listdir(folder)) - {"stdout", "stderr"} -
                   ({os.path.basename(output[1])} if output else set()))
    if stray:
        counts["partial files"] += 1
        problems.append(f"left in the folder: {stray}")
    if problems:
        problems.append("\n".join("  | " + l for l in err_text.splitlines()[-8:]))
    return problems, " ".join(argv[1:])


base_cpus = sorted(os.sched_getaffinity(0))
base_list = subprocess.run(
    ["sh", "-c", "grep Cpus_allowed_list /proc/self/status"], capture_output=True, text=True
).stdout.split(":", 1)[1].strip()
counts = {"runs": 0, "signalled": 0, "crashes": 0, "unlisted": 0, "unexpected": 0,
          "unrestored": 0, "children left": 0, "partial files": 0, "missing reports": 0,
          "seen pinned": 0, "seen raised": 0, "refused pairs": 0, "readers": 0,
          "readers refused": 0}
by_code = {}
by_kind = {}
failures = []
top = tempfile.mkdtemp(prefix="harness-soak-")
store = os.path.join(top, "results.db")  # the one store of the whole soak
reports = []  # JSON reports that runs wrote (exit 0), kept for the readers
ab_reports = []  # and those of ab, which `report` draws and `compare` refuses
os.makedirs(os.path.join(top, "reports"))
started = time.monotonic()
print(f"soak.sh: {runs} runs of {harness}, seed {seed}, CPUs {base_list}, "
      f"workloads: {' '.join(w for w, _ in workloads)}", flush=True)
for i in range(runs):
    folder = os.path.join(top, f"run{i}")
    tmp = os.path.join(folder, "tmp")
    os.makedirs(tmp)
    kind, argv, report, expected = command(folder)
    if kind == "ab_builds":
        for side in ("a", "b"):
            os.makedirs(os.path.join(folder, side))
            shutil.copy2(harness, os.path.join(folder, side, "harness"))
    # The child's nice value: os.nice adds to the soak's own (this script run under `nice -n 5`
    # starts its children at 5 to 10), at most 19.
    nice = min(19, os.getpriority(os.PRIO_PROCESS, 0) + rng.randint(0, 5))
    sig = None
    if rng.random() < 0.4:
        sig = rng.choice([signal.SIGINT, signal.SIGTERM])
        at = rng.uniform(0, expected)
    env = dict(os.environ, TMPDIR=tmp, HARNESS_HISTORY="off")

    def prepare(nice=nice):
        os.sched_setaffinity(0, base_cpus)
        os.setpriority(os.PRIO_PROCESS, 0, nice)

    with open(os.path.join(folder, "stdout"), "wb") as out, \
            open(os.path.join(folder, "stderr"), "wb") as err:
        p = subprocess.Popen(argv, stdout=out, stderr=err, env=env, preexec_fn=prepare)
    t0 = time.monotonic()
    kids = {}
    pinned = raised = sent = False
    while True:
        state = os.waitid(os.P_PID, p.pid, os.WEXITED | os.WNOWAIT | os.WNOHANG)
        if state is not None:
            break
        facts = proc_facts(p.pid)
        if facts:
            pinned |= facts[0] != base_list
            raised |= facts[1] < nice
        for k in children_of(p.pid):
            kids.setdefault(k, start_time(k))
        if sig is not None and not sent and time.monotonic() - t0 >= at:
            p.send_signal(sig)
            sent = True
        if time.monotonic() - t0 > 120:
            p.kill()
        time.sleep(0.002)
    left = proc_facts(p.pid)  # the zombie: what the process left itself with
    for k in children_of(p.pid):
        kids.setdefault(k, start_time(k))
    code = p.wait()
    counts["runs"] += 1
    counts["seen pinned"] += pinned
    counts["seen raised"] += raised
    by_kind[kind] = by_kind.get(kind, 0) + 1
    problems = []
    with open(os.path.join(folder, "stderr"), errors="replace") as f:
        err_text = f.read()
    shown = code if code >= 0 else f"signal {-code}"
    by_code[shown] = by_code.get(shown, 0) + 1
    if sent:
        counts["signalled"] += 1
    crash = (code < 0 and not (sent and -code == sig)) or reports_crash(code, err_text)
    if crash:
        counts["crashes"] += 1
        problems.append(f"crash: {shown}")
    if code >= 0 and code not in LISTED:
        counts["unlisted"] += 1
        problems.append(f"exit code {code} is not one docs/errors.md lists")
    want = {0} | ({4} if "--fail-if-slower" in argv else set())
    if sent:
        want |= {128 + sig, -sig}  # the signal may also come before the handlers are set
    # ab refuses, before any sample, sides whose batch would make one sample outlast --max-time
    # (valid options, a pair it cannot measure in that time): exit 2, counted apart.
    if kind == "ab" and code == 2 and "longer than --max-time" in err_text:
        counts["refused pairs"] += 1
        want |= {2}
    if code not in want and not crash:
        counts["unexpected"] += 1
        problems.append(f"exit code {shown}, expected one of {sorted(want)}")
    if left is None or left != (base_list, nice):
        counts["unrestored"] += 1
        problems.append(f"left with CPUs, nice {left}; started with {(base_list, nice)}")
    # A zombie has ended (its new parent reaps it): LeakSanitizer's tracer, which a sanitized
    # binary clones at exit, is one when the signal lands during the leak check.
    alive = [k for k, st in kids.items()
             if st is not None and start_time(k) == st and run_state(k) not in (None, "Z")]
    if alive or os.listdir(tmp):
        counts["children left"] += 1
        problems.append(f"children left {alive}, TMPDIR holds {os.listdir(tmp)}")
        for k in alive:
            try:
                os.kill(k, signal.SIGKILL)
            except OSError:
                pass
    expected_files = {"stdout", "stderr", "tmp", "a", "b", "history.json"}
    if report:
        expected_files.add(os.path.basename(report[1]))
        if os.path.exists(report[1]):
            bad = whole(report[0], report[1])
            if bad:
                counts["partial files"] += 1
                problems.append(f"{report[1]}: {bad}")
        elif code == 0:
            counts["missing reports"] += 1
            problems.append(f"exit 0 without its report {report[1]}")
    history = os.path.join(folder, "history.json")
    if os.path.exists(history) and whole("json", history):
        counts["partial files"] += 1
        problems.append(f"{history}: {whole('json', history)}")
    stray = sorted(set(os.listdir(folder)) - expected_files)
    if stray:
        counts["partial files"] += 1
        problems.append(f"left in the folder: {stray}")
    if problems:
        line = " ".join(argv[1:])
        tail = "\n".join("    | " + l for l in err_text.splitlines()[-8:])
        signalled = f" ({signal.Signals(sig).name} after {at:.3f} s)" if sent else ""
        failures.append(f"run {i}: harness {line}{signalled}\n  " + "\n  ".join(problems) +
                        ("\n" + tail if tail else ""))
        print(failures[-1], flush=True)
        if keep:
            shutil.copytree(folder, os.path.join(keep, f"run{i}"), dirs_exist_ok=True)
    if code == 0 and report and report[0] == "json" and not problems:
        kept = reports if kind == "run" else ab_reports
        kept.append(os.path.join(top, "reports", f"run{i}.json"))
        shutil.copy2(report[1], kept[-1])
    shutil.rmtree(folder)
    if rng.random() < 0.25:
        os.makedirs(folder)
        problems, line = read_back(folder)
        if problems:
            failures.append(f"run {i}, its reader: harness {line}\n  " + "\n  ".join(problems))
            print(failures[-1], flush=True)
            if keep:
                shutil.copytree(folder, os.path.join(keep, f"run{i}-reader"), dirs_exist_ok=True)
        shutil.rmtree(folder)
    if (i + 1) % 50 == 0:
        print(f"soak.sh: {i + 1} runs, {time.monotonic() - started:.0f} s", flush=True)
shutil.rmtree(top)
wall = time.monotonic() - started
print(f"soak.sh: {counts['runs']} runs ({', '.join(f'{k} {v}' for k, v in sorted(by_kind.items()))}) "
      f"in {wall:.0f} s, seed {seed}")
print("  by exit code: " + ", ".join(f"{k}: {v}" for k, v in
                                     sorted(by_code.items(), key=lambda kv: str(kv[0]))))
print("  " + ", ".join(f"{k} {v}" for k, v in counts.items() if k != "runs"))
bad = sum(counts[k] for k in ("crashes", "unlisted", "unexpected", "unrestored", "children left",
                              "partial files", "missing reports"))
print(f"soak.sh: {'FAILED: ' + str(len(failures)) + ' runs with problems' if bad else 'ok'}")
sys.exit(1 if bad else 0)
PY
