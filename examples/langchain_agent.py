"""A LangChain agent (create_agent) with fsbox tools: `python examples/langchain_agent.py [DIR]`.

Needs `pip install 'fsbox[langchain]'`. The model is a LangChain fake chat model playing a fixed
script, so the example runs offline; pass a real chat model to create_agent instead.
"""

import sys
import tempfile
from pathlib import Path
from typing import Any

from langchain.agents import create_agent
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, ToolMessage

from fsbox.integrations.langchain import FsboxToolkit


class ScriptedModel(GenericFakeChatModel):
    def bind_tools(self, tools: Any, **kwargs: Any) -> "ScriptedModel":
        return self


root = Path(sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp())
(root / "todo.txt").write_text("- write docs\n- ship\n")
calls = [
    ("search_files", {"pattern": "ship"}),
    ("edit_file", {"path": "todo.txt", "old_text": "- ship", "new_text": "- ship it"}),
]
model = ScriptedModel(
    messages=iter(
        [AIMessage(content="", tool_calls=[{"name": n, "args": a, "id": f"c{i}"}]) for i, (n, a) in enumerate(calls)]
        + [AIMessage(content="Updated the list.")]
    )
)

with FsboxToolkit(root) as toolkit:
    agent = create_agent(model, toolkit.get_tools())
    state = agent.invoke({"messages": [("user", "Reword the last item")]})
for message in state["messages"]:
    if isinstance(message, ToolMessage):
        print(f"[{message.name}]\n{message.content}")
print(state["messages"][-1].content)
print((root / "todo.txt").read_text(), end="")
