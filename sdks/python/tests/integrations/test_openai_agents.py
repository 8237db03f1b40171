"""fsbox.openai_agents driven by the OpenAI Agents SDK's Runner with a scripted Model (the SDK's
own model interface, no network) and a real fsbox process: the Responses API's apply_patch_call
items go through ApplyPatchTool to FsboxEditor."""

from __future__ import annotations

import asyncio
import pathlib
from collections.abc import AsyncIterator
from typing import Any

import pytest

pytest.importorskip("agents", reason="install the OpenAI Agents SDK: pip install openai-agents")

from agents import Agent, ApplyPatchTool, Runner  # noqa: E402
from agents.items import ModelResponse  # noqa: E402
from agents.models.interface import Model  # noqa: E402
from agents.usage import Usage  # noqa: E402
from openai.types.responses import ResponseOutputMessage, ResponseOutputText  # noqa: E402
from openai.types.responses.response_apply_patch_tool_call import ResponseApplyPatchToolCall  # noqa: E402

from fsbox.openai_agents import FsboxEditor  # noqa: E402


class Scripted(Model):
    """A Model that returns one apply_patch_call per turn, then a final message; it records the
    apply_patch_call_output items it is sent back."""

    def __init__(self, operations: list[dict[str, Any]]) -> None:
        self.operations = operations
        self.turn = 0
        self.outputs: list[dict[str, Any]] = []

    async def get_response(self, system_instructions: Any, input: Any, *args: Any, **kwargs: Any) -> ModelResponse:
        if isinstance(input, list):
            self.outputs = [dict(i) for i in input if isinstance(i, dict) and i.get("type") == "apply_patch_call_output"]
        if self.turn < len(self.operations):
            op = self.operations[self.turn]
            self.turn += 1
            item: Any = ResponseApplyPatchToolCall.model_validate(
                {"id": f"ap{self.turn}", "call_id": f"call{self.turn}", "type": "apply_patch_call", "status": "completed", "operation": op}
            )
        else:
            item = ResponseOutputMessage(
                id="msg", type="message", role="assistant", status="completed",
                content=[ResponseOutputText(type="output_text", text="done", annotations=[])],
            )
        return ModelResponse(output=[item], usage=Usage(), response_id=None)

    def stream_response(self, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        raise NotImplementedError


def test_apply_patch_calls_go_through_fsbox(tmp_path: pathlib.Path, fsbox_bin: str) -> None:
    asyncio.run(asyncio.wait_for(_run(tmp_path, fsbox_bin), 60))


async def _run(tmp_path: pathlib.Path, fsbox_bin: str) -> None:
    (tmp_path / "app.py").write_text("def f():\n    return 1\n")
    (tmp_path / "old.txt").write_text("bye\n")
    model = Scripted(
        [
            {"type": "update_file", "path": "app.py", "diff": "@@ def f():\n-    return 1\n+    return 2\n"},
            {"type": "create_file", "path": "app.py", "diff": "+x = 1\n"},
            {"type": "create_file", "path": "pkg/new.txt", "diff": "+hello\n"},
            {"type": "delete_file", "path": "old.txt"},
            {"type": "update_file", "path": "../escape.txt", "diff": "@@\n-a\n+b\n"},
            {"type": "update_file", "path": "app.py", "diff": "@@\n-    return 7\n+    return 3\n"},
        ]
    )
    async with FsboxEditor(tmp_path, binary=fsbox_bin) as editor:
        agent = Agent(name="coder", model=model, tools=[ApplyPatchTool(editor=editor)])
        result = await Runner.run(agent, "go", max_turns=10)
    assert result.final_output == "done"
    assert (tmp_path / "app.py").read_text() == "def f():\n    return 2\n"
    assert (tmp_path / "pkg" / "new.txt").read_text() == "hello\n"  # its new directory made too
    assert not (tmp_path / "old.txt").exists()
    assert not (tmp_path.parent / "escape.txt").exists()
    outs = {o["call_id"]: o for o in model.outputs}
    assert outs["call1"]["status"] == "completed"
    assert str(outs["call1"]["output"]).startswith("Success. Updated the following files:\nM app.py")
    assert outs["call2"]["status"] == "failed" and "already exists" in str(outs["call2"]["output"])
    assert outs["call5"]["status"] == "failed" and "outside the root" in str(outs["call5"]["output"])
    assert outs["call6"]["status"] == "failed" and "nearest lines" in str(outs["call6"]["output"])
    assert str(tmp_path) not in str(outs["call5"]["output"])
