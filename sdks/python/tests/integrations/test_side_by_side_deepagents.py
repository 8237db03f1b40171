"""Side by side: deepagents' FilesystemBackend(virtual_mode=True) and fsbox's FsboxBackend under
the same create_deep_agent, driven by the same fake chat model, on the same tree.

Each case runs twice, once per backend (the backend being the only change), and compares the tool
messages the model saw, the interrupts a human was asked, and the tree afterwards. The deepagents
version is pinned in requirements-integrations.txt and named in docs/frameworks.md. A difference
that is fsbox's by design is asserted as that difference, with the docs naming it.
"""

from __future__ import annotations

import os
import pathlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import pytest

pytest.importorskip("deepagents", reason="install the deepagents extra: pip install 'fsbox[deepagents]'")

from deepagents import create_deep_agent  # noqa: E402
from deepagents.backends.filesystem import FilesystemBackend  # noqa: E402
from deepagents.middleware.filesystem import FilesystemPermission  # noqa: E402
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel  # noqa: E402
from langchain_core.messages import AIMessage, ToolMessage  # noqa: E402
from langgraph.checkpoint.memory import InMemorySaver  # noqa: E402
from langgraph.types import Command  # noqa: E402

from fsbox.integrations.deepagents import FsboxBackend  # noqa: E402

Tree = dict[str, "str | None"]  # path -> text; None for a directory; "->target" for a symlink


class ToolCallingFake(GenericFakeChatModel):
    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> ToolCallingFake:
        return self


def call(name: str, i: int, **args: Any) -> AIMessage:
    return AIMessage(content="", tool_calls=[{"name": name, "args": args, "id": f"c{i}"}])


def calls(*specs: tuple[str, dict[str, Any]]) -> list[AIMessage]:
    return [call(name, i, **args) for i, (name, args) in enumerate(specs)] + [AIMessage(content="done")]


def script(*specs: tuple[str, dict[str, Any]]) -> Callable[[], list[AIMessage]]:
    """The same turns, fresh for each side."""
    return lambda: calls(*specs)


@dataclass
class Outcome:
    tools: list[str] = field(default_factory=list)
    interrupts: list[Any] = field(default_factory=list)
    resumes: int = 0
    tree: dict[str, str | None] = field(default_factory=dict)


def _build(root: pathlib.Path, tree: Tree) -> None:
    root.mkdir(parents=True, exist_ok=True)
    for rel, text in tree.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        if text is None:
            p.mkdir(exist_ok=True)
        elif text.startswith("->"):
            p.symlink_to(text[2:])
        else:
            p.write_text(text)


def _snapshot(root: pathlib.Path) -> dict[str, str | None]:
    out: dict[str, str | None] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            p = pathlib.Path(dirpath, name)
            rel = os.path.relpath(p, root)
            if p.is_symlink():
                out[rel] = "->" + os.readlink(p)
            elif p.is_dir():
                out[rel] = None
            else:
                out[rel] = p.read_text(errors="replace")
    return out


def run(
    side: str,
    root: pathlib.Path,
    tree: Tree,
    turns: list[AIMessage],
    *,
    fsbox_bin: str,
    agent_permissions: list[FilesystemPermission] | None = None,
    backend_permissions: list[FilesystemPermission] | None = None,
    decide: Any = None,
) -> Outcome:
    """Run turns on one side ("deepagents" or "fsbox"); decide(interrupt value) answers interrupts."""
    _build(root, tree)
    backend: Any
    if side == "deepagents":
        backend = FilesystemBackend(root_dir=root, virtual_mode=True)
    else:
        backend = FsboxBackend(root, binary=fsbox_bin, permissions=backend_permissions)
    out = Outcome()
    try:
        agent = create_deep_agent(
            model=ToolCallingFake(messages=iter(turns)),
            backend=backend,
            permissions=agent_permissions,
            checkpointer=InMemorySaver(),
        )
        cfg: Any = {"configurable": {"thread_id": "t"}}
        state = agent.invoke({"messages": [("user", "go")]}, cfg)
        while state.get("__interrupt__"):
            for intr in state["__interrupt__"]:
                out.interrupts.append(intr.value)
            assert decide is not None, f"unexpected interrupt {state['__interrupt__']}"
            out.resumes += 1
            assert out.resumes < 10
            state = agent.invoke(Command(resume=decide(state["__interrupt__"][-1].value)), cfg)
        out.tools = [str(m.content) for m in state["messages"] if isinstance(m, ToolMessage)]
    finally:
        if isinstance(backend, FsboxBackend):
            backend.close()
    out.tree = _snapshot(root)
    return out


