"""Side by side: pydantic-ai-harness's FileSystem and fsbox's drop-in on the same scenario.

Each case builds the same tree twice, attaches the same ``LocalWorkspace`` + ``FileSystem()`` (the
harness's, then fsbox's, the import being the only change), has pydantic-ai's FunctionModel make the
same tool calls through a real Agent, with the same ``@agent.on_event`` listeners, and compares what
the model saw, what the listeners heard, and the tree afterwards. The versions compared are pinned
in requirements-integrations.txt and named in docs/frameworks.md. A difference that is fsbox's by
design is asserted as that difference, with the docs naming it.
"""

from __future__ import annotations

import json
import os
import pathlib
import warnings
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field, fields
from typing import Any

import pytest

pytest.importorskip("pydantic_ai_harness", reason="the side-by-side run needs pydantic-ai-harness")

from pydantic_ai import Agent  # noqa: E402
from pydantic_ai.capabilities import LocalWorkspace  # noqa: E402
from pydantic_ai.exceptions import UserError  # noqa: E402
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart, ToolReturnPart  # noqa: E402
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, FunctionModel  # noqa: E402
from pydantic_ai.workspaces import LocalWorkspaceBackend, Workspace, WrapperWorkspace  # noqa: E402
from pydantic_ai_harness import FileSystem as HarnessFileSystem  # noqa: E402
from pydantic_ai_harness import HarnessDeprecationWarning  # noqa: E402
from pydantic_ai_harness import filesystem as hfs  # noqa: E402

from fsbox.integrations.pydantic_ai import FileSystem as FsboxFileSystem  # noqa: E402

Tree = dict[str, "str | None"]  # path -> text, or None for a directory
Listener = Callable[[Any, Any], Any]


@dataclass
class Outcome:
    returns: list[tuple[str, str, str]] = field(default_factory=list)  # (part type, content, outcome)
    events: list[dict[str, Any]] = field(default_factory=list)
    tree: dict[str, str | None] = field(default_factory=dict)
    error: BaseException | None = None


def _build(root: pathlib.Path, tree: Tree) -> None:
    root.mkdir(parents=True, exist_ok=True)
    for rel, text in tree.items():
        p = root / rel
        if text is None:
            p.mkdir(parents=True, exist_ok=True)
        else:
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(text)


def _snapshot(root: pathlib.Path) -> dict[str, str | None]:
    out: dict[str, str | None] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for d in dirnames:
            out[os.path.relpath(os.path.join(dirpath, d), root)] = None
        for f in filenames:
            out[os.path.relpath(os.path.join(dirpath, f), root)] = pathlib.Path(dirpath, f).read_text(errors="replace")
    return out


def _event_fields(event: Any, root: pathlib.Path) -> dict[str, Any]:
    """An event's payload: its type and fields, the run's ids dropped and its root_dir named."""
    out: dict[str, Any] = {"type": type(event).__name__}
    for f in fields(event):
        if f.name in ("capability_id", "tool_call_id"):
            continue
        value = getattr(event, f.name)
        if f.name == "root_dir":
            value = "<root>" if value == os.path.realpath(root) else value
        out[f.name] = value
    return out


def _model(calls: list[ToolCallPart], seen: list[ToolReturnPart]) -> FunctionModel:
    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.extend(p for p in messages[-1].parts if isinstance(p, ToolReturnPart))
        turn = sum(isinstance(m, ModelResponse) for m in messages)
        return ModelResponse(parts=[calls[turn]] if turn < len(calls) else [TextPart("done")])

    async def stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[Any]:
        part = respond(messages, info).parts[0]
        if isinstance(part, TextPart):
            yield part.content
        else:
            assert isinstance(part, ToolCallPart)
            yield {0: DeltaToolCall(name=part.tool_name, json_args=json.dumps(part.args), tool_call_id=part.tool_call_id)}

    return FunctionModel(respond, stream_function=stream)


