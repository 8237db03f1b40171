"""fsbox as a pydantic-ai toolset and capability (``pip install 'fsbox[pydantic-ai]'``).

::

    from pydantic_ai import Agent
    from pydantic_ai.capabilities import LocalWorkspace
    from fsbox.integrations.pydantic_ai import FileSystem   # was: from pydantic_ai_harness import FileSystem

    agent = Agent(model, capabilities=[LocalWorkspace("workspace"), FileSystem()])

:class:`FileSystem` takes the arguments ``pydantic_ai_harness.FileSystem`` takes (``root_dir``,
``allowed_patterns``, ``denied_patterns``, ``read_only_patterns``, the ``max_*`` limits,
``read_only``, ``content_hashes``, ``tools``, ``max_retries``, and the deprecated ``cwd`` and
``protected_patterns``) and serves the run's ``LocalWorkspace`` from a real fsbox process, with
fsbox's containment: paths are resolved and confined at I/O time, symlink swaps included, and no
host path reaches the model. A workspace fsbox cannot serve (remote, sandboxed, a policy wrapper)
is refused; without any workspace an explicit ``root_dir`` is served. docs/frameworks.md lists
what is identical to the harness, what is better and what differs by design.

What it maps:

- **Text**: each tool returns fsbox's ``text`` unchanged; that is what the model sees. The client
  asks for results of the ``"text"`` shape, so the typed fields are never sent nor parsed. An
  image or PDF that ``read_file`` returns as data comes with it as ``BinaryContent``, as the
  harness does: its text header names its media type, and the toolset then reads it again
  through a second fsbox process of the same root and config in the default shape (started on
  the first such read), whose text and bytes it returns together.
- **Errors**: a failure the model can fix raises ``ModelRetry`` with fsbox's message, spending one
  retry; a failure whose data says ``counts_as_retry: false`` (a lookup that found nothing) is
  returned as a plain result and spends none; a fatal failure is raised as the SDK's
  ``ToolFatalError`` and ends the run.
- **Approvals**: with ``approve="rules"`` (default) a change that a permission rule marks
  ``interrupt`` raises ``ApprovalRequired`` with the path, operation and diff as metadata, so the
  run ends with ``DeferredToolRequests``; resuming with the call approved writes it (the server
  re-checks the path and content then), and a denial writes nothing. ``approve="all"`` asks for
  every change, ``"never"`` for none.
- **Events**: with pydantic-ai-harness installed, the harness's own event types are emitted with
  its payloads (``FileChangeRequestEvent`` before each change, which a listener may ``cancel``;
  ``FileWrittenEvent`` and the others after), and the tools carry its tool kinds.
  ``on_fsbox_event`` (``on_event`` on the toolset) receives every typed fsbox event; the name
  keeps clear of the capability's own ``on_event`` hook.
- **Lifecycle**: the process starts when the agent enters the toolset (the first run, or
  ``async with agent``) and stops when the last user leaves it; an exception in the run closes it.
- **Audit**: ``audit=fsbox.AuditLog(path, ...)`` (or a path) makes the server append one JSON
  line per tool call to that file (docs/protocol.md §9), written before the model sees the result;
  a ``restore()`` after the run logs to it too. An audited toolset runs a single process, in the
  default result shape: an image's or PDF's bytes come with the read itself, so no second
  process reads anything the log does not show, and the log's lines are one process's, numbered
  in order. So it serves one workspace at a time: a run in another workspace while the first
  one's process runs is refused (give each workspace its own FileSystem and log).
"""

from __future__ import annotations

import os
import posixpath
import re
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic_ai import ApprovalRequired, BinaryContent, ModelRetry, RunContext
from pydantic_ai.capabilities import AbstractCapability
from pydantic_ai.exceptions import UserError
from pydantic_ai.tools import ToolDefinition
from pydantic_ai.toolsets import AbstractToolset
from pydantic_ai.toolsets.abstract import ToolsetTool
from pydantic_core import SchemaValidator, core_schema

from ..client import AsyncClient, AuditLog, ChangeRequest, OnEvent, PathLike
from ..errors import FsboxError, ToolFatalError
from . import _harness
from ._checkpoints import RunCheckpoints
from ._common import ApproveMode, ChangeGate, audit_log, counts_as_retry, harness_config, is_change_tool
from ._workspace import WorkspaceRoot, workspace_root

