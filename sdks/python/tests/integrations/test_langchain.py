"""fsbox.langchain driven by LangChain's create_agent with a fake chat model and a real fsbox process."""

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

from fsbox.langchain import FsboxToolkit  # noqa: E402


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
