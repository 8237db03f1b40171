#!/usr/bin/env python3
"""What the Python SDK adds to a call, against the raw pipe (issue 25, item 3).

Both sides talk to the same kind of child, ``fsbox serve``, over its stdin/stdout:

- **pipe**: the floor. One thread writes one request line, reads one reply line and decodes it
  with the standard ``json.loads`` (a client has to parse the reply to use it); nothing else.
- **sdk**: ``fsbox.Client``, as a program uses it: the typed method (``fs.read_file(...)``), which
  encodes the request, hands it to the pipe under the write lock, waits for the reader thread to
  route the reply by id, decodes it and builds the generated result dataclass.
- **sdk call()**: ``fs.call(name, args)``, the untyped path the adapters use.
- **sdk text**: ``Client(result_shape="text")`` with ``call()``: what an adapter that forwards
  only the text pays (its reply carries the text alone).

Per scenario it reports the median of per-call wall times (µs), bytes per reply, and the parts of
the SDK's path timed alone on the same reply: JSON decoding (stdlib ``json`` and, when installed,
``orjson``) and the result dataclass's ``from_wire``. With orjson installed (``pip install
'fsbox[fast]'``) the SDK decodes with it; ``--no-orjson`` runs the SDK on the standard library
even then, so one machine measures both.

Scenarios (the shared kit's, on a copy of ``$(go env GOROOT)/src`` files):

- ``read_small``: read_file src/fmt/doc.go (15.8 KB);
- ``list_dir``: list_directory src/net (one level, with sizes);
- ``edit_1000``: edit_file of one line of a 1000-line file (the first 999 lines of
  net/http/server.go and a marker), alternating between two texts so every call changes the file.

Usage::

    go build -o bin/fsbox ./cmd/fsbox
    python3 bench/sdk_overhead.py --binary bin/fsbox [--n 2000] [--no-orjson] [--json out.json]

Needs the SDK importable (``sdks/python/.venv/bin/python``, or ``PYTHONPATH=sdks/python/src``).
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
import tempfile
import time
from collections.abc import Callable
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
# --sdk-src DIR imports the SDK from DIR instead (e.g. an older checkout's sdks/python/src, for a
# same-run before and after).
_src = os.path.join(HERE, "..", "sdks", "python", "src")
if "--sdk-src" in sys.argv:
    _src = sys.argv[sys.argv.index("--sdk-src") + 1]
sys.path.insert(0, os.path.abspath(_src))

import fsbox  # noqa: E402
from fsbox import _transport  # noqa: E402
from fsbox._types_gen import TOOL_RESULTS  # noqa: E402

MARK_A = "// fsbox bench marker: A\n"
MARK_B = "// fsbox bench marker: B\n"


def corpus(goroot: str) -> str:
    """A root with the kit's files: src/fmt/doc.go, src/net (top-level files, subdirectories
    empty), scratch/edit_1000.go."""
    root = tempfile.mkdtemp(prefix="fsbox-sdkbench-")
    src = os.path.join(goroot, "src")
    os.makedirs(os.path.join(root, "src", "fmt"))
    shutil.copy(os.path.join(src, "fmt", "doc.go"), os.path.join(root, "src", "fmt", "doc.go"))
    net = os.path.join(root, "src", "net")
    os.makedirs(net)
    for e in os.scandir(os.path.join(src, "net")):
        if e.is_dir(follow_symlinks=False):
            os.makedirs(os.path.join(net, e.name))
        elif e.is_file(follow_symlinks=False):
            shutil.copy(e.path, os.path.join(net, e.name))
    with open(os.path.join(src, "net", "http", "server.go"), encoding="utf-8") as f:
        lines = f.readlines()[:999]
    lines.insert(500, MARK_A)
    os.makedirs(os.path.join(root, "scratch"))
    with open(os.path.join(root, "scratch", "edit_1000.go"), "w", encoding="utf-8") as f:
        f.writelines(lines)
    return root


class Pipe:
    """The floor: a bare JSON-RPC client on one thread."""

    def __init__(self, binary: str, root: str, shape: str | None = None) -> None:
        self.proc = subprocess.Popen([binary, "serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        assert self.proc.stdin and self.proc.stdout
        self.w, self.r = self.proc.stdin, self.proc.stdout
        self.id = 0
        caps: dict[str, Any] = {}
        if shape:
            caps["result_shape"] = shape
        self.request("initialize", {"protocol_version": "1", "config": {"root_dir": root}, "capabilities": caps})
        self.last_line = b""

    def request(self, method: str, params: Any) -> Any:
        self.id += 1
        self.w.write(json.dumps({"jsonrpc": "2.0", "id": self.id, "method": method, "params": params}).encode() + b"\n")
        self.w.flush()
        line = self.r.readline()
        self.last_line = line
        msg = json.loads(line)
        if "error" in msg:
            raise RuntimeError(msg["error"])
        return msg["result"]

    def call(self, name: str, args: dict[str, Any]) -> Any:
        return self.request("tools/call", {"name": name, "arguments": args})

    def close(self) -> None:
        self.w.close()
        self.proc.wait()


SCENARIOS: dict[str, tuple[str, Callable[[int], dict[str, Any]]]] = {
    "read_small": ("read_file", lambda i: {"path": "src/fmt/doc.go"}),
    "list_dir": ("list_directory", lambda i: {"path": "src/net"}),
    "edit_1000": (
        "edit_file",
        lambda i: {"path": "scratch/edit_1000.go", "old_text": MARK_A if i % 2 == 0 else MARK_B,
                   "new_text": MARK_B if i % 2 == 0 else MARK_A},
    ),
}


def per_call(fn: Callable[[int], Any], n: int, warmup: int, start: int = 0) -> float:
    """Median wall time of one call, in µs; calls are numbered from start so that an edit
    alternates across runs."""
    for i in range(start, start + warmup):
        fn(i)
    times = []
    for i in range(start + warmup, start + warmup + n):
        t0 = time.perf_counter_ns()
        fn(i)
        times.append(time.perf_counter_ns() - t0)
    return statistics.median(times) / 1000


def time_alone(fn: Callable[[], Any], n: int = 2000) -> float:
    """Median µs of fn, called n times (for the parts of the path)."""
    times = []
    for _ in range(n):
        t0 = time.perf_counter_ns()
        fn()
        times.append(time.perf_counter_ns() - t0)
    return statistics.median(times) / 1000


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--binary", default=os.environ.get("FSBOX_BIN") or os.path.join(HERE, "..", "bin", "fsbox"))
    ap.add_argument("--n", type=int, default=2000)
    ap.add_argument("--warmup", type=int, default=200)
    ap.add_argument("--scenarios", default="read_small,list_dir,edit_1000")
    ap.add_argument("--no-orjson", action="store_true", help="run the SDK on the standard json module")
    ap.add_argument("--json", help="also write the numbers as JSON to this file")
    ap.add_argument("--sdk-src", help="import the SDK from this directory (default: this checkout's)")
    opts = ap.parse_args()
    binary = os.path.abspath(opts.binary)

    if opts.no_orjson and hasattr(_transport, "use_json_module"):
        _transport.use_json_module(json)
    decoder = getattr(_transport, "json_decoder_name", lambda: "json")()

    try:
        import orjson
    except ImportError:
        orjson = None  # type: ignore[assignment]

    goroot = subprocess.run(["go", "env", "GOROOT"], capture_output=True, text=True, check=True).stdout.strip()
    root = corpus(goroot)
    rows: list[dict[str, Any]] = []
    try:
        for name in opts.scenarios.split(","):
            tool, args = SCENARIOS[name]
            pipe = Pipe(binary, root)
            fs = fsbox.Client(root, binary=binary)
            fs_text = fsbox.Client(root, binary=binary, result_shape="text")
            typed = getattr(fs, tool)
            try:
                # Interleave the sides in rounds so that drift of a shared machine hits all alike.
                res: dict[str, list[float]] = {"pipe": [], "sdk": [], "sdk_call": [], "sdk_text": []}
                rounds = 5
                n = max(1, opts.n // rounds)
                w = opts.warmup
                for r in range(rounds):
                    base = r * (n + w) * 2  # even: every side starts an edit from marker A
                    res["pipe"].append(per_call(lambda i: pipe.call(tool, args(i)), n, w, base))
                    res["sdk"].append(per_call(lambda i: typed(**args(i)), n, w, base))
                    res["sdk_call"].append(per_call(lambda i: fs.call(tool, args(i)), n, w, base))
                    res["sdk_text"].append(per_call(lambda i: fs_text.call(tool, args(i)), n, w, base))
                    w = max(20, opts.warmup // 5)
                med = {k: statistics.median(v) for k, v in res.items()}

                # The same reply, decoded alone.
                pipe.call(tool, args(0))
                line = pipe.last_line
                pipe.call(tool, args(1))
                text_pipe = Pipe(binary, root, shape="text")
                text_pipe.call(tool, args(2))
                text_line = text_pipe.last_line
                text_pipe.call(tool, args(3))
                text_pipe.close()
                result = json.loads(line)["result"]
                decode = TOOL_RESULTS[tool]
                parts = {
                    "json_loads_us": time_alone(lambda: json.loads(line)),
                    "orjson_loads_us": time_alone(lambda: orjson.loads(line)) if orjson else None,
                    "from_wire_us": time_alone(lambda: decode(result)),
                    "encode_request_us": time_alone(
                        lambda: _transport.encode({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                                                   "params": {"name": tool, "arguments": args(0)}})),
                }
            finally:
                pipe.close()
                fs.close()
                fs_text.close()
            row = {
                "scenario": name,
                "tool": tool,
                "decoder": decoder,
                "reply_bytes": len(line),
                "reply_bytes_text": len(text_line),
                **{f"{k}_us": round(v, 1) for k, v in med.items()},
                "overhead_pct": round(100 * (med["sdk"] - med["pipe"]) / med["pipe"], 1),
                "overhead_call_pct": round(100 * (med["sdk_call"] - med["pipe"]) / med["pipe"], 1),
                **{k: (round(v, 1) if v is not None else None) for k, v in parts.items()},
            }
            rows.append(row)
    finally:
        shutil.rmtree(root, ignore_errors=True)

    print(f"Python {sys.version.split()[0]}, SDK decoder: {decoder}; median µs per call "
          f"(5 interleaved rounds of {max(1, opts.n // 5)})\n")
    print("| call | reply bytes (both / text) | pipe | sdk typed | sdk call() | sdk text shape | overhead typed | overhead call() | json.loads | orjson.loads | from_wire |")
    print("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
    for r in rows:
        oj = f"{r['orjson_loads_us']}" if r["orjson_loads_us"] is not None else "–"
        print(f"| {r['scenario']} | {r['reply_bytes']} / {r['reply_bytes_text']} | {r['pipe_us']} | {r['sdk_us']} | "
              f"{r['sdk_call_us']} | {r['sdk_text_us']} | {r['overhead_pct']}% | {r['overhead_call_pct']}% | "
              f"{r['json_loads_us']} | {oj} | {r['from_wire_us']} |")
    if opts.json:
        with open(opts.json, "w", encoding="utf-8") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
