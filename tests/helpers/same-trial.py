#!/usr/bin/env python3
"""same-trial.py A B: prints how two trial records (trial.json) of the same
trial differ, nothing when they are equivalent: every field must be equal
but the engine's name (sandbox, and the trial's key, which holds it), when
the trial ran and how long it took; in strings, a rollout's random id and a
job folder's time stamp count as equal. Exit 0 equivalent, 1 not."""
import json
import re
import sys

VOLATILE = {"sandbox", "key", "started_at", "finished_at", "durations", "wall_seconds"}
ROLLOUT = re.compile(r"__[0-9a-f]{8}\b")
JOB = re.compile(r"\b\d{4}-\d{2}-\d{2}__\d{2}-\d{2}-\d{2}\b")


def strip(v):
    if isinstance(v, dict):
        return {k: strip(x) for k, x in v.items() if k not in VOLATILE}
    if isinstance(v, list):
        return [strip(x) for x in v]
    if isinstance(v, str):
        return JOB.sub("<job>", ROLLOUT.sub("__<id>", v))
    return v


def diff(a, b, where, out):
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                out.append("%s.%s: only in %s" % (where, k, "the first" if k in a else "the second"))
            else:
                diff(a[k], b[k], where + "." + k, out)
    elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b)):
            diff(x, y, "%s[%d]" % (where, i), out)
    elif a != b:
        out.append("%s: %s != %s" % (where, json.dumps(a)[:200], json.dumps(b)[:200]))


def main():
    with open(sys.argv[1]) as f:
        a = strip(json.load(f))
    with open(sys.argv[2]) as f:
        b = strip(json.load(f))
    out = []
    diff(a, b, "", out)
    for line in out:
        print(line)
    return 1 if out else 0


sys.exit(main())