def both(tmp_path: pathlib.Path, fsbox_bin: str, tree: Tree, turns_fn: Callable[[], list[AIMessage]], **kw: Any) -> tuple[Outcome, Outcome]:
    return (
        run("deepagents", tmp_path / "deepagents", tree, turns_fn(), fsbox_bin=fsbox_bin, **kw),
        run("fsbox", tmp_path / "fsbox", tree, turns_fn(), fsbox_bin=fsbox_bin, **kw),
    )


LINKED: Tree = {"src/lib.py": "x = 1\n", "link_in": "->src/lib.py", "srclink": "->src"}
DENY_SRC = [FilesystemPermission(operations=["write"], paths=["/src/**"], mode="deny")]


# -- 7. a deny rule through a symlink -----------------------------------------------------------


def test_agent_deny_rule_holds_through_a_link(tmp_path: pathlib.Path, fsbox_bin: str) -> None:
    turns = script(
        ("write_file", {"file_path": "/link_in", "content": "pwned\n"}),
        ("edit_file", {"file_path": "/link_in", "old_string": "x = 1", "new_string": "x = 2"}),
        ("write_file", {"file_path": "/srclink/new.py", "content": "pwned\n"}),
    )
    d, f = both(tmp_path, fsbox_bin, LINKED, turns, agent_permissions=DENY_SRC)
    assert all("permission denied" in t for t in d.tools), d.tools
    assert f.tools == d.tools
    assert f.tree == d.tree and f.tree["src/lib.py"] == "x = 1\n" and "src/new.py" not in f.tree


@pytest.mark.parametrize("where", ["backend", "both"])
def test_backend_deny_rule_holds_through_a_link(tmp_path: pathlib.Path, fsbox_bin: str, where: str) -> None:
    # deepagents' FilesystemBackend takes no rules, so this side has no twin: fsbox refuses on the
    # resolved path at I/O time, whether the agent has the rule too or not.
    turns = calls(
        ("write_file", {"file_path": "/link_in", "content": "pwned\n"}),
        ("write_file", {"file_path": "/srclink/new.py", "content": "pwned\n"}),
    )
    f = run(
        "fsbox", tmp_path, LINKED, turns, fsbox_bin=fsbox_bin, backend_permissions=DENY_SRC,
        agent_permissions=DENY_SRC if where == "both" else None,
    )
    assert all(("denied" in t.lower()) for t in f.tools), f.tools
    assert f.tree["src/lib.py"] == "x = 1\n" and "src/new.py" not in f.tree


def test_read_deny_rule_holds_through_a_link(tmp_path: pathlib.Path, fsbox_bin: str) -> None:
    rules = [FilesystemPermission(operations=["read"], paths=["/src/**"], mode="deny")]
    turns = script(("read_file", {"file_path": "/link_in"}))
    d, f = both(tmp_path, fsbox_bin, LINKED, turns, agent_permissions=rules)
    assert "permission denied" in d.tools[0]
    assert f.tools == d.tools


# -- 6. delete ----------------------------------------------------------------------------------


def test_delete_file_directory_and_missing(tmp_path: pathlib.Path, fsbox_bin: str) -> None:
    tree: Tree = {"a.txt": "a\n", "dir/x.txt": "x\n", "dir/sub/y.txt": "y\n", "keep/k.txt": "k\n"}
    turns = script(
        ("delete", {"file_path": "/a.txt"}),
        ("delete", {"file_path": "/dir"}),
        ("delete", {"file_path": "/missing"}),
    )
    d, f = both(tmp_path, fsbox_bin, tree, turns)
    assert d.tree == {"keep": None, "keep/k.txt": "k\n"}
    assert f.tools == d.tools
    assert f.tree == d.tree


def test_delete_a_link_removes_the_link_not_its_target(tmp_path: pathlib.Path, fsbox_bin: str) -> None:
    # Better: FilesystemBackend(virtual_mode=True) resolves the link first and deletes the directory
    # it points to (its own docstring says a link is removed as a link); fsbox removes the link.
    tree: Tree = {"keep/k.txt": "k\n", "ln": "->keep"}
    turns = script(("delete", {"file_path": "/ln"}))
    d, f = both(tmp_path, fsbox_bin, tree, turns)
    assert d.tree == {"ln": "->keep"}
    assert f.tools == d.tools
    assert f.tree == {"keep": None, "keep/k.txt": "k\n"}


def test_delete_refused_when_a_nested_path_is_denied(tmp_path: pathlib.Path, fsbox_bin: str) -> None:
    tree: Tree = {"dir/x.txt": "x\n", "dir/locked/y.txt": "y\n"}
    rules = [FilesystemPermission(operations=["write"], paths=["/dir/locked/**"], mode="deny")]
    turns = script(("delete", {"file_path": "/dir"}))
    d, f = both(tmp_path, fsbox_bin, tree, turns, agent_permissions=rules)
    assert "permission denied" in d.tools[0]
    assert f.tools == d.tools and f.tree == d.tree == _snapshot_of(tree)


