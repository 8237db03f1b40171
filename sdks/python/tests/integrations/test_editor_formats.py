"""fsbox.editor_formats: apply_patch and str_replace_based_edit_tool through pydantic-ai's own
FunctionModel and LangChain's create_agent with a fake chat model, against a real fsbox process."""

from __future__ import annotations

import pathlib
from collections.abc import Sequence
from typing import Any

import pytest

from fsbox.editor_formats import EditorToolkit, editor_config, editor_toolset

ENVELOPE = "*** Begin Patch\n*** Update File: app.py\n@@ def f():\n-    return 1\n+    return 2\n*** Add File: notes.md\n+# notes\n*** End Patch\n"


def test_editor_config_refuses_unknown_formats() -> None:
    assert editor_config(formats=["apply_patch"], extra_tools=["read_file"])["tools"] == ["read_file", "apply_patch"]
    with pytest.raises(ValueError):
        editor_config(formats=["edit_file"])
    with pytest.raises(ValueError):
        editor_config(formats=[])


def test_pydantic_ai_runs_both_formats(tmp_path: pathlib.Path, fsbox_bin: str) -> None:
    pytest.importorskip("pydantic_ai")
    from pydantic_ai import Agent
    from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart, ToolReturnPart, RetryPromptPart
    from pydantic_ai.models.function import AgentInfo, FunctionModel

    (tmp_path / "app.py").write_text("def f():\n    return 1\n\ndef g():\n    return 1\n")
    calls = [
        ToolCallPart("apply_patch", {"input": ENVELOPE}),
        ToolCallPart("str_replace_based_edit_tool", {"command": "str_replace", "path": "app.py", "old_str": "    return 1", "new_str": "    return 3"}),
        ToolCallPart("str_replace_based_edit_tool", {"command": "view", "path": "app.py", "view_range": [4, -1]}),
    ]
    seen: list[Any] = []
    names: list[str] = []

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        names[:] = sorted(t.name for t in info.function_tools)
        seen.extend(p for p in messages[-1].parts if isinstance(p, (ToolReturnPart, RetryPromptPart)))
        turn = sum(isinstance(m, ModelResponse) for m in messages)
        return ModelResponse(parts=[calls[turn]] if turn < len(calls) else [TextPart("done")])

    agent = Agent(FunctionModel(model), toolsets=[editor_toolset(tmp_path, binary=fsbox_bin)])
    assert agent.run_sync("go").output == "done"
    assert names == ["apply_patch", "str_replace_based_edit_tool"]
    assert (tmp_path / "app.py").read_text() == "def f():\n    return 2\n\ndef g():\n    return 3\n"
    assert (tmp_path / "notes.md").read_text() == "# notes\n"
    assert str(seen[0].content).startswith("Success. Updated the following files:\nM app.py")
    # The str_replace that matched once only after the patch: now exactly one "return 1" is left.
    assert isinstance(seen[1], ToolReturnPart) and str(seen[1].content).startswith("The file app.py has been edited.")
    assert str(seen[2].content) == "Here's the result of running `cat -n` on app.py:\n     4\tdef g():\n     5\t    return 3\n"


def test_langchain_runs_both_formats_and_errors_are_tool_messages(tmp_path: pathlib.Path, fsbox_bin: str) -> None:
    pytest.importorskip("langchain")
    from langchain.agents import create_agent
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
    from langchain_core.messages import AIMessage, ToolMessage

    class ToolCallingFake(GenericFakeChatModel):
        def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> ToolCallingFake:
            return self

    (tmp_path / "app.py").write_text("def f():\n    return 1\n")
    calls = [
        ("apply_patch", {"operation": {"type": "update_file", "path": "app.py", "diff": "@@\n-    return 1\n+    return 2\n"}}),
        ("apply_patch", {"operation": {"type": "update_file", "path": "app.py", "diff": "@@\n-    return 9\n+    return 2\n"}}),
        ("str_replace_based_edit_tool", {"command": "insert", "path": "app.py", "insert_line": 0, "insert_text": "import os"}),
        ("str_replace_based_edit_tool", {"command": "create", "path": "../escape.py", "file_text": "x"}),
    ]
    msgs: list[AIMessage | str] = [AIMessage(content="", tool_calls=[{"name": n, "args": a, "id": f"c{i}"}]) for i, (n, a) in enumerate(calls)]
    with EditorToolkit(tmp_path, binary=fsbox_bin) as kit:
        agent = create_agent(ToolCallingFake(messages=iter([*msgs, AIMessage(content="done")])), kit.get_tools())
        state = agent.invoke({"messages": [("user", "go")]})
    out = [m for m in state["messages"] if isinstance(m, ToolMessage)]
    assert str(out[0].content).startswith("Success.")
    assert out[1].status == "error" and "nearest lines" in str(out[1].content)
    assert str(out[2].content).startswith("The file app.py has been edited.")
    assert out[3].status == "error" and "outside the root" in str(out[3].content)
    assert (tmp_path / "app.py").read_text() == "import os\ndef f():\n    return 2\n"
    assert not (tmp_path.parent / "escape.py").exists()
