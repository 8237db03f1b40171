"""fsbox.integrations.langchain driven by LangChain's create_agent with a fake chat model and a real
fsbox process."""

from __future__ import annotations

import pathlib
from collections.abc import Sequence
from typing import Any

import pytest

pytest.importorskip("langchain", reason="install the langchain extra: pip install 'fsbox[langchain]'")

from langchain.agents import create_agent  # noqa: E402
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel  # noqa: E402
from langchain_core.messages import AIMessage, ToolMessage  # noqa: E402
from langgraph.checkpoint.memory import InMemorySaver  # noqa: E402
from langgraph.types import Command  # noqa: E402

from fsbox.integrations.langchain import FsboxToolkit  # noqa: E402


class ToolCallingFake(GenericFakeChatModel):
    """GenericFakeChatModel that accepts bind_tools, as create_agent requires."""

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> ToolCallingFake:
        return self


def fake(*calls: tuple[str, dict[str, Any]]) -> ToolCallingFake:
    msgs: list[AIMessage | str] = [
        AIMessage(content="", tool_calls=[{"name": n, "args": a, "id": f"call{i}"}])
        for i, (n, a) in enumerate(calls)
    ]
    return ToolCallingFake(messages=iter([*msgs, AIMessage(content="done")]))


def tool_messages(state: dict[str, Any]) -> list[ToolMessage]:
    return [m for m in state["messages"] if isinstance(m, ToolMessage)]


def test_agent_reads_edits_and_gets_errors_as_tool_messages(tmp_path: pathlib.Path, fsbox_bin: str) -> None:
    (tmp_path / "a.txt").write_text("one\ntwo\n")
    with FsboxToolkit(tmp_path, binary=fsbox_bin) as kit:
        agent = create_agent(
            fake(
                ("read_file", {"path": "a.txt"}),
                ("edit_file", {"path": "a.txt", "old_text": "two", "new_text": "2"}),
                ("read_file", {"path": "../../etc/passwd"}),
            ),
            kit.get_tools(),
        )
        state = agent.invoke({"messages": [("user", "go")]})
    msgs = tool_messages(state)
    assert str(msgs[0].content).startswith("[a.txt | 2 lines | hash:")
    assert str(msgs[1].content).startswith("Edited a.txt")
    assert msgs[2].status == "error"
    assert "outside the root" in str(msgs[2].content)
    assert (tmp_path / "a.txt").read_text() == "one\n2\n"
    assert kit._client is None


def test_rule_flagged_write_interrupts_the_graph(tmp_path: pathlib.Path, fsbox_bin: str) -> None:
    rules = [{"operations": ["write"], "paths": ["/**"], "mode": "interrupt"}]
    kit = FsboxToolkit(tmp_path, binary=fsbox_bin, config={"permissions": rules})
    try:
        agent = create_agent(
            fake(("write_file", {"path": "x.txt", "content": "x\n"})),
            kit.get_tools(),
            checkpointer=InMemorySaver(),
        )
        cfg: Any = {"configurable": {"thread_id": "t1"}}
        first = agent.invoke({"messages": [("user", "go")]}, cfg)
        [intr] = first["__interrupt__"]
        assert intr.value["path"] == "x.txt" and "+x" in intr.value["diff"]
        assert not (tmp_path / "x.txt").exists()
        agent.invoke(Command(resume=True), cfg)
        assert (tmp_path / "x.txt").read_text() == "x\n"
    finally:
        kit.close()


def test_review_callback_refusal_writes_nothing(tmp_path: pathlib.Path, fsbox_bin: str) -> None:
    seen: list[str] = []

    def review(change: Any) -> tuple[bool, str]:
        seen.append(change.path)
        return False, "not today"

    with FsboxToolkit(tmp_path, binary=fsbox_bin, approve="all", review=review) as kit:
        [tool] = [t for t in kit.get_tools() if t.name == "write_file"]
        text = tool.invoke({"path": "y.txt", "content": "y\n"})
    assert seen == ["y.txt"]
    assert "not today" in text
    assert not (tmp_path / "y.txt").exists()