def run(
    side: str,
    root: pathlib.Path,
    tree: Tree,
    calls: list[tuple[str, dict[str, Any]]],
    *,
    fsbox_bin: str,
    listeners: dict[tuple[type, ...], Listener] | None = None,
    workspace: Any = None,
    **options: Any,
) -> Outcome:
    """Run the scenario on one side ("harness" or "fsbox") in root."""
    _build(root, tree)
    seen: list[ToolReturnPart] = []
    parts = [ToolCallPart(name, args, tool_call_id=f"c{i}") for i, (name, args) in enumerate(calls)]
    fs: Any = (
        HarnessFileSystem(**options) if side == "harness" else FsboxFileSystem(**options, binary=fsbox_bin)
    )
    caps: list[Any] = [LocalWorkspace(root)] if workspace is None else []
    agent = Agent(_model(parts, seen), capabilities=[*caps, fs])
    out = Outcome()
    for types, fn in (listeners or {}).items():
        agent.on_event(*types)(fn)
    heard: list[Any] = []

    @agent.on_event(*EVENT_TYPES)
    async def record(ctx: Any, event: Any) -> None:
        heard.append(event)

    try:
        agent.run_sync("go", **({"workspace": workspace} if workspace is not None else {}))
    except Exception as e:  # the run's own failure is part of the outcome
        out.error = e
    out.returns = [(type(p).__name__, str(p.content), p.outcome) for p in seen]
    out.events = [_event_fields(e, root) for e in heard]
    out.tree = _snapshot(root)
    return out


EVENT_TYPES: tuple[type, ...] = (
    hfs.FileChangeRequestEvent,
    hfs.FileReadEvent,
    hfs.DirectoryListedEvent,
    hfs.FileWrittenEvent,
    hfs.DirectoryCreatedEvent,
    hfs.FilesSearchedEvent,
)


def both(tmp_path: pathlib.Path, fsbox_bin: str, tree: Tree, calls: list[tuple[str, dict[str, Any]]], **kw: Any) -> tuple[Outcome, Outcome]:
    return (
        run("harness", tmp_path / "harness", tree, calls, fsbox_bin=fsbox_bin, **kw),
        run("fsbox", tmp_path / "fsbox", tree, calls, fsbox_bin=fsbox_bin, **kw),
    )


# -- 1. a veto listener -------------------------------------------------------------------------


async def _veto(ctx: Any, event: Any) -> None:
    if event.path.startswith("src/"):
        event.cancel("src/ needs a human")


def test_veto_listener_refuses_the_edit(tmp_path: pathlib.Path, fsbox_bin: str) -> None:
    tree: Tree = {"src/hello.py": "print('hi')\n", "notes.txt": "a\n"}
    calls = [
        ("edit_file", {"path": "src/hello.py", "old_text": "hi", "new_text": "bye"}),
        ("write_file", {"path": "src/new.py", "content": "x\n"}),
        ("create_directory", {"path": "src/pkg"}),
        ("write_file", {"path": "notes.txt", "content": "b\n"}),
    ]
    h, f = both(tmp_path, fsbox_bin, tree, calls, listeners={(hfs.FileChangeRequestEvent,): _veto})
    assert h.returns[0][1] == "['src/hello.py' was not edited: src/ needs a human]"
    assert f.returns == h.returns
    assert f.events == h.events
    assert f.tree == h.tree
    assert f.tree["src/hello.py"] == "print('hi')\n" and "src/new.py" not in f.tree and "src/pkg" not in f.tree
    assert f.tree["notes.txt"] == "b\n"


async def _cancel_without_reason(ctx: Any, event: Any) -> None:
    event.cancel()


def test_veto_without_a_reason(tmp_path: pathlib.Path, fsbox_bin: str) -> None:
    calls = [("write_file", {"path": "a.txt", "content": "x\n"})]
    h, f = both(tmp_path, fsbox_bin, {}, calls, listeners={(hfs.FileChangeRequestEvent,): _cancel_without_reason})
    assert h.returns[0][1] == "['a.txt' was not written: cancelled by a listener]"
    assert f.returns == h.returns and f.tree == h.tree == {}


