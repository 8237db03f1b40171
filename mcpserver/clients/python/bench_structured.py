"""What a tools/call reply of `fsbox mcp` costs the official MCP Python client (mcp, pinned in
requirements.txt): bytes on the wire and the client's parse time, for one or more fsbox binaries
(before and after a change), same run, interleaved.

Calls: read_file src/fmt/doc.go (15.8 KB) and list_directory src/net (238 entries), copied from
$(go env GOROOT)/src into a fresh root under the same names, as bench/adapter_shapes.py does.

The calls go through mcp.Client over stdio in its default mode (2026-07-28). Every stdout line the
client reads is recorded at its parser (mcp.client.stdio._parse_line); the tools/call reply is
then timed offline, repeatedly, through the same steps call_tool takes, with the SDK's own
functions:

  parse     the stdio transport's _parse_line: pydantic validate_json of the JSON-RPC message
  result    validate_server_result (the negotiated version's result model) and the CallToolResult
            adapter
  schema    the tool's outputSchema validator (compiled once and cached, as the session does)
            run over structuredContent, with best_match as the session does

Times are medians of CPU time of this thread (time.thread_time_ns), so that other processes on a
busy machine do not count; call is the wall time of a whole call_tool (server and pipe included)
and is noisy on a shared machine. Not a test: nothing asserts a time.

Usage (from the repository root, after scripts/test-mcp.sh made the venv):

  mcpserver/clients/python/.venv/bin/python mcpserver/clients/python/bench_structured.py \
      --binary before=bin/fsbox-before --binary after=bin/fsbox
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import subprocess
import tempfile
import time
from typing import Any

import mcp.client.stdio as mcp_stdio
from jsonschema.exceptions import best_match
from jsonschema.validators import validator_for
from mcp import Client
from mcp.client.session import _CallToolResultAdapter
from mcp.client.stdio import StdioServerParameters
from mcp_types import methods as _methods
from referencing import Registry

CALLS: list[tuple[str, dict[str, Any]]] = [("read_file", {"path": "src/fmt/doc.go"}), ("list_directory", {"path": "src/net"})]


def make_root() -> str:
    goroot = subprocess.run(["go", "env", "GOROOT"], capture_output=True, text=True, check=True).stdout.strip()
    root = os.path.realpath(tempfile.mkdtemp(prefix="fsbox-mcp-bench-"))
    os.makedirs(os.path.join(root, "src", "fmt"))
    shutil.copyfile(os.path.join(goroot, "src", "fmt", "doc.go"), os.path.join(root, "src", "fmt", "doc.go"))
    shutil.copytree(os.path.join(goroot, "src", "net"), os.path.join(root, "src", "net"))
    return root


def median_us(fn: Any, n: int) -> float:
    times = []
    for _ in range(n):
        t0 = time.thread_time_ns()
        fn()
        times.append(time.thread_time_ns() - t0)
    return statistics.median(times) / 1000


async def measure(binary: str, root: str, calls: int, reps: int) -> list[dict[str, Any]]:
    lines: list[str] = []
    parse_line = mcp_stdio._parse_line

    def recording(line: str) -> Any:
        lines.append(line)
        return parse_line(line)

    mcp_stdio._parse_line = recording  # type: ignore[assignment]
    rows = []
    try:
        async with Client(StdioServerParameters(command=binary, args=["mcp", "--root", root])) as client:
            version = client.protocol_version
            schemas = {t.name: t.output_schema for t in (await client.list_tools()).tools}
            for tool, args in CALLS:
                for _ in range(10):
                    await client.call_tool(tool, args)
                walls = []
                for _ in range(calls):
                    lines.clear()
                    t0 = time.perf_counter_ns()
                    res = await client.call_tool(tool, args)
                    walls.append(time.perf_counter_ns() - t0)
                    assert not res.is_error, res.content
                [reply] = [ln for ln in lines if '"content"' in ln and '"result"' in ln]
                raw = json.loads(reply)["result"]
                schema = schemas[tool] or {}
                validator = validator_for(schema)(schema, registry=Registry())
                sc = raw.get("structuredContent")

                def result_step() -> None:
                    _methods.validate_server_result("tools/call", version, raw)
                    _CallToolResultAdapter.validate_python(raw, by_name=False)

                def schema_step() -> None:
                    assert best_match(validator.iter_errors(sc)) is None

                row = {
                    "tool": tool,
                    "bytes": len(reply.encode()) + 1,
                    "text_bytes": len(json.dumps(raw["content"][0]["text"], ensure_ascii=False).encode()),
                    "sc_bytes": len(json.dumps(sc, ensure_ascii=False, separators=(",", ":")).encode()),
                    "parse": median_us(lambda: parse_line(reply), reps),
                    "result": median_us(result_step, reps),
                    "schema": median_us(schema_step, reps),
                    "call": statistics.median(walls) / 1000,
                }
                row["client"] = row["parse"] + row["result"] + row["schema"]
                rows.append(row)
    finally:
        mcp_stdio._parse_line = parse_line  # type: ignore[assignment]
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--binary", action="append", required=True, help="LABEL=PATH, repeatable")
    ap.add_argument("--rounds", type=int, default=3, help="interleaved rounds over the binaries")
    ap.add_argument("--calls", type=int, default=200, help="timed call_tool calls per tool and round")
    ap.add_argument("--reps", type=int, default=500, help="offline repetitions of each parse step")
    opts = ap.parse_args()
    binaries = [tuple(b.split("=", 1)) for b in opts.binary]
    root = make_root()
    got: dict[tuple[str, str], list[dict[str, Any]]] = {}
    try:
        for _ in range(opts.rounds):
            for label, path in binaries:
                for row in asyncio.run(measure(os.path.abspath(path), root, opts.calls, opts.reps)):
                    got.setdefault((label, row["tool"]), []).append(row)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    print(f"median of {opts.rounds} rounds; µs of client CPU per reply (call: wall µs per call_tool)\n")
    print("| binary | call | bytes | text in block | structuredContent | parse | result | schema | client total | call |")
    print("|---|---|--:|--:|--:|--:|--:|--:|--:|--:|")
    for (label, tool), rows in got.items():
        m = {k: statistics.median(r[k] for r in rows) for k in rows[0] if k != "tool"}
        print(f"| {label} | {tool} | {m['bytes']:,.0f} | {m['text_bytes']:,.0f} | {m['sc_bytes']:,.0f} | {m['parse']:.0f} | "
              f"{m['result']:.0f} | {m['schema']:.0f} | {m['client']:.0f} | {m['call']:.0f} |")


if __name__ == "__main__":
    main()
