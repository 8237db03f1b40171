"""fsbox.integrations.deepagents: the backend alone, and under create_deep_agent with a fake chat
model."""

from __future__ import annotations

import pathlib
from collections.abc import Iterator, Sequence
from typing import Any

import pytest

pytest.importorskip("deepagents", reason="install the deepagents extra: pip install 'fsbox[deepagents]'")

from deepagents import create_deep_agent  # noqa: E402
from deepagents.middleware.filesystem import FilesystemPermission  # noqa: E402
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel  # noqa: E402
from langchain_core.messages import AIMessage, ToolMessage  # noqa: E402
from langgraph.checkpoint.memory import InMemorySaver  # noqa: E402
from langgraph.types import Command  # noqa: E402

from fsbox.integrations.deepagents import FsboxBackend  # noqa: E402


@pytest.fixture
def backend(tmp_path: pathlib.Path, fsbox_bin: str) -> Iterator[FsboxBackend]:
    root = tmp_path / "root"
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text("import os\nprint('a.b')\nprint('a.b')\n")
    (root / "README.md").write_text("hello\n")
    (tmp_path / "outside.txt").write_text("OUTSIDE SECRET\n")
    (root / "escape").symlink_to(tmp_path / "outside.txt")
    with FsboxBackend(root, binary=fsbox_bin) as b:
        yield b


def test_protocol_methods(backend: FsboxBackend) -> None:
    ls = backend.ls("/")
    assert ls.error is None and ls.entries is not None
    by_path = {e["path"]: e for e in ls.entries}
    assert by_path["/src/"]["is_dir"] is True
    assert by_path["/README.md"]["size"] == 6 and "modified_at" in by_path["/README.md"]
    assert "/escape" not in by_path  # a link leading outside is not shown
    assert "not_a_directory" in (backend.ls("/README.md").error or "")
    assert "path_not_found" in (backend.ls("/nope").error or "")

    r = backend.read("/src/app.py", offset=1, limit=1)
    assert r.error is None and r.file_data == {"content": "print('a.b')\n", "encoding": "utf-8"}
    assert (r.start_line, r.end_line, r.next_offset, r.total_lines) == (2, 2, 2, 3)
    assert backend.read("/src/app.py", limit=0).no_lines_requested
    assert "exceeds file length (3 lines)" in (backend.read("/src/app.py", offset=9).error or "")

    grep = backend.grep("a.b", "/", "*.py")  # literal: the dot is not a wildcard
    assert grep.matches is not None and [m["line"] for m in grep.matches] == [2, 3]
    assert grep.matches[0]["path"] == "/src/app.py"
    capped = backend.grep("print", max_count=1)
    assert capped.truncated and capped.matches is not None and len(capped.matches) == 1

    glob = backend.glob("*.py")  # basename anywhere
    assert glob.matches == [{"path": "/src/app.py", "is_dir": False}]

    assert backend.write("/new/deep/file.txt", "x\n").error is None  # parents created
    assert backend.read("/new/deep/file.txt").file_data == {"content": "x\n", "encoding": "utf-8"}
    e = backend.edit("/src/app.py", "print('a.b')", "print(1)", replace_all=True)
    assert e.error is None and e.occurrences == 2
    assert backend.download_files(["/src/app.py"])[0].content == b"import os\nprint(1)\nprint(1)\n"
    many = backend.edit("/src/app.py", "print(1)", "print(2)")
    assert many.error is not None and many.occurrences is None


def test_hostile_paths_are_errors_not_escapes(backend: FsboxBackend, tmp_path: pathlib.Path) -> None:
    for path in ("/../outside.txt", "/escape", str(tmp_path / "outside.txt"), "/src/../../outside.txt"):
        r = backend.read(path)
        assert r.error is not None and r.file_data is None, path
        assert "OUTSIDE SECRET" not in r.error and str(tmp_path) not in r.error.replace(path, "")
    w = backend.write("/../evil.txt", "x")
    assert w.error is not None
    assert not (tmp_path / "evil.txt").exists()
    d = backend.download_files(["/escape"])
    assert d[0].content is None and d[0].error is not None


class ToolCallingFake(GenericFakeChatModel):
    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> ToolCallingFake:
        return self


