"""Client and AsyncClient: an fsbox server as typed Python methods.

Both spawn ``fsbox serve`` on start, initialize it with the given root and config, and stop it on
close. Every tool is a method (generated, in _client_gen.py) taking keyword arguments named as on
the wire and returning the tool's result dataclass, whose ``text`` is what the model should see.
"""

from __future__ import annotations

import asyncio
import dataclasses
import inspect
import os
from collections.abc import Callable, Mapping
from types import TracebackType
from typing import Any, Literal, TypeVar, Union

from ._client_gen import AsyncTools, SyncTools
from ._transport import (
    AsyncConnection,
    SyncConnection,
    VERSION,
    UnknownMethod,
    find_binary,
    initialize_params,
    report_callback_error,
)
from ._types_gen import (
    SCHEMA_HASH,
    TOOL_RESULTS,
    ChangeRequestResult,
    Checkpoint,
    CheckpointDiffResult,
    CheckpointListResult,
    CheckpointRestoreResult,
    Config,
    Event,
    FileChangeRequest,
    InitializeResult,
    ToolResult,
    WireError,
    event_from_wire,
)
from .errors import FsboxError, ProtocolError, ResultShapeError, SchemaMismatchError

_T = TypeVar("_T")

OnEvent = Callable[[Event], object]
"""Receives every event; may be a coroutine function. Its return value is ignored."""

OnChangeRequest = Callable[["ChangeRequest"], object]
"""Decides a change request: request.cancel(reason) refuses, request.approve_with(content) and
request.edit(arguments) approve the reviewer's replacement, returning approves, raising aborts the
call. May be a coroutine function."""

PathLike = Union[str, "os.PathLike[str]"]

@dataclasses.dataclass(frozen=True)
class AuditLog:
    """The server's audit log (``fsbox serve --audit``): one JSON line per call, an AuditRecord
    of the schema bundle, written before the call's reply. Pass it, or just its path, as
    ``audit=`` to Client or AsyncClient. The log must lie outside root_dir and every mount.

    Attributes:
        path: The log file, created 0600 when missing and appended to otherwise.
        max_bytes: Rotate the log (path.1, path.2, ...) before it would grow past this size;
            0 never rotates.
        keep: Rotated files kept; 0 means the server's default (5).
        sync: Make every line durable (fdatasync) before the reply.
    """

    path: PathLike
    max_bytes: int = 0
    keep: int = 0
    sync: bool = False

    def serve_args(self) -> list[str]:
        """The ``fsbox serve`` flags of this log."""
        args = ["--audit", os.fspath(self.path)]
        if self.max_bytes > 0:
            args += ["--audit-max-bytes", str(self.max_bytes)]
        if self.keep > 0:
            args += ["--audit-keep", str(self.keep)]
        if self.sync:
            args.append("--audit-sync")
        return args


def _audit_args(audit: AuditLog | PathLike | None) -> list[str]:
    if audit is None:
        return []
    if not isinstance(audit, AuditLog):
        audit = AuditLog(path=audit)
    return audit.serve_args()


ResultShape = Literal["both", "text", "typed"]
"""What a tool result carries (capabilities.result_shape): "both" (the default) the typed fields
and text; "text" only the text, for a program that hands only text to the model; "typed" the
typed fields without text (the typed results then have ``text == ""``)."""


