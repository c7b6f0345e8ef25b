#!/usr/bin/env python3
"""The README's option table against `harness --help` (issue 27): every default the table states
is one the help states for that option, and every option whose help shows a default (CLI11's
`TEXT=20`) has it stated in the table (a new option without a row fails). The README said `--max-time` defaults to 2s while the code
and --help said 500ms.

Usage: readme_defaults_check.py PATH/TO/harness PATH/TO/README.md

The help's defaults of an option: CLI11's `=VALUE` and every "(default VALUE" or "default: VALUE"
in its description. The table's: each "default `VALUE`" or "default NUMBER" in a row, belonging to
the option named in backticks right before it (`--max-time` (default `10s`)), else to the row's
own first option.
"""
import os
import re
import subprocess
import sys

TYPES = r"(?:TEXT|INT|UINT|FLOAT|NUMBER)"
HELP_LINE = re.compile(
    r"^\s+(?P<names>-\S+)(?:\s+" + TYPES + r"(?::[A-Z]+)?(?:=(?P<default>\S+))?(?:\s\.\.\.)?)?"
    r"\s+(?P<description>.*)$"
)
# "(default 500ms)", "(default: $HARNESS_HISTORY, else ...)", "default: calibrated so ...".
HELP_DEFAULT = re.compile(r"\(?default:? ([^;,)\s]+)")
# "default `1200ms`", "(default `0.1%`;", "(default 5)" -- not "default: the least-loaded CPU".
README_DEFAULT = re.compile(r"default:? (?:`([^`]+)`|([0-9][\w.%]*))", re.IGNORECASE)
OPTION = re.compile(r"`(-{1,2}[\w-]+)(?:[ ,][^`]*)?`")


def option_names(text):
    """The long names in a help line's or a table cell's option list: -n,--samples -> --samples."""
    return [name for name in re.findall(r"--[\w-]+|(?<![\w-])-\w\b", text)]


def help_defaults(harness):
    env = dict(os.environ, HARNESS_HISTORY="off")
    out = subprocess.run([harness, "--help"], capture_output=True, text=True, env=env, check=True)
    defaults = {}
    for line in out.stdout.splitlines():
        m = HELP_LINE.match(line)
        if not m:
            continue
        found = set()
        if m.group("default"):
            found.add(m.group("default"))
        found.update(HELP_DEFAULT.findall(m.group("description")))
        entry = (found, m.group("default"))  # one object for all its names (-n, --samples)
        for name in option_names(m.group("names")):
            defaults[name] = entry
    return defaults


def readme_defaults(readme):
    """(option, value, line number) for every default the option tables state."""
    stated = []
    for number, line in enumerate(open(readme, encoding="utf-8"), 1):
        cells = [c.strip() for c in line.strip().strip("|").split(" | ")]
        if not line.startswith("| `-") or len(cells) < 2:
            continue
        own = [m.group(1) for m in OPTION.finditer(cells[0])]
        text = " | ".join(cells[1:])
        for m in README_DEFAULT.finditer(text):
            before = text[: m.start()].rstrip(" (")
            named = re.search(r"`(--[\w-]+)[^`]*`$", before)
            option = named.group(1) if named else own[0]
            stated.append((option, m.group(1) or m.group(2), number))
    return stated


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    harness, readme = sys.argv[1], sys.argv[2]
    helps = help_defaults(harness)
    stated = readme_defaults(readme)
    failures = []
    checked = 0
    for option, value, number in stated:
        checked += 1
        if option not in helps:
            failures.append(f"README.md:{number}: {option} (default {value}) is not in --help")
        elif value not in helps[option][0]:
            shown = ", ".join(sorted(helps[option][0])) or "none"
            failures.append(
                f"README.md:{number}: {option}: the README says default {value}, "
                f"--help says {shown}"
            )
    # An option whose help shows a default (CLI11's =VALUE) has it in the table: a new option, or
    # a row that lost its default, fails too. -n,--samples counts as stated under either name.
    said = {option for option, _, _ in stated}
    aliases = {}
    for option in helps:
        aliases.setdefault(id(helps[option]), set()).add(option)
    for option, (found, cli_default) in sorted(helps.items()):
        names = aliases[id(helps[option])]
        if cli_default and not names & said:
            failures.append(
                f"README.md: {option}: --help shows the default {cli_default}, the option table "
                "states none"
            )
    for failure in failures:
        print("FAIL: " + failure)
    print(f"readme defaults: {checked} defaults checked, {len(failures)} failed")
    if checked == 0:
        print("FAIL: no default found in the README's option table: the check reads nothing")
        sys.exit(1)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
