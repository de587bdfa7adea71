#!/usr/bin/python3
# check_json.py - validate one xpstat JSON document against a command's JSON Schema.
"""Usage: check_json.py SCHEMA.json FILE.json

Exits 0 when FILE.json is one strict JSON document (no NaN/Infinity, no
duplicate keys) with an integer "schema_version" at the top that validates
against SCHEMA.json; 1 otherwise, with one line per problem on stderr.
The schema's "$schema" picks the draft; without one, Draft 2020-12 is used
where the installed jsonschema has it, else Draft 7.
"""
import json
import sys

import jsonschema


def fail(msg):
    print("check_json: " + msg, file=sys.stderr)
    sys.exit(1)


def reject_constant(name):
    # json.load accepts NaN and Infinity, which are not JSON.
    raise ValueError("non-JSON constant " + name)


def no_duplicates(pairs):
    obj = {}
    for key, value in pairs:
        if key in obj:
            raise ValueError("duplicate key " + json.dumps(key))
        obj[key] = value
    return obj


def load(path, strict):
    try:
        with open(path, "rb") as f:
            raw = f.read()
        text = raw.decode("utf-8")
        if strict:
            return json.loads(text, parse_constant=reject_constant, object_pairs_hook=no_duplicates)
        return json.loads(text)
    except (OSError, UnicodeDecodeError, ValueError) as e:
        fail("%s: %s" % (path, e))


def validator_class(schema):
    default = getattr(jsonschema, "Draft202012Validator", jsonschema.Draft7Validator)
    return jsonschema.validators.validator_for(schema, default=default)


def where(error):
    return "/" + "/".join(str(p) for p in error.absolute_path)


def main(argv):
    if len(argv) != 3:
        fail("usage: check_json.py SCHEMA.json FILE.json")
    schema_path, doc_path = argv[1], argv[2]
    schema = load(schema_path, strict=False)
    doc = load(doc_path, strict=True)

    cls = validator_class(schema)
    try:
        cls.check_schema(schema)
    except jsonschema.exceptions.SchemaError as e:
        fail("%s: not a valid schema: %s" % (schema_path, e.message))

    if not isinstance(doc, dict):
        fail("%s: the document is not a JSON object" % doc_path)
    version = doc.get("schema_version")
    if version is None:
        fail('%s: no "schema_version" at the top' % doc_path)
    if isinstance(version, bool) or not isinstance(version, int):
        fail('%s: "schema_version" is not an integer' % doc_path)

    errors = sorted(cls(schema).iter_errors(doc), key=lambda e: (where(e), e.message))
    for e in errors[:20]:
        print("check_json: %s: at %s: %s" % (doc_path, where(e), e.message), file=sys.stderr)
    if len(errors) > 20:
        print("check_json: %s: %d more problems not shown" % (doc_path, len(errors) - 20), file=sys.stderr)
    if errors:
        sys.exit(1)
    print("check_json: %s: ok (%s)" % (doc_path, cls.__name__))


if __name__ == "__main__":
    main(sys.argv)
