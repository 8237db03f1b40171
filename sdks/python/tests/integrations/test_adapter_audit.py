"""audit= in the adapters: each framework's own test model drives the adapter against the real
fsbox binary, and the log has one AuditRecord line per fsbox call the tools made, in order, before
the model saw the result, with no file contents and no host path (docs/protocol.md §9)."""

from __future__ import annotations

import asyncio
import base64
import dataclasses
import json
import pathlib
from collections.abc import Sequence
from typing import Any

import pytest

import fsbox
from fsbox import AuditRecord

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)

SECRET = "SECRET-CONTENT-7f3a"
"""Text the files and the model's writes carry; it must never reach the log."""

AUDIT_FIELDS = frozenset(f.name for f in dataclasses.fields(AuditRecord))


def records(log: pathlib.Path, *, hidden: Sequence[str]) -> list[AuditRecord]:
    """The log's lines as AuditRecords, each checked: whole JSON, only the schema's fields
    (from_wire alone ignores unknown ones), none of the strings in hidden anywhere in the file."""
    raw = log.read_text() if log.exists() else ""
    for text in hidden:
        assert text not in raw, f"{text!r} is in the audit log"
    out = []
    for line in raw.splitlines():
        obj = json.loads(line)
        assert set(obj) <= AUDIT_FIELDS, sorted(set(obj) - AUDIT_FIELDS)
        out.append(AuditRecord.from_wire(obj))
    return out


def summary(recs: Sequence[AuditRecord]) -> list[tuple[Any, ...]]:
    """(tool or method, paths, outcome, error kind) per line."""
    return [(r.tool or r.method, r.paths, r.outcome, r.error_kind) for r in recs]


def one_process(recs: Sequence[AuditRecord]) -> None:
    """The lines are one process's: seq 1, 2, 3, … in file order, all of session 1."""
    assert [r.seq for r in recs] == list(range(1, len(recs) + 1))
    assert {r.session for r in recs} <= {1}


@pytest.fixture
def where(tmp_path: pathlib.Path) -> tuple[pathlib.Path, pathlib.Path]:
    """A root holding notes.txt (with SECRET) and img.png, and a log path beside it (outside)."""
    root = tmp_path / "root"
    root.mkdir()
    (root / "notes.txt").write_text(f"hello\n{SECRET} world\n")
    (root / "img.png").write_bytes(PNG)
    return root.resolve(), tmp_path / "logs" / "audit.jsonl"


def hidden(root: pathlib.Path) -> list[str]:
    return [SECRET, str(root), str(root.parent)]


def spy_clients(monkeypatch: pytest.MonkeyPatch, module: Any, name: str = "AsyncClient") -> list[dict[str, Any]]:
    """The keyword arguments of every client the adapter module starts (real clients, real
    servers: the spy only records)."""
    started: list[dict[str, Any]] = []
    real = getattr(module, name)

    class Recorded(real):  # type: ignore[misc, valid-type]
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            started.append(kwargs)
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(module, name, Recorded)
    return started


# -- pydantic-ai ------------------------------------------------------------------------------------