@dataclasses.dataclass(kw_only=True)
class ChangeRequest(FileChangeRequest):
    """A change the server asks to approve before it touches disk.

    on_change_request receives one per change. Call cancel(reason) to refuse it: nothing is
    written and the tool returns normally with ``cancelled`` set and the reason in its text.
    Call approve_with(content) (a write's or an edit's whole new content) or edit(arguments) (the
    call's replacement arguments) to approve it with the reviewer's replacement: the server checks
    the replacement exactly as if the model had sent it and applies that instead, and the result
    has ``modified_by_reviewer`` set. Return without any of them to approve it. Raising aborts
    the call: the server applies nothing and the call fails with ToolFatalError, kind
    ``change_request_failed``. Of cancel, approve_with and edit, the last call decides.
    """

    cancelled: bool = False
    """True once cancel was called (and no approve_with or edit since)."""

    cancel_reason: str | None = None
    """The reason given to cancel; shown to the model."""

    edited_content: str | None = None
    """The reviewer's replacement content of a write or an edit, once approve_with was called."""

    edited_arguments: dict[str, Any] | None = None
    """The reviewer's replacement arguments, once edit was called."""

    def approve_with(self, content: str) -> None:
        """Approve a write or an edit with ``content`` as the file's whole new content (the
        reviewer's edit), written to the same path under the same checks as the model's change;
        the result and event say ``modified_by_reviewer``. For other operations the call fails
        with change_request_failed."""
        if not isinstance(content, str):
            raise TypeError(f"content must be a str, not {type(content).__name__}")
        self.cancelled = False
        self.edited_content, self.edited_arguments = content, None

    def cancel(self, reason: str | None = None) -> None:
        """Refuse the change. A later cancel without a reason keeps the earlier reason."""
        self.cancelled = True
        self.edited_content = self.edited_arguments = None
        if reason is not None:
            self.cancel_reason = reason

    def edit(self, arguments: Any) -> None:
        """Approve the change with the reviewer's replacement arguments for the tool call (a dict,
        or a typed ``...Args`` value), which replace the model's entirely; the server re-runs the
        tool on them with every check, as if the model had sent them. A delete or
        remove_directory cannot be edited (the server answers ``change_request_failed``)."""
        if not isinstance(arguments, Mapping):
            to_wire = getattr(arguments, "to_wire", None)
            if not callable(to_wire):
                raise TypeError(f"arguments must be a mapping or a typed ...Args value, not {type(arguments).__name__}")
            arguments = to_wire()
        self.cancelled = False
        self.edited_content, self.edited_arguments = None, dict(arguments)

    @property
    def edited(self) -> bool:
        """True once approve_with or edit was called (and no cancel since)."""
        return self.edited_content is not None or self.edited_arguments is not None

    def answer(self) -> dict[str, Any]:
        """The change_request result this request's state stands for."""
        if self.edited:
            # approve False: a server that predates edits refuses the change instead of
            # applying the model's unedited one.
            return ChangeRequestResult(
                approve=False, decision="edit", content=self.edited_content, arguments=self.edited_arguments
            ).to_wire()
        return ChangeRequestResult(
            approve=not self.cancelled, reason=self.cancel_reason if self.cancelled else None
        ).to_wire()


@dataclasses.dataclass
class RawResult:
    """The result of a tool this version of the SDK does not know, from Client.call."""

    text: str
    """Exactly what the model should see."""

    data: dict[str, Any]
    """The whole result object."""

    def to_wire(self) -> dict[str, Any]:
        """The result object as the server sent it."""
        return dict(self.data)


def _decode(decode: Callable[[Mapping[str, Any]], _T], value: Any, what: str) -> _T:
    if not isinstance(value, dict):
        raise ProtocolError(f"the {what} result is not an object: {value!r}")
    try:
        return decode(value)
    except WireError as e:
        raise ProtocolError(f"malformed {what} result: {e}") from None


def _decode_shaped(
    shape: str, name: str, value: Any, decode: Callable[[Mapping[str, Any]], _T]
) -> _T:
    """Decode a typed method's result in the session's shape (see ResultShape)."""
    if shape == "typed" and isinstance(value, dict) and "text" not in value:
        value = {**value, "text": ""}
    return _decode(decode, value, name)


def _refuse_text_shape(shape: str, name: str) -> None:
    if shape == "text":
        raise ResultShapeError(
            f'fsbox: {name}: the client was started with result_shape="text", so results carry '
            f"only their text and there is nothing to decode into a typed result; use "
            f'call({name!r}, arguments).text, or start the client without result_shape="text"'
        )


def _decode_any_tool(shape: str, name: str, value: Any) -> ToolResult | RawResult:
    decode = TOOL_RESULTS.get(name) if shape != "text" else None
    if decode is not None:
        return _decode_shaped(shape, name, value, decode)
    if not isinstance(value, dict) or not isinstance(value.get("text"), str):
        raise ProtocolError(f"the {name} result has no text: {value!r}")
    return RawResult(text=value["text"], data=value)


def _initialized(binary: str, value: Any) -> InitializeResult:
    """Decode the initialize result, after checking its schema_hash: a server of another release
    may send a result of another shape, and that is a SchemaMismatchError, not a malformed
    result."""
    if isinstance(value, dict):
        _check_schema(binary, value.get("schema_hash"))
    return _decode(InitializeResult.from_wire, value, "initialize")


