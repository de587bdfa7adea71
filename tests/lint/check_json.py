#!/usr/bin/python3
# check_json.py - validate one xpstat JSON document against a command's JSON Schema.
"""Usage: check_json.py SCHEMA.json FILE.json

Exits 0 when FILE.json is one strict JSON document (no NaN/Infinity, no
duplicate keys) with an integer "schema_version" at the top that validates
against SCHEMA.json; 1 otherwise, with one line per problem on stderr.
The schema's "$schema" picks the draft; without one, Draft 2020-12 is used
where the installed jsonschema has it, else Draft 7. A "$ref" to another
schema ("steps.schema.json", as report's has) resolves to the file of that
$id in the same directory, never over the network.
"""
import json
import os
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


def siblings(schema_path):
    """Every *.schema.json next to SCHEMA_PATH by its $id, so that "$ref": "steps.schema.json" resolves offline."""
    d = os.path.dirname(os.path.abspath(schema_path))
    store = {}
    for name in sorted(os.listdir(d)):
        if name.endswith(".schema.json"):
            s = load(os.path.join(d, name), strict=False)
            if isinstance(s, dict) and isinstance(s.get("$id"), str):
                store[s["$id"]] = s
            for uri in urls(s):
                fail(f"{name}: {uri}: a plain validator would fetch it over the network; $id and $ref stay relative")
    return store


def urls(node):
    """The absolute http(s) URIs among the $id and $ref values of a schema."""
    if isinstance(node, dict):
        for k, v in node.items():
            if k in ("$id", "$ref") and isinstance(v, str) and v.startswith(("http:", "https:")):
                yield v
            yield from urls(v)
    elif isinstance(node, list):
        for v in node:
            yield from urls(v)


def make_validator(cls, schema, store):
    try:  # jsonschema >= 4.18
        from referencing import Registry, Resource
        registry = Registry().with_resources((k, Resource.from_contents(v)) for k, v in store.items())
        return cls(schema, registry=registry)
    except ImportError:  # Debian 12's jsonschema 4.10
        return cls(schema, resolver=jsonschema.RefResolver.from_schema(schema, store=store))


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

    errors = sorted(make_validator(cls, schema, siblings(schema_path)).iter_errors(doc),
                    key=lambda e: (where(e), e.message))
    for e in errors[:20]:
        print("check_json: %s: at %s: %s" % (doc_path, where(e), e.message), file=sys.stderr)
    if len(errors) > 20:
        print("check_json: %s: %d more problems not shown" % (doc_path, len(errors) - 20), file=sys.stderr)
    if errors:
        sys.exit(1)
    print("check_json: %s: ok (%s)" % (doc_path, cls.__name__))


if __name__ == "__main__":
    main(sys.argv)
