#!/usr/bin/env python3
"""What checking rendered documents against Kubernetes schemas adds to `check`.

usage: kubernetes_cost.py YTTCHECK_BIN REPOSITORY SCHEMA_LOCATION VERSION [N]

Runs `check` on REPOSITORY N times (default 10) without and with
`--schema-location SCHEMA_LOCATION --kubernetes-version VERSION` (and once
more with `--kubernetes-strict`), alternating so that a busy minute hits all
of them alike; prints the median, min and max wall time of each and the
median's increase. The repository's templates should render Kubernetes
objects (benches/README: the 1,000-pair bench repository with `apiVersion`
added). Schemas are compiled once per run: their cost is in the figure.
"""

import statistics
import subprocess
import sys
import time


def timed(cmd, cwd):
    start = time.perf_counter()
    subprocess.run(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def main():
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    binary, repo, location, version = sys.argv[1:5]
    n = int(sys.argv[5]) if len(sys.argv) > 5 else 10
    base = [binary, "check", "-q", "--daemon", "never", "--format", "json"]
    k8s = base + ["--schema-location", location, "--kubernetes-version", version]
    runs = {"plain": base, "kubernetes": k8s, "kubernetes strict": k8s + ["--kubernetes-strict"]}
    times = {name: [] for name in runs}
    for _ in range(n):
        for name, cmd in runs.items():
            times[name].append(timed(cmd, repo))
    plain = statistics.median(times["plain"])
    for name, ts in times.items():
        m = statistics.median(ts)
        print(
            f"{name:18} median {m * 1000:7.1f} ms  min {min(ts) * 1000:7.1f}  max {max(ts) * 1000:7.1f}"
            f"  (+{(m / plain - 1) * 100:5.1f}% over plain)"
        )


if __name__ == "__main__":
    main()
