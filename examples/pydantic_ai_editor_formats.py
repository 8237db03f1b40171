"""pydantic-ai with the provider-shaped edit tools served by fsbox: `python examples/pydantic_ai_editor_formats.py [DIR]`.

Needs `pip install 'fsbox[pydantic-ai]'`. The model is pydantic-ai's FunctionModel playing a fixed
script (a V4A patch, then Anthropic text-editor commands), so the example runs offline.
"""

import sys
import tempfile
from pathlib import Path

from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelResponse, RetryPromptPart, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from fsbox.editor_formats import editor_toolset

root = Path(sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp())
(root / "config.toml").write_text("[server]\nport = 80\nhost = localhost\n")

PATCH = "*** Begin Patch\n*** Update File: config.toml\n@@ [server]\n-port = 80\n+port = 8080\n*** End Patch\n"
SCRIPT = [
    ToolCallPart("apply_patch", {"input": PATCH}),
    ToolCallPart("str_replace_based_edit_tool", {"command": "insert", "path": "config.toml", "insert_line": 3, "insert_text": "debug = false"}),
    ToolCallPart("str_replace_based_edit_tool", {"command": "view", "path": "config.toml"}),
]


def scripted_model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    for part in messages[-1].parts:
        if isinstance(part, (ToolReturnPart, RetryPromptPart)):
            print(f"[{part.tool_name}]\n{part.content}")
    turn = sum(isinstance(m, ModelResponse) for m in messages)
    return ModelResponse(parts=[SCRIPT[turn]] if turn < len(SCRIPT) else [TextPart("Configured.")])


agent = Agent(FunctionModel(scripted_model), toolsets=[editor_toolset(root)])
print(agent.run_sync("Serve on port 8080 with debug off").output)
print((root / "config.toml").read_text(), end="")