__all__ = ["FileSystem", "FsboxToolset"]

_ANY_ARGS = SchemaValidator(core_schema.dict_schema(core_schema.str_schema(), core_schema.any_schema()))

_UNSET: Any = object()
"""A default that tells an argument left out from one passed as None."""

_MEDIA_HEADER = re.compile(r"\A\[[^\n]* \| (?:image/[^ |\n]+|application/pdf) \| \d+ bytes")
"""The first line of read_file's text for an image or PDF (``[img.png | image/png | 24 bytes |
hash:…]``), whose bytes the text shape does not carry. A text file's read never starts so (its
lines are numbered); a false match would only cost a second read."""


@dataclass
class _Call:
    """One tool call in flight: the run context its harness events are emitted through, and the
    fsbox events that arrived for it (emitted in order once the call returns)."""

    ctx: RunContext[Any]
    name: str
    path: str | None
    events: list[Any] = field(default_factory=list)
    error: BaseException | None = None


class FsboxToolset(AbstractToolset[Any]):
    """The tools of one fsbox server, as a pydantic-ai toolset.

    The tool definitions (names, descriptions, JSON Schemas) are the server's own descriptors;
    arguments are validated by the server, whose ``invalid_arguments`` errors come back to the
    model as retries naming the field.

    ``root_dir`` is a directory on this machine. With ``workspace=True`` (what :class:`FileSystem`
    passes) the root follows pydantic-ai-harness's rule instead: the run's workspace's working
    directory, or ``root_dir`` resolved against it, and a workspace fsbox cannot serve is refused.
    With ``harness_events=True`` (the capability, when pydantic-ai-harness is installed) every
    change is announced as the harness's ``FileChangeRequestEvent`` first and the harness's event
    types are emitted through the run; that needs the tools to come from a capability, as
    pydantic-ai accepts capability events only from those.

    With ``audit`` (an ``fsbox.AuditLog`` or a path) every server the toolset starts logs each
    call there; see the module doc for why an audited toolset keeps one process.
    """

    def __init__(
        self,
        root_dir: str | os.PathLike[str] | None = ".",
        *,
        config: dict[str, Any] | None = None,
        binary: str | os.PathLike[str] | None = None,
        approve: ApproveMode = "rules",
        on_event: OnEvent | None = None,
        max_retries: int | None = None,
        id: str | None = "fsbox",
        workspace: bool = False,
        harness_events: bool = False,
        checkpoints: bool = False,
        audit: AuditLog | PathLike | None = None,
    ) -> None:
        if root_dir is None and not workspace:
            raise ValueError("root_dir is required unless workspace=True")
        if harness_events and not _harness.available():
            raise ValueError("harness_events=True needs pydantic-ai-harness: pip install pydantic-ai-harness")
        self.root_dir = root_dir
        self.config = dict(config or {})
        self.binary = binary
        self.max_retries = max_retries
        self.on_event = on_event
        self.workspace = workspace
        self.harness_events = harness_events
        self._gate = ChangeGate(approve)
        self._id = id
        self._clients: dict[WorkspaceRoot, AsyncClient] = {}
        # Per served root: how to start its media client, and the client once started.
        self._specs: dict[AsyncClient, tuple[str, dict[str, Any]]] = {}
        self._media: dict[AsyncClient, AsyncClient] = {}
        self._users = 0
        self._calls: list[_Call] = []
        self._change_call: _Call | None = None
        self._checkpoints = RunCheckpoints() if checkpoints else None
        self.audit = audit_log(audit)

    @property
    def id(self) -> str | None:
        return self._id

    @property
    def _client(self) -> AsyncClient | None:
        """The running client, when exactly one root is served (tests and simple hosts)."""
        return next(iter(self._clients.values()), None)

    async def __aenter__(self) -> FsboxToolset:
        self._users += 1
        if not self.workspace:
            try:
                await self._start(None)
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
        """Stop the fsbox processes, if they run; a later call starts new ones."""
        clients, self._clients = list(self._clients.values()), {}
        media, self._media = list(self._media.values()), {}
        self._specs = {}
        for client in clients + media:
            await client.close()

    def _asks(self) -> bool:
        return self._gate.asks() or self.harness_events

    async def _start(self, ctx: RunContext[Any] | None) -> AsyncClient:
        if self.workspace:
            if ctx is None:
                raise UserError("the fsbox FileSystem resolves its root from a run's workspace; use it in an agent run")
            where = await workspace_root(ctx.workspace, self.root_dir, ctx.messages)
        else:
            assert self.root_dir is not None
            where = WorkspaceRoot(os.fspath(self.root_dir), None, False)
        client = self._clients.get(where)
        if client is not None:
            return client
        if self.audit is not None and self._clients:
            # A second process on the same log: two sequences interleaved, rotations racing.
            raise UserError(
                "This fsbox toolset has an audit log and already runs a server for another workspace; "
                "one log takes one server at a time. Give each workspace its own FileSystem (or "
                "FsboxToolset) with its own `audit=` log, or run them one after the other."
            )
        config = dict(self.config)
        if where.cwd is not None and where.cwd != ".":
            config.setdefault("cwd", where.cwd)
        if where.read_only:
            config["read_only"] = True  # a read-only workspace narrows the tools, as the harness does
        if self._checkpoints is not None:
            config = self._checkpoints.configure(where.root, config)
        client = AsyncClient(
            where.root,
            config=config,
            binary=self.binary,
            on_event=self._event if (self.on_event is not None or self.harness_events) else None,
            on_change_request=self._change_request if self._asks() else None,
            # Audited: the default shape, whose reads carry an image's bytes, so no media process.
            result_shape="both" if self.audit is not None else "text",
            audit=self.audit,
        )
        await client.start()
        self._clients[where] = client
        self._specs[client] = (where.root, config)
        if self._checkpoints is not None:
            await self._checkpoints.started(where.root, client)
        return client

    async def _media_client(self, client: AsyncClient) -> AsyncClient:
        """The client that reads images and PDFs for client's root: the same root and config in
        the default shape, whose read_file result carries the bytes. It reports no events (the
        read through client already did) and answers no change requests (it only reads). Never
        for an audited toolset: its one process reads in the default shape."""
        assert self.audit is None, "an audited toolset starts no media process"
        media = self._media.get(client)
        if media is None:
            root, config = self._specs[client]
            # It keeps no journal: it changes nothing, and the run's journal directory is locked
            # by client's own session (checkpoints=True).
            config = {k: v for k, v in config.items() if k != "journal"}
            if isinstance(config.get("tools"), list):
                config["tools"] = [t for t in config["tools"] if t != "undo_last_change"]
            media = AsyncClient(root, config=config, binary=self.binary)
            await media.start()
            self._media[client] = media
        return media

    async def restore(self, *, force: bool = False) -> dict[str, Any]:
        """Put back everything the last run changed (``checkpoints=True``), per root.

        Works during a run and after it (the journal outlives the server). A file someone else
        changed since fsbox last wrote it is left alone and listed in ``not_restored``, unless
        ``force``. Returns the ``CheckpointRestoreResult`` of each root, keyed by its path.
        """
        if self._checkpoints is None:
            raise UserError("restore() needs checkpoints=True")
        running = {w.root: c for w, c in self._clients.items()}
        if self.audit is not None and running and not self._checkpoints.roots() <= {os.path.realpath(r) for r in running}:
            # Restoring a workspace whose server stopped starts one beside the running one.
            raise UserError(
                "restore() would start a second server on this toolset's audit log while a run's server "
                "is running; call it after the run."
            )
        return await self._checkpoints.restore(
            running, config=self.config, binary=self.binary, force=force, audit=self.audit
        )

    async def get_tools(self, ctx: RunContext[Any]) -> dict[str, ToolsetTool[Any]]:
        client = await self._start(ctx)
        retries = self.max_retries if self.max_retries is not None else ctx.max_retries
        tools: dict[str, ToolsetTool[Any]] = {}
        for d in client.tools():
            kind = _harness.tool_kind(d["name"]) if self.harness_events else None
            tool_def = ToolDefinition(
                name=d["name"],
                description=d["description"],
                parameters_json_schema=d["input_schema"],
                **({"tool_kind": kind} if kind is not None else {}),
            )
            tools[d["name"]] = ToolsetTool(toolset=self, tool_def=tool_def, max_retries=retries, args_validator=_ANY_ARGS)
        return tools

    async def call_tool(
        self, name: str, tool_args: dict[str, Any], ctx: RunContext[Any], tool: ToolsetTool[Any]
    ) -> Any:
        client = await self._start(ctx)
        path = tool_args.get("path")
        call = _Call(ctx, name, path if isinstance(path, str) else None)
        self._calls.append(call)
        try:
            if not is_change_tool(name) or not self._asks():
                result = await self._call(client, call, tool_args)
            else:
                async with self._gate.turn(approved=ctx.tool_call_approved) as gate:
                    self._change_call = call
                    try:
                        result = await self._call(client, call, tool_args)
                    finally:
                        self._change_call = None
                    if gate.pending is not None:
                        raise ApprovalRequired(metadata=gate.pending.metadata())
        finally:
            self._calls.remove(call)
        for event in call.events:
            await ctx.emit(event)
        return result

    async def _call(self, client: AsyncClient, call: _Call, args: dict[str, Any]) -> str | list[Any]:
        try:
            result = await client.call(call.name, args)
            if (
                call.name == "read_file"
                and client.initialize_result.result_shape == "text"
                and _MEDIA_HEADER.match(result.text)
            ):
                # An image or PDF: its bytes, with the text that describes them, from a second read.
                result = await (await self._media_client(client)).call(call.name, args)
        except ToolFatalError:
            if call.error is not None:
                # A listener raised while the change waited for it: the server applied nothing, and
                # the run stops with the listener's own exception, as it would with the harness.
                raise call.error from None
            raise
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

    # -- server callbacks ------------------------------------------------------------------------

    async def _event(self, event: Any) -> None:
        if self.on_event is not None:
            out = self.on_event(event)
            if hasattr(out, "__await__"):
                await out
        if not self.harness_events:
            return
        translated = _harness.harness_event(event)
        call = self._owner(event)
        if translated is not None and call is not None:
            call.events.append(translated)

    def _owner(self, event: Any) -> _Call | None:
        """The call in flight an event belongs to: events carry the tool's name and the resolved
        path, not a call id, so among calls of that tool the one whose path names the event's wins,
        else the oldest (events arrive before their call's response, in call order per tool)."""
        same = [c for c in self._calls if c.name == getattr(event, "tool", None)]
        if not same:
            return None
        target = getattr(event, "path", None)
        for c in same:
            if c.path is not None and posixpath.normpath(c.path) == target:
                return c
        return same[0]

    async def _change_request(self, req: ChangeRequest) -> None:
        gate = self._gate
        before = gate.pending
        gate.decide(req)
        if req.cancelled or req.edited or gate.pending is not before:
            return  # the human's decision, or waiting for one; listeners hear of what goes ahead
        call = self._change_call
        if not self.harness_events or call is None:
            return
        event = _harness.change_request_event(req)
        if event is None:
            return
        try:
            await call.ctx.emit(event)
        except BaseException as e:
            call.error = e
            raise
        reason = _harness.refusal(event)
        if reason is not None:
            req.cancel(reason)


