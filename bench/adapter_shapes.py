#!/usr/bin/env python3
"""What each result shape costs an adapter (issue 25, item 2): bytes on the wire and parse time.

For each shape a framework adapter may ask for (capabilities.result_shape "both", "text",
"typed") and for the MCP server (``fsbox mcp``, whose results carry structuredContent and a text
block), it takes the reply of the same call from a real fsbox process and times, on that reply
alone, what the client does with it:

- Python: the standard ``json.loads``, ``orjson.loads`` (the SDK's ``fast`` extra, when
  installed), and the SDK's decoding of the result (``Client.call``'s path: the generated
  dataclass for "both" and "typed", the bare text for "text");
- TypeScript: ``JSON.parse`` in node (when node is on PATH).

Calls: read_file src/fmt/doc.go (15.8 KB) and list_directory src/net, on the same copy of
``$(go env GOROOT)/src`` files as bench/sdk_overhead.py.

Usage::

    go build -o bin/fsbox ./cmd/fsbox
    python3 bench/adapter_shapes.py --binary bin/fsbox

Not a test: nothing asserts a time.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "sdks", "python", "src"))

from sdk_overhead import Pipe, corpus  # noqa: E402

from fsbox.client import _decode_any_tool  # noqa: E402

CALLS = [("read_file", {"path": "src/fmt/doc.go"}), ("list_directory", {"path": "src/net"})]

NODE_PARSE = r"""
const lines = JSON.parse(require("fs").readFileSync(0, "utf8"));
const out = [];
for (const line of lines) {
  const t = [];
  for (let i = 0; i < 3000; i++) { const t0 = process.hrtime.bigint(); JSON.parse(line); t.push(Number(process.hrtime.bigint() - t0) / 1000); }
  t.sort((a, b) => a - b); out.push(t[t.length >> 1]);
}
console.log(JSON.stringify(out));
"""


def med(fn: Any, n: int = 3000) -> float:
    times = []
    for _ in range(n):
        t0 = time.perf_counter_ns()
        fn()
        times.append(time.perf_counter_ns() - t0)
    return round(statistics.median(times) / 1000, 1)


def mcp_lines(binary: str, root: str) -> list[bytes]:
    p = subprocess.Popen([binary, "mcp", "--root", root], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL)
    assert p.stdin and p.stdout

    def send(m: dict[str, Any]) -> None:
        assert p.stdin
        p.stdin.write(json.dumps(m).encode() + b"\n")
        p.stdin.flush()

    send({"jsonrpc": "2.0", "id": 1, "method": "initialize",
          "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "b", "version": "1"}}})
    p.stdout.readline()
    send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    out = []
    for i, (tool, args) in enumerate(CALLS):
        send({"jsonrpc": "2.0", "id": 10 + i, "method": "tools/call", "params": {"name": tool, "arguments": args}})
        out.append(p.stdout.readline())
    p.stdin.close()
    p.wait()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--binary", default=os.environ.get("FSBOX_BIN") or os.path.join(HERE, "..", "bin", "fsbox"))
    opts = ap.parse_args()
    binary = os.path.abspath(opts.binary)
    try:
        import orjson
    except ImportError:
        orjson = None  # type: ignore[assignment]
    goroot = subprocess.run(["go", "env", "GOROOT"], capture_output=True, text=True, check=True).stdout.strip()
    root = corpus(goroot)
    rows: list[dict[str, Any]] = []
    try:
        for shape in ("both", "text", "typed"):
            pipe = Pipe(binary, root, shape=shape)
            for tool, args in CALLS:
                pipe.call(tool, args)
                line = pipe.last_line
                result = json.loads(line)["result"]
                rows.append({
                    "who": f"fsbox serve, {shape}", "call": tool, "line": line,
                    "sdk_decode_us": med(lambda: _decode_any_tool(shape, tool, result)),
                })
            pipe.close()
        for (tool, _), line in zip(CALLS, mcp_lines(binary, root)):
            rows.append({"who": "fsbox mcp", "call": tool, "line": line, "sdk_decode_us": None})
    finally:
        shutil.rmtree(root, ignore_errors=True)
    for r in rows:
        line = r["line"]
        r["bytes"] = len(line)
        r["json_us"] = med(lambda: json.loads(line))
        r["orjson_us"] = med(lambda: orjson.loads(line)) if orjson else None
    node = shutil.which("node")
    if node:
        got = subprocess.run([node, "-e", NODE_PARSE], input=json.dumps([r["line"].decode() for r in rows]),
                             capture_output=True, text=True, check=True).stdout
        for r, t in zip(rows, json.loads(got)):
            r["node_us"] = round(t, 1)
    print(f"Python {sys.version.split()[0]}, node {'yes' if node else 'no'}; median µs to parse one reply\n")
    print("| reply | call | bytes | json.loads | orjson.loads | SDK decode (after loads) | node JSON.parse |")
    print("|---|---|--:|--:|--:|--:|--:|")
    for r in rows:
        print(f"| {r['who']} | {r['call']} | {r['bytes']:,} | {r['json_us']} | {r['orjson_us'] if r['orjson_us'] is not None else '–'} | "
              f"{r['sdk_decode_us'] if r['sdk_decode_us'] is not None else '–'} | {r.get('node_us', '–')} |")


if __name__ == "__main__":
    main()