def _check_schema(binary: str, schema_hash: object) -> None:
    """Refuse a server whose schema_hash is not the one this SDK was generated from."""
    if schema_hash != SCHEMA_HASH:
        raise SchemaMismatchError(
            f"{binary} answers with schema_hash {schema_hash!r}, but this SDK (fsbox "
            f"{VERSION}) was generated from {SCHEMA_HASH}; use the fsbox binary of the same "
            "release (the platform wheel bundles one), or regenerate the SDK with `fsbox gen`"
        )


def _descriptors(result: InitializeResult) -> list[dict[str, Any]]:
    return [
        {"name": t.name, "description": t.description, "input_schema": t.input_schema}
        for t in result.tools
    ]


class Client(SyncTools):
    """A running fsbox server confined to root_dir, as blocking methods.

    ::

        with fsbox.Client("workspace") as fs:
            print(fs.read_file(path="notes.txt").text)

    Args:
        root_dir: The directory every tool is confined to.
        config: An fsbox.Config or a mapping of its wire fields; root_dir is set from the
            argument above.
        binary: The fsbox binary; default $FSBOX_BIN, else fsbox on PATH.
        on_event: Called with each typed event, on the thread that reads the server's messages,
            before the call that caused it returns. May be a coroutine function.
        on_change_request: Called with a ChangeRequest before any change touches disk (see
            ChangeRequest). May be a coroutine function; it runs on a private event loop.
        result_shape: "text" asks the server for results that carry only their text (the
            typed fields are never encoded nor parsed): ``call(name, arguments)`` then returns
            a RawResult whose ``text`` is the whole result, and the typed methods raise
            ResultShapeError without sending anything. "typed" drops the text (typed results
            have ``text == ""``). Default (None): "both", every field.
        audit: An AuditLog, or the path of one: the server appends a line per call to it.

    Calls may come from many threads at once; they are pipelined over one connection. The
    callbacks must not call the client (that raises RuntimeError): they run on the reader thread.
    ``initialize_result`` holds what the server said at initialize: the resolved root_dir, cwd,
    the tool descriptors and the schema_hash.

    Raises:
        BinaryNotFoundError: no fsbox binary.
        FsboxError: initialize failed, for example on a bad config (kind invalid_arguments).
    """

    def __init__(
        self,
        root_dir: PathLike,
        *,
        config: Config | Mapping[str, Any] | None = None,
        binary: PathLike | None = None,
        on_event: OnEvent | None = None,
        on_change_request: OnChangeRequest | None = None,
        result_shape: ResultShape | None = None,
        audit: AuditLog | PathLike | None = None,
    ) -> None:
        self._on_event = on_event
        self._on_change_request = on_change_request
        self._loop: asyncio.AbstractEventLoop | None = None
        params = initialize_params(
            root_dir,
            config,
            events=on_event is not None,
            change_requests=on_change_request is not None,
            result_shape=result_shape,
        )
        found = find_binary(binary)
        self._conn = SyncConnection(found, self._notification, self._request, _audit_args(audit))
        try:
            self.initialize_result: InitializeResult = _initialized(
                found, self._conn.request("initialize", params)
            )
        except BaseException:
            self.close()
            raise

    @property
    def pid(self) -> int:
        """The process id of the server."""
        return self._conn.pid

    def tools(self) -> list[dict[str, Any]]:
        """The enabled tools as {name, description, input_schema}, ready for an LLM API.

        Anthropic's Messages API takes the list as it is; for OpenAI-style APIs pass
        ``{"type": "function", "function": {"name": ..., "description": ...,
        "parameters": input_schema}}``. The full descriptors, with output_schema, are in
        initialize_result.tools.
        """
        return _descriptors(self.initialize_result)

    def call(self, name: str, arguments: Mapping[str, Any] | None = None) -> ToolResult | RawResult:
        """Call a tool by name with wire arguments, as a model's tool call arrives.

        Returns the tool's typed result, or a RawResult for a tool this SDK does not know or
        for every tool when the client was started with result_shape="text".
        Raises ToolRetryError for an unknown tool or bad arguments: hand the message to the model.
        """
        result = self._conn.request(
            "tools/call", {"name": name, "arguments": dict(arguments or {})}
        )
        return _decode_any_tool(self.initialize_result.result_shape, name, result)

    def _call_tool(
        self, name: str, arguments: dict[str, Any], decode: Callable[[Mapping[str, Any]], _T]
    ) -> _T:
        shape = self.initialize_result.result_shape
        _refuse_text_shape(shape, name)
        result = self._conn.request("tools/call", {"name": name, "arguments": arguments})
        return _decode_shaped(shape, name, result, decode)

    # The host's checkpoint methods (docs/protocol.md §4.7); they need config journal={} (or
    # a host --journal-dir). They are the host's, never tools the model calls.

    def create_checkpoint(self, label: str = "") -> Checkpoint:
        """Mark the present moment; returns the checkpoint (its id for diff and restore)."""
        return Checkpoint.from_wire(self._conn.request("checkpoint/create", {"label": label}))

    def list_checkpoints(self) -> CheckpointListResult:
        """The checkpoints the journal keeps, oldest first, with its size and bound."""
        return CheckpointListResult.from_wire(self._conn.request("checkpoint/list", {}))

    def diff_checkpoint(self, id: str) -> CheckpointDiffResult:
        """Unified diff of everything changed since the checkpoint id."""
        return CheckpointDiffResult.from_wire(self._conn.request("checkpoint/diff", {"id": id}))

    def restore_checkpoint(self, id: str, *, force: bool = False) -> CheckpointRestoreResult:
        """Put every path changed since the checkpoint back. Paths someone else changed since
        fsbox last wrote them are left alone and listed in not_restored, unless force."""
        params: dict[str, Any] = {"id": id}
        if force:
            params["force"] = True
        return CheckpointRestoreResult.from_wire(
            self._conn.request("checkpoint/restore", params)
        )

    def close(self) -> None:
        """Stop the server (shutdown, then kill after 5 s) and wait for it. Idempotent."""
        self._conn.close()
        if self._loop is not None and self._conn.reader_finished():
            self._loop.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def _run(self, value: object) -> None:
        """Finish a callback: run it to completion on the private loop if it is a coroutine."""
        if inspect.isawaitable(value):
            if self._loop is None:
                self._loop = asyncio.new_event_loop()
            self._loop.run_until_complete(value)

    def _notification(self, method: str, params: Any) -> None:
        if method != "event" or self._on_event is None:
            return
        event = _event(params)
        if event is not None:
            self._run(self._on_event(event))

    def _request(self, method: str, params: Any) -> Any:
        if method != "change_request" or self._on_change_request is None:
            raise UnknownMethod(method)
        request = _change_request(params)
        self._run(self._on_change_request(request))
        return request.answer()