def test_pydantic_ai_file_system(
    where: tuple[pathlib.Path, pathlib.Path], fsbox_bin: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """FileSystem(audit=...): a line per tool call of a FunctionModel, each on disk before the
    model's next turn; the image read is one line, from the one process, which is audited (no
    second process reads the image's bytes unlogged), and the bytes reach the model."""
    pytest.importorskip("pydantic_ai")
    from pydantic_ai import Agent, BinaryContent
    from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
    from pydantic_ai.models.function import AgentInfo, FunctionModel

    from fsbox.integrations import pydantic_ai as module
    from fsbox.integrations.pydantic_ai import FileSystem

    started = spy_clients(monkeypatch, module)
    root, log = where
    log.parent.mkdir()
    calls = [
        ToolCallPart("read_file", {"path": "notes.txt"}),
        ToolCallPart("edit_file", {"path": "notes.txt", "old_text": "world", "new_text": f"there {SECRET}"}),
        ToolCallPart("write_file", {"path": "new.txt", "content": f"{SECRET}\n"}),
        ToolCallPart("read_file", {"path": "img.png"}),
        ToolCallPart("read_file", {"path": "../../etc/passwd"}),
    ]
    seen_lines: list[int] = []
    images: list[bytes] = []

    def scripted(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        turn = sum(isinstance(m, ModelResponse) for m in messages)
        seen_lines.append(len(records(log, hidden=hidden(root))))
        for m in messages:
            for p in getattr(m, "parts", []):
                content = getattr(p, "content", None)
                for c in content if isinstance(content, list) else [content]:
                    if isinstance(c, BinaryContent):
                        images.append(c.data)
        return ModelResponse(parts=[calls[turn]] if turn < len(calls) else [TextPart("done")])

    fs = FileSystem(root_dir=root, binary=fsbox_bin, audit=fsbox.AuditLog(path=log, max_bytes=1 << 20, keep=2))
    assert asyncio.run(Agent(FunctionModel(scripted), capabilities=[fs]).run("go")).output == "done"
    recs = records(log, hidden=hidden(root))
    assert summary(recs) == [
        ("read_file", ["notes.txt"], "ok", None),
        ("edit_file", ["notes.txt"], "ok", None),
        ("write_file", ["new.txt"], "ok", None),
        ("read_file", ["img.png"], "ok", None),
        ("read_file", None, "error", "outside_root"),
    ]
    one_process(recs)
    assert seen_lines == [0, 1, 2, 3, 4, 5]  # each call's line was written before the model went on
    assert images and images[0] == PNG
    assert [(kw.get("audit"), kw.get("result_shape")) for kw in started] == [
        (fsbox.AuditLog(path=log, max_bytes=1 << 20, keep=2), "both")
    ]


def test_pydantic_ai_restore_after_the_run_is_logged(where: tuple[pathlib.Path, pathlib.Path], fsbox_bin: str) -> None:
    """checkpoints=True with audit=: the run's checkpoint, its calls, and the restore that the
    server started after the run (a second process: its seq starts again at 1) all in the log."""
    pytest.importorskip("pydantic_ai")
    from pydantic_ai import Agent
    from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
    from pydantic_ai.models.function import AgentInfo, FunctionModel

    from fsbox.integrations.pydantic_ai import FileSystem

    root, log = where
    log.parent.mkdir()

    def scripted(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        turn = sum(isinstance(m, ModelResponse) for m in messages)
        if turn == 0:
            return ModelResponse(parts=[ToolCallPart("write_file", {"path": "new.txt", "content": SECRET})])
        return ModelResponse(parts=[TextPart("done")])

    fs = FileSystem(root_dir=root, binary=fsbox_bin, checkpoints=True, audit=log)

    async def run_then_restore() -> None:
        await Agent(FunctionModel(scripted), capabilities=[fs]).run("go")
        (only,) = (await fs.restore()).values()
        assert only.complete

    asyncio.run(run_then_restore())
    assert not (root / "new.txt").exists()
    recs = records(log, hidden=hidden(root))
    assert [(r.seq, r.method, r.tool, r.paths, r.outcome) for r in recs] == [
        (1, "checkpoint/create", None, None, "ok"),
        (2, "tools/call", "write_file", ["new.txt"], "ok"),
        (1, "checkpoint/restore", None, ["new.txt"], "ok"),
    ]


def test_pydantic_ai_one_server_per_log(tmp_path: pathlib.Path, fsbox_bin: str) -> None:
    """An audited toolset refuses to start a second server (another workspace) beside the first:
    one log, one writer. Without audit the same runs go ahead."""
    pytest.importorskip("pydantic_ai")
    from pydantic_ai import Agent
    from pydantic_ai.exceptions import UserError
    from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
    from pydantic_ai.models.function import AgentInfo, FunctionModel
    from pydantic_ai.workspaces import LocalWorkspaceBackend

    from fsbox.integrations.pydantic_ai import FileSystem

    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()

    def scripted(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if sum(isinstance(m, ModelResponse) for m in messages) == 0:
            return ModelResponse(parts=[ToolCallPart("list_directory", {"path": "."})])
        return ModelResponse(parts=[TextPart("done")])

    async def two_workspaces(audit: pathlib.Path | None) -> None:
        agent = Agent(FunctionModel(scripted), capabilities=[FileSystem(binary=fsbox_bin, audit=audit)])
        async with agent:
            await agent.run("go", workspace=LocalWorkspaceBackend(a))
            await agent.run("go", workspace=LocalWorkspaceBackend(b))

    asyncio.run(two_workspaces(None))
    log = tmp_path / "audit.jsonl"
    with pytest.raises(UserError, match="one log takes one server at a time"):
        asyncio.run(two_workspaces(log))
    assert summary(records(log, hidden=[str(tmp_path)])) == [("list_directory", ["."], "ok", None)]


def test_editor_toolset(where: tuple[pathlib.Path, pathlib.Path], fsbox_bin: str) -> None:
    pytest.importorskip("pydantic_ai")
    from pydantic_ai import Agent
    from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
    from pydantic_ai.models.function import AgentInfo, FunctionModel

    from fsbox.integrations.editor_formats import editor_toolset

    root, log = where
    log.parent.mkdir()
    calls = [
        ToolCallPart("str_replace_based_edit_tool", {"command": "view", "path": "notes.txt"}),
        ToolCallPart("apply_patch", {"operation": {"type": "create_file", "path": "p.txt", "diff": f"+{SECRET}\n"}}),
    ]

    def scripted(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        turn = sum(isinstance(m, ModelResponse) for m in messages)
        return ModelResponse(parts=[calls[turn]] if turn < len(calls) else [TextPart("done")])

    toolset = editor_toolset(root, binary=fsbox_bin, audit=log)
    asyncio.run(Agent(FunctionModel(scripted), toolsets=[toolset]).run("go"))
    recs = records(log, hidden=hidden(root))
    assert summary(recs) == [
        ("str_replace_based_edit_tool", ["notes.txt"], "ok", None),
        ("apply_patch", ["p.txt"], "ok", None),
    ]
    one_process(recs)


# -- LangChain ----------------------------------------------------------------------------------------


def _langchain_fake(*calls: tuple[str, dict[str, Any]]) -> Any:
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
    from langchain_core.messages import AIMessage

    class ToolCallingFake(GenericFakeChatModel):
        def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> ToolCallingFake:
            return self

    msgs: list[Any] = [AIMessage(content="", tool_calls=[{"name": n, "args": a, "id": f"c{i}"}]) for i, (n, a) in enumerate(calls)]
    return ToolCallingFake(messages=iter([*msgs, AIMessage(content="done")]))


def test_langchain_toolkit(where: tuple[pathlib.Path, pathlib.Path], fsbox_bin: str) -> None:
    pytest.importorskip("langchain")
    from langchain.agents import create_agent

    from fsbox.integrations.langchain import FsboxToolkit

    root, log = where
    log.parent.mkdir()
    with FsboxToolkit(root, binary=fsbox_bin, audit=fsbox.AuditLog(path=log, sync=True)) as kit:
        agent = create_agent(
            _langchain_fake(
                ("read_file", {"path": "notes.txt"}),
                ("write_file", {"path": "n.txt", "content": SECRET}),
                ("read_file", {"path": "missing.txt"}),
            ),
            kit.get_tools(),
        )
        agent.invoke({"messages": [("user", "go")]})
    recs = records(log, hidden=hidden(root))
    assert summary(recs) == [
        ("read_file", ["notes.txt"], "ok", None),
        ("write_file", ["n.txt"], "ok", None),
        ("read_file", ["missing.txt"], "error", "not_found"),
    ]
    one_process(recs)
    assert recs[1].changes is not None and recs[1].changes[0].before == "<absent>"


def test_langchain_restore_after_close_is_logged(where: tuple[pathlib.Path, pathlib.Path], fsbox_bin: str) -> None:
    pytest.importorskip("langchain")
    from fsbox.integrations.langchain import FsboxToolkit

    root, log = where
    log.parent.mkdir()
    kit = FsboxToolkit(root, binary=fsbox_bin, checkpoints=True, audit=log)
    [write] = [t for t in kit.get_tools() if t.name == "write_file"]
    write.invoke({"path": "notes.txt", "content": SECRET})
    kit.close()
    assert kit.restore().complete
    assert [(r.seq, r.tool or r.method) for r in records(log, hidden=hidden(root))] == [
        (1, "checkpoint/create"),
        (2, "write_file"),
        (1, "checkpoint/restore"),
    ]


def test_editor_toolkit(where: tuple[pathlib.Path, pathlib.Path], fsbox_bin: str) -> None:
    pytest.importorskip("langchain")
    from langchain.agents import create_agent

    from fsbox.integrations.editor_formats import EditorToolkit

    root, log = where
    log.parent.mkdir()
    with EditorToolkit(root, binary=fsbox_bin, audit=log) as kit:
        create_agent(
            _langchain_fake(("str_replace_based_edit_tool", {"command": "create", "path": "e.txt", "file_text": SECRET})),
            kit.get_tools(),
        ).invoke({"messages": [("user", "go")]})
    assert summary(records(log, hidden=hidden(root))) == [("str_replace_based_edit_tool", ["e.txt"], "ok", None)]


def test_a_log_inside_the_root_is_refused(where: tuple[pathlib.Path, pathlib.Path], fsbox_bin: str) -> None:
    """The adapter hands the log to the server, whose guard still holds: a log the model could
    reach is refused before any tool exists."""
    pytest.importorskip("langchain")
    from fsbox.integrations.langchain import FsboxToolkit

    root, _ = where
    with FsboxToolkit(root, binary=fsbox_bin, audit=root / "audit.jsonl") as kit:
        with pytest.raises(fsbox.FsboxError) as err:
            kit.get_tools()
    assert err.value.kind == "invalid_arguments"
    assert (root / "audit.jsonl").read_text() == ""  # opened at start-up, and not one line since


def test_a_mistyped_audit_is_refused_when_the_adapter_is_made(tmp_path: pathlib.Path) -> None:
    pytest.importorskip("langchain")
    pytest.importorskip("pydantic_ai")
    from fsbox.integrations.langchain import FsboxToolkit
    from fsbox.integrations.pydantic_ai import FileSystem, FsboxToolset

    for make in (
        lambda: FsboxToolkit(tmp_path, audit=3),  # type: ignore[arg-type]
        lambda: FsboxToolset(tmp_path, audit={"path": "x"}),  # type: ignore[arg-type]
        lambda: FileSystem(audit=b"x"),  # type: ignore[arg-type]
    ):
        with pytest.raises(TypeError, match="audit must be an fsbox.AuditLog or a path"):
            make()


# -- deepagents ---------------------------------------------------------------------------------------


def test_deepagents_backend(where: tuple[pathlib.Path, pathlib.Path], fsbox_bin: str) -> None:
    """A deep agent's tool calls, as the backend makes them: each fsbox call one line."""
    pytest.importorskip("deepagents")
    from deepagents import create_deep_agent

    from fsbox.integrations.deepagents import FsboxBackend

    root, log = where
    log.parent.mkdir()
    turns = [
        ("read_file", {"file_path": "/notes.txt"}),
        ("edit_file", {"file_path": "/notes.txt", "old_string": "hello", "new_string": SECRET}),
        ("write_file", {"file_path": "/new.txt", "content": SECRET}),
        ("ls", {"path": "/"}),
        ("read_file", {"file_path": "/missing.txt"}),
    ]
    model = _langchain_fake(*turns)
    with FsboxBackend(root, binary=fsbox_bin, audit=log) as backend:
        create_deep_agent(model=model, backend=backend).invoke({"messages": [("user", "go")]})
    recs = records(log, hidden=hidden(root))
    assert summary(recs) == [
        ("read_file", ["notes.txt"], "ok", None),
        ("edit_file", ["notes.txt"], "ok", None),
        ("write_file", ["new.txt"], "ok", None),
        ("list_directory", ["."], "ok", None),
        ("read_file", ["missing.txt"], "error", "not_found"),
    ]
    one_process(recs)


# -- OpenAI Agents ------------------------------------------------------------------------------------


def test_openai_agents_editor(where: tuple[pathlib.Path, pathlib.Path], fsbox_bin: str) -> None:
    pytest.importorskip("agents")
    from agents import Agent, ApplyPatchTool, Runner

    from fsbox.integrations.openai_agents import FsboxEditor
    from test_openai_agents import Scripted

    root, log = where
    log.parent.mkdir()
    model = Scripted(
        [
            {"type": "create_file", "path": "pkg/new.txt", "diff": f"+{SECRET}\n"},
            {"type": "update_file", "path": "notes.txt", "diff": f"@@\n-hello\n+{SECRET}\n"},
            {"type": "delete_file", "path": "missing.txt"},
        ]
    )

    async def run() -> None:
        async with FsboxEditor(root, binary=fsbox_bin, audit=log) as editor:
            await Runner.run(Agent(name="coder", model=model, tools=[ApplyPatchTool(editor=editor)]), "go", max_turns=10)

    asyncio.run(asyncio.wait_for(run(), 60))
    recs = records(log, hidden=hidden(root))
    assert summary(recs) == [
        ("apply_patch", ["pkg", "pkg/new.txt"], "ok", None),
        ("apply_patch", ["notes.txt"], "ok", None),
        ("apply_patch", ["missing.txt"], "error", "not_found"),
    ]
    one_process(recs)


def test_openai_agents_editor_refuses_audit_with_a_client(tmp_path: pathlib.Path, fsbox_bin: str) -> None:
    pytest.importorskip("agents")
    from fsbox.integrations.openai_agents import FsboxEditor

    client = fsbox.AsyncClient(tmp_path, binary=fsbox_bin)
    with pytest.raises(ValueError, match=r"AsyncClient\(\.\.\., audit=\.\.\.\)"):
        FsboxEditor(client=client, audit=tmp_path.parent / "audit.jsonl")