_EDIT_NOTES = AIMessage(
    content="",
    tool_calls=[
        {
            "name": "edit_file",
            "args": {"file_path": "/notes.md", "old_string": "draft", "new_string": "final"},
            "id": "e1",
        }
    ],
)
"""The model's edit of notes.md, which the interrupt rule of _interrupting_agent pauses."""


def _interrupting_agent(tmp_path: pathlib.Path, fsbox_bin: str, *turns: AIMessage) -> tuple[Any, FsboxBackend]:
    """A deep agent over notes.md ("draft") whose model plays turns, on a backend where every
    write is an interrupt; the caller closes the backend."""
    (tmp_path / "notes.md").write_text("draft\n")
    model = ToolCallingFake(messages=iter(turns))
    backend = FsboxBackend(
        tmp_path,
        binary=fsbox_bin,
        permissions=[FilesystemPermission(operations=["write"], paths=["/**"], mode="interrupt")],
    )
    return create_deep_agent(model=model, backend=backend, checkpointer=InMemorySaver()), backend


def test_deep_agent_with_fsbox_backend_and_interrupt(tmp_path: pathlib.Path, fsbox_bin: str) -> None:
    agent, backend = _interrupting_agent(
        tmp_path,
        fsbox_bin,
        AIMessage(content="", tool_calls=[{"name": "read_file", "args": {"file_path": "/notes.md"}, "id": "r1"}]),
        _EDIT_NOTES,
        AIMessage(content="", tool_calls=[{"name": "read_file", "args": {"file_path": "/../etc/passwd"}, "id": "r2"}]),
        AIMessage(content="done"),
    )
    try:
        cfg: Any = {"configurable": {"thread_id": "t"}}
        first = agent.invoke({"messages": [("user", "finalise the notes")]}, cfg)
        [intr] = first["__interrupt__"]  # fsbox's change request, raised inside the tool
        assert intr.value["action"] == "fsbox_change" and intr.value["path"] == "notes.md"
        assert "-draft" in intr.value["diff"] and "+final" in intr.value["diff"]
        assert (tmp_path / "notes.md").read_text() == "draft\n"
        state = agent.invoke(Command(resume=True), cfg)
        assert (tmp_path / "notes.md").read_text() == "final\n"
        tools = [m for m in state["messages"] if isinstance(m, ToolMessage)]
        assert "draft" in str(tools[0].content)
        assert "outside" in str(tools[-1].content).lower() or "error" in str(tools[-1].content).lower()
    finally:
        backend.close()


def test_deep_agent_resumed_with_an_edit_decision(tmp_path: pathlib.Path, fsbox_bin: str) -> None:
    agent, backend = _interrupting_agent(tmp_path, fsbox_bin, _EDIT_NOTES, AIMessage(content="done"))
    try:
        cfg: Any = {"configurable": {"thread_id": "t"}}
        first = agent.invoke({"messages": [("user", "finalise the notes")]}, cfg)
        [intr] = first["__interrupt__"]
        assert intr.value["operation"] == "edit" and (tmp_path / "notes.md").read_text() == "draft\n"
        edit = {
            "type": "edit",
            "edited_action": {
                "name": "edit_file",
                "args": {"file_path": "/notes.md", "old_string": "draft", "new_string": "reviewed"},
            },
        }
        agent.invoke(Command(resume=edit), cfg)
        assert (tmp_path / "notes.md").read_text() == "reviewed\n"
    finally:
        backend.close()


def test_write_edited_to_another_path_reports_that_path(
    tmp_path: pathlib.Path, fsbox_bin: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    import fsbox.integrations.deepagents as adapter
    from fsbox.integrations._common import _decision

    edit = {"type": "edit", "edited_action": {"args": {"file_path": "/docs/b.txt", "content": "r\n"}}}
    monkeypatch.setattr(adapter, "ask_human", lambda pending, review=None: _decision(edit))
    (tmp_path / "docs").mkdir()
    backend = FsboxBackend(tmp_path, binary=fsbox_bin, approve="all")
    try:
        w = backend.write("/a.txt", "m\n")
        assert w.error is None and w.path == "/docs/b.txt"
        assert (tmp_path / "docs" / "b.txt").read_text() == "r\n" and not (tmp_path / "a.txt").exists()
    finally:
        backend.close()
