"""fsbox as a pydantic-ai toolset and capability (``pip install 'fsbox[pydantic-ai]'``).

::

    from pydantic_ai import Agent
    from fsbox.pydantic_ai import FileSystem   # was: from pydantic_ai_harness import FileSystem

    agent = Agent(model, capabilities=[FileSystem(root_dir="workspace")])

:class:`FileSystem` takes the arguments ``pydantic_ai_harness.FileSystem`` takes (``root_dir``,
``allowed_patterns``, ``denied_patterns``, ``read_only_patterns``, the ``max_*`` limits,
``read_only``, ``content_hashes``, ``tools``, ``max_retries``) and serves them from a real fsbox
process instead of the workspace, with fsbox's containment: paths are resolved and confined at I/O
time, symlink swaps included, and no host path reaches the model. It needs no workspace.

What it maps:

- **Text**: each tool returns fsbox's ``text`` unchanged; that is what the model sees. An image or
  PDF that ``read_file`` returns as data comes with it as ``BinaryContent``, as the harness does.
- **Errors**: a failure the model can fix raises ``ModelRetry`` with fsbox's message, spending one
  retry; a failure whose data says ``counts_as_retry: false`` (a lookup that found nothing) is
  returned as a plain result and spends none; a fatal failure is raised as the SDK's ``ToolFatal``
  and ends the run.
- **Approvals**: with ``approve="rules"`` (default) a change that a permission rule marks
  ``interrupt`` raises ``ApprovalRequired`` with the path, operation and diff as metadata, so the
  run ends with ``DeferredToolRequests``; resuming with the call approved writes it (the server
  re-checks the path and content then), and a denial writes nothing. ``approve="all"`` asks for
  every change, ``"never"`` for none.
- **Events**: ``on_fsbox_event`` (``on_event`` on the toolset) receives every typed fsbox event;
  the name keeps clear of the capability's own ``on_event`` hook.
- **Lifecycle**: the process starts when the agent enters the toolset (the first run, or
  ``async with agent``) and stops when the last user leaves it; an exception in the run closes it.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic_ai import ApprovalRequired, BinaryContent, ModelRetry, RunContext
from pydantic_ai.capabilities import AbstractCapability
from pydantic_ai.tools import ToolDefinition
from pydantic_ai.toolsets import AbstractToolset
from pydantic_ai.toolsets.abstract import ToolsetTool
from pydantic_core import SchemaValidator, core_schema

from .client import AsyncClient, ChangeRequest, OnEvent
from .errors import FsboxError
from .integrations._common import WRITE_TOOLS, ApproveMode, ChangeGate, counts_as_retry, harness_config

__all__ = ["FileSystem", "FsboxToolset"]

_ANY_ARGS = SchemaValidator(core_schema.dict_schema(core_schema.str_schema(), core_schema.any_schema()))


class FsboxToolset(AbstractToolset[Any]):
    """The tools of one fsbox server, as a pydantic-ai toolset.

    The tool definitions (names, descriptions, JSON Schemas) are the server's own descriptors;
    arguments are validated by the server, whose ``invalid_arguments`` errors come back to the
    model as retries naming the field.
    """

    def __init__(
        self,
        root_dir: str | os.PathLike[str] = ".",
        *,
        config: dict[str, Any] | None = None,
        binary: str | os.PathLike[str] | None = None,
        approve: ApproveMode = "rules",
        on_event: OnEvent | None = None,
        max_retries: int | None = None,
        id: str | None = "fsbox",
    ) -> None:
        self.root_dir = root_dir
        self.config = dict(config or {})
        self.binary = binary
        self.max_retries = max_retries
        self.on_event = on_event
        self._gate = ChangeGate(approve)
        self._id = id
        self._client: AsyncClient | None = None
        self._users = 0

    @property
    def id(self) -> str | None:
        return self._id

    async def __aenter__(self) -> FsboxToolset:
        self._users += 1
        try:
            await self._start()
        except BaseException:
            self._users -= 1
            raise
        return self

    async def __aexit__(self, *args: Any) -> bool | None:
        self._users -= 1
        if self._users <= 0:
            self._users = 0
            await self.aclose()
        return None

    async def aclose(self) -> None:
        """Stop the fsbox process, if it runs; a later call starts a new one."""
        client, self._client = self._client, None
        if client is not None:
            await client.close()

    async def _start(self) -> AsyncClient:
        if self._client is None:
            on_change: Callable[[ChangeRequest], object] | None = (
                self._gate.decide if self._gate.asks() else None
            )
            client = AsyncClient(
                self.root_dir,
                config=self.config,
                binary=self.binary,
                on_event=self.on_event,
                on_change_request=on_change,
            )
            await client.start()
            self._client = client
        return self._client

    async def get_tools(self, ctx: RunContext[Any]) -> dict[str, ToolsetTool[Any]]:
        client = await self._start()
        retries = self.max_retries if self.max_retries is not None else ctx.max_retries
        return {
            d["name"]: ToolsetTool(
                toolset=self,
                tool_def=ToolDefinition(
                    name=d["name"],
                    description=d["description"],
                    parameters_json_schema=d["input_schema"],
                ),
                max_retries=retries,
                args_validator=_ANY_ARGS,
            )
            for d in client.tools()
        }

    async def call_tool(
        self, name: str, tool_args: dict[str, Any], ctx: RunContext[Any], tool: ToolsetTool[Any]
    ) -> Any:
        client = await self._start()
        if name not in WRITE_TOOLS or not self._gate.asks():
            return await self._call(client, name, tool_args)
        async with self._gate.turn(approved=ctx.tool_call_approved) as gate:
            text = await self._call(client, name, tool_args)
            if gate.pending is not None:
                raise ApprovalRequired(metadata=gate.pending.metadata())
            return text

    async def _call(self, client: AsyncClient, name: str, args: dict[str, Any]) -> str | list[Any]:
        try:
            result = await client.call(name, args)
        except FsboxError as e:
            if not e.retry:
                raise
            if counts_as_retry(e):
                raise ModelRetry(e.message) from None
            return e.message
        data = getattr(result, "data", None)
        media_type = getattr(result, "media_type", None)
        if isinstance(data, bytes) and media_type:
            # An image or PDF: the header for the model to read, the file for it to see.
            return [result.text, BinaryContent(data=data, media_type=media_type)]
        return result.text


@dataclass
class FileSystem(AbstractCapability[Any]):
    """Drop-in for ``pydantic_ai_harness.FileSystem``, served by fsbox.

    The harness's arguments keep their names and meaning; ``root_dir`` defaults to the process's
    working directory (there is no workspace to take it from), and the defaults of the patterns
    and limits are fsbox's (see docs/protocol.md §3). fsbox-only arguments: ``binary`` (else
    ``$FSBOX_BIN``, the bundled binary, ``PATH``), ``approve`` (which changes need a human),
    ``on_fsbox_event``, and ``config`` for any other fsbox config field.
    """

    root_dir: str | os.PathLike[str] | None = None
    allowed_patterns: Sequence[str] | None = None
    denied_patterns: Sequence[str] | None = None
    read_only_patterns: Sequence[str] | None = None
    max_read_lines: int | None = None
    max_read_chars: int | None = None
    max_list_results: int | None = None
    max_search_results: int | None = None
    max_find_results: int | None = None
    read_only: bool = False
    content_hashes: bool | None = None
    tools: Sequence[str] | None = None
    max_retries: int | None = field(default=None, kw_only=True)
    binary: str | os.PathLike[str] | None = field(default=None, kw_only=True)
    approve: ApproveMode = field(default="rules", kw_only=True)
    on_fsbox_event: OnEvent | None = field(default=None, kw_only=True)
    config: dict[str, Any] | None = field(default=None, kw_only=True)
    _toolset: FsboxToolset | None = field(default=None, init=False, repr=False, compare=False)

    @classmethod
    def get_serialization_name(cls) -> str | None:
        return "FsboxFileSystem"

    def get_toolset(self) -> FsboxToolset:
        if self._toolset is None:
            cfg = harness_config(
                allowed_patterns=self.allowed_patterns,
                denied_patterns=self.denied_patterns,
                read_only_patterns=self.read_only_patterns,
                max_read_lines=self.max_read_lines,
                max_read_chars=self.max_read_chars,
                max_list_results=self.max_list_results,
                max_search_results=self.max_search_results,
                max_find_results=self.max_find_results,
                read_only=self.read_only,
                content_hashes=self.content_hashes,
                tools=self.tools,
                extra=self.config,
            )
            self._toolset = FsboxToolset(
                self.root_dir if self.root_dir is not None else os.getcwd(),
                config=cfg,
                binary=self.binary,
                approve=self.approve,
                on_event=self.on_fsbox_event,
                max_retries=self.max_retries,
                id="file_system",
            )
        return self._toolset