def _snapshot_of(tree: Tree) -> dict[str, str | None]:
    out: dict[str, str | None] = {}
    for rel, text in tree.items():
        parts = rel.split("/")
        for i in range(1, len(parts)):
            out["/".join(parts[:i])] = None
        out[rel] = text
    return out


# -- 9. one approval for one change -------------------------------------------------------------

GUARD = [FilesystemPermission(operations=["write"], paths=["/guarded/**"], mode="interrupt")]


def _approve(value: Any) -> Any:
    return {"decisions": [{"type": "approve"}]}


def _edit_to(content: str) -> Any:
    def decide(value: Any) -> Any:
        req = value["action_requests"][0] if "action_requests" in value else value
        args = dict(req.get("args") or {"file_path": "/" + req["path"]})
        args["content"] = content
        return {"decisions": [{"type": "edit", "edited_action": {"name": "write_file", "args": args}}]}

    return decide


@pytest.mark.parametrize("where", ["agent", "both"])
def test_one_change_one_interrupt(tmp_path: pathlib.Path, fsbox_bin: str, where: str) -> None:
    tree: Tree = {"guarded/a.txt": "a\n"}
    turns = script(
        ("write_file", {"file_path": "/guarded/a.txt", "content": "A\n"}),
        ("write_file", {"file_path": "/guarded/new/b.txt", "content": "B\n"}),
    )
    kw: dict[str, Any] = {"agent_permissions": GUARD, "decide": _approve}
    d = run("deepagents", tmp_path / "d", tree, turns(), fsbox_bin=fsbox_bin, **kw)
    f = run("fsbox", tmp_path / "f", tree, turns(), fsbox_bin=fsbox_bin, backend_permissions=GUARD if where == "both" else None, **kw)
    assert d.resumes == 2
    assert f.resumes == d.resumes and f.interrupts == d.interrupts
    assert f.tools == d.tools and f.tree == d.tree


def test_edit_decision_lands_in_one_resume(tmp_path: pathlib.Path, fsbox_bin: str) -> None:
    tree: Tree = {"guarded/a.txt": "a\n"}
    turns = script(("write_file", {"file_path": "/guarded/a.txt", "content": "model\n"}))
    d = run("deepagents", tmp_path / "d", tree, turns(), fsbox_bin=fsbox_bin, agent_permissions=GUARD, decide=_edit_to("human\n"))
    f = run(
        "fsbox", tmp_path / "f", tree, turns(), fsbox_bin=fsbox_bin, agent_permissions=GUARD,
        backend_permissions=GUARD, decide=_edit_to("human\n"),
    )
    assert d.resumes == 1 and d.tree["guarded/a.txt"] == "human\n"
    assert f.resumes == 1 and f.tree == d.tree and f.tools == d.tools


def test_backend_rule_alone_asks_once_for_a_write_and_its_parent(tmp_path: pathlib.Path, fsbox_bin: str) -> None:
    # Only the backend has the rule: fsbox asks, once per write, even when the write creates a parent.
    turns = calls(
        ("write_file", {"file_path": "/guarded/new/b.txt", "content": "B\n"}),
        ("write_file", {"file_path": "/guarded/c.txt", "content": "C\n"}),
    )
    f = run("fsbox", tmp_path, {"guarded": None}, turns, fsbox_bin=fsbox_bin, backend_permissions=GUARD, decide=lambda v: True)
    assert f.resumes == 2
    assert [i["path"] for i in f.interrupts] == ["guarded/new/b.txt", "guarded/c.txt"]
    assert f.tree["guarded/new/b.txt"] == "B\n" and f.tree["guarded/c.txt"] == "C\n"


def test_backend_rule_refusal_creates_no_parent(tmp_path: pathlib.Path, fsbox_bin: str) -> None:
    turns = calls(("write_file", {"file_path": "/guarded/new/b.txt", "content": "B\n"}))
    f = run(
        "fsbox", tmp_path, {"guarded": None}, turns, fsbox_bin=fsbox_bin, backend_permissions=GUARD,
        decide=lambda v: {"type": "reject", "message": "no"},
    )
    assert f.resumes == 1 and f.tree == {"guarded": None}
    assert "no" in f.tools[0]


# -- 8. dot paths -------------------------------------------------------------------------------


