#!/usr/bin/python3
# csv_matches_json.py - one table's CSV holds exactly what its JSON holds: same columns in order, same rows, same values.
"""Usage: csv_matches_json.py FILE.csv FILE.json TABLE

Exits 0 when the CSV header is the JSON row keys in order, the CSV has one
record per JSON row and nothing else (no blank or extra lines), and every
cell carries the JSON value: null is an empty field, a number is a plain
decimal (no thousands separators, '.' decimals) that reads back as the same
double, a boolean is true/false, and text is the same text (with a leading
' when it would start a spreadsheet formula). 1 otherwise, with the
problems on stderr.
"""
import csv
import io
import json
import re
import sys

NUMBER = re.compile(r"^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?$")
ID = re.compile(r"^-?[0-9]+$")
problems = []


def problem(msg):
    if len(problems) < 20:
        problems.append(msg)


def check_cell(where, text, value):
    if value is None:
        if text != "":
            problem(f"{where}: want an empty field for null, got {text!r}")
    elif isinstance(value, bool):
        if text != ("true" if value else "false"):
            problem(f"{where}: want {str(value).lower()}, got {text!r}")
    elif isinstance(value, (int, float)):
        if not NUMBER.match(text):
            problem(f"{where}: {text!r} is not a plain number")
        elif float(text) != float(value) or (isinstance(value, int) and text != str(value)):
            problem(f"{where}: CSV {text!r} != JSON {value!r}")
    else:
        want = value
        # A 64-bit id is a JSON string but a number in CSV: never neutralized, also when negative.
        if want[:1] in ("=", "+", "-", "@", "\t", "\r") and not (ID.match(want) and text == want):
            want = "'" + want
        if text != want:
            problem(f"{where}: CSV {text!r} != JSON {value!r}")


def main(argv):
    if len(argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    csv_path, json_path, table = argv[1:]
    with open(csv_path, newline="", encoding="utf-8") as f:
        raw = f.read()
    if not raw.endswith("\r\n"):
        problem("the last record does not end in CRLF")
    if "\r\n\r\n" in raw or raw.startswith("\r\n"):
        problem("blank record")
    records = list(csv.reader(io.StringIO(raw, newline=""), strict=True))
    with open(json_path, encoding="utf-8") as f:
        rows = json.load(f)["tables"][table]
    if not records:
        problem("no header")
    else:
        header, body = records[0], records[1:]
        keys = list(rows[0].keys()) if rows else header
        if header != keys:
            problem(f"header {header} != JSON keys {keys}")
        if len(body) != len(rows):
            problem(f"{len(body)} CSV records, {len(rows)} JSON rows")
        for i, (rec, row) in enumerate(zip(body, rows)):
            if len(rec) != len(header):
                problem(f"record {i + 2}: {len(rec)} fields, header has {len(header)}")
                continue
            for key, text in zip(header, rec):
                check_cell(f"record {i + 2} {key}", text, row.get(key))
    for p in problems:
        print("csv_matches_json: " + p, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
