"""Side by side: pydantic-ai-harness's FileSystem and fsbox's drop-in, on the same scenarios.

    python bench/parity/side_by_side.py [--json FILE] [--only NAME]

Needs `pip install pydantic-ai-harness` and the fsbox Python SDK with its pydantic-ai extra, and an
fsbox binary (FSBOX_BIN, the bundled one, or PATH). For each scenario it builds the same tree twice,
has pydantic-ai's FunctionModel make the same tool calls through an Agent on each (harness: its
FileSystem capability on a LocalWorkspace; fsbox: fsbox.integrations.pydantic_ai.FileSystem), and
compares what the model saw after each call (the tool return's text and whether it was a retry) and
the tree afterwards. Verdicts:

- same: identical model text, outcomes and disk state;
- different: anything else, with the first difference shown. Some differences are fsbox's by
  design (docs/protocol.md says which); the report lists them as they are, it does not judge.

It exits 0 whatever the verdicts (it measures, it does not gate); a scenario that crashes either
side is reported as `error`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import pathlib
import sys
import tempfile
from dataclasses import dataclass, field
from typing import Any

from pydantic_ai import Agent
from pydantic_ai.capabilities import LocalWorkspace
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai_harness import FileSystem as HarnessFileSystem

from fsbox.integrations.pydantic_ai import FileSystem as FsboxFileSystem

Tree = dict[str, "str | bytes | None"]  # path → text, bytes, or None for a directory


@dataclass
class Scenario:
    name: str
    tree: Tree
    calls: list[tuple[str, dict[str, Any]]]
    options: dict[str, Any] = field(default_factory=dict)
    tools: list[str] | None = None


PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(24))
SCENARIOS = [
    Scenario("read basic", {"a.txt": "one\ntwo\n"}, [("read_file", {"path": "a.txt"})]),
    Scenario("read window", {"a.txt": "".join(f"l{i}\n" for i in range(10))}, [("read_file", {"path": "a.txt", "offset": 3, "limit": 2})]),
    Scenario("read empty", {"e.txt": ""}, [("read_file", {"path": "e.txt"})]),
    Scenario("read crlf", {"c.txt": "a\r\nb\r\n"}, [("read_file", {"path": "c.txt"})]),
    Scenario("read no final newline", {"n.txt": "x"}, [("read_file", {"path": "n.txt"})]),
    Scenario("read limit above cap", {"a.txt": "".join(f"l{i}\n" for i in range(10))}, [("read_file", {"path": "a.txt", "limit": 8})], {"max_read_lines": 5}),
    Scenario("read missing", {}, [("read_file", {"path": "nope.txt"})]),
    Scenario("read outside", {}, [("read_file", {"path": "../etc/passwd"})]),
    Scenario("read binary", {"b.bin": b"\x00\x01\x02\x03" * 10}, [("read_file", {"path": "b.bin"})]),
    Scenario("read image", {"p.png": PNG}, [("read_file", {"path": "p.png"})]),
    Scenario("read offset past end", {"a.txt": "a\n"}, [("read_file", {"path": "a.txt", "offset": 5})]),
    Scenario("write new", {}, [("write_file", {"path": "new.txt", "content": "hi\n"})]),
    Scenario("write overwrite", {"a.txt": "old\n"}, [("write_file", {"path": "a.txt", "content": "new\n"})]),
    Scenario("write parent missing", {}, [("write_file", {"path": "no/dir/x.txt", "content": "x"})]),
    Scenario("write protected .git", {".git/": None}, [("write_file", {"path": ".git/config", "content": "x"})]),
    Scenario("edit basic", {"a.txt": "Hello, world!\n"}, [("edit_file", {"path": "a.txt", "old_text": "world", "new_text": "there"})]),
    Scenario("edit no match", {"a.txt": "abc\n"}, [("edit_file", {"path": "a.txt", "old_text": "zzz", "new_text": "y"})]),
    Scenario("edit ambiguous", {"a.txt": "foo bar foo\n"}, [("edit_file", {"path": "a.txt", "old_text": "foo", "new_text": "x"})]),
    Scenario("edit missing file", {}, [("edit_file", {"path": "gone.txt", "old_text": "a", "new_text": "b"})]),
    Scenario("edit stale hash", {"a.txt": "abc\n"}, [("edit_file", {"path": "a.txt", "old_text": "abc", "new_text": "x", "expected_hash": "000000000000"})]),
    Scenario("list root", {"a.txt": "a", "sub/": None, "sub/b.txt": "bb", ".hidden": "h"}, [("list_directory", {"path": "."})]),
    Scenario("list empty", {"empty/": None}, [("list_directory", {"path": "empty"})]),
    Scenario("list all hidden", {"d/": None, "d/.x": "x", "d/.y": "y"}, [("list_directory", {"path": "d"})]),
    Scenario("search basic", {"a.py": "def f():\n    pass\n", "b.py": "x = 1\n"}, [("search_files", {"pattern": "def"})]),
    Scenario("search no match", {"a.txt": "a\n"}, [("search_files", {"pattern": "zzz"})]),
    Scenario("search bad regex", {"a.txt": "a\n"}, [("search_files", {"pattern": "("})]),
    Scenario("find glob", {"a.py": "", "src/b.py": "", "src/c.txt": ""}, [("find_files", {"pattern": "**/*.py"})]),
    Scenario("find none", {"a.txt": ""}, [("find_files", {"pattern": "*.rs"})]),
    Scenario("find hidden venv", {"a.py": "", ".venv/x.py": "", ".env": "T=1"}, [("find_files", {"pattern": "**/*.py"})]),
    Scenario("find hidden below src", {"src/a.py": "", "src/.cache/x": "", "src/.rc": ""}, [("find_files", {"pattern": "src/**"})]),
    Scenario("find hidden named", {"a.py": "", ".venv/x.py": ""}, [("find_files", {"pattern": ".venv/*.py"})]),
    Scenario("search hidden", {"a.py": "x = 1\n", ".env": "x = 2\n", ".git/config": "x\n"}, [("search_files", {"pattern": "x"})]),
    Scenario("search hidden only", {".env": "x = 2\n"}, [("search_files", {"pattern": "x"})]),
    Scenario("mkdir nested", {}, [("create_directory", {"path": "x/y/z"})]),
    Scenario("mkdir existing", {"d/": None}, [("create_directory", {"path": "d"})]),
    Scenario("info file", {"a.txt": "one\ntwo\n"}, [("file_info", {"path": "a.txt"})]),
    Scenario("info binary", {"b.bin": b"\x00\x01"}, [("file_info", {"path": "b.bin"})]),
    Scenario("info missing", {}, [("file_info", {"path": "nope"})]),
    Scenario("env file", {".env": "SECRET=1\n"}, [("read_file", {"path": ".env"})]),
]


def build(root: pathlib.Path, tree: Tree) -> None:
    for path, content in tree.items():
        p = root / path
        if content is None:
            p.mkdir(parents=True, exist_ok=True)
            continue
        p.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            p.write_bytes(content)
        else:
            p.write_text(content)


def snapshot(root: pathlib.Path) -> dict[str, str]:
    out: dict[str, str] = {}
    for p in sorted(root.rglob("*")):
        rel = p.relative_to(root).as_posix()
        out[rel] = "<dir>" if p.is_dir() else p.read_bytes().hex()
    return out


def run_side(make: Any, sc: Scenario) -> tuple[list[tuple[str, str]], dict[str, str]]:
    """Runs sc's calls through an Agent whose capabilities make(root) builds; returns what the model
    saw after each call, as (outcome, text), and the tree afterwards."""
    with tempfile.TemporaryDirectory() as tmp:
        root = pathlib.Path(tmp, "root")
        root.mkdir()
        build(root, sc.tree)
        seen: list[tuple[str, str]] = []

        def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
            for part in messages[-1].parts:
                if isinstance(part, ToolReturnPart):
                    content = part.content
                    text = content if isinstance(content, str) else repr(content)
                    seen.append((str(part.outcome), text))
            turn = sum(isinstance(m, ModelResponse) for m in messages)
            if turn < len(sc.calls):
                name, args = sc.calls[turn]
                return ModelResponse(parts=[ToolCallPart(name, args)])
            return ModelResponse(parts=[TextPart("done")])

        agent = Agent(FunctionModel(model), capabilities=make(root, sc))
        asyncio.run(agent.run("go"))
        return seen, snapshot(root)


def harness(root: pathlib.Path, sc: Scenario) -> list[Any]:
    opts = dict(sc.options)
    return [LocalWorkspace(str(root)), HarnessFileSystem(max_retries=5, **opts)]


def fsbox_side(root: pathlib.Path, sc: Scenario) -> list[Any]:
    # The drop-in exactly as a harness user writes it: the same workspace, only the import changed.
    return [LocalWorkspace(str(root)), FsboxFileSystem(max_retries=5, **sc.options)]


def compare(sc: Scenario) -> dict[str, Any]:
    try:
        h_seen, h_disk = run_side(harness, sc)
        f_seen, f_disk = run_side(fsbox_side, sc)
    except Exception as e:  # noqa: BLE001 - a report, not a gate
        return {"scenario": sc.name, "verdict": "error", "detail": f"{type(e).__name__}: {e}"}
    if h_seen == f_seen and h_disk == f_disk:
        return {"scenario": sc.name, "verdict": "same"}
    detail: dict[str, Any] = {}
    for i, (h, f) in enumerate(zip(h_seen, f_seen)):
        if h != f:
            detail = {"call": i + 1, "harness": h, "fsbox": f}
            break
    if not detail and len(h_seen) != len(f_seen):
        detail = {"harness_calls": len(h_seen), "fsbox_calls": len(f_seen)}
    if not detail:
        detail = {"disk": {"harness": h_disk, "fsbox": f_disk}}
    return {"scenario": sc.name, "verdict": "different", "detail": detail}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--json", help="write the verdicts as JSON to this file")
    ap.add_argument("--only", help="run the scenarios whose name contains this")
    args = ap.parse_args()
    results = [compare(sc) for sc in SCENARIOS if not args.only or args.only in sc.name]
    width = max(len(r["scenario"]) for r in results)
    for r in results:
        line = f"{r['scenario']:<{width}}  {r['verdict']}"
        if r["verdict"] != "same":
            line += "  " + json.dumps(r["detail"], ensure_ascii=False)[:300]
        print(line)
    counts = {v: sum(r["verdict"] == v for r in results) for v in ("same", "different", "error")}
    print(f"\n{counts['same']} same, {counts['different']} different, {counts['error']} error, of {len(results)}")
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(results, indent=2, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONWARNINGS", "ignore")
    sys.exit(main())