def test_dot_entries_are_listed_and_globbed(tmp_path: pathlib.Path, fsbox_bin: str) -> None:
    tree: Tree = {".github/workflows/ci.yml": "on: push\n", "a.yml": "x: 1\n", "notes.md": "n\n", ".prettierrc": "{}\n"}
    turns = script(
        ("ls", {"path": "/"}),
        ("glob", {"pattern": "*.yml"}),
        ("glob", {"pattern": "*.{md,yml}"}),
        ("grep", {"pattern": "push"}),
        ("glob", {"pattern": "**/*.yml"}),
    )
    d, f = both(tmp_path, fsbox_bin, tree, turns)
    assert "/.github/" in d.tools[0] and "/.prettierrc" in d.tools[0]
    assert "/.github/workflows/ci.yml" in d.tools[1] and "/.github/workflows/ci.yml" in d.tools[2]
    assert f.tools[:3] == d.tools[:3]
    # By design: deepagents' grep skips dot paths when ripgrep is on the PATH (rg's default) and
    # searches them in its Python fallback; fsbox searches them, as the fallback and ls do.
    assert f.tools[3] == "/.github/workflows/ci.yml" and d.tools[3] in (f.tools[3], "No matches found")
    # Better, and documented: deepagents' "**/" does not enter dot directories although its "*.yml"
    # does; fsbox's glob treats both alike.
    assert "/.github/" not in d.tools[4] and "/.github/workflows/ci.yml" in f.tools[4]


def test_credential_dot_files_stay_hidden(tmp_path: pathlib.Path, fsbox_bin: str) -> None:
    # By design (docs/frameworks.md): deepagents lists and reads .env; fsbox denies credential
    # files by default (config={"denied_patterns": []} lifts it), so they are neither listed nor read.
    tree: Tree = {".env": "API_KEY=secret\n", "a.txt": "a\n"}
    turns = script(("ls", {"path": "/"}), ("read_file", {"file_path": "/.env"}), ("grep", {"pattern": "API_KEY"}))
    d, f = both(tmp_path, fsbox_bin, tree, turns)
    assert "/.env" in d.tools[0] and "secret" in d.tools[1]
    assert "/.env" not in f.tools[0] and "secret" not in "".join(f.tools)


def test_dot_directories_keep_their_names(tmp_path: pathlib.Path, fsbox_bin: str) -> None:
    tree: Tree = {".github/workflows/ci.yml": "on: push\n", "a.md": "x\n"}
    turns = script(
        ("ls", {"path": "/.github"}),
        ("read_file", {"file_path": "/.github/workflows/ci.yml"}),
        ("grep", {"pattern": "push", "path": "/.github"}),
    )
    d, f = both(tmp_path, fsbox_bin, tree, turns)
    assert "/.github/workflows" in d.tools[0]
    assert f.tools == d.tools


# -- 10. reads and edits ------------------------------------------------------------------------

PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(24))


def test_reads_empty_wide_image_and_ambiguous_edit(tmp_path: pathlib.Path, fsbox_bin: str) -> None:
    tree: Tree = {"e.txt": "", "blank.txt": "  \n\n", "amb.txt": "foo bar foo\n", "wide.txt": "a\n" + "x" * 60_000 + "\nb\n"}
    turns = script(
        ("read_file", {"file_path": "/e.txt"}),
        ("read_file", {"file_path": "/blank.txt"}),
        ("edit_file", {"file_path": "/amb.txt", "old_string": "foo", "new_string": "z"}),
        ("read_file", {"file_path": "/wide.txt"}),
        ("read_file", {"file_path": "/wide.txt", "offset": 1, "limit": 1}),
        ("read_file", {"file_path": "/img.png"}),
    )
    out = {}
    for side in ("deepagents", "fsbox"):
        root = tmp_path / side
        root.mkdir()
        (root / "img.png").write_bytes(PNG)
        out[side] = run(side, root, tree, turns(), fsbox_bin=fsbox_bin)
    d, f = out["deepagents"], out["fsbox"]
    assert d.tools[0].startswith("@@ lines 1-1 @@\nSystem reminder") and "replace_all=True" in d.tools[2]
    assert "x" * 60_000 in d.tools[3] and "'type': 'image'" in d.tools[5]
    assert f.tools == d.tools
    assert f.tree == d.tree


def test_binary_file_is_summarised_not_dumped(tmp_path: pathlib.Path, fsbox_bin: str) -> None:
    # Better, by design: deepagents decodes a binary file's bytes as text into the model's context;
    # fsbox says what it is and returns no bytes (images and PDFs are shown, above).
    turns = script(("read_file", {"file_path": "/b.bin"}))
    out = {}
    for side in ("deepagents", "fsbox"):
        root = tmp_path / side
        root.mkdir()
        (root / "b.bin").write_bytes(b"\x00\x01\x02\x03" * 10)
        out[side] = run(side, root, {}, turns(), fsbox_bin=fsbox_bin)
    assert "\x00" in out["deepagents"].tools[0]
    assert "\x00" not in out["fsbox"].tools[0] and "binary file (40 bytes)" in out["fsbox"].tools[0]