class Boom(Exception):
    pass


async def _raise(ctx: Any, event: Any) -> None:
    raise Boom("listener failed")


def test_listener_that_raises_stops_the_run_unchanged(tmp_path: pathlib.Path, fsbox_bin: str) -> None:
    tree: Tree = {"a.txt": "old\n"}
    calls = [("write_file", {"path": "a.txt", "content": "new\n"})]
    h, f = both(tmp_path, fsbox_bin, tree, calls, listeners={(hfs.FileChangeRequestEvent,): _raise})
    assert isinstance(h.error, Boom)
    assert isinstance(f.error, Boom) and str(f.error) == str(h.error)
    assert f.tree == h.tree == {"a.txt": "old\n"}


def test_observers_hear_the_same_events(tmp_path: pathlib.Path, fsbox_bin: str) -> None:
    tree: Tree = {"src/a.py": "def f():\n    return 1\n", "b.txt": "bee\n"}
    calls = [
        ("read_file", {"path": "src/a.py"}),
        ("list_directory", {"path": "src"}),
        ("edit_file", {"path": "src/a.py", "old_text": "return 1", "new_text": "return 2"}),
        ("write_file", {"path": "c.txt", "content": "sea\n"}),
        ("create_directory", {"path": "d/e"}),
        ("search_files", {"pattern": "return"}),
        ("find_files", {"pattern": "**/*.py"}),
    ]
    h, f = both(tmp_path, fsbox_bin, tree, calls)
    assert [e["type"] for e in h.events] == [
        "FileReadEvent",
        "DirectoryListedEvent",
        "FileChangeRequestEvent",
        "FileEditedEvent",
        "FileChangeRequestEvent",
        "FileWrittenEvent",
        "FileChangeRequestEvent",
        "DirectoryCreatedEvent",
        "FilesSearchedEvent",
        "FilesSearchedEvent",
    ]
    assert f.events == h.events
    assert f.tree == h.tree


def test_read_returns_the_harness_part_type(tmp_path: pathlib.Path, fsbox_bin: str) -> None:
    h, f = both(tmp_path, fsbox_bin, {"a.txt": "one\n"}, [("read_file", {"path": "a.txt"})])
    assert h.returns[0][0] == "ReadFileReturnPart"
    assert f.returns == h.returns


# -- 2. the workspace ---------------------------------------------------------------------------


