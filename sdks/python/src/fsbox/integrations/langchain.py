"""fsbox as LangChain tools (``pip install 'fsbox[langchain]'``), for ``create_agent`` and LangGraph.

::

    from langchain.agents import create_agent
    from fsbox.integrations.langchain import FsboxToolkit

    with FsboxToolkit("workspace") as toolkit:
        agent = create_agent(model, toolkit.get_tools())
        agent.invoke({"messages": [("user", "fix the typo in README.md")]})

What it maps:

- **Tools**: one ``StructuredTool`` per enabled fsbox tool; name, description and args schema
  are the server's descriptors (the schema bundle's JSON Schemas), so the model sees exactly the
  arguments fsbox validates.
- **Text**: a tool returns fsbox's ``text`` unchanged; the client asks for results of the
  ``"text"`` shape, so the typed fields are never sent nor parsed.
- **Errors**: a failure the model can fix is a ``ToolException`` handled into an error
  ``ToolMessage`` with fsbox's message (``status="error"``); one whose data says
  ``counts_as_retry: false`` is an ordinary tool message; a fatal failure is raised.
- **Approvals**: a change that needs a human (``approve="rules"``: flagged by an ``interrupt``
  rule; ``"all"``: every change) calls LangGraph's ``interrupt()`` with the path, operation and
  diff, so a graph with a checkpointer pauses; resume with ``Command(resume=True)`` to write it,
  or ``Command(resume={"approve": False, "reason": "..."})`` to refuse, or with an edit
  (``{"type": "edit", "edited_action": {"args": {...}}}`` as LangChain's human-in-the-loop spells
  it, or ``{"decision": "edit", "content": "..."}`` for a write) to apply the reviewer's
  replacement, which the server checks as if the model had sent it. Outside a graph the
  ``review`` callback decides instead, with the same answers.
- **Events**: ``on_event`` receives every typed fsbox event.
- **Lifecycle**: the fsbox process starts on first use and stops on ``close()``, at the end of a
  ``with`` block, or when the toolkit is garbage-collected.
- **Checkpoints**: with ``checkpoints=True`` the server keeps a journal and marks the moment it
  starts; ``toolkit.restore()`` (during or after the run) puts back everything the agent changed.
- **Audit**: ``audit=fsbox.AuditLog(path, ...)`` (or a path) makes the server append one JSON line
  per tool call to that file (an ``AuditRecord``: tool, root-relative paths, outcome, hashes,
  who approved; never contents or host paths), before the tool returns; it must lie outside the
  root. A restore after close() logs to it too.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from langchain_core.tools import BaseTool, StructuredTool, ToolException

from ..client import AuditLog, OnEvent, PathLike
from ..errors import FsboxError
from ._common import (
    is_change_tool,
    ApproveMode,
    PendingChange,
    SyncOwner,
    ask_human,
    counts_as_retry,
)

__all__ = ["FsboxToolkit", "Review"]

Review = Callable[[PendingChange], "bool | tuple[bool, str]"]
"""Decides a change outside a LangGraph run: True approves; False or (False, reason) refuses."""


class FsboxToolkit(SyncOwner):
    """One fsbox server and its tools as LangChain ``StructuredTool`` objects."""

    def __init__(
        self,
        root_dir: str | os.PathLike[str] = ".",
        *,
        config: dict[str, Any] | None = None,
        binary: str | os.PathLike[str] | None = None,
        approve: ApproveMode = "rules",
        review: Review | None = None,
        on_event: OnEvent | None = None,
        checkpoints: bool = False,
        audit: AuditLog | PathLike | None = None,
    ) -> None:
        # Only the text reaches the model: the server sends nothing else (result shape "text").
        super().__init__(
            root_dir,
            config=config,
            binary=binary,
            approve=approve,
            on_event=on_event,
            result_shape="text",
            checkpoints=checkpoints,
            audit=audit,
        )
        self.review = review

    def get_tools(self) -> list[BaseTool]:
        """A StructuredTool for each tool the server enabled."""
        return [self._tool(d) for d in self.client.tools()]

    def _tool(self, descriptor: dict[str, Any]) -> StructuredTool:
        name = descriptor["name"]

        def run(**kwargs: Any) -> str:
            return self.call(name, kwargs)

        return StructuredTool(
            name=name,
            description=descriptor["description"],
            args_schema=descriptor["input_schema"],
            func=run,
            handle_tool_error=True,
        )

    def call(self, name: str, arguments: dict[str, Any]) -> str:
        """Call one tool with its wire arguments and return the model text (see the module doc)."""
        if not is_change_tool(name) or not self._gate.asks():
            return self._call(name, arguments)
        with self._gate.turn(approved=False) as gate:
            text = self._call(name, arguments)
            pending = gate.pending
        if pending is None:
            return text
        with self._gate.turn_for(ask_human(pending, self.review)):
            return self._call(name, arguments)

    def _call(self, name: str, arguments: dict[str, Any]) -> str:
        try:
            return self.client.call(name, arguments).text
        except FsboxError as e:
            if not e.retry:
                raise
            if counts_as_retry(e):
                raise ToolException(e.message) from None
            return e.message
