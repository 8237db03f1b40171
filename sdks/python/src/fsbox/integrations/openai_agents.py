"""fsbox as the OpenAI Agents SDK's apply_patch editor (``pip install openai-agents``).

::

    from agents import Agent, ApplyPatchTool, Runner
    from fsbox.openai_agents import FsboxEditor

    async with FsboxEditor("workspace") as editor:
        agent = Agent(name="coder", model="gpt-5.1", tools=[ApplyPatchTool(editor=editor)])
        await Runner.run(agent, "fix the typo in README.md")

The SDK hands each ``apply_patch_call`` of the Responses API to an ``Editor`` with three
operations: ``create_file``, ``update_file`` and ``delete_file``, each with a path and a V4A diff
(and ``move_to`` for an update that renames). :class:`FsboxEditor` sends each, unchanged, to a
real fsbox process's ``apply_patch`` tool, so the edit gets fsbox's containment, patterns,
permission rules, change requests, hashes, events and crash-atomic writes instead of running on
the host filesystem.

What it maps:

- **Output**: ``ApplyPatchResult(status="completed", output=<fsbox's text>)``.
- **Errors**: a failure the model can fix (context not found, a path outside the root, a file
  that exists) is ``ApplyPatchResult(status="failed", output=<fsbox's message>)``: the model reads
  it and sends a corrected patch; nothing was changed. A fatal failure (the server gone, a
  change request that failed) raises the SDK's ``ToolFatal`` and ends the run.
- **Lifecycle**: the fsbox process starts on first use (or on ``async with``) and stops on
  ``aclose()`` or at the end of the ``async with`` block. An ``AsyncClient`` passed as ``client``
  is used as it is and never closed here.
- **Audit**: ``audit=fsbox.AuditLog(path, ...)`` (or a path) makes the editor's own process append
  one JSON line per operation to that file (docs/protocol.md §9). With ``client=`` pass ``audit=``
  to that client instead: the editor refuses both at once rather than leave the log unset.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Mapping
from typing import Any

from agents.editor import ApplyPatchOperation, ApplyPatchResult

from ..client import AsyncClient, AuditLog, PathLike
from ..errors import ToolRetryError
from ._common import audit_log

__all__ = ["FsboxEditor"]

_TOOL = "apply_patch"


class FsboxEditor:
    """An OpenAI Agents SDK ``ApplyPatchEditor`` that applies every operation through fsbox."""

    def __init__(
        self,
        root_dir: str | os.PathLike[str] = ".",
        *,
        config: Mapping[str, Any] | None = None,
        binary: str | os.PathLike[str] | None = None,
        client: AsyncClient | None = None,
        audit: AuditLog | PathLike | None = None,
    ) -> None:
        if client is not None and audit is not None:
            raise ValueError(
                "FsboxEditor(audit=...) logs the process the editor starts; a client passed as "
                "client= is already running: start it with AsyncClient(..., audit=...) instead"
            )
        cfg = dict(config or {})
        tools = list(cfg.get("tools") or ["read_file", _TOOL])
        if _TOOL not in tools:
            tools.append(_TOOL)
        cfg["tools"] = tools
        self._root_dir = root_dir
        self._config = cfg
        self._binary = binary
        self._audit = audit_log(audit)
        self._client = client
        self._owned = client is None
        self._lock = asyncio.Lock()

    async def _ensure(self) -> AsyncClient:
        async with self._lock:
            if self._client is None:
                # Only the text goes back to the model (result shape "text").
                self._client = await AsyncClient(
                    self._root_dir,
                    config=self._config,
                    binary=self._binary,
                    result_shape="text",
                    audit=self._audit,
                ).start()
            return self._client

    async def _apply(self, operation: ApplyPatchOperation) -> ApplyPatchResult:
        op: dict[str, Any] = {"type": operation.type, "path": operation.path}
        if operation.type != "delete_file" and operation.diff is not None:
            op["diff"] = operation.diff
        if operation.move_to is not None:
            op["move_to"] = operation.move_to
        client = await self._ensure()
        try:
            result = await client.call(_TOOL, {"operation": op})
        except ToolRetryError as err:
            return ApplyPatchResult(status="failed", output=err.message)
        return ApplyPatchResult(status="completed", output=result.text)

    async def create_file(self, operation: ApplyPatchOperation) -> ApplyPatchResult:
        """Create operation.path from a diff of "+" lines."""
        return await self._apply(operation)

    async def update_file(self, operation: ApplyPatchOperation) -> ApplyPatchResult:
        """Apply operation.diff's hunks to operation.path (moving it to operation.move_to)."""
        return await self._apply(operation)

    async def delete_file(self, operation: ApplyPatchOperation) -> ApplyPatchResult:
        """Delete operation.path."""
        return await self._apply(operation)

    async def aclose(self) -> None:
        """Stop the fsbox process this editor started. Idempotent."""
        client, self._client = self._client, None
        if client is not None and self._owned:
            await client.close()

    async def __aenter__(self) -> FsboxEditor:
        await self._ensure()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()
