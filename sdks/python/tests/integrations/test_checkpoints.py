"""checkpoints=True in the adapters: restore() after a run puts back what the run changed."""

from __future__ import annotations

import asyncio
import pathlib
from typing import Any

import pytest

import fsbox
from fsbox.integrations._common import SyncOwner


def test_sync_owner_restore_after_close(tmp_path: pathlib.Path, fsbox_bin: str) -> None:
    """The LangChain toolkit's and the deepagents backend's restore(): after close() too."""
    (tmp_path / "a.txt").write_text("a\n")
    owner = SyncOwner(
        tmp_path, config=None, binary=fsbox_bin, approve="never", on_event=None, result_shape="text", checkpoints=True
    )
    owner.client.call("write_file", {"path": "a.txt", "content": "changed\n"})
    owner.client.call("write_file", {"path": "b.txt", "content": "new\n"})
    owner.close()
    res = owner.restore()
    assert res.complete, res.not_restored
    assert (tmp_path / "a.txt").read_text() == "a\n"
    assert not (tmp_path / "b.txt").exists()


def test_pydantic_ai_restore_after_a_run(tmp_path: pathlib.Path, fsbox_bin: str) -> None:
    pytest.importorskip("pydantic_ai", reason="install the pydantic-ai extra: pip install 'fsbox[pydantic-ai]'")
    from pydantic_ai import Agent
    from pydantic_ai.messages import ToolCallPart

    from fsbox.integrations.pydantic_ai import FileSystem

    from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart
    from pydantic_ai.models.function import AgentInfo, FunctionModel

    calls = [
        ToolCallPart("edit_file", {"path": "notes.txt", "old_text": "world", "new_text": "there"}),
        ToolCallPart("write_file", {"path": "new.txt", "content": "new\n"}),
        ToolCallPart("create_directory", {"path": "made/deep"}),
    ]

    def scripted(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        turn = sum(isinstance(m, ModelResponse) for m in messages)
        return ModelResponse(parts=[calls[turn]] if turn < len(calls) else [TextPart("done")])

    (tmp_path / "notes.txt").write_text("hello\nworld\n")
    (tmp_path / "keep").mkdir()
    (tmp_path / "keep" / "a.txt").write_text("a\n")
    model = FunctionModel(scripted)
    fs = FileSystem(root_dir=tmp_path, binary=fsbox_bin, checkpoints=True)
    agent = Agent(model, capabilities=[fs])

    async def run_then_restore() -> dict[str, Any]:
        assert (await agent.run("go")).output == "done"
        assert (tmp_path / "notes.txt").read_text() == "hello\nthere\n"
        return await fs.restore()

    results = asyncio.run(run_then_restore())
    (only,) = results.values()
    assert only.complete, only.not_restored
    assert (tmp_path / "notes.txt").read_text() == "hello\nworld\n"
    assert not (tmp_path / "new.txt").exists()
    assert not (tmp_path / "made").exists()
    assert (tmp_path / "keep" / "a.txt").read_text() == "a\n"


def test_client_checkpoint_methods(tmp_path: pathlib.Path, fsbox_bin: str) -> None:
    (tmp_path / "a.txt").write_text("a\n")
    with fsbox.Client(tmp_path, binary=fsbox_bin, config={"journal": {}}) as c:
        cp = c.create_checkpoint("start")
        c.write_file(path="a.txt", content="b\n")
        assert "+b" in c.diff_checkpoint(cp.id).diff
        assert [x.id for x in c.list_checkpoints().checkpoints] == [cp.id]
        (tmp_path / "a.txt").write_text("human\n")
        res = c.restore_checkpoint(cp.id)
        assert not res.complete and res.not_restored[0].kind == "conflict"
        res = c.restore_checkpoint(cp.id, force=True)
        assert res.complete and res.overwritten == ["a.txt"]
    assert (tmp_path / "a.txt").read_text() == "a\n"
