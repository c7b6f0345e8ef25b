#!/usr/bin/python3
"""Checks harness JSON reports against docs/output.schema.json with python3-jsonschema.

The validator is the one the schema's own "$schema" names (Draft 2020-12), and the schema is
checked against its metaschema first. Every error is printed with the JSON path of the failing
field ($.benchmarks[3].harness.floor: ...); no error is skipped. /usr/bin/python3 is Debian's,
which python3-jsonschema installs into; a missing package is a failure, never a skip.

Usage: schema_check.py SCHEMA REPORT.json [...]   exit 0 when every report conforms.
"""
import json
import sys

try:
    import jsonschema
except ImportError:
    print("schema_check.py: python3-jsonschema is missing (apt-get install python3-jsonschema)",
          file=sys.stderr)
    sys.exit(2)


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    with open(argv[1]) as f:
        schema = json.load(f)
    validator_class = jsonschema.validators.validator_for(schema, default=None)
    if validator_class is None:
        print(f"{argv[1]}: names no JSON Schema draft this jsonschema knows", file=sys.stderr)
        return 2
    validator_class.check_schema(schema)
    # format checks too (date-time and the like), where the schema asks for them
    validator = validator_class(schema, format_checker=validator_class.FORMAT_CHECKER)
    bad = 0
    for name in argv[2:]:
        with open(name) as f:
            report = json.load(f)
        problems = sorted(validator.iter_errors(report), key=lambda e: e.json_path)
        for p in problems:
            print(f"{name}: {p.json_path}: {p.message}")
        bad += bool(problems)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
