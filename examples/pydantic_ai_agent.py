"""A pydantic-ai Agent with fsbox as its file system: `python examples/pydantic_ai_agent.py [DIR]`.

Needs `pip install 'fsbox[pydantic-ai]'`. The model here is pydantic-ai's FunctionModel playing a
fixed script, so the example runs offline; pass a real model (e.g. "openai:gpt-5") to Agent instead.
"""

import sys
import tempfile
from pathlib import Path

from pydantic_ai import Agent
from pydantic_ai.capabilities import LocalWorkspace
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from fsbox.integrations.pydantic_ai import FileSystem

root = Path(sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp())
(root / "notes.md").write_text("# Notes\nfsbox is a sanbox.\n")

SCRIPT = [
    ToolCallPart("read_file", {"path": "notes.md"}),
    ToolCallPart("edit_file", {"path": "notes.md", "old_text": "sanbox", "new_text": "sandbox"}),
    ToolCallPart("read_file", {"path": "../../etc/passwd"}),  # refused: outside the root
]


def scripted_model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    for part in messages[-1].parts:
        if isinstance(part, ToolReturnPart):
            print(f"[{part.tool_name} -> {part.outcome}]\n{part.content}")
    turn = sum(isinstance(m, ModelResponse) for m in messages)
    return ModelResponse(parts=[SCRIPT[turn]] if turn < len(SCRIPT) else [TextPart("Fixed the typo.")])


# The run's workspace is the root, as with pydantic_ai_harness.FileSystem: only the import differs.
agent = Agent(FunctionModel(scripted_model), capabilities=[LocalWorkspace(root), FileSystem(max_retries=3)])
print(agent.run_sync("Fix the typo in notes.md").output)
print((root / "notes.md").read_text(), end="")