class AsyncClient(AsyncTools):
    """A running fsbox server confined to root_dir, as coroutines.

    ::

        async with fsbox.AsyncClient("workspace") as fs:
            print((await fs.read_file(path="notes.txt")).text)

    Takes the same arguments as Client; on_event and on_change_request may be plain or coroutine
    functions and run in the task that reads the server's messages, so they must not call the
    client. Start it with ``async with`` or ``await client.start()``; stop it with close().
    Cancelling a task awaiting a call cancels the call on the server ($/cancel_request).
    """

    def __init__(
        self,
        root_dir: PathLike,
        *,
        config: Config | Mapping[str, Any] | None = None,
        binary: PathLike | None = None,
        on_event: OnEvent | None = None,
        on_change_request: OnChangeRequest | None = None,
        result_shape: ResultShape | None = None,
        audit: AuditLog | PathLike | None = None,
    ) -> None:
        self._on_event = on_event
        self._on_change_request = on_change_request
        self._serve_args = _audit_args(audit)
        self._params = initialize_params(
            root_dir,
            config,
            events=on_event is not None,
            change_requests=on_change_request is not None,
            result_shape=result_shape,
        )
        self._binary = binary
        self._conn: AsyncConnection | None = None
        self._initialize_result: InitializeResult | None = None

    async def start(self) -> AsyncClient:
        """Spawn and initialize the server; a second call does nothing."""
        if self._conn is not None:
            return self
        found = find_binary(self._binary)
        self._conn = await AsyncConnection.open(
            found, self._notification, self._request, self._serve_args
        )
        try:
            result = await self._conn.request("initialize", self._params)
            self._initialize_result = _initialized(found, result)
        except BaseException:
            await self._conn.close()
            raise
        return self

    @property
    def initialize_result(self) -> InitializeResult:
        """What the server said at initialize: resolved root_dir, cwd, tools, schema_hash."""
        if self._initialize_result is None:
            raise RuntimeError(
                "fsbox: the AsyncClient is not started; use async with or await start()"
            )
        return self._initialize_result

    @property
    def pid(self) -> int:
        """The process id of the server."""
        return self._connection().pid

    def tools(self) -> list[dict[str, Any]]:
        """The enabled tools as {name, description, input_schema}; see Client.tools."""
        return _descriptors(self.initialize_result)

    async def call(
        self, name: str, arguments: Mapping[str, Any] | None = None
    ) -> ToolResult | RawResult:
        """Call a tool by name with wire arguments; see Client.call."""
        result = await self._connection().request(
            "tools/call", {"name": name, "arguments": dict(arguments or {})}
        )
        return _decode_any_tool(self.initialize_result.result_shape, name, result)

    async def _call_tool(
        self, name: str, arguments: dict[str, Any], decode: Callable[[Mapping[str, Any]], _T]
    ) -> _T:
        shape = self.initialize_result.result_shape
        _refuse_text_shape(shape, name)
        result = await self._connection().request(
            "tools/call", {"name": name, "arguments": arguments}
        )
        return _decode_shaped(shape, name, result, decode)

    # The host's checkpoint methods; see Client.create_checkpoint.

    async def create_checkpoint(self, label: str = "") -> Checkpoint:
        """Mark the present moment; see Client.create_checkpoint."""
        return Checkpoint.from_wire(
            await self._connection().request("checkpoint/create", {"label": label})
        )

    async def list_checkpoints(self) -> CheckpointListResult:
        """The checkpoints the journal keeps; see Client.list_checkpoints."""
        return CheckpointListResult.from_wire(
            await self._connection().request("checkpoint/list", {})
        )

    async def diff_checkpoint(self, id: str) -> CheckpointDiffResult:
        """Unified diff since the checkpoint id; see Client.diff_checkpoint."""
        return CheckpointDiffResult.from_wire(
            await self._connection().request("checkpoint/diff", {"id": id})
        )

    async def restore_checkpoint(self, id: str, *, force: bool = False) -> CheckpointRestoreResult:
        """Put every path changed since the checkpoint back; see Client.restore_checkpoint."""
        params: dict[str, Any] = {"id": id}
        if force:
            params["force"] = True
        return CheckpointRestoreResult.from_wire(
            await self._connection().request("checkpoint/restore", params)
        )

    async def close(self) -> None:
        """Stop the server (shutdown, then kill after 5 s) and wait for it. Idempotent."""
        if self._conn is not None:
            await self._conn.close()

    aclose = close

    async def __aenter__(self) -> AsyncClient:
        return await self.start()

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    def _connection(self) -> AsyncConnection:
        if self._conn is None:
            raise RuntimeError(
                "fsbox: the AsyncClient is not started; use async with or await start()"
            )
        return self._conn

    async def _notification(self, method: str, params: Any) -> None:
        if method != "event" or self._on_event is None:
            return
        event = _event(params)
        if event is not None:
            await _finish(self._on_event(event))

    async def _request(self, method: str, params: Any) -> Any:
        if method != "change_request" or self._on_change_request is None:
            raise UnknownMethod(method)
        request = _change_request(params)
        await _finish(self._on_change_request(request))
        return request.answer()


async def _finish(value: object) -> None:
    if inspect.isawaitable(value):
        await value


def _event(params: Any) -> Event | None:
    try:
        return event_from_wire(params) if isinstance(params, dict) else None
    except WireError:
        report_callback_error("decoding an event")
        return None


def _change_request(params: Any) -> ChangeRequest:
    if not isinstance(params, dict):
        raise ProtocolError(f"change_request params are not an object: {params!r}")
    try:
        return ChangeRequest.from_wire(params)
    except WireError as e:
        raise ProtocolError(f"malformed change_request: {e}") from None


__all__ = [
    "AsyncClient",
    "ChangeRequest",
    "Client",
    "FsboxError",
    "OnChangeRequest",
    "OnEvent",
    "RawResult",
]
