"""fsbox.integrations.pydantic_ai driven by pydantic-ai's own FunctionModel through a real Agent and
fsbox process."""

from __future__ import annotations

import os
import pathlib
from typing import Any

import pytest

pytest.importorskip("pydantic_ai", reason="install the pydantic-ai extra: pip install 'fsbox[pydantic-ai]'")

from pydantic_ai import Agent, DeferredToolRequests, DeferredToolResults  # noqa: E402
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart, ToolReturnPart  # noqa: E402
from pydantic_ai.models.function import AgentInfo, FunctionModel  # noqa: E402

from fsbox.integrations.pydantic_ai import FileSystem, FsboxToolset  # noqa: E402


def scripted(calls: list[ToolCallPart]) -> tuple[FunctionModel, list[ToolReturnPart]]:
    """A model that makes the given calls one per turn, then answers "done"; and what it saw."""
    seen: list[ToolReturnPart] = []

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.extend(p for p in messages[-1].parts if isinstance(p, ToolReturnPart))
        turn = sum(isinstance(m, ModelResponse) for m in messages)
        if turn < len(calls):
            return ModelResponse(parts=[calls[turn]])
        return ModelResponse(parts=[TextPart("done")])

    return FunctionModel(model), seen


def test_reads_searches_and_edits_through_fsbox(tmp_path: pathlib.Path, fsbox_bin: str) -> None:
    (tmp_path / "notes.txt").write_text("hello\nworld\n")
    model, seen = scripted(
        [
            ToolCallPart("read_file", {"path": "notes.txt"}),
            ToolCallPart("search_files", {"pattern": "wor"}),
            ToolCallPart("edit_file", {"path": "notes.txt", "old_text": "world", "new_text": "there"}),
        ]
    )
    agent = Agent(model, capabilities=[FileSystem(root_dir=tmp_path, binary=fsbox_bin)])
    assert agent.run_sync("go").output == "done"
    assert (tmp_path / "notes.txt").read_text() == "hello\nthere\n"
    texts = [str(p.content) for p in seen]
    assert texts[0].startswith("[notes.txt | 2 lines | hash:")
    assert "notes.txt:2:world" in texts[1]
    assert texts[2].startswith("Edited notes.txt")
    assert all(p.outcome != "retried" for p in seen)


def test_hostile_path_is_a_retry_not_an_escape(tmp_path: pathlib.Path, fsbox_bin: str) -> None:
    root = tmp_path / "root"
    root.mkdir()
    (tmp_path / "secret.txt").write_text("TOP SECRET\n")
    model, seen = scripted(
        [
            ToolCallPart("read_file", {"path": "../secret.txt"}),
            ToolCallPart("read_file", {"path": str(tmp_path / "secret.txt")}),
        ]
    )
    fs = FileSystem(root_dir=root, binary=fsbox_bin, max_retries=3)
    Agent(model, capabilities=[fs]).run_sync("go")
    assert [p.outcome for p in seen] == ["retried", "retried"]
    assert all("TOP SECRET" not in str(p.content) for p in seen)
    # The relative spelling names no host path; the absolute one repeats only what the model sent.
    assert str(tmp_path) not in str(seen[0].content)


def test_rule_flagged_write_waits_for_a_human(tmp_path: pathlib.Path, fsbox_bin: str) -> None:
    (tmp_path / "free.txt").write_text("a\n")
    rules = [{"operations": ["write"], "paths": ["/guarded/**"], "mode": "interrupt"}]
    (tmp_path / "guarded").mkdir()
    model, seen = scripted(
        [
            ToolCallPart("write_file", {"path": "free.txt", "content": "b\n"}, tool_call_id="c1"),
            ToolCallPart("write_file", {"path": "guarded/x.txt", "content": "x\n"}, tool_call_id="c2"),
        ]
    )
    fs = FileSystem(root_dir=tmp_path, binary=fsbox_bin, config={"permissions": rules})
    agent = Agent(model, capabilities=[fs], output_type=[str, DeferredToolRequests])
    first = agent.run_sync("go")
    # The unflagged write landed without asking; the flagged one waits, and nothing is on disk.
    assert (tmp_path / "free.txt").read_text() == "b\n"
    assert not (tmp_path / "guarded" / "x.txt").exists()
    assert isinstance(first.output, DeferredToolRequests)
    [approval] = first.output.approvals
    meta: dict[str, Any] = first.output.metadata[approval.tool_call_id]
    assert meta["path"] == "guarded/x.txt" and meta["reason"] == "permission_rule"
    assert "+x" in (meta["diff"] or "")

    second = agent.run_sync(
        message_history=first.all_messages(),
        deferred_tool_results=DeferredToolResults(approvals={approval.tool_call_id: True}),
    )
    assert second.output == "done"
    assert (tmp_path / "guarded" / "x.txt").read_text() == "x\n"


def test_denied_approval_writes_nothing(tmp_path: pathlib.Path, fsbox_bin: str) -> None:
    model, _ = scripted([ToolCallPart("write_file", {"path": "x.txt", "content": "x\n"}, tool_call_id="c1")])
    agent = Agent(
        model,
        capabilities=[FileSystem(root_dir=tmp_path, binary=fsbox_bin, approve="all")],
        output_type=[str, DeferredToolRequests],
    )
    first = agent.run_sync("go")
    assert isinstance(first.output, DeferredToolRequests)
    second = agent.run_sync(
        message_history=first.all_messages(),
        deferred_tool_results=DeferredToolResults(approvals={"c1": False}),
    )
    assert second.output == "done"
    assert not (tmp_path / "x.txt").exists()


def test_process_is_closed_with_the_agent(tmp_path: pathlib.Path, fsbox_bin: str) -> None:
    toolset = FsboxToolset(tmp_path, binary=fsbox_bin)
    model, _ = scripted([ToolCallPart("list_directory", {"path": "."})])
    agent = Agent(model, toolsets=[toolset])
    agent.run_sync("go")
    assert toolset._client is None  # closed when the run left the toolset
    # an exception inside the run closes it too
    def boom(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if len(messages) > 1:
            raise RuntimeError("model failed")
        return ModelResponse(parts=[ToolCallPart("list_directory", {"path": "."})])

    with pytest.raises(RuntimeError):
        Agent(FunctionModel(boom), toolsets=[toolset]).run_sync("go")
    assert toolset._client is None


def test_not_found_is_an_answer_not_a_retry(tmp_path: pathlib.Path, fsbox_bin: str) -> None:
    # max_retries=0: a lookup that finds nothing must not spend a retry, or this run would fail.
    model, seen = scripted(
        [ToolCallPart("read_file", {"path": "missing.txt"}), ToolCallPart("file_info", {"path": "gone"})]
    )
    fs = FileSystem(root_dir=tmp_path, binary=fsbox_bin, max_retries=0)
    assert Agent(model, capabilities=[fs]).run_sync("go").output == "done"
    assert [p.outcome for p in seen] == ["success", "success"]
    assert "missing.txt" in str(seen[0].content)
