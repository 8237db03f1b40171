"""fsbox as LangChain tools (``pip install 'fsbox[langchain]'``), for ``create_agent`` and LangGraph.

::

    from langchain.agents import create_agent
    from fsbox.langchain import FsboxToolkit

    with FsboxToolkit("workspace") as toolkit:
        agent = create_agent(model, toolkit.get_tools())
        agent.invoke({"messages": [("user", "fix the typo in README.md")]})

What it maps:

- **Tools**: one ``StructuredTool`` per enabled fsbox tool; name, description and args schema
  are the server's descriptors (the schema bundle's JSON Schemas), so the model sees exactly the
  arguments fsbox validates.
- **Text**: a tool returns fsbox's ``text`` unchanged.
- **Errors**: a failure the model can fix is a ``ToolException`` handled into an error
  ``ToolMessage`` with fsbox's message (``status="error"``); one whose data says
  ``counts_as_retry: false`` is an ordinary tool message; a fatal failure is raised.
- **Approvals**: a change that needs a human (``approve="rules"``: flagged by an ``interrupt``
  rule; ``"all"``: every change) calls LangGraph's ``interrupt()`` with the path, operation and
  diff, so a graph with a checkpointer pauses; resume with ``Command(resume=True)`` to write it,
  or ``Command(resume={"approve": False, "reason": "..."})`` to refuse. Outside a graph the
  ``review`` callback decides instead.
- **Events**: ``on_event`` receives every typed fsbox event.
- **Lifecycle**: the fsbox process starts on first use and stops on ``close()``, at the end of a
  ``with`` block, or when the toolkit is garbage-collected.
"""

from __future__ import annotations

import os
import weakref
from collections.abc import Callable
from typing import Any

from langchain_core.tools import BaseTool, StructuredTool, ToolException

from .client import Client, OnEvent
from .errors import FsboxError
from .integrations._common import (
    WRITE_TOOLS,
    ApproveMode,
    ChangeGate,
    PendingChange,
    counts_as_retry,
)

__all__ = ["FsboxToolkit", "Review"]

Review = Callable[[PendingChange], "bool | tuple[bool, str]"]
"""Decides a change outside a LangGraph run: True approves; False or (False, reason) refuses."""


class FsboxToolkit:
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
    ) -> None:
        self.root_dir = root_dir
        self.config = dict(config or {})
        self.binary = binary
        self.on_event = on_event
        self.review = review
        self._gate = ChangeGate(approve)
        self._client: Client | None = None
        self._finalizer: weakref.finalize[Any, Any] | None = None

    @property
    def client(self) -> Client:
        """The running fsbox client, started on first use."""
        if self._client is None:
            client = Client(
                self.root_dir,
                config=self.config,
                binary=self.binary,
                on_event=self.on_event,
                on_change_request=self._gate.decide if self._gate.asks() else None,
            )
            self._client = client
            self._finalizer = weakref.finalize(self, client.close)
        return self._client

    def close(self) -> None:
        """Stop the fsbox process; a later use starts a new one."""
        client, self._client = self._client, None
        if self._finalizer is not None:
            self._finalizer.detach()
            self._finalizer = None
        if client is not None:
            client.close()

    def __enter__(self) -> FsboxToolkit:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

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
        if name not in WRITE_TOOLS or not self._gate.asks():
            return self._call(name, arguments)
        with self._gate.turn(approved=False) as gate:
            text = self._call(name, arguments)
            pending = gate.pending
        if pending is None:
            return text
        approved, reason = self._ask(pending)
        with self._gate.turn(approved=approved, deny_reason=None if approved else reason):
            return self._call(name, arguments)

    def _ask(self, pending: PendingChange) -> tuple[bool, str]:
        answer: Any
        if self.review is not None:
            answer = self.review(pending)
        else:
            from langgraph.types import interrupt

            answer = interrupt({"action": "fsbox_change", **pending.metadata()})
        if isinstance(answer, dict):
            return bool(answer.get("approve")), str(answer.get("reason") or "refused by the reviewer")
        if isinstance(answer, tuple):
            return bool(answer[0]), str(answer[1])
        return bool(answer), "refused by the reviewer"

    def _call(self, name: str, arguments: dict[str, Any]) -> str:
        try:
            return self.client.call(name, arguments).text
        except FsboxError as e:
            if not e.retry:
                raise
            if counts_as_retry(e):
                raise ToolException(e.message) from None
            return e.message