def test_root_is_the_runs_workspace_not_the_process_directory(
    tmp_path: pathlib.Path, fsbox_bin: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    decoy = tmp_path / "process-cwd"
    decoy.mkdir()
    (decoy / "data.txt").write_text("DECOY\n")
    monkeypatch.chdir(decoy)
    tree: Tree = {"data.txt": "real\n"}
    calls = [("read_file", {"path": "data.txt"}), ("write_file", {"path": "out.txt", "content": "x\n"})]
    h, f = both(tmp_path, fsbox_bin, tree, calls)
    assert "real" in h.returns[0][1]
    assert f.returns == h.returns
    assert f.tree == h.tree and f.tree["out.txt"] == "x\n"
    assert sorted(os.listdir(decoy)) == ["data.txt"]  # nothing landed in the process's directory


def test_root_dir_resolves_against_the_workspace(tmp_path: pathlib.Path, fsbox_bin: str) -> None:
    # root_dir='..' (the parent of the working directory): the harness's rule, cwd kept inside it.
    tree: Tree = {"sibling/s.txt": "S\n", "work/w.txt": "W\n"}
    out = {}
    for side in ("harness", "fsbox"):
        base = tmp_path / side
        _build(base, tree)
        out[side] = run(
            side, base / "work", {}, [("read_file", {"path": "../sibling/s.txt"}), ("read_file", {"path": "w.txt"})],
            fsbox_bin=fsbox_bin, root_dir="..",
        )
    assert "S" in out["harness"].returns[0][1]
    assert out["fsbox"].returns == out["harness"].returns


class PolicyWorkspace(WrapperWorkspace):
    """A workspace wrapper with a policy of its own, which fsbox cannot apply."""


def test_a_workspace_fsbox_cannot_serve_is_refused(
    tmp_path: pathlib.Path, fsbox_bin: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # By design (docs/frameworks.md): the harness acts through any workspace; fsbox serves a local
    # directory, so anything else fails the run with an error naming it, and writes nothing anywhere.
    monkeypatch.chdir(tmp_path)
    ws_dir = tmp_path / "ws"
    ws_dir.mkdir()
    ws = PolicyWorkspace(Workspace(LocalWorkspaceBackend(ws_dir)))
    f = run("fsbox", ws_dir, {}, [("write_file", {"path": "x.txt", "content": "x\n"})], fsbox_bin=fsbox_bin, workspace=ws)
    assert isinstance(f.error, UserError) and "PolicyWorkspace" in str(f.error)
    assert f.tree == {} and not (tmp_path / "x.txt").exists()


def test_no_workspace_and_no_root_dir_fails_like_the_harness(tmp_path: pathlib.Path, fsbox_bin: str) -> None:
    seen: list[ToolReturnPart] = []
    for fs in (HarnessFileSystem(), FsboxFileSystem(binary=fsbox_bin)):
        agent = Agent(_model([ToolCallPart("list_directory", {"path": "."})], seen), capabilities=[fs])
        with pytest.raises(UserError, match="workspace"):
            agent.run_sync("go")


def test_read_only_workspace_narrows_the_tools(tmp_path: pathlib.Path, fsbox_bin: str) -> None:
    names = {}
    for side, fs in (("harness", HarnessFileSystem()), ("fsbox", FsboxFileSystem(binary=fsbox_bin))):
        d = tmp_path / side
        d.mkdir()

        def capture(messages: list[ModelMessage], info: AgentInfo, side: str = side) -> ModelResponse:
            names[side] = sorted(t.name for t in info.function_tools)
            return ModelResponse(parts=[TextPart("done")])

        Agent(FunctionModel(capture), capabilities=[LocalWorkspace(d, read_only=True), fs]).run_sync("go")
    assert "write_file" not in names["fsbox"] and "edit_file" not in names["fsbox"]
    assert names["fsbox"] == names["harness"]


# -- 3, 4. arguments ----------------------------------------------------------------------------


@pytest.mark.parametrize("kwargs", [{"protected_patterns": []}, {"cwd": "."}])
def test_deprecated_arguments_warn_like_the_harness(kwargs: dict[str, Any], fsbox_bin: str) -> None:
    with warnings.catch_warnings(record=True) as h:
        warnings.simplefilter("always")
        HarnessFileSystem(**kwargs)
    with warnings.catch_warnings(record=True) as f:
        warnings.simplefilter("always")
        FsboxFileSystem(**kwargs, binary=fsbox_bin)
    assert [(w.category, str(w.message)) for w in f] == [(w.category, str(w.message)) for w in h]
    assert h and h[0].category is HarnessDeprecationWarning


def test_protected_patterns_empty_makes_the_defaults_writable(tmp_path: pathlib.Path, fsbox_bin: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HarnessDeprecationWarning)
        calls = [("write_file", {"path": "secrets.txt", "content": "x\n"})]
        h, f = both(tmp_path, fsbox_bin, {}, calls, protected_patterns=[])
    assert f.returns == h.returns and f.tree == h.tree == {"secrets.txt": "x\n"}


def test_max_read_chars_none_reads_a_long_line_whole(tmp_path: pathlib.Path, fsbox_bin: str) -> None:
    line = "x" * 100_001
    h, f = both(tmp_path, fsbox_bin, {"long.txt": line + "\n"}, [("read_file", {"path": "long.txt"})], max_read_chars=None)
    assert line in h.returns[0][1]
    assert f.returns == h.returns