_DEPRECATED_CWD = (
    "`FileSystem(cwd=...)` is deprecated and ignored: commands/paths start in the workspace's working "
    "directory; set it on the workspace, e.g. `LocalWorkspace('./repo')`."
)
_DEPRECATED_PROTECTED = (
    "`FileSystem(protected_patterns=...)` has been renamed to `FileSystem(read_only_patterns=...)`. "
    "Update the call; this deprecated alias will be removed in a future release."
)


def _deprecation_category() -> type[Warning]:
    """The harness's own warning class when it is installed, so a filter set for it applies."""
    try:
        from pydantic_ai_harness import HarnessDeprecationWarning
    except ImportError:
        return UserWarning
    return HarnessDeprecationWarning


READ_CHARS_UNBOUNDED = 1 << 30
"""fsbox's max_read_chars for the harness's ``max_read_chars=None`` (no character bound): a
1 GiB result bound, which only ``max_read_lines`` and the file itself can reach first."""


@dataclass
class FileSystem(AbstractCapability[Any]):
    """Drop-in for ``pydantic_ai_harness.FileSystem``, served by fsbox.

    The harness's arguments keep their names and meaning, its deprecated ``cwd`` and
    ``protected_patterns`` included (with its warnings). The root follows the harness's rule: the
    run's workspace's working directory (``LocalWorkspace(dir)``), or ``root_dir`` resolved against
    it; a workspace whose files are not on this machine is refused, never replaced by another
    directory. Without a workspace, an explicit ``root_dir`` is served as a directory on this
    machine. The defaults of the patterns and limits are fsbox's (see docs/protocol.md §3 and
    docs/frameworks.md). When pydantic-ai-harness is installed its event types are emitted with
    its payloads, so ``@agent.on_event(FileChangeRequestEvent)`` can veto a change. fsbox-only
    arguments: ``binary`` (else ``$FSBOX_BIN``, the bundled binary, ``PATH``), ``approve`` (which
    changes need a human), ``on_fsbox_event``, ``checkpoints`` (a journal and a checkpoint at the
    start of each run, so ``await fs.restore()`` puts back what the run changed), ``audit`` (an
    ``fsbox.AuditLog`` or a path: a JSON line per tool call, see the module doc), and ``config``
    for any other fsbox config field.
    """

    root_dir: str | os.PathLike[str] | None = None
    cwd: str | os.PathLike[str] | None = None
    allowed_patterns: Sequence[str] | None = None
    denied_patterns: Sequence[str] | None = None
    read_only_patterns: Sequence[str] | None = None
    max_read_lines: int | None = None
    max_read_chars: int | None = _UNSET
    max_list_results: int | None = None
    max_search_results: int | None = None
    max_find_results: int | None = None
    read_only: bool = False
    content_hashes: bool | None = None
    tools: Sequence[str] | None = None
    max_retries: int | None = field(default=None, kw_only=True)
    protected_patterns: Sequence[str] | None = field(default=None, kw_only=True)
    binary: str | os.PathLike[str] | None = field(default=None, kw_only=True)
    approve: ApproveMode = field(default="rules", kw_only=True)
    on_fsbox_event: OnEvent | None = field(default=None, kw_only=True)
    config: dict[str, Any] | None = field(default=None, kw_only=True)
    checkpoints: bool = field(default=False, kw_only=True)
    audit: AuditLog | PathLike | None = field(default=None, kw_only=True)
    _toolset: FsboxToolset | None = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        audit_log(self.audit)  # a mistyped audit fails here, not at the run's first tool call
        if self.cwd is not None:
            warnings.warn(_DEPRECATED_CWD, _deprecation_category(), stacklevel=3)
        if self.protected_patterns is not None:
            if self.read_only_patterns is not None:
                raise TypeError("Pass `read_only_patterns` only: `protected_patterns` is its deprecated name.")
            warnings.warn(_DEPRECATED_PROTECTED, _deprecation_category(), stacklevel=3)
            self.read_only_patterns, self.protected_patterns = self.protected_patterns, None

    @classmethod
    def get_serialization_name(cls) -> str | None:
        return "FsboxFileSystem"

    def get_toolset(self) -> FsboxToolset:
        if self._toolset is None:
            if self.max_read_chars is _UNSET:
                read_chars = None
            elif self.max_read_chars is None:
                read_chars = READ_CHARS_UNBOUNDED
            else:
                read_chars = self.max_read_chars
            cfg = harness_config(
                allowed_patterns=self.allowed_patterns,
                denied_patterns=self.denied_patterns,
                read_only_patterns=self.read_only_patterns,
                max_read_lines=self.max_read_lines,
                max_read_chars=read_chars,
                max_list_results=self.max_list_results,
                max_search_results=self.max_search_results,
                max_find_results=self.max_find_results,
                read_only=self.read_only,
                content_hashes=self.content_hashes,
                tools=self.tools,
                extra=self.config,
            )
            self._toolset = FsboxToolset(
                self.root_dir,
                config=cfg,
                binary=self.binary,
                approve=self.approve,
                on_event=self.on_fsbox_event,
                max_retries=self.max_retries,
                id="file_system",
                workspace=True,
                harness_events=_harness.available(),
                checkpoints=self.checkpoints,
                audit=self.audit,
            )
        return self._toolset

    async def restore(self, *, force: bool = False) -> dict[str, Any]:
        """Put back everything the last run changed; needs ``checkpoints=True``.

        Call it after ``agent.run(...)``: every file the run wrote, edited, moved or deleted is
        as it was when the run started (see FsboxToolset.restore).
        """
        return await self.get_toolset().restore(force=force)