def test_review_callback_edit_applies_the_reviewers_change(tmp_path: pathlib.Path, fsbox_bin: str) -> None:
    answers: list[Any] = [
        {"decision": "edit", "content": "reviewed\n"},
        {"type": "edit", "edited_action": {"name": "write_file", "args": {"path": ".git/config", "content": "x"}}},
        {"decision": "edit", "content": "reviewed\nwhole\n"},
    ]
    (tmp_path / ".git").mkdir()

    with FsboxToolkit(tmp_path, binary=fsbox_bin, approve="all", review=lambda change: answers.pop(0)) as kit:
        tools = {t.name: t for t in kit.get_tools()}
        text = tools["write_file"].invoke({"path": "y.txt", "content": "model\n"})
        assert text.endswith("\nNote: the reviewer modified this change before it was applied.")
        assert (tmp_path / "y.txt").read_text() == "reviewed\n"
        refused = tools["write_file"].invoke({"path": "z.txt", "content": "model\n"})
        # An edit_file answered with content: the reviewer's whole new file lands.
        edited = tools["edit_file"].invoke({"path": "y.txt", "old_text": "reviewed", "new_text": "model"})
        assert edited.endswith("\nNote: the reviewer modified this change before it was applied.")
        assert (tmp_path / "y.txt").read_text() == "reviewed\nwhole\n"
    assert "protected" in refused.lower() and "reviewer" in refused
    assert not (tmp_path / ".git" / "config").exists() and not (tmp_path / "z.txt").exists()


def test_resume_with_a_langchain_edit_decision(tmp_path: pathlib.Path, fsbox_bin: str) -> None:
    rules = [{"operations": ["write"], "paths": ["/**"], "mode": "interrupt"}]
    kit = FsboxToolkit(tmp_path, binary=fsbox_bin, config={"permissions": rules})
    try:
        agent = create_agent(fake(("write_file", {"path": "x.txt", "content": "x\n"})), kit.get_tools(), checkpointer=InMemorySaver())
        cfg: Any = {"configurable": {"thread_id": "t2"}}
        agent.invoke({"messages": [("user", "go")]}, cfg)
        edit = {"type": "edit", "edited_action": {"name": "write_file", "args": {"path": "x.txt", "content": "edited\n"}}}
        state = agent.invoke(Command(resume={"decisions": [edit]}), cfg)
        assert (tmp_path / "x.txt").read_text() == "edited\n"
        assert "reviewer modified" in str(tool_messages(state)[-1].content)
    finally:
        kit.close()


def test_human_decisions_in_every_spelling() -> None:
    from fsbox.integrations._common import Decision, _decision

    assert _decision(True) == Decision(True)
    assert _decision((False, "no")) == Decision(False, "no")
    assert _decision({"approve": False, "reason": "later"}) == Decision(False, "later")
    assert _decision({"type": "approve"}) == Decision(True)
    assert _decision({"decisions": [{"type": "reject", "message": "nope"}]}) == Decision(False, "nope")
    assert _decision({"decision": "edit", "content": "c"}) == Decision(True, content="c")
    assert _decision({"decision": "edit", "arguments": {"path": "a", "content": "c"}}).arguments == {"path": "a", "content": "c"}
    da = _decision({"type": "edit", "edited_action": {"args": {"file_path": "/src/a.py", "old_string": "x", "new_string": "y"}}})
    assert da.arguments == {"path": "src/a.py", "old_text": "x", "new_text": "y"}
    bads: list[dict[str, Any]] = [{"type": "edit"}, {"decision": "edit", "content": "c", "arguments": {}}, {"decisions": []}]
    for bad in bads:
        with pytest.raises(ValueError):
            _decision(bad)
