#!/usr/bin/env python3
"""Checks a harness JSON report against docs/output.schema.json.

A small validator for the JSON Schema keywords that schema uses (type, enum, const, required,
properties, items, minimum, maximum, exclusiveMinimum, $ref to #/$defs, if/then/else), written
here because no JSON Schema package may be installed. An unknown keyword is an error, so the
schema cannot silently use one this checker ignores.

Usage: reports_schema_check.py SCHEMA REPORT.json [...]   exit 0 when every report conforms.
"""
import json
import sys

KNOWN = {"$schema", "$id", "title", "description", "$defs", "type", "enum", "const", "required",
         "properties", "items", "minimum", "maximum", "exclusiveMinimum", "$ref", "if", "then",
         "else"}
TYPES = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
}


def errors(value, schema, root, path):
    unknown = set(schema) - KNOWN
    if unknown:
        yield f"{path}: schema uses unsupported keywords {sorted(unknown)}"
    if "$ref" in schema:
        ref = schema["$ref"]
        assert ref.startswith("#/$defs/"), ref
        yield from errors(value, root["$defs"][ref[len("#/$defs/"):]], root, path)
    if "type" in schema:
        types = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        if not any(TYPES[t](value) for t in types):
            yield f"{path}: {value!r:.60} is not of type {types}"
            return
    if "enum" in schema and value not in schema["enum"]:
        yield f"{path}: {value!r:.60} is not one of {schema['enum']}"
    if "const" in schema and value != schema["const"]:
        yield f"{path}: {value!r:.60} is not {schema['const']!r}"
    number = TYPES["number"](value)
    if number and "minimum" in schema and value < schema["minimum"]:
        yield f"{path}: {value} < minimum {schema['minimum']}"
    if number and "maximum" in schema and value > schema["maximum"]:
        yield f"{path}: {value} > maximum {schema['maximum']}"
    if number and "exclusiveMinimum" in schema and value <= schema["exclusiveMinimum"]:
        yield f"{path}: {value} <= exclusiveMinimum {schema['exclusiveMinimum']}"
    if isinstance(value, dict):
        for key in schema.get("required", []):
            if key not in value:
                yield f"{path}: missing required '{key}'"
        for key, sub in schema.get("properties", {}).items():
            if key in value:
                yield from errors(value[key], sub, root, f"{path}.{key}")
    if isinstance(value, list) and "items" in schema:
        for i, item in enumerate(value):
            yield from errors(item, schema["items"], root, f"{path}[{i}]")
    if "if" in schema:
        branch = "then" if not list(errors(value, schema["if"], root, path)) else "else"
        if branch in schema:
            yield from errors(value, schema[branch], root, path)


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    with open(argv[1]) as f:
        schema = json.load(f)
    bad = 0
    for name in argv[2:]:
        with open(name) as f:
            report = json.load(f)
        problems = list(errors(report, schema, schema, "$"))
        for p in problems[:20]:
            print(f"{name}: {p}")
        bad += bool(problems)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
