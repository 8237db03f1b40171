#!/usr/bin/env python3
"""Both sides of the pipe for one call, as the shared kit's Python client meets it.

For each (server, call) it spawns the server, does the handshake, makes `warmup` untimed calls,
then n timed calls one at a time, and reports per call:

  rt p50 / mean   round trip, request written to reply line read (what the kit times)
  srv cpu         the server process's user + system CPU (/proc/PID/stat, all threads) over the
                  timed calls, divided by n: what the server spends, whatever the machine's load
  parse           the client's json.loads of the reply line (outside the kit's timed window, but
                  paid by every Python framework)
  bytes           the reply line

Stdlib only. Prints a markdown table; --json-out appends one JSON object per row.

  sides.py --root ROOT --fsbox "bin/fsbox serve" --mcp "node .../dist/index.js ROOT" [-n 500]
"""

import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
import time

CLK = os.sysconf("SC_CLK_TCK")

FSBOX_TOOLS = ["read_file", "write_file", "edit_file", "list_directory", "search_files", "find_files",
               "create_directory", "file_info", "directory_tree"]


def cpu_s(pid):
    """User + system CPU seconds of pid so far (all threads)."""
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK


class Server:
    def __init__(self, argv):
        self.p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, bufsize=1 << 20)
        self.id = 0

    def line(self, method, params):
        """Returns (id, encoded request line)."""
        self.id += 1
        return self.id, (json.dumps({"jsonrpc": "2.0", "id": self.id, "method": method, "params": params},
                                    separators=(",", ":")) + "\n").encode()

    def roundtrip(self, req):
        rid, data = req
        t0 = time.perf_counter_ns()
        self.p.stdin.write(data)
        self.p.stdin.flush()
        while True:
            raw = self.p.stdout.readline()
            if not raw:
                raise SystemExit("server closed stdout")
            if b'"id":%d,' % rid in raw or b'"id":%d}' % rid in raw:
                return raw, time.perf_counter_ns() - t0

    def close(self):
        self.p.stdin.close()
        try:
            self.p.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()


def run(label, argv, handshake, tool, args, n, warmup):
    s = Server(argv)
    try:
        for method, params in handshake:
            if method.startswith("notifications/"):
                s.p.stdin.write((json.dumps({"jsonrpc": "2.0", "method": method}) + "\n").encode())
                continue
            raw, _ = s.roundtrip(s.line(method, params))
            if b'"error"' in raw[:200]:
                raise SystemExit("%s: %s failed: %s" % (label, method, raw[:300]))
        reqs = [s.line("tools/call", {"name": tool, "arguments": args}) for _ in range(warmup + n)]
        for r in reqs[:warmup]:
            s.roundtrip(r)
        lat, parse, size = [], [], 0
        c0 = cpu_s(s.p.pid)
        for r in reqs[warmup:]:
            raw, ns = s.roundtrip(r)
            lat.append(ns / 1000)
            size = len(raw)
            t0 = time.perf_counter_ns()
            msg = json.loads(raw)
            parse.append((time.perf_counter_ns() - t0) / 1000)
            res = msg.get("result") or {}
            if "error" in msg or res.get("isError"):
                raise SystemExit("%s: call failed: %s" % (label, raw[:300]))
        srv = (cpu_s(s.p.pid) - c0) / n * 1e6
    finally:
        s.close()
    return {"label": label, "tool": tool, "n": n, "rt_p50_us": statistics.median(lat),
            "rt_mean_us": statistics.fmean(lat), "srv_cpu_us": srv,
            "parse_p50_us": statistics.median(parse), "bytes": size}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--root", required=True, help="the kit's corpus root (holds src/)")
    ap.add_argument("--fsbox", required=True, help="fsbox server command line")
    ap.add_argument("--mcp", help="MCP filesystem server command line (the root as its argument)")
    ap.add_argument("-n", type=int, default=500)
    ap.add_argument("--warmup", type=int, default=50)
    ap.add_argument("--rounds", type=int, default=3, help="repeat every row; the table shows medians")
    ap.add_argument("--json-out")
    a = ap.parse_args()
    root = a.root
    fs_argv = shlex.split(a.fsbox)

    def fsbox_hs(shape):
        p = {"protocol_version": "1", "config": {"root_dir": root, "tools": FSBOX_TOOLS,
                                                 "max_list_results": 1000000}}
        if shape:
            p["capabilities"] = {"result_shape": shape}
        return [("initialize", p)]

    mcp_hs = [("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                              "clientInfo": {"name": "sides", "version": "0"}}),
              ("notifications/initialized", None)]
    rows = [
        ("list_dir", "fsbox", fs_argv, fsbox_hs(None), "list_directory", {"path": "src/net"}),
        ("list_dir", "fsbox text", fs_argv, fsbox_hs("text"), "list_directory", {"path": "src/net"}),
        ("read_small", "fsbox", fs_argv, fsbox_hs(None), "read_file", {"path": "src/fmt/doc.go"}),
        ("read_small", "fsbox text", fs_argv, fsbox_hs("text"), "read_file", {"path": "src/fmt/doc.go"}),
    ]
    if a.mcp:
        m_argv = shlex.split(a.mcp)
        rows[0:0] = [
            ("list_dir", "mcp-fs", m_argv, mcp_hs, "list_directory", {"path": root + "/src/net"}),
            ("list_dir", "mcp-fs sizes", m_argv, mcp_hs, "list_directory_with_sizes", {"path": root + "/src/net"}),
        ]
        rows.insert(4, ("read_small", "mcp-fs", m_argv, mcp_hs, "read_text_file", {"path": root + "/src/fmt/doc.go"}))
    results = {}
    for _ in range(a.rounds):
        for sc, label, argv, hs, tool, args in rows:
            r = run(label, argv, hs, tool, args, a.n, a.warmup)
            results.setdefault((sc, label, tool), []).append(r)
            if a.json_out:
                with open(a.json_out, "a") as f:
                    f.write(json.dumps(dict(r, scenario=sc)) + "\n")
    print("| scenario | server | tool | rt p50 µs | rt mean µs | server CPU µs/call | client json.loads µs | reply B |")
    print("|---|---|---|--:|--:|--:|--:|--:|")
    for (sc, label, tool), rs in results.items():
        med = lambda k: statistics.median(r[k] for r in rs)
        print("| %s | %s | `%s` | %.0f | %.0f | %.0f | %.0f | %d |" % (
            sc, label, tool, med("rt_p50_us"), med("rt_mean_us"), med("srv_cpu_us"), med("parse_p50_us"), rs[0]["bytes"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
