#!/usr/bin/env python3
"""Spawn -> initialize, the shared kit's way, for two or more builds side by side (issue 25).

Each spawn is the kit's own measurement: mcp_client.py's Session (subprocess.Popen) and
handshake (dialect fsbox, its initialize params, the reply read and parsed), imported from the
kit, so the numbers are the kit's `init ms`. The builds take turns spawn by spawn (A B A B ...),
so a burst of load on the shared machine falls on all of them alike; minimum, 10th percentile,
median and mean per build.

    python3 bench/startup.py --root DIR -n 200 before=/tmp/fsbox-before after=bin/fsbox
    python3 bench/startup.py --root DIR -n 200 on=bin/fsbox "off=bin/fsbox serve --sandbox off"

LABEL=BINARY runs `BINARY serve` (or BINARY followed by --args); LABEL="BINARY ARGS..." runs
that command line as it is. The kit is found as run.sh finds
it (FSBENCH_KIT, ../shared/bench, ../../shared/bench).
"""
import argparse
import os
import shlex
import statistics
import sys

here = os.path.dirname(os.path.abspath(__file__))


def find_kit():
    cands = [os.environ.get("FSBENCH_KIT", ""), os.path.join(here, "..", "..", "shared", "bench"),
             os.path.join(here, "..", "..", "..", "shared", "bench")]
    for k in cands:
        if k and os.path.isfile(os.path.join(k, "mcp_client.py")):
            return os.path.abspath(k)
    sys.exit("startup.py: set FSBENCH_KIT to the folder holding the shared mcp_client.py")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", required=True)
    ap.add_argument("-n", type=int, default=100, help="spawns per build")
    ap.add_argument("--args", default="serve", help="the arguments after the binary")
    ap.add_argument("builds", nargs="+", help="LABEL=BINARY")
    a = ap.parse_args()
    sys.path.insert(0, find_kit())
    from mcp_client import Session, handshake  # the kit's own client

    builds = []
    for b in a.builds:
        label, _, binary = b.partition("=")
        if not binary:
            sys.exit("startup.py: a build is LABEL=BINARY, got %r" % b)
        cmd = shlex.split(binary)
        builds.append((label, cmd if len(cmd) > 1 else cmd + shlex.split(a.args)))
    times = {label: [] for label, _ in builds}
    for i in range(a.n):
        order = builds if i % 2 == 0 else builds[::-1]
        for label, cmd in order:
            sess = Session(cmd)
            try:
                ns, info = handshake(sess, "fsbox", a.root, "1")
            finally:
                sess.close()
            if i == 0 and "initialize_result" in info:
                sb = info["initialize_result"].get("sandbox")
                print("%s: sandbox %s" % (label, sb), file=sys.stderr)
            times[label].append(ns / 1e6)
    print("%-10s %6s %7s %7s %7s %7s  (ms, spawn -> initialize reply parsed)" % ("build", "n", "min", "p10", "median", "mean"))
    for label, _ in builds:
        t = sorted(times[label])
        print("%-10s %6d %7.2f %7.2f %7.2f %7.2f" % (label, len(t), t[0], t[len(t) // 10], statistics.median(t), statistics.fmean(t)))


if __name__ == "__main__":
    main()
