#!/usr/bin/env python3
"""Records ytt's answers for this repository's own conformance cases.

Each case under cases/ is laid out as ../shared/conformance's are (files/,
args.json, meta.json); this runs the real ytt named by $YTT in the case's
folder, as ../shared/conformance/run.py runs the tool under test, and writes
expected.stdout, expected.stderr and expected.exit. The cases are written
here, by hand; only ytt's answers are recorded (the README of
tests/conformance says which ytt).

    YTT=/path/to/ytt python3 tests/conformance/record.py [CASE ...]
"""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def record(case):
    with open(os.path.join(case, "args.json")) as f:
        spec = json.load(f)
    env = {k: os.environ[k] for k in ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR") if k in os.environ}
    env.update(spec.get("env", {}))
    run = subprocess.run([os.environ["YTT"], *spec["args"]], cwd=case, env=env,
                         capture_output=True, timeout=60)
    for name, data in (("expected.stdout", run.stdout), ("expected.stderr", run.stderr),
                       ("expected.exit", b"%d\n" % run.returncode)):
        with open(os.path.join(case, name), "wb") as f:
            f.write(data)
    print(f"{os.path.basename(case)}: exit {run.returncode}")


def main():
    if "YTT" not in os.environ:
        sys.exit("set YTT to the ytt binary to record with")
    cases = sys.argv[1:] or sorted(
        os.path.join(HERE, "cases", c) for c in os.listdir(os.path.join(HERE, "cases")))
    for case in cases:
        record(os.path.abspath(case))


if __name__ == "__main__":
    main()
