"""The OpenAI Agents SDK's apply_patch tool, executed by fsbox: `python examples/openai_agents_apply_patch.py [DIR]`.

Needs `pip install 'fsbox[openai-agents]'`. The model is a scripted implementation of the SDK's
Model interface that sends the Responses API's apply_patch_call items, so the example runs
offline; pass a real model (model="gpt-5.1") to Agent instead.
"""

import asyncio
import sys
import tempfile
from pathlib import Path
from typing import Any

from agents import Agent, ApplyPatchTool, Runner
from agents.items import ModelResponse
from agents.models.interface import Model
from agents.usage import Usage
from openai.types.responses import ResponseOutputMessage, ResponseOutputText
from openai.types.responses.response_apply_patch_tool_call import ResponseApplyPatchToolCall

from fsbox.openai_agents import FsboxEditor

root = Path(sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp())
(root / "greet.py").write_text('def greet(name):\n    return "Helo, " + name\n')

OPERATIONS = [
    {"type": "update_file", "path": "greet.py", "diff": '@@ def greet(name):\n-    return "Helo, " + name\n+    return "Hello, " + name\n'},
    {"type": "create_file", "path": "../outside.txt", "diff": "+refused: outside the root\n"},
]


class ScriptedModel(Model):
    """Plays OPERATIONS as apply_patch_call items, printing what fsbox answered, then finishes."""

    turn = 0
    shown: set[str] = set()

    async def get_response(self, system_instructions: Any, input: Any, *args: Any, **kwargs: Any) -> ModelResponse:
        for item in input if isinstance(input, list) else []:
            if isinstance(item, dict) and item.get("type") == "apply_patch_call_output" and item["call_id"] not in self.shown:
                self.shown.add(item["call_id"])
                print(f"[apply_patch -> {item['status']}]\n{item.get('output')}")
        if self.turn < len(OPERATIONS):
            self.turn += 1
            call: Any = ResponseApplyPatchToolCall.model_validate(
                {"id": f"ap{self.turn}", "call_id": f"call{self.turn}", "type": "apply_patch_call",
                 "status": "completed", "operation": OPERATIONS[self.turn - 1]}
            )
            return ModelResponse(output=[call], usage=Usage(), response_id=None)
        done = ResponseOutputMessage(id="m", type="message", role="assistant", status="completed",
                                     content=[ResponseOutputText(type="output_text", text="Fixed the typo.", annotations=[])])
        return ModelResponse(output=[done], usage=Usage(), response_id=None)

    def stream_response(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError


async def main() -> None:
    async with FsboxEditor(root) as editor:
        agent = Agent(name="coder", model=ScriptedModel(), tools=[ApplyPatchTool(editor=editor)])
        result = await Runner.run(agent, "Fix the typo in greet.py")
    print(result.final_output)
    print((root / "greet.py").read_text(), end="")


asyncio.run(main())
