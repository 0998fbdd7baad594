#!/usr/bin/env python3
"""atif-validate.py SCHEMA FILE... — checks ATIF files against the checked-in
JSON schema (the subset of JSON Schema it uses: type, enum, required,
properties, additionalProperties, items, minimum, minLength, $ref into
$defs) and the RFC's rules a schema cannot say: step_ids run 1, 2, ...;
every source_call_id names a tool call of its own step; reasoning, tool
calls and metrics only on agent steps. Python's standard library only.
Prints one line per problem; exit 1 when any, 2 on bad usage."""
import json
import sys

TYPES = {"object": dict, "array": list, "string": str, "boolean": bool, "null": type(None)}


def is_type(v, t):
    if t == "integer":
        return isinstance(v, int) and not isinstance(v, bool)
    if t == "number":
        return isinstance(v, (int, float)) and not isinstance(v, bool)
    return isinstance(v, TYPES[t])


def check(schema, v, root, where, out):
    if "$ref" in schema:
        schema = root["$defs"][schema["$ref"].split("/")[-1]]
    t = schema.get("type")
    if t is not None:
        ts = t if isinstance(t, list) else [t]
        if not any(is_type(v, x) for x in ts):
            out.append("%s: %r is not %s" % (where, v if not isinstance(v, (dict, list)) else type(v).__name__, t))
            return
    if "enum" in schema and v not in schema["enum"]:
        out.append("%s: %r is not one of %s" % (where, v, schema["enum"]))
    if "minimum" in schema and is_type(v, "number") and v < schema["minimum"]:
        out.append("%s: %r is below %r" % (where, v, schema["minimum"]))
    if "minLength" in schema and isinstance(v, str) and len(v) < schema["minLength"]:
        out.append("%s: empty" % where)
    if isinstance(v, dict):
        for k in schema.get("required", []):
            if k not in v:
                out.append("%s: '%s' is required" % (where, k))
        props = schema.get("properties", {})
        for k, x in v.items():
            if k in props:
                check(props[k], x, root, "%s.%s" % (where, k), out)
            elif schema.get("additionalProperties") is False:
                out.append("%s: '%s' is not allowed" % (where, k))
    if isinstance(v, list) and "items" in schema:
        for i, x in enumerate(v):
            check(schema["items"], x, root, "%s[%d]" % (where, i), out)


def rfc_rules(doc, out):
    steps = doc.get("steps") if isinstance(doc, dict) else None
    for i, st in enumerate(steps if isinstance(steps, list) else []):
        if not isinstance(st, dict):
            continue
        if st.get("step_id") != i + 1:
            out.append("steps[%d]: step_id %r, not %d (they run 1, 2, ...)" % (i, st.get("step_id"), i + 1))
        if st.get("source") != "agent":
            for k in ("model_name", "reasoning_effort", "reasoning_content", "tool_calls", "metrics"):
                if k in st:
                    out.append("steps[%d]: '%s' on a %s step (agent steps only)" % (i, k, st.get("source")))
        ids = {tc.get("tool_call_id") for tc in st.get("tool_calls") or [] if isinstance(tc, dict)}
        for r in (st.get("observation") or {}).get("results") or []:
            sid = r.get("source_call_id") if isinstance(r, dict) else None
            if sid is not None and sid not in ids:
                out.append("steps[%d]: source_call_id %r names no tool call of the step" % (i, sid))


def main(argv):
    if len(argv) < 3:
        print("usage: atif-validate.py SCHEMA FILE...", file=sys.stderr)
        return 2
    with open(argv[1]) as f:
        schema = json.load(f)
    bad = 0
    for path in argv[2:]:
        out = []
        try:
            with open(path) as f:
                doc = json.load(f)
        except (OSError, ValueError) as e:
            out.append("not JSON: %s" % e)
        else:
            check(schema, doc, schema, "$", out)
            rfc_rules(doc, out)
        for line in out:
            print("%s: %s" % (path, line))
        bad += bool(out)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
