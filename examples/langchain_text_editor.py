"""LangChain's create_agent with Anthropic's text editor served by fsbox: `python examples/langchain_text_editor.py [DIR]`.

Needs `pip install 'fsbox[langchain]'`. The model is LangChain's GenericFakeChatModel playing a
fixed script of str_replace_based_edit_tool calls, so the example runs offline.
"""

import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from langchain.agents import create_agent
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, ToolMessage

from fsbox.editor_formats import EditorToolkit

root = Path(sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp())
(root / "README.md").write_text("# Project\n\nInstal with pip.\n")

CALLS = [
    ("str_replace_based_edit_tool", {"command": "view", "path": "README.md"}),
    ("str_replace_based_edit_tool", {"command": "str_replace", "path": "README.md", "old_str": "Instal", "new_str": "Install"}),
    ("str_replace_based_edit_tool", {"command": "view", "path": "/etc/passwd"}),  # refused: outside the root
]


class ScriptedModel(GenericFakeChatModel):
    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> "ScriptedModel":
        return self


messages = [AIMessage(content="", tool_calls=[{"name": n, "args": a, "id": f"c{i}"}]) for i, (n, a) in enumerate(CALLS)]
with EditorToolkit(root, formats=["str_replace_based_edit_tool"]) as kit:
    agent = create_agent(ScriptedModel(messages=iter([*messages, AIMessage(content="Fixed the typo.")])), kit.get_tools())
    state = agent.invoke({"messages": [("user", "Fix the typo in README.md")]})
for m in state["messages"]:
    if isinstance(m, ToolMessage):
        print(f"[{m.name} -> {m.status}]\n{m.content}")
print(state["messages"][-1].content)
print((root / "README.md").read_text(), end="")
