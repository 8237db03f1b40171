"""A deepagents agent whose file tools run in fsbox: `python examples/deepagents_agent.py [DIR]`.

Needs `pip install 'fsbox[deepagents]'`. Writes under /drafts/ need a human: the graph pauses with
the diff, and this example approves it. The model is a fake chat model playing a fixed script.
"""

import sys
import tempfile
from pathlib import Path
from typing import Any

from deepagents import create_deep_agent
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command

from fsbox.integrations.deepagents import FsboxBackend


class ScriptedModel(GenericFakeChatModel):
    def bind_tools(self, tools: Any, **kwargs: Any) -> "ScriptedModel":
        return self


root = Path(sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp())
(root / "drafts").mkdir(exist_ok=True)
write = {"file_path": "/drafts/plan.md", "content": "1. read\n2. write\n"}
model = ScriptedModel(
    messages=iter(
        [
            AIMessage(content="", tool_calls=[{"name": "write_file", "args": write, "id": "w1"}]),
            AIMessage(content="", tool_calls=[{"name": "ls", "args": {"path": "/drafts"}, "id": "l1"}]),
            AIMessage(content="Plan written."),
        ]
    )
)
rules = [{"operations": ["write"], "paths": ["/drafts/**"], "mode": "interrupt"}]
with FsboxBackend(root, permissions=rules) as backend:
    agent = create_deep_agent(model=model, backend=backend, checkpointer=InMemorySaver())
    thread: Any = {"configurable": {"thread_id": "example"}}
    state = agent.invoke({"messages": [("user", "Write a plan")]}, thread)
    for pause in state.get("__interrupt__", []):
        print(f"approval needed for {pause.value['path']}:\n{pause.value['diff']}", end="")
        state = agent.invoke(Command(resume=True), thread)
print(state["messages"][-1].content)
print((root / "drafts" / "plan.md").read_text(), end="")
